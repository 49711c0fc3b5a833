//! The seat map of a room's round: its seats as `shared::sql::SNAPSHOT_SEATS` reads them, and
//! its tickets and refunds owed (`SNAPSHOT_BOOKINGS`, `SNAPSHOT_REFUNDS`), read on the round's
//! pool; then, with the holders' names from who joined (`joined.rs`), each seat as the screens
//! show it and what the scoreboard counts of them. The seats are read as rows and named here:
//! building them as JSON with the names joined in PostgreSQL cost 6.9 ms for 500 seats by
//! EXPLAIN ANALYZE, against 0.3 ms for the rows.

use std::collections::{BTreeSet, HashMap};

use shared::protocol::room::{Seat, SeatStatus};
use shared::sql;

use crate::room::booking::{Pools, SHOW};
use crate::room::error::RoomError;
use crate::room::settings::seat_ids;
use crate::room::store::Room;

/// A row of `SNAPSHOT_SEATS`: seat, status, holder, hold id, held until.
type SeatRow = (String, String, Option<String>, Option<String>, Option<i64>);

/// What a round's seats are: their rows, the seats with a ticket and the refunds owed (none
/// before the first round).
pub struct Round {
    rows: Vec<SeatRow>,
    tickets: BTreeSet<String>,
    refunds: u64,
}

/// The seat map and what it counts: seats sold, holds run out and never released, refunds.
pub struct SeatMap {
    pub seats: Vec<Seat>,
    pub sold: u64,
    pub never_released: u64,
    pub refunds: u64,
}

/// The round's tickets and refunds owed, in one statement.
fn tickets_and_refunds() -> String {
    format!(
        "select coalesce((select array_agg(b.seat_id) from ({bookings}) as b), '{{}}'),
                (select count(*) from ({refunds}) as f)",
        bookings = sql::SNAPSHOT_BOOKINGS,
        refunds = sql::SNAPSHOT_REFUNDS,
    )
}

/// Reads the seats of `room`'s round: two statements sent at once on the round's pool (none in
/// a general-admission round).
pub async fn read(pools: &Pools, room: &Room) -> Result<Option<Round>, RoomError> {
    static TICKETS_AND_REFUNDS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    if room.round == 0 || room.played.kind.is_counter() {
        return Ok(None);
    }
    let pool = pools.of(&room.schema());
    let rows = sqlx::query_as::<_, SeatRow>(sql::SNAPSHOT_SEATS)
        .bind(SHOW)
        .fetch_all(&pool);
    let others = sqlx::query_as::<_, (Vec<String>, i64)>(
        TICKETS_AND_REFUNDS.get_or_init(tickets_and_refunds),
    )
    .bind(SHOW)
    .fetch_one(&pool);
    let (rows, (tickets, refunds)) = futures::try_join!(rows, others)?;
    Ok(Some(Round {
        rows,
        tickets: tickets.into_iter().collect(),
        refunds: refunds as u64,
    }))
}

/// The seat map of `room` at `clock`, its holders named from `names` (actor to name; a holder
/// not in it is shown by their actor name).
pub fn map(
    room: &Room,
    round: Option<Round>,
    names: &HashMap<String, String>,
    clock: i64,
) -> SeatMap {
    let Some(Round {
        rows,
        tickets,
        refunds,
    }) = round
    else {
        // A general-admission round has no seat to show; before the first round, the seats of
        // the first.
        let seats = if room.played.kind.is_counter() {
            0
        } else {
            room.settings.seats
        };
        return SeatMap {
            seats: seat_ids(seats).into_iter().map(Seat::available).collect(),
            sold: 0,
            never_released: 0,
            refunds: 0,
        };
    };
    let (mut sold, mut never_released) = (0, 0);
    let mut seats = Vec::with_capacity(rows.len());
    for (id, status, holder, _hold_id, until) in rows {
        let ticket = tickets.contains(&id);
        // The seats table allows these three words only (migration 0001).
        let status = SeatStatus::parse(&status).unwrap_or(SeatStatus::Available);
        sold += (status == SeatStatus::Booked || ticket) as u64;
        let expired = status == SeatStatus::Held && until.is_some_and(|u| u < clock);
        never_released += expired as u64;
        seats.push(Seat {
            status: if expired { SeatStatus::Expired } else { status },
            holder: holder.as_ref().map(|h| names.get(h).unwrap_or(h).clone()),
            actor: holder,
            until,
            ticket,
            id,
        });
    }
    SeatMap {
        seats,
        sold,
        never_released,
        refunds,
    }
}
