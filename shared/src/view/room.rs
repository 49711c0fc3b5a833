//! A live room's phone in one line of words: what the participant holds and for how long, what
//! the server answered their last request, sold out, the countdown. Derived from the room's
//! state as the server sends it (`GET /api/rooms/{code}`), the server's answer to the phone's
//! last request, and the server's clock as the phone estimates it; nothing else. The room's
//! page renders it, and the tests check it against a real server's state.

use serde_json::Value;

/// The round's phase, as the server's state names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Lobby,
    Countdown,
    Race,
    Results,
}

impl Phase {
    /// The phase of the state's `phase` field (anything else is the lobby).
    pub fn parse(word: &str) -> Phase {
        match word {
            "countdown" => Phase::Countdown,
            "race" => Phase::Race,
            "results" => Phase::Results,
            _ => Phase::Lobby,
        }
    }
}

/// A seat as the server's state has it (`EXPIRED`: held, and its hold has run out on the
/// server's clock: free for anyone to take).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Available,
    Held,
    Expired,
    Booked,
}

/// One seat of the state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoomSeat {
    pub id: String,
    pub status: Status,
    /// The holder's display name and actor name.
    pub holder: Option<String>,
    pub actor: Option<String>,
    /// The hold's deadline, in seconds of the round's clock.
    pub until: Option<i64>,
    pub ticket: bool,
}

impl RoomSeat {
    /// The seats of a state (`seats`), in its order.
    pub fn all(state: &Value) -> Vec<RoomSeat> {
        let text = |s: &Value, k: &str| s.get(k).and_then(Value::as_str).map(str::to_string);
        state
            .get("seats")
            .and_then(Value::as_array)
            .map(|seats| {
                seats
                    .iter()
                    .map(|s| RoomSeat {
                        id: text(s, "id").unwrap_or_default(),
                        status: match s.get("status").and_then(Value::as_str) {
                            Some("HELD") => Status::Held,
                            Some("EXPIRED") => Status::Expired,
                            Some("BOOKED") => Status::Booked,
                            _ => Status::Available,
                        },
                        holder: text(s, "holder"),
                        actor: text(s, "actor"),
                        until: s.get("until").and_then(Value::as_i64),
                        ticket: s.get("ticket").and_then(Value::as_bool).unwrap_or(false),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether a tap could take it now: free, or held past its deadline.
    pub fn free(&self) -> bool {
        matches!(self.status, Status::Available | Status::Expired) && !self.ticket
    }
}

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
    pub round: i64,
    pub holding: bool,
    pub message: String,
}

/// Everything the phone's line is derived from.
#[derive(Clone, Copy, Debug)]
pub struct Phone<'a> {
    /// The state's phase and round.
    pub phase: Phase,
    pub round: i64,
    /// This phone's actor name (the join's answer).
    pub me: &'a str,
    pub seats: &'a [RoomSeat],
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

impl Phone<'_> {
    /// The phase as the phone sees it: a countdown whose deadline the server's clock has
    /// passed is the race.
    pub fn phase_now(&self) -> Phase {
        match (self.phase, self.race_at_ms) {
            (Phase::Countdown, Some(at)) if self.now_ms >= at => Phase::Race,
            (phase, _) => phase,
        }
    }

    fn mine(&self, status: Status) -> Vec<&RoomSeat> {
        self.seats
            .iter()
            .filter(|s| s.status == status && s.actor.as_deref() == Some(self.me))
            .collect()
    }

    /// When this phone's live hold runs out on the server's clock (ms since the epoch).
    pub fn deadline_ms(&self) -> Option<i64> {
        let until = self
            .mine(Status::Held)
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
        let held: Vec<String> = self
            .mine(Status::Held)
            .iter()
            .map(|s| s.id.clone())
            .collect();
        let line = |text: String, tone: Tone| Line {
            text,
            tone,
            can_pay: false,
            can_cancel: false,
            holding: vec![],
        };
        let answer = self.answer();
        match self.phase_now() {
            Phase::Lobby => {
                return line(
                    "you are in: wait for the facilitator to start the round".into(),
                    Tone::Wait,
                )
            }
            Phase::Countdown => {
                let left = self.race_at_ms.map_or(0, |at| at - self.now_ms);
                return line(format!("get ready: {}", (left + 999) / 1000), Tone::Wait);
            }
            Phase::Race | Phase::Results => {}
        }
        if !held.is_empty() {
            let left = self.deadline_ms().map_or(0, |d| d - self.now_ms);
            let then = if self.pays { ", pay now" } else { "" };
            return Line {
                text: format!(
                    "you hold {} — {} left{then}",
                    held.join(", "),
                    clock_words(left)
                ),
                tone: Tone::Act,
                can_pay: self.pays,
                can_cancel: true,
                holding: held,
            };
        }
        let over = self.phase_now() == Phase::Results;
        let expired = self.mine(Status::Expired);
        let asked = answer.map(|a| a.asked);
        if !expired.is_empty() && asked == Some(Asked::Tap) {
            let ids: Vec<&str> = expired.iter().map(|s| s.id.as_str()).collect();
            let again = if over { "" } else { ": pick again" };
            return line(
                format!("your hold on {} ran out{again}", ids.join(", ")),
                Tone::Bad,
            );
        }
        let sold_out = !self.seats.iter().any(RoomSeat::free);
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
                return line(a.message.clone(), tone);
            }
        }
        if sold_out {
            return line("sold out: every seat is taken".into(), Tone::Bad);
        }
        if over {
            return line(
                "the round is over: wait for the next one".into(),
                Tone::Wait,
            );
        }
        line("go: tap a free seat".into(), Tone::Act)
    }
}

#[cfg(test)]
mod tests;
