//! `backend claim --confirm`: each example order of the claim table (`shared::claim`) run on
//! both real servers, each against its own database's model.

use shared::claim::families;
use shared::scenarios;
use shared::schedule::Database;
use sqlx::{MySqlPool, PgPool};

use crate::executor::RUN_TIMEOUT;
use crate::replay::replay_in;

/// Runs every family's example order on PostgreSQL and on MariaDB, printing a line for each;
/// whether every run agreed with its model.
pub async fn confirm(pool: &PgPool, mariadb: Option<&MySqlPool>) -> bool {
    let mut all = true;
    for family in families() {
        let Some((order, _)) = &family.example else {
            continue;
        };
        let base = scenarios::get(family.scenario)
            .expect("a family is a built-in")
            .schedule();
        let indices: Vec<usize> = order.iter().filter_map(|n| base.actor_index(n)).collect();
        for database in Database::ALL {
            let Ok(schedule) = base.with_order(indices.clone()).on(database) else {
                println!(
                    "{}: the order cannot run on {}",
                    family.title,
                    database.title()
                );
                continue;
            };
            let words = match replay_in(pool, mariadb, &schedule, RUN_TIMEOUT).await {
                Ok(report) if report.passed() => "agrees with its model".to_string(),
                Ok(report) => {
                    all = false;
                    format!("DIFFERS: {}", report.differences.join("; "))
                }
                Err(e) => {
                    all = false;
                    format!("could not run: {e}")
                }
            };
            println!(
                "{} on {}, order {}: {words}",
                family.title,
                database.product(),
                order.join(" ")
            );
        }
    }
    all
}
