//! The round's clock, and idle rooms swept away. While a round races, the ticker moves the
//! round schema's virtual clock to the seconds since the race opened, with the `advance`
//! statement of `shared::sql`, recorded like every other statement (the schedule's clock
//! entries). Several processes may tick one room: the room's row, locked, lets one of them
//! advance each second, once.

use std::time::Duration;

use futures::future::BoxFuture;
use shared::schedule::{op_value, Condition, Op, CLOCK};
use shared::sql;
use sqlx::PgPool;

use super::joined::Cache;
use super::store::schema_name;

const TICK: Duration = Duration::from_millis(200);
/// A room nobody touched for this long is deleted, with its round's schema.
pub const IDLE: Duration = Duration::from_secs(2 * 3600);
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// Starts the ticker on `pool`; the rooms it sweeps are forgotten by `joined`.
pub fn start(pool: PgPool, joined: std::sync::Arc<Cache>) {
    tokio::spawn(async move {
        let mut since_sweep = Duration::ZERO;
        loop {
            tokio::time::sleep(TICK).await;
            if let Err(e) = tick(&pool).await {
                tracing::debug!(error = %e, "the rooms' clock did not tick");
            }
            since_sweep += TICK;
            if since_sweep >= SWEEP_EVERY {
                since_sweep = Duration::ZERO;
                match sweep_idle(&pool, IDLE).await {
                    Ok(gone) => gone.iter().for_each(|code| joined.forget(code)),
                    Err(e) => tracing::debug!(error = %e, "idle rooms were not swept"),
                }
            }
        }
    });
}

/// Advances the clock of every racing round that is behind.
pub async fn tick(pool: &PgPool) -> Result<(), sqlx::Error> {
    let behind: Vec<(String, i32, i64, i64)> = sqlx::query_as(
        "select code, round, clock, floor(extract(epoch from clock_timestamp() - race_at))::bigint
           from lastseat_rooms.rooms where phase = 'race' and race_at <= clock_timestamp()
            and floor(extract(epoch from clock_timestamp() - race_at))::bigint > clock",
    )
    .fetch_all(pool)
    .await?;
    for (code, round, _, target) in behind {
        advance(pool, &code, round, target).await?;
    }
    Ok(())
}

/// Boxed so that the future's `Send` is checked at one lifetime (the ticker is spawned).
fn advance<'a>(
    pool: &'a PgPool,
    code: &'a str,
    round: i32,
    target: i64,
) -> BoxFuture<'a, Result<(), sqlx::Error>> {
    Box::pin(advance_now(pool, code, round, target))
}

async fn advance_now(
    pool: &PgPool,
    code: &str,
    round: i32,
    target: i64,
) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    // `no key update`, not `update`: one ticker at a time still, but every request recorded
    // meanwhile checks its foreign key to this row (`for key share`), and with `for update`
    // each of them waited for this whole transaction, once a second.
    let clock: Option<i64> = sqlx::query_scalar(
        "select clock from lastseat_rooms.rooms where code = $1 and round = $2 and phase = 'race' for no key update",
    )
    .bind(code)
    .bind(round)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(clock) = clock.filter(|c| *c < target) else {
        return Ok(());
    };
    let op = Op::Advance {
        minutes: target - clock,
    };
    let cx = sql::Context {
        show: super::booking::SHOW,
        actor: CLOCK,
        hold_minutes: 0,
        new_hold_id: String::new(),
        current_hold: String::new(),
        tx_clock: clock,
        clock,
    };
    let statement = sql::statement(&op, &cx).expect("advance has SQL");
    let path = format!("set local search_path to {}", schema_name(code, round));
    super::booking::simple(&mut tx, &path).await?;
    let sent = std::time::SystemTime::now();
    let mut q = sqlx::query(&statement.sql);
    if let [sql::Param::Int(n)] = statement.params.as_slice() {
        q = q.bind(*n);
    }
    q.execute(&mut *tx).await?;
    record(
        &mut tx,
        (code, round),
        &op,
        &statement.to_psql(),
        target,
        sent,
    )
    .await?;
    sqlx::query("update lastseat_rooms.rooms set clock = $2, touched_at = now() where code = $1")
        .bind(code)
        .bind(target)
        .execute(&mut *tx)
        .await?;
    tx.commit().await
}

/// Records the clock's advance `op` (its SQL `psql`, to `target`, sent at `sent`) as the
/// clock's next operation in round `round` of room `code`, like every other statement.
async fn record(
    tx: &mut sqlx::PgConnection,
    (code, round): (&str, i32),
    op: &Op,
    psql: &str,
    target: i64,
    sent: std::time::SystemTime,
) -> Result<(), sqlx::Error> {
    let secs = sent
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    sqlx::query(
        "insert into lastseat_rooms.requests (room, round, actor, op_index, op, sql, result, clock, sent_at, answered_at)
         select $1, $2, $3, (select coalesce(max(op_index) + 1, 0) from lastseat_rooms.requests where room = $1 and round = $2 and actor = $3),
                $4, $5, '{\"status\": \"ok\"}', $6, to_timestamp($7), clock_timestamp()",
    )
    .bind(code)
    .bind(round)
    .bind(CLOCK)
    .bind(sqlx::types::Json(op_value(op, Condition::Always)))
    .bind(psql)
    .bind(target)
    .bind(secs)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Deletes the rooms idle for longer than `idle`, and their rounds' schemas; their codes.
pub fn sweep_idle(
    pool: &PgPool,
    idle: Duration,
) -> BoxFuture<'_, Result<Vec<String>, sqlx::Error>> {
    Box::pin(sweep_idle_now(pool, idle))
}

async fn sweep_idle_now(pool: &PgPool, idle: Duration) -> Result<Vec<String>, sqlx::Error> {
    let gone: Vec<(String, i32)> = sqlx::query_as(
        "delete from lastseat_rooms.rooms where touched_at < now() - $1 * interval '1 second' returning code, round",
    )
    .bind(idle.as_secs_f64())
    .fetch_all(pool)
    .await?;
    for (code, round) in &gone {
        if *round > 0 {
            super::booking::drop_round(pool, &schema_name(code, *round)).await;
        }
    }
    Ok(gone.into_iter().map(|(c, _)| c).collect())
}
