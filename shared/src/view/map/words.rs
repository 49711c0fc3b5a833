//! A seat of the map in words: the short lines the seat shows and the whole sentence a screen
//! reader hears, all derived from the `MapSeat`.

use super::MapSeat;
use crate::engine::join;
use crate::outcome::PendingWrite;
use crate::schedule::SeatStatus;
use crate::view::display_name;

/// What a seat is, as the map colours it (and its legend names it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatState {
    Free,
    Held,
    Sold,
    /// Two tickets, or two buyers told it is theirs.
    SoldTwice,
}

impl SeatState {
    /// The legend's word.
    pub fn word(self) -> &'static str {
        match self {
            SeatState::Free => "free",
            SeatState::Held => "held",
            SeatState::Sold => "sold",
            SeatState::SoldTwice => "sold twice",
        }
    }

    /// The class both the seat and its legend key carry, so their colours are one rule.
    pub fn class(self) -> &'static str {
        match self {
            SeatState::Free => "st-free",
            SeatState::Held => "st-held",
            SeatState::Sold => "st-sold",
            SeatState::SoldTwice => "st-double",
        }
    }

    pub const ALL: [SeatState; 4] = [
        SeatState::Free,
        SeatState::Held,
        SeatState::Sold,
        SeatState::SoldTwice,
    ];
}

/// How a stored status reads in a sentence about a write.
fn written(w: &PendingWrite) -> String {
    let whose = w
        .holder
        .as_deref()
        .filter(|&h| h != w.by)
        .map(|h| format!(" for {}", display_name(h)))
        .unwrap_or_default();
    match w.status {
        SeatStatus::Available => "AVAILABLE (giving the seat back)".to_string(),
        status => format!("{}{whose}", status.as_sql()),
    }
}

impl MapSeat {
    pub fn state(&self) -> SeatState {
        match self.status {
            _ if self.double() => SeatState::SoldTwice,
            SeatStatus::Available => SeatState::Free,
            SeatStatus::Held => SeatState::Held,
            SeatStatus::Booked => SeatState::Sold,
        }
    }

    /// Everyone the seat was sold to: the buyers told it is theirs, then any other ticket
    /// holder, each once.
    pub fn buyers(&self) -> Vec<String> {
        let mut all = self.told.clone();
        for t in &self.tickets {
            if !all.contains(t) {
                all.push(t.clone());
            }
        }
        all
    }

    /// Whose the seat is, and for how long: "Adam · 9 min" (or "9 s" on a clock of seconds),
    /// "Adam · hold ran out", or every
    /// buyer of a seat sold twice.
    pub fn owner_line(&self) -> Option<String> {
        if self.double() {
            return Some(crate::view::display_names(&self.buyers()));
        }
        let who = display_name(self.holder.as_deref()?);
        Some(match (self.status, self.minutes_left) {
            (SeatStatus::Held, Some(0)) => format!("{who} · hold ran out"),
            (SeatStatus::Held, Some(m)) => format!("{who} · {}", self.clock_unit.short(m)),
            _ => who,
        })
    }

    /// A ticket sold without the seat row saying so (the unique-constraint defences).
    pub fn ticket_line(&self) -> Option<String> {
        self.sold_by_ticket().then(|| {
            format!(
                "ticket in booking_seats; the row still says {}",
                self.stored.as_sql()
            )
        })
    }

    fn sold_by_ticket(&self) -> bool {
        self.stored != SeatStatus::Booked && !self.tickets.is_empty()
    }

    /// Who holds the row lock: "First holds the row lock".
    pub fn lock_line(&self) -> Option<String> {
        crate::view::lock_line(self.lock.as_deref())
    }

    /// Who waits for the seat, in order: "Second waits", "Second, then Third wait".
    pub fn queue_line(&self) -> Option<String> {
        crate::view::queue_line(&self.queue)
    }

    /// An uncommitted write: "First writing HELD, not committed".
    pub fn pending_line(&self) -> Option<String> {
        let w = self.pending.as_ref()?;
        Some(format!(
            "{} writing {}, not committed",
            display_name(&w.by),
            written(w)
        ))
    }

    /// An uncommitted ticket: "Adam's ticket, not committed".
    pub fn pending_ticket_line(&self) -> Option<String> {
        let who = display_name(self.pending_ticket.as_deref()?);
        Some(format!("{who} inserted a ticket, not committed"))
    }

    /// The seat's live Redis key: "Redis: Adam · 4 min".
    pub fn redis_line(&self) -> Option<String> {
        let (who, left) = self.redis.as_ref()?;
        Some(format!(
            "Redis key: {} · {}",
            display_name(who),
            self.clock_unit.short(*left)
        ))
    }

    /// Everything the seat shows, as one sentence for a screen reader.
    pub fn sentence(&self) -> String {
        let mut parts = vec![format!("Seat {}: {}", self.id, self.status_clause())];
        if self.sold_by_ticket() {
            parts.push(format!(
                "its ticket is stored in booking_seats, but the seat row still says {}",
                self.stored.as_sql()
            ));
        }
        parts.extend(crate::view::lock_and_queue_clauses(
            self.lock.as_deref(),
            &self.queue,
        ));
        if let Some(w) = &self.pending {
            parts.push(format!(
                "{} has written {} and not committed: nobody else sees it yet",
                display_name(&w.by),
                written(w)
            ));
        }
        if let Some(who) = &self.pending_ticket {
            parts.push(format!(
                "{} has inserted a ticket for it and not committed",
                display_name(who)
            ));
        }
        if let Some((who, left)) = &self.redis {
            parts.push(format!(
                "its Redis key is held by {}, {} left",
                display_name(who),
                self.clock_unit.span(*left)
            ));
        }
        format!("{}.", parts.join("; "))
    }

    /// "free", "held by Adam, 9 minutes left", "sold to Adam", "sold twice: …".
    fn status_clause(&self) -> String {
        let who = self.holder.as_deref().map(display_name);
        match (self.state(), who) {
            (SeatState::SoldTwice, _) if self.told.len() > 1 => {
                let told: Vec<String> = self.told.iter().map(|a| display_name(a)).collect();
                let tickets = if self.tickets.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", tickets for {}",
                        crate::view::display_names(&self.tickets)
                    )
                };
                format!(
                    "sold twice: {} were each told it is theirs{tickets}",
                    join(&told)
                )
            }
            (SeatState::SoldTwice, _) => {
                format!(
                    "sold twice: tickets for {}",
                    crate::view::display_names(&self.tickets)
                )
            }
            (SeatState::Free, _) => "free".to_string(),
            (SeatState::Held, Some(w)) => match self.minutes_left {
                Some(0) => format!("held by {w}, whose hold has run out"),
                Some(m) => format!("held by {w}, {} left", self.clock_unit.span(m)),
                None => format!("held by {w}"),
            },
            (SeatState::Held, None) => "held".to_string(),
            (SeatState::Sold, Some(w)) => format!("sold to {w}"),
            (SeatState::Sold, None) => "sold".to_string(),
        }
    }
}
