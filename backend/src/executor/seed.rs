//! Seeding a run's schema with its scenario in one round trip: the seats, the tickets of the
//! seats that start BOOKED, and the clock.

use shared::schedule::{Schedule, SeatStatus};
use shared::sql;
use sqlx::PgConnection;

/// The whole seed in one round trip: the seats, as `sql::INSERT_SEAT` inserts them (`$1` the
/// show, `$2`–`$6` a column each, one seat per index), the tickets of the seats that start
/// BOOKED, as `sql::INSERT_BOOKING` does (`$7`–`$9`), and the clock, as `sql::SET_CLOCK` sets
/// it (`$10`). Those three are what the psql export writes, a row at a time.
const SEED: &str = "with seats as (
  insert into show_seats (show_id, seat_id, status, holder, hold_id, held_until)
  select $1, seat, status, holder, hold, until
    from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int8[])
      as t(seat, status, holder, hold, until)
), tickets as (
  insert into booking_seats (booking_id, show_id, seat_id, holder)
  select booking, $1, seat, holder from unnest($7::text[], $8::text[], $9::text[])
      as t(booking, seat, holder)
)
select setval('clock', $10)";

/// Seeds the scenario: its seats, the tickets of seats that start BOOKED, and the clock.
pub(super) async fn seed(
    monitor: &mut PgConnection,
    schedule: &Schedule,
) -> Result<(), sqlx::Error> {
    let scenario = schedule.scenario();
    if let Some(table) = sql::counter::table(scenario.kind) {
        return seed_counters(monitor, schedule, table).await;
    }
    if scenario.kind.is_username() {
        return seed_usernames(monitor, schedule).await;
    }
    let mut seats = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut tickets = (Vec::new(), Vec::new(), Vec::new());
    for seat in &scenario.seats {
        let hold_id = match seat.status {
            SeatStatus::Available => None,
            SeatStatus::Held | SeatStatus::Booked => seat.holder.as_deref().map(sql::initial_hold),
        };
        if let (SeatStatus::Booked, Some(holder), Some(booking_id)) =
            (seat.status, &seat.holder, &hold_id)
        {
            tickets.0.push(booking_id.clone());
            tickets.1.push(seat.id.clone());
            tickets.2.push(holder.clone());
        }
        seats.0.push(seat.id.clone());
        seats.1.push(seat.status.as_sql());
        seats.2.push(seat.holder.clone());
        seats.3.push(hold_id);
        seats.4.push(seat.until);
    }
    sqlx::query(SEED)
        .bind(scenario.show)
        .bind(seats.0)
        .bind(seats.1)
        .bind(seats.2)
        .bind(seats.3)
        .bind(seats.4)
        .bind(tickets.0)
        .bind(tickets.1)
        .bind(tickets.2)
        .bind(scenario.clock)
        .execute(monitor)
        .await?;
    Ok(())
}

/// Seeds a counter's rows, as `Table::insert` inserts them (what the psql export writes), and
/// the clock, in one round trip.
async fn seed_counters(
    monitor: &mut PgConnection,
    schedule: &Schedule,
    table: sql::counter::Table,
) -> Result<(), sqlx::Error> {
    let scenario = schedule.scenario();
    // `Table::insert` a row at a time, as one insert of every row.
    let value = if table.is_flag() { "v = 0" } else { "v" };
    let seed = format!(
        "with rows as (insert into {} ({}, {}) select k, {value} from unnest($1::text[], $2::int8[]) as t(k, v))
select setval('clock', $3)",
        table.name, table.key, table.column
    );
    let (keys, values): (Vec<String>, Vec<i64>) = scenario
        .seats
        .iter()
        .map(|s| (s.id.clone(), s.value.unwrap_or(0)))
        .unzip();
    sqlx::query(&seed)
        .bind(keys)
        .bind(values)
        .bind(scenario.clock)
        .execute(monitor)
        .await?;
    Ok(())
}

/// Seeds a username scenario: each taken name's account and claim (`sql::username::SEED_PG`),
/// and the clock.
async fn seed_usernames(
    monitor: &mut PgConnection,
    schedule: &Schedule,
) -> Result<(), sqlx::Error> {
    let scenario = schedule.scenario();
    for row in scenario.seats.iter().filter(|r| r.value == Some(1)) {
        sqlx::query(sql::username::SEED_PG)
            .bind(&row.id)
            .bind(sql::initial_hold(&row.id))
            .execute(&mut *monitor)
            .await?;
    }
    sqlx::query(sql::SET_CLOCK)
        .bind(scenario.clock)
        .execute(monitor)
        .await?;
    Ok(())
}
