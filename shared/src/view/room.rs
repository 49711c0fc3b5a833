//! A live room's phone in one line of words: what the participant holds and for how long, what
//! the server answered their last request, sold out, the countdown; in a general-admission
//! round, whether they got a ticket and whether any is left. Derived from the room's
//! state as the server sends it (`GET /api/rooms/{code}`), the server's answer to the phone's
//! last request, and the server's clock as the phone estimates it; nothing else. The room's
//! page renders it, and the tests check it against a real server's state.

use crate::protocol::room::{Counter, Phase, RoomState, Seat, SeatStatus};

/// What the phone asked the server for last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asked {
    Tap,
    Pay,
    Cancel,
}

/// The server's answer to the phone's last request (`holding`, `message` of the reply).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub asked: Asked,
    /// The round it was answered in.
    pub round: i32,
    pub holding: bool,
    pub message: String,
}

/// Everything the phone's line is derived from.
#[derive(Clone, Copy, Debug)]
pub struct Phone<'a> {
    /// The state's phase and round.
    pub phase: Phase,
    pub round: i32,
    /// This phone's actor name (the join's answer).
    pub me: &'a str,
    pub seats: &'a [Seat],
    /// A general-admission round's section (none in a round of seats).
    pub counter: Option<&'a Counter>,
    /// Whether the round's defence books when its holder pays (its program has a payment).
    pub pays: bool,
    /// When the race opens, on the server's clock (ms since the epoch).
    pub race_at_ms: Option<i64>,
    /// The server's clock now, as the phone estimates it from the state's `now_ms`.
    pub now_ms: i64,
    pub last: Option<&'a Answer>,
}

/// How the line reads: good news, bad news, something to do, or waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Good,
    Bad,
    Act,
    Wait,
}

impl Tone {
    pub fn class(self) -> &'static str {
        match self {
            Tone::Good => "tone-good",
            Tone::Bad => "tone-bad",
            Tone::Act => "tone-act",
            Tone::Wait => "tone-wait",
        }
    }
}

/// The phone's line, and what it offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    pub tone: Tone,
    /// Pay is offered: a live hold under a defence that books on payment.
    pub can_pay: bool,
    /// Cancel is offered, and leaving the page releases the hold: a live hold.
    pub can_cancel: bool,
    /// The seats this phone holds now (live holds), for the map.
    pub holding: Vec<String>,
}

/// `ms` as the phone's countdown shows it: `m:ss`, whole seconds rounded up, never below 0.
pub fn clock_words(ms: i64) -> String {
    let s = (ms.max(0) + 999) / 1000;
    format!("{}:{:02}", s / 60, s % 60)
}

impl<'a> Phone<'a> {
    /// The phone of actor `me` on `state`, at `now_ms` on the server's clock as the phone
    /// estimates it, after the answer `last`.
    pub fn of(state: &'a RoomState, me: &'a str, now_ms: i64, last: Option<&'a Answer>) -> Self {
        Phone {
            phase: state.phase,
            round: state.round,
            me,
            seats: &state.seats,
            counter: state.counter.as_ref(),
            pays: state.settings.defence.pays(),
            race_at_ms: state.race_at_ms,
            now_ms,
            last,
        }
    }

    /// The phase as the phone sees it: a countdown whose deadline the server's clock has
    /// passed is the race.
    pub fn phase_now(&self) -> Phase {
        match (self.phase, self.race_at_ms) {
            (Phase::Countdown, Some(at)) if self.now_ms >= at => Phase::Race,
            (phase, _) => phase,
        }
    }

    fn mine(&self, status: SeatStatus) -> Vec<&Seat> {
        self.seats
            .iter()
            .filter(|s| s.status == status && s.actor.as_deref() == Some(self.me))
            .collect()
    }

    /// When this phone's live hold runs out on the server's clock (ms since the epoch).
    pub fn deadline_ms(&self) -> Option<i64> {
        let until = self
            .mine(SeatStatus::Held)
            .iter()
            .filter_map(|s| s.until)
            .min()?;
        Some(self.race_at_ms? + until * 1000)
    }

    /// The answer to the phone's last request in this round.
    fn answer(&self) -> Option<&Answer> {
        self.last.filter(|a| a.round == self.round)
    }

    /// The phone's line.
    pub fn line(&self) -> Line {
        match self.phase_now() {
            Phase::Lobby => Line::says(
                "you are in: wait for the facilitator to start the round".into(),
                Tone::Wait,
            ),
            Phase::Countdown => {
                let left = self.race_at_ms.map_or(0, |at| at - self.now_ms);
                Line::says(format!("get ready: {}", (left + 999) / 1000), Tone::Wait)
            }
            Phase::Race | Phase::Results => self.holding().unwrap_or_else(|| self.news()),
        }
    }

    /// The line of a live hold, counting down to its deadline on the server's clock.
    fn holding(&self) -> Option<Line> {
        let held: Vec<String> = (self.mine(SeatStatus::Held).iter())
            .map(|s| s.id.clone())
            .collect();
        if held.is_empty() {
            return None;
        }
        let left = self.deadline_ms().map_or(0, |d| d - self.now_ms);
        let then = if self.pays { ", pay now" } else { "" };
        Some(Line {
            text: format!(
                "you hold {} — {} left{then}",
                held.join(", "),
                clock_words(left)
            ),
            tone: Tone::Act,
            can_pay: self.pays,
            can_cancel: true,
            holding: held,
        })
    }

    /// The line of a race or its results without a live hold: a hold run out, the answer to
    /// the last request, sold out, over, or go.
    fn news(&self) -> Line {
        let answer = self.answer();
        let over = self.phase_now() == Phase::Results;
        let expired = self.mine(SeatStatus::Expired);
        if !expired.is_empty() && answer.map(|a| a.asked) == Some(Asked::Tap) {
            let ids: Vec<&str> = expired.iter().map(|s| s.id.as_str()).collect();
            let again = if over { "" } else { ": pick again" };
            let text = format!("your hold on {} ran out{again}", ids.join(", "));
            return Line::says(text, Tone::Bad);
        }
        // A general-admission round has no seat: it is sold out when its count is.
        let sold_out = self
            .counter
            .map_or_else(|| !self.seats.iter().any(Seat::free), Counter::sold_out);
        if let Some(a) = answer {
            // A refused tap in a show with no seat left: the news is that it is sold out.
            let refused = a.asked == Asked::Tap && !a.holding;
            if !(refused && sold_out) {
                let tone = if a.holding || a.message.starts_with("paid:") {
                    Tone::Good
                } else if a.asked == Asked::Cancel {
                    Tone::Wait
                } else {
                    Tone::Bad
                };
                return Line::says(a.message.clone(), tone);
            }
        }
        let ga = self.counter.is_some();
        if sold_out {
            let text = if ga {
                "sold out: no tickets left"
            } else {
                "sold out: every seat is taken"
            };
            Line::says(text.into(), Tone::Bad)
        } else if over {
            Line::says(
                "the round is over: wait for the next one".into(),
                Tone::Wait,
            )
        } else {
            let text = if ga {
                "go: buy a ticket"
            } else {
                "go: tap a free seat"
            };
            Line::says(text.into(), Tone::Act)
        }
    }
}

impl Line {
    /// A line that offers nothing to do with a hold.
    fn says(text: String, tone: Tone) -> Line {
        Line {
            text,
            tone,
            can_pay: false,
            can_cancel: false,
            holding: vec![],
        }
    }
}

#[cfg(test)]
mod tests;
