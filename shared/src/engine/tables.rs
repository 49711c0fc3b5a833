//! The committed tables after each entry: kept as values (what a fresh READ COMMITTED
//! statement would read), shared between entries while nothing commits, and rendered with
//! the run's strings only when a trace is asked for.

use crate::outcome::{BookingRow, SeatRow, Tables};

use super::mvcc::{Db, SeatVal, Table, NOBODY};
use super::names::Names;

/// The committed rows after an entry, as values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Committed {
    pub clock: i64,
    pub seats: Vec<SeatVal>,
    /// (seat, holder, booking id)
    pub bookings: Vec<(u8, u8, u16)>,
    pub refunds: Vec<u8>,
}

impl Committed {
    /// The committed rows of `db` (committed rows are never deleted, so equal counts mean
    /// equal tables).
    pub fn of(db: &Db, seats: usize, clock: i64) -> Committed {
        let latest = db.latest();
        Committed {
            clock,
            // A username's value is its accounts: the scenario's, and those created since.
            seats: (0..seats).map(|s| db.committed_shown(s)).collect(),
            bookings: db
                .rows(Table::Booking, latest, NOBODY)
                .map(|r| (r.seat, r.holder, r.hold))
                .collect(),
            refunds: db
                .rows(Table::Refund, latest, NOBODY)
                .map(|r| r.holder)
                .collect(),
        }
    }

    /// The tables with the run's strings.
    pub fn tables(&self, names: &Names) -> Tables {
        let seats = self
            .seats
            .iter()
            .enumerate()
            .map(|(s, v)| SeatRow {
                id: names.seats[s].clone(),
                status: v.status,
                // A taken username's holder and hold are its claim's, shown in the tickets.
                holder: v
                    .holder
                    .filter(|_| !names.username())
                    .map(|h| names.names[h as usize].clone()),
                hold_id: v
                    .hold
                    .filter(|_| !names.username())
                    .map(|h| names.holds[h as usize].clone()),
                until: v.until,
                value: (names.take().is_some() || names.username()).then_some(v.value),
            })
            .collect();
        let mut bookings: Vec<BookingRow> = self
            .bookings
            .iter()
            .map(|&(seat, holder, hold)| BookingRow {
                seat: names.seats[seat as usize].clone(),
                holder: names.names[holder as usize].clone(),
                booking_id: names.holds[hold as usize].clone(),
            })
            .collect();
        bookings.sort_by(|a, b| (&a.seat, &a.booking_id).cmp(&(&b.seat, &b.booking_id)));
        let mut refunds: Vec<String> = self
            .refunds
            .iter()
            .map(|&h| names.names[h as usize].clone())
            .collect();
        refunds.sort();
        Tables {
            clock: self.clock,
            seats,
            bookings,
            refunds,
        }
    }
}
