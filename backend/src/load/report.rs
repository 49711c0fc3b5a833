//! What a load run reports: the attempts and their latencies, the percentiles, who was told they
//! got each seat, the double bookings, the time from a winning tap to the projector; and the
//! report in words.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use super::Load;

/// What came out.
#[derive(Debug, Default)]
pub struct Report {
    pub attempts: u64,
    pub refused: u64,
    pub elapsed: Duration,
    /// Every attempt's latency, sorted.
    pub latencies: Vec<Duration>,
    /// seat → buyers told they got it (`SECTION` → buyers told they got a ticket).
    pub told: BTreeMap<String, u64>,
    /// The tickets of a general-admission round.
    pub tickets: Option<u32>,
    pub scoreboard: Value,
    /// From a winning tap's sending to the seat's change on the projector's event stream.
    pub to_projector: Vec<Duration>,
    /// Winning taps whose seat was given back before the projector showed it (not timed).
    pub unseen: u64,
}

impl Report {
    pub fn percentile(&self, p: f64) -> Duration {
        percentile(&self.latencies, p)
    }

    /// The `p` percentile of `to_projector`.
    pub fn projector_percentile(&self, p: f64) -> Duration {
        percentile(&self.to_projector, p)
    }

    pub fn per_second(&self) -> f64 {
        self.attempts as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Seats two or more buyers were told they got; in a general-admission round, the buyers
    /// told they got a ticket beyond the section's tickets (oversold).
    pub fn double_bookings(&self) -> usize {
        match self.tickets {
            Some(tickets) => self
                .told
                .values()
                .sum::<u64>()
                .saturating_sub(u64::from(tickets)) as usize,
            None => self.told.values().filter(|n| **n > 1).count(),
        }
    }
}

/// The `p` percentile of sorted `values`.
fn percentile(values: &[Duration], p: f64) -> Duration {
    if values.is_empty() {
        return Duration::ZERO;
    }
    values[((values.len() as f64 - 1.0) * p).round() as usize]
}

/// The report in words.
pub fn describe(load: &Load, r: &Report) -> String {
    let what = match load.tickets {
        Some(t) => format!("a section of {t} tickets"),
        None => format!("{} seats", load.seats),
    };
    let mut out = format!(
        "{} buyers, {} on {what}, gap {} ms: {} attempts in {:.1} s = {:.0} attempts/s; p50 {:.1} ms, p99 {:.1} ms",
        load.buyers,
        load.defence,
        load.gap_ms,
        r.attempts,
        r.elapsed.as_secs_f64(),
        r.per_second(),
        r.percentile(0.5).as_secs_f64() * 1000.0,
        r.percentile(0.99).as_secs_f64() * 1000.0,
    );
    if r.refused > 0 {
        out.push_str(&format!(
            " ({} refused by the server: rate limit or busy)",
            r.refused
        ));
    }
    out.push_str(&format!(
        "\nfrom a winning tap to the projector: p50 {:.1} ms, p99 {:.1} ms over {} seats",
        r.projector_percentile(0.5).as_secs_f64() * 1000.0,
        r.projector_percentile(0.99).as_secs_f64() * 1000.0,
        r.to_projector.len()
    ));
    if r.unseen > 0 {
        out.push_str(&format!(
            " ({} taps given back before the projector showed them: not timed)",
            r.unseen
        ));
    }
    if r.told.len() <= 40 {
        out.push_str("\nbuyers told they got each seat:");
        for (seat, n) in &r.told {
            out.push_str(&format!(" {seat}:{n}"));
        }
    } else {
        let once = r.told.values().filter(|n| **n == 1).count();
        out.push_str(&format!(
            "\nbuyers told they got each seat: {once} seats to one buyer, {} to two or more",
            r.told.len() - once
        ));
    }
    let double = match load.tickets {
        Some(_) => "oversold",
        None => "double bookings",
    };
    out.push_str(&format!(
        "\n{double}: {} (told by the buyers), {} (the server's scoreboard); scoreboard {}",
        r.double_bookings(),
        r.scoreboard["double_bookings"],
        r.scoreboard
    ));
    out
}
