//! A run's own schema, made from the migration text while the actors' connections are set up
//! for it: its first step at once with the set-up, then its independent tables at once, one
//! share per connection; and which schedules must have such a schema of their own.

use futures::future::join_all;
use shared::schedule::{Isolation, Op, Schedule};
use shared::sql;
use sqlx::pool::PoolConnection;
use sqlx::{PgConnection, Postgres};

use super::ddl::{self, Step};
use super::naming::create_sql;
use super::{monitor, statement, RUN_SETTINGS};

/// What sets an actor's connection up for a run in `schema`, ending with its backend pid.
pub(super) fn actor_setup(schema: &str) -> String {
    format!(
        "set search_path to \"{schema}\"; {}; {RUN_SETTINGS}; select pg_backend_pid()",
        sql::SESSION_SETTINGS
    )
}

/// Creates `schema` on `monitor` (its independent tables at once, one share per connection)
/// and sets the actors' connections `conns` up for the run; their backend pids.
pub(super) async fn build(
    monitor: &mut PgConnection,
    schema: &str,
    conns: &mut [PoolConnection<Postgres>],
) -> Result<Vec<i32>, sqlx::Error> {
    let setup = actor_setup(schema);
    let mut steps = ddl::steps(sql::SCHEMA_DDL).into_iter().peekable();
    let first = match steps.peek() {
        Some(Step::InOrder(text)) => {
            let first = create_sql(schema, text);
            steps.next();
            first
        }
        _ => create_sql(schema, ""),
    };
    // The actors' connections are set up while the schema is being created.
    let (created, pids) = tokio::join!(
        monitor::simple(monitor, &first),
        join_all(conns.iter_mut().map(|c| statement::setup(c, &setup)))
    );
    created?;
    let pids = pids.into_iter().collect::<Result<Vec<i32>, _>>()?;
    for step in steps {
        match step {
            Step::InOrder(text) => {
                monitor::simple(monitor, &text).await?;
            }
            Step::AtOnce(tables) => at_once(monitor, conns, &tables).await?,
        }
    }
    Ok(pids)
}

/// Creates `tables`, which depend on none of each other, on the monitor and the actors'
/// connections at once, each a share of them.
async fn at_once(
    monitor: &mut PgConnection,
    conns: &mut [PoolConnection<Postgres>],
    tables: &[&str],
) -> Result<(), sqlx::Error> {
    let all: Vec<&mut PgConnection> = std::iter::once(monitor)
        .chain(conns.iter_mut().map(|c| &mut **c))
        .collect();
    let k = all.len();
    let parts: Vec<String> = (0..k)
        .map(|j| {
            tables
                .iter()
                .skip(j)
                .step_by(k)
                .map(|t| format!("{t};\n"))
                .collect()
        })
        .collect();
    let created = join_all(
        all.into_iter()
            .zip(&parts)
            .filter(|(_, part)| !part.is_empty())
            .map(|(conn, part)| monitor::simple(conn, part)),
    )
    .await;
    for result in created {
        result?;
    }
    Ok(())
}

/// Whether `schedule` must run in a schema that no run used before, and that none will use
/// after it: it has a SERIALIZABLE transaction. PostgreSQL's predicate locks name a table by
/// its oid, and those of a committed serializable transaction outlive it while any serializable
/// transaction on the server overlaps it (another run's, say); in a reused schema they would
/// meet the next run's writes. And a table emptied many times has its rows where the model's
/// one heap page does not (updates stop being HOT, and an index page's predicate lock then
/// conflicts). Both only matter to SERIALIZABLE, which alone checks predicate locks.
pub(crate) fn fresh_only(schedule: &Schedule) -> bool {
    schedule.actors().iter().any(|a| {
        a.program.iter().any(|op| {
            matches!(
                op,
                Op::Begin {
                    isolation: Isolation::Serializable
                }
            )
        })
    })
}
