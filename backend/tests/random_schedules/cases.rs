//! The cases: random schedule files of a kind, each moved to its database and given a random
//! order that the model runs to its end, with the entries the model names races; and, with
//! `RANDOM_SCHEDULES_WRITE=DIR`, their files written out to replay one alone.

use serde_json::{json, Value};
use shared::engine::Engine;
use shared::schedule::Database;
use shared::Schedule;

use super::{counters, mixed, queues, usernames, Kind, Rng};

/// One random schedule and its order: the file as JSON (for a failure to print, with its
/// `"engine"`), the schedule, and the entries the model marks as races.
pub struct Case {
    pub file: Value,
    pub schedule: Schedule,
    pub races: Vec<usize>,
}

/// Whether the model of `db` runs `confirm` (the InnoDB model may refuse it: `Schedule::on`
/// then answers an error naming it), asked of a one-buyer schedule that holds and confirms.
fn confirms(db: Database) -> bool {
    let probe = json!({
        "version": 1,
        "name": "does it confirm",
        "scenario": { "show": 1, "hold_minutes": 10, "seats": [{ "id": "A1" }] },
        "actors": { "ana": [{ "op": "hold", "seats": ["A1"] }, { "op": "confirm" }] },
    });
    Schedule::parse_json(&probe.to_string())
        .expect("a valid probe")
        .on(db)
        .is_ok()
}

impl Kind {
    fn file(self, rng: &mut Rng, n: u64, confirms: bool) -> Value {
        match self {
            Kind::Mixed => mixed::file(rng, n, confirms),
            Kind::Queues => queues::file(rng, n),
            Kind::Counters => counters::file(rng, n),
            Kind::Usernames => usernames::file(rng, n),
        }
    }

    /// Whether the `n`th schedule's order mostly sends next the buyer that has sent the fewest
    /// entries: every deep queue, every other counter and username schedule.
    fn queue_first(self, n: u64) -> bool {
        match self {
            Kind::Mixed => false,
            Kind::Queues => true,
            Kind::Counters | Kind::Usernames => n.is_multiple_of(2),
        }
    }
}

/// `count` cases of `kind` on `db` from `seed`. The files are drawn without the operations the
/// model of `db` refuses; one it refuses all the same fails here, naming it.
pub fn cases(kind: Kind, db: Database, count: usize, seed: u64) -> Vec<Case> {
    let confirms = confirms(db);
    let mut rng = Rng(seed | 1);
    let mut cases = Vec::new();
    let mut n = 0;
    while cases.len() < count {
        n += 1;
        let mut file = kind.file(&mut rng, n, confirms);
        let schedule = Schedule::parse_json(&file.to_string())
            .unwrap_or_else(|e| panic!("a random schedule the parser refused: {e}\n{file}"))
            .on(db)
            .unwrap_or_else(|e| {
                panic!("a random schedule the model of {db:?} refuses: {e}\n{file}")
            });
        if db != Database::Postgresql {
            file["engine"] = json!(db.id());
        }
        let Some((order, races)) = random_order(&mut rng, &schedule, kind.queue_first(n)) else {
            continue;
        };
        let names: Vec<&str> = order
            .iter()
            .map(|&a| schedule.actors()[a].name.as_str())
            .collect();
        file["order"] = json!(names);
        cases.push(Case {
            file,
            schedule: schedule.with_order(order),
            races,
        });
    }
    cases
}

/// A random order the model can run to its end (nobody sent while waiting), with the entries
/// the model marks as races; `None` when the programs get stuck. With `queue_first`, it mostly
/// sends next the buyer that has sent the fewest entries, so that everyone begins and queues
/// before anyone finishes.
fn random_order(
    rng: &mut Rng,
    schedule: &Schedule,
    queue_first: bool,
) -> Option<(Vec<usize>, Vec<usize>)> {
    let mut engine = Engine::new(schedule);
    let mut order = Vec::new();
    let mut sent = vec![0usize; schedule.actors().len()];
    loop {
        let ready: Vec<usize> = (0..schedule.actors().len())
            .filter(|&a| engine.blocked(a).is_none())
            .collect();
        if ready.is_empty() {
            break;
        }
        let a = if queue_first && rng.chance(75) {
            let fewest = ready
                .iter()
                .map(|&a| sent[a])
                .min()
                .expect("someone is ready");
            let behind: Vec<usize> = ready
                .iter()
                .copied()
                .filter(|&a| sent[a] == fewest)
                .collect();
            *rng.pick(&behind)
        } else {
            *rng.pick(&ready)
        };
        engine.step(a).ok()?;
        sent[a] += 1;
        order.push(a);
    }
    let stuck = (0..schedule.actors().len()).any(|a| engine.waiting(a));
    (!stuck).then(|| (order, engine.races().to_vec()))
}

/// With `RANDOM_SCHEDULES_WRITE=DIR`, writes every case's file into DIR, named after the
/// schedule and the seed and its database if not PostgreSQL (`random-schedule-2970-seed-97.json`,
/// `deep-queue-12-innodb-seed-97.json`), so
/// that a campaign's schedules can be replayed one by one with `backend replay` or `verify`.
pub fn write_files(seed: u64, db: Database, cases: &[Case]) {
    let Ok(dir) = std::env::var("RANDOM_SCHEDULES_WRITE") else {
        return;
    };
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot make {dir}: {e}"));
    for case in cases {
        let name = case.file["name"]
            .as_str()
            .unwrap_or("schedule")
            .replace(' ', "-");
        let path = std::path::Path::new(&dir).join(match db {
            Database::Postgresql => format!("{name}-seed-{seed}.json"),
            _ => format!("{name}-{}-seed-{seed}.json", db.id()),
        });
        let text = serde_json::to_string_pretty(&case.file).expect("a JSON value");
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {path:?}: {e}"));
    }
}
