//! A general-admission round's section as the screens show it: its row as PostgreSQL holds it
//! (read on the round's pool with `shared::sql::counter`'s table), and the buyers told they got
//! a ticket (`room_reads.rs` counts them), so that the projector can say "103 sold of 100".

use shared::protocol::room::Counter;
use shared::sql;

use crate::room::booking::Pools;
use crate::room::error::RoomError;
use crate::room::settings::SECTION;
use crate::room::store::Room;

/// The tickets left in the round's section, as its row holds them (none before the first
/// round, or if the round sells seats).
pub async fn read(pools: &Pools, room: &Room) -> Result<Option<i64>, RoomError> {
    static SQL: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let Some(sql) = SQL
        .get_or_init(|| {
            let t = sql::counter::table(shared::schedule::Shape::GeneralAdmission)?;
            Some(format!(
                "select {} from {} where {} = $1",
                t.column, t.name, t.key
            ))
        })
        .as_deref()
    else {
        return Ok(None);
    };
    if room.round == 0 || !room.played.kind.is_counter() {
        return Ok(None);
    }
    let pool = pools.of(&room.schema());
    let left: Option<i64> = sqlx::query_scalar(sql)
        .bind(SECTION)
        .fetch_optional(&pool)
        .await?;
    Ok(left)
}

/// The section of `room`'s round: `left` as read (every ticket before the first round), and
/// `sold` the buyers told they got one.
pub fn of(room: &Room, left: Option<i64>, sold: u64) -> Counter {
    let tickets = room.played.tickets;
    Counter {
        section: SECTION.to_string(),
        tickets,
        left: left.unwrap_or(tickets.into()),
        sold,
        oversold: sold.saturating_sub(tickets.max(0) as u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::room::store::Played;
    use shared::protocol::room::{Phase, Settings};
    use shared::schedule::Shape;

    fn room(tickets: i32) -> Room {
        Room {
            code: "ACDEF".into(),
            settings: Settings::default(),
            round: 1,
            phase: Phase::Race,
            race_at_ms: Some(0),
            now_ms: 0,
            played: Played {
                kind: Shape::GeneralAdmission,
                seats: 8,
                tickets,
            },
        }
    }

    #[test]
    fn buyers_told_yes_beyond_the_tickets_are_the_oversold() {
        let c = of(&room(100), Some(-3), 103);
        assert_eq!((c.tickets, c.left, c.sold, c.oversold), (100, -3, 103, 3));
        let fresh = of(&room(100), None, 0);
        assert_eq!((fresh.left, fresh.oversold), (100, 0));
        assert!(!fresh.sold_out());
        assert!(of(&room(3), Some(0), 3).sold_out());
    }
}
