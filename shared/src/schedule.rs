//! The schedule format (version 1): what a file says, and the validated `Schedule` it parses to.
//!
//! `ScheduleFile` is the serde shape of a file; `Schedule::parse` turns it into a `Schedule`
//! whose invariants hold (known actors and seats, program order, limits). Every error names the
//! field, says what is wrong and how to fix it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::defences;

/// Limits that keep a run bounded, in the browser and on the real database alike.
pub const MAX_ACTORS: usize = 8;
pub const MAX_OPS_PER_ACTOR: usize = 32;
pub const MAX_ORDER: usize = 128;
pub const MAX_SEATS: usize = 64;
pub const MAX_MINUTES: i64 = 100_000;

/// The actor that runs clock operations (`advance`, `sweep`).
pub const CLOCK: &str = "clock";

/// A schedule file as written (format version 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScheduleFile {
    pub version: u32,
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub scenario: Scenario,
    pub actors: BTreeMap<String, ProgramSpec>,
    #[serde(default)]
    pub order: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

/// The initial state: one show, its seats, the hold length and the clock's start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default = "default_show")]
    pub show: i64,
    #[serde(default = "default_hold_minutes")]
    pub hold_minutes: i64,
    #[serde(default)]
    pub clock: i64,
    pub seats: Vec<SeatSpec>,
}

fn default_show() -> i64 {
    501
}

fn default_hold_minutes() -> i64 {
    10
}

/// A seat at the start of the scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatSpec {
    pub id: String,
    #[serde(default)]
    pub status: SeatStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
}

/// The stored status of a seat row.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "UPPERCASE")]
pub enum SeatStatus {
    #[default]
    Available,
    Held,
    Booked,
}

impl SeatStatus {
    pub fn as_sql(self) -> &'static str {
        match self {
            SeatStatus::Available => "AVAILABLE",
            SeatStatus::Held => "HELD",
            SeatStatus::Booked => "BOOKED",
        }
    }

    pub fn from_sql(s: &str) -> Option<SeatStatus> {
        match s {
            "AVAILABLE" => Some(SeatStatus::Available),
            "HELD" => Some(SeatStatus::Held),
            "BOOKED" => Some(SeatStatus::Booked),
            _ => None,
        }
    }
}

/// An actor's program: a list of operations, or a defence by name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProgramSpec {
    Ops(Vec<serde_json::Value>),
    Defence {
        defence: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seats: Option<Vec<String>>,
    },
}

/// Transaction isolation levels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Isolation {
    #[default]
    #[serde(rename = "read committed")]
    ReadCommitted,
    #[serde(rename = "repeatable read")]
    RepeatableRead,
    #[serde(rename = "serializable")]
    Serializable,
}

impl Isolation {
    pub fn as_sql(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "read committed",
            Isolation::RepeatableRead => "repeatable read",
            Isolation::Serializable => "serializable",
        }
    }
}

/// How a locking read treats a row that someone else has locked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wait {
    #[default]
    Wait,
    Nowait,
    SkipLocked,
}

/// Which clock reading a deadline test uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Now {
    /// Fixed when the transaction began, like `now()`.
    Transaction,
    /// When the statement began, like `statement_timestamp()`.
    Statement,
    /// Read each time the condition is evaluated, like `clock_timestamp()`.
    Evaluation,
}

impl Now {
    pub fn as_str(self) -> &'static str {
        match self {
            Now::Transaction => "transaction",
            Now::Statement => "statement",
            Now::Evaluation => "evaluation",
        }
    }
}

/// What the payment provider answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PayOutcome {
    #[default]
    Succeeds,
    Declined,
    /// A timeout: the money may or may not have moved. The provider did take it; a retry with
    /// the same idempotency key learns so.
    Unknown,
}

fn default_held() -> SeatStatus {
    SeatStatus::Held
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// One operation: exactly one round trip to the database (`pay` and the Redis ops excepted:
/// they talk to the payment provider and to a simulated Redis).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    Begin {
        #[serde(default, skip_serializing_if = "is_default")]
        isolation: Isolation,
    },
    Commit,
    Rollback,
    Read {
        seats: Vec<String>,
    },
    Lock {
        seats: Vec<String>,
        #[serde(default, skip_serializing_if = "is_default")]
        wait: Wait,
    },
    Write {
        seats: Vec<String>,
        #[serde(default = "default_held")]
        status: SeatStatus,
    },
    Claim {
        seats: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        now: Option<Now>,
    },
    Book {
        seats: Vec<String>,
    },
    Hold {
        seats: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        attempt: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        now: Option<Now>,
    },
    Confirm {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        now: Option<Now>,
    },
    Pay {
        #[serde(default, skip_serializing_if = "is_default")]
        outcome: PayOutcome,
    },
    Release,
    /// A hold kept in Redis instead of the database, simulated like the payment provider (no
    /// PostgreSQL round trip): `SET hold:{show}:{seat} {hold id} NX PX {hold length}` for every
    /// seat, all or nothing (a Lua script when there are several). It answers `held` if no
    /// seat had a live key, else `unavailable`; the key dies by itself when its time runs out.
    RedisHold {
        seats: Vec<String>,
    },
    /// Deletes this actor's Redis hold keys, only where the key still holds its hold id (a
    /// compare-and-delete script): `released`, or `expired` when none was left.
    RedisRelease,
    Advance {
        minutes: i64,
    },
    Sweep,
}

impl Op {
    /// The op's name as written in a file.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Begin { .. } => "begin",
            Op::Commit => "commit",
            Op::Rollback => "rollback",
            Op::Read { .. } => "read",
            Op::Lock { .. } => "lock",
            Op::Write { .. } => "write",
            Op::Claim { .. } => "claim",
            Op::Book { .. } => "book",
            Op::Hold { .. } => "hold",
            Op::Confirm { .. } => "confirm",
            Op::Pay { .. } => "pay",
            Op::Release => "release",
            Op::RedisHold { .. } => "redis_hold",
            Op::RedisRelease => "redis_release",
            Op::Advance { .. } => "advance",
            Op::Sweep => "sweep",
        }
    }

    /// The seats the op names (empty for ops that name none).
    pub fn seats(&self) -> &[String] {
        match self {
            Op::Read { seats }
            | Op::Lock { seats, .. }
            | Op::Write { seats, .. }
            | Op::Claim { seats, .. }
            | Op::Book { seats }
            | Op::Hold { seats, .. }
            | Op::RedisHold { seats } => seats,
            _ => &[],
        }
    }

    fn seats_mut(&mut self) -> Option<&mut Vec<String>> {
        match self {
            Op::Read { seats }
            | Op::Lock { seats, .. }
            | Op::Write { seats, .. }
            | Op::Claim { seats, .. }
            | Op::Book { seats }
            | Op::Hold { seats, .. }
            | Op::RedisHold { seats } => Some(seats),
            _ => None,
        }
    }

    /// The clock reading its deadline test uses, with the op's default filled in.
    pub fn now(&self) -> Now {
        match self {
            Op::Claim { now, .. } => now.unwrap_or(Now::Transaction),
            Op::Hold { now, .. } | Op::Confirm { now } => now.unwrap_or(Now::Evaluation),
            _ => Now::Transaction,
        }
    }

    /// One-call operations run as their own transaction and may not sit inside `begin`.
    pub fn is_one_call(&self) -> bool {
        matches!(
            self,
            Op::Hold { .. }
                | Op::Confirm { .. }
                | Op::Release
                | Op::Pay { .. }
                | Op::RedisHold { .. }
                | Op::RedisRelease
        )
    }

    /// Talks to the simulated Redis, not to PostgreSQL.
    pub fn is_redis(&self) -> bool {
        matches!(self, Op::RedisHold { .. } | Op::RedisRelease)
    }

    /// Can get the actor seats: a hold (in the database or in Redis), a claim, a write, a
    /// ticket.
    pub fn takes_seats(&self) -> bool {
        matches!(
            self,
            Op::Hold { .. }
                | Op::RedisHold { .. }
                | Op::Claim { .. }
                | Op::Write { .. }
                | Op::Book { .. }
        )
    }

    /// A statement that can run inside a transaction or, outside one, as one of its own.
    pub fn is_statement(&self) -> bool {
        matches!(
            self,
            Op::Read { .. }
                | Op::Lock { .. }
                | Op::Write { .. }
                | Op::Claim { .. }
                | Op::Book { .. }
        )
    }

    pub fn is_clock_op(&self) -> bool {
        matches!(self, Op::Advance { .. } | Op::Sweep)
    }
}

/// What a schedule says must come out; keys it does not give are not checked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub double_booked: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_seat: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund_due: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unpaid_hold: Option<Vec<String>>,
    /// The buyers whose ticket was issued after their hold's deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub booked_late: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub told: Option<BTreeMap<String, Vec<String>>>,
    #[serde(default, rename = "final", skip_serializing_if = "Option::is_none")]
    pub final_seats: Option<BTreeMap<String, FinalSeat>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<String>>,
}

/// A seat's stored state at the end, as `expect.final` states it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FinalSeat {
    pub status: SeatStatus,
    #[serde(default)]
    pub holder: Option<String>,
}

/// An error in a schedule: the field it is in, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{field}: {message}")]
pub struct ScheduleError {
    pub field: String,
    pub message: String,
}

impl ScheduleError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ScheduleError {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// When an operation of a program runs: always, or only if an earlier answer of its own buyer
/// says so (an application does not pay for a seat it was refused, and retries a transaction
/// that failed). An operation whose condition does not hold is `skipped`, so programs keep
/// their length and every order stays a permutation of the entries. Written `"if": "held"` or
/// `"if": "failed"` on an operation of a file; the exact rules are `client`'s (the module's
/// documentation), the one place that decides them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    #[default]
    Always,
    /// Only while the buyer's application was told it has its seats.
    Held,
    /// Only if the buyer's last attempt failed in a way worth retrying.
    Failed,
}

/// One actor and its program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    pub name: String,
    pub program: Vec<Op>,
    /// The condition of each operation of `program`, index for index.
    pub conditions: Vec<Condition>,
    /// The defence that generated the program, when the file named one.
    pub defence: Option<String>,
}

/// A validated schedule: every actor and seat is known, programs fit the limits, the order
/// never runs an actor past the end of its program.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    name: String,
    scenario: Scenario,
    actors: Vec<Actor>,
    order: Vec<usize>,
    expect: Option<Expect>,
}

impl Actor {
    /// The condition under which operation `op_index` of the program runs.
    pub fn condition(&self, op_index: usize) -> Condition {
        self.conditions.get(op_index).copied().unwrap_or_default()
    }
}

impl Schedule {
    /// Parses JSON text into a validated schedule.
    pub fn parse_json(text: &str) -> Result<Schedule, ScheduleError> {
        let file: ScheduleFile = serde_json::from_str(text).map_err(|e| {
            ScheduleError::new(
                "schedule",
                format!(
                    "not a valid schedule file (line {}, column {}): {e}",
                    e.line(),
                    e.column()
                ),
            )
        })?;
        Schedule::parse(file)
    }

    /// Validates a schedule file.
    pub fn parse(file: ScheduleFile) -> Result<Schedule, ScheduleError> {
        if file.version != 1 {
            return Err(ScheduleError::new(
                "version",
                format!(
                    "version {} is not supported; this is format version 1: write \"version\": 1",
                    file.version
                ),
            ));
        }
        let scenario = parse_scenario(file.scenario)?;
        if file.actors.is_empty() {
            return Err(ScheduleError::new(
                "actors",
                "no actors: give at least one buyer and its program",
            ));
        }
        if file.actors.len() > MAX_ACTORS {
            return Err(ScheduleError::new(
                "actors",
                format!(
                    "{} actors is more than the limit of {MAX_ACTORS}",
                    file.actors.len()
                ),
            ));
        }
        let seat_ids: Vec<&str> = scenario.seats.iter().map(|s| s.id.as_str()).collect();
        let mut actors = Vec::with_capacity(file.actors.len());
        for (name, spec) in file.actors {
            check_actor_name(&name)?;
            actors.push(parse_actor(&name, spec, &scenario, &seat_ids)?);
        }
        for seat in &scenario.seats {
            if let Some(holder) = &seat.holder {
                check_name(&format!("scenario.seats.{}.holder", seat.id), holder)?;
            }
        }
        let order = if file.order.is_empty() {
            round_robin(&actors)
        } else {
            parse_order(&file.order, &actors)?
        };
        let holders: Vec<&str> = scenario
            .seats
            .iter()
            .filter_map(|s| s.holder.as_deref())
            .collect();
        let expect = file
            .expect
            .map(|e| check_expect(e, &actors, &holders, &seat_ids, order.len()))
            .transpose()?;
        Ok(Schedule {
            name: file.name,
            scenario,
            actors,
            order,
            expect,
        })
    }

    /// Builds a schedule from parts already validated elsewhere (the explorer's reorderings).
    pub fn with_order(&self, order: Vec<usize>) -> Schedule {
        Schedule {
            order,
            ..self.clone()
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    pub fn actors(&self) -> &[Actor] {
        &self.actors
    }
    /// The order as indices into `actors()`.
    pub fn order(&self) -> &[usize] {
        &self.order
    }
    pub fn expect(&self) -> Option<&Expect> {
        self.expect.as_ref()
    }

    /// Whether some actor's program has an operation for which `f` holds.
    pub fn any_op(&self, f: impl Fn(&Op) -> bool) -> bool {
        self.actors.iter().any(|a| a.program.iter().any(&f))
    }

    pub fn actor_index(&self, name: &str) -> Option<usize> {
        self.actors.iter().position(|a| a.name == name)
    }

    /// The order with every actor's program run to its end, appending the missing entries in
    /// actor order: the multiset of entries that the explorer permutes.
    pub fn full_multiset(&self) -> Vec<usize> {
        (0..self.actors.len())
            .flat_map(|i| std::iter::repeat_n(i, self.actors[i].program.len()))
            .collect()
    }

    /// Back to the file format (defences stay expanded into their programs).
    pub fn to_file(&self) -> ScheduleFile {
        ScheduleFile {
            version: 1,
            name: self.name.clone(),
            description: None,
            scenario: self.scenario.clone(),
            actors: self
                .actors
                .iter()
                .map(|a| {
                    let ops = a
                        .program
                        .iter()
                        .enumerate()
                        .map(|(i, op)| op_value(op, a.condition(i)))
                        .collect();
                    (a.name.clone(), ProgramSpec::Ops(ops))
                })
                .collect(),
            order: self
                .order
                .iter()
                .map(|&i| self.actors[i].name.clone())
                .collect(),
            expect: self.expect.clone(),
        }
    }

    /// Replaces the expectations (the page fills them from the current outcome on export).
    pub fn set_expect(&mut self, expect: Option<Expect>) {
        self.expect = expect;
    }
}

/// An operation as a file writes it, with its `"if"` unless it always runs.
pub fn op_value(op: &Op, condition: Condition) -> serde_json::Value {
    let mut value = serde_json::to_value(op).expect("ops serialise");
    if condition != Condition::Always {
        if let Some(o) = value.as_object_mut() {
            o.insert(
                "if".to_string(),
                serde_json::to_value(condition).expect("conditions serialise"),
            );
        }
    }
    value
}

fn parse_scenario(mut scenario: Scenario) -> Result<Scenario, ScheduleError> {
    if !(1..=1440).contains(&scenario.hold_minutes) {
        return Err(ScheduleError::new(
            "scenario.hold_minutes",
            format!(
                "{} is out of range: give a hold length between 1 and 1440 minutes",
                scenario.hold_minutes
            ),
        ));
    }
    if !(0..=MAX_MINUTES).contains(&scenario.clock) {
        return Err(ScheduleError::new(
            "scenario.clock",
            format!(
                "{} is out of range: the clock starts between minute 0 and {MAX_MINUTES}",
                scenario.clock
            ),
        ));
    }
    if !(1..=i64::from(i32::MAX)).contains(&scenario.show) {
        return Err(ScheduleError::new(
            "scenario.show",
            "the show id must be a positive number",
        ));
    }
    if scenario.seats.is_empty() {
        return Err(ScheduleError::new(
            "scenario.seats",
            "no seats: give at least one, e.g. {\"id\": \"A7\"}",
        ));
    }
    if scenario.seats.len() > MAX_SEATS {
        return Err(ScheduleError::new(
            "scenario.seats",
            format!(
                "{} seats is more than the limit of {MAX_SEATS}",
                scenario.seats.len()
            ),
        ));
    }
    for (i, seat) in scenario.seats.iter().enumerate() {
        let field = format!("scenario.seats[{i}]");
        check_seat_id(&format!("{field}.id"), &seat.id)?;
        match (seat.status, &seat.holder, seat.until) {
            (SeatStatus::Available, None, None) => {}
            (SeatStatus::Available, _, _) => {
                return Err(ScheduleError::new(field, "an AVAILABLE seat has no holder and no until: remove them"))
            }
            (SeatStatus::Held, Some(_), Some(until)) if (0..=MAX_MINUTES).contains(&until) => {}
            (SeatStatus::Held, _, _) => {
                return Err(ScheduleError::new(
                    field,
                    "a HELD seat needs a holder and an until minute (0 or more), e.g. {\"id\": \"A14\", \"status\": \"HELD\", \"holder\": \"a\", \"until\": 5}",
                ))
            }
            (SeatStatus::Booked, Some(_), None) => {}
            (SeatStatus::Booked, _, _) => {
                return Err(ScheduleError::new(field, "a BOOKED seat needs a holder and no until"))
            }
        }
        if scenario.seats[..i].iter().any(|s| s.id == seat.id) {
            return Err(ScheduleError::new(
                format!("{field}.id"),
                format!("seat {} is listed twice", seat.id),
            ));
        }
    }
    scenario.seats.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(scenario)
}

fn check_seat_id(field: &str, id: &str) -> Result<(), ScheduleError> {
    let ok = !id.is_empty() && id.len() <= 8 && id.chars().all(|c| c.is_ascii_alphanumeric());
    if ok {
        Ok(())
    } else {
        Err(ScheduleError::new(
            field,
            format!("{id:?} is not a seat id: use 1 to 8 letters and digits, e.g. \"A7\""),
        ))
    }
}

fn check_name(field: &str, name: &str) -> Result<(), ScheduleError> {
    let ok = !name.is_empty()
        && name.len() <= 16
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(ScheduleError::new(
            field,
            format!("{name:?} is not an actor name: use 1 to 16 lowercase letters, digits or _, e.g. \"adam\""),
        ))
    }
}

fn check_actor_name(name: &str) -> Result<(), ScheduleError> {
    check_name(&format!("actors.{name}"), name)
}

fn parse_actor(
    name: &str,
    spec: ProgramSpec,
    scenario: &Scenario,
    seat_ids: &[&str],
) -> Result<Actor, ScheduleError> {
    let field = format!("actors.{name}");
    let (raw, written, defence) = match spec {
        ProgramSpec::Ops(values) => {
            let mut ops = Vec::with_capacity(values.len());
            let mut conditions = Vec::with_capacity(values.len());
            for (i, mut value) in values.into_iter().enumerate() {
                let at = format!("{field}[{i}]");
                conditions.push(take_condition(&at, name, &mut value)?);
                ops.push(parse_op(&at, value)?);
            }
            (ops, conditions, None)
        }
        ProgramSpec::Defence { defence, seats } => {
            let seats = seats.unwrap_or_else(|| vec![scenario.seats[0].id.clone()]);
            let (ops, conditions) = defences::program(&defence, &seats).ok_or_else(|| {
                ScheduleError::new(
                    format!("{field}.defence"),
                    format!(
                        "unknown defence {defence:?}: choose one of {}",
                        defences::NAMES.join(", ")
                    ),
                )
            })?;
            let conditions = conditions.into_iter().map(Some).collect();
            (ops, conditions, Some(defence))
        }
    };
    if raw.len() > MAX_OPS_PER_ACTOR {
        return Err(ScheduleError::new(
            field,
            format!(
                "{} operations is more than the limit of {MAX_OPS_PER_ACTOR}",
                raw.len()
            ),
        ));
    }
    let mut program = Vec::with_capacity(raw.len());
    let mut conditions = Vec::with_capacity(raw.len());
    let mut in_tx = false;
    for (i, (mut op, written)) in raw.into_iter().zip(written).enumerate() {
        let at = format!("{field}[{i}]");
        check_op(&at, name, &mut op, seat_ids, in_tx)?;
        let condition = check_condition(&at, name, &op, written, &program, &conditions, scenario)?;
        if op == Op::RedisRelease && !program.iter().any(|o| matches!(o, Op::RedisHold { .. })) {
            return Err(ScheduleError::new(
                format!("{at}.op"),
                "redis_release with no redis_hold before it: it would delete no key; add a redis_hold first",
            ));
        }
        match op {
            Op::Begin { .. } => in_tx = true,
            Op::Commit | Op::Rollback => in_tx = false,
            _ => {}
        }
        program.push(op);
        conditions.push(condition);
    }
    Ok(Actor {
        name: name.to_string(),
        conditions,
        program,
        defence,
    })
}

/// Takes an operation's `"if"` out of its JSON (the op itself is parsed without it): `None`
/// when it gives none.
fn take_condition(
    field: &str,
    actor: &str,
    value: &mut serde_json::Value,
) -> Result<Option<Condition>, ScheduleError> {
    let Some(raw) = value.as_object_mut().and_then(|o| o.remove("if")) else {
        return Ok(None);
    };
    match raw.as_str() {
        Some("held") => Ok(Some(Condition::Held)),
        Some("failed") => Ok(Some(Condition::Failed)),
        _ => Err(ScheduleError::new(
            format!("{field}.if"),
            format!(
                "{raw} is not a condition: write \"held\" (run only while {actor} holds its seats), \"failed\" (run only after {actor}'s last attempt failed with 40001, 40P01 or 55P03, or its hold answered busy), or leave \"if\" out to always run it"
            ),
        )),
    }
}

/// The condition of `op`, the next operation of a program that so far is `program` with
/// `conditions`: the one written (`None`: none), checked. Inside a transaction every
/// operation runs or is skipped with its `begin`, so it carries the begin's condition
/// (written again or left out); a condition needs something earlier for it to test.
fn check_condition(
    field: &str,
    actor: &str,
    op: &Op,
    written: Option<Condition>,
    program: &[Op],
    conditions: &[Condition],
    scenario: &Scenario,
) -> Result<Condition, ScheduleError> {
    let at = format!("{field}.if");
    let open_begin = program
        .iter()
        .rposition(|o| matches!(o, Op::Begin { .. }))
        .filter(|&b| {
            !program[b..]
                .iter()
                .any(|o| matches!(o, Op::Commit | Op::Rollback))
        });
    if let Some(b) = open_begin {
        let inherited = conditions[b];
        return match written {
            Some(c) if c != inherited => Err(ScheduleError::new(
                at,
                format!(
                    "inside a transaction every operation runs or is skipped with its begin (actors.{actor}[{b}]), whose condition is {}: give this {} the same \"if\" or none",
                    condition_words(inherited),
                    op.name(),
                ),
            )),
            _ => Ok(inherited),
        };
    }
    let Some(condition) = written else {
        return Ok(Condition::Always);
    };
    if op.is_clock_op() {
        return Err(ScheduleError::new(
            at,
            format!("the clock's {} always runs: remove \"if\"", op.name()),
        ));
    }
    match condition {
        Condition::Always => {}
        Condition::Held => {
            let held_at_start = scenario
                .seats
                .iter()
                .any(|s| s.holder.as_deref() == Some(actor) && s.status != SeatStatus::Available);
            if !held_at_start && !program.iter().any(Op::takes_seats) {
                return Err(ScheduleError::new(
                    at,
                    format!(
                        "\"if\": \"held\" on a {} that nothing before it could have got seats for: put a hold, redis_hold, claim, write or book before it, or remove \"if\"",
                        op.name()
                    ),
                ));
            }
        }
        Condition::Failed => {
            let mut in_tx = false;
            let attempted = program.iter().any(|o| match o {
                Op::Begin { .. } => {
                    in_tx = true;
                    false
                }
                Op::Commit | Op::Rollback => {
                    in_tx = false;
                    true
                }
                Op::Hold { .. } => true,
                o => o.is_statement() && !in_tx,
            });
            if !attempted {
                return Err(ScheduleError::new(
                    at,
                    format!(
                        "\"if\": \"failed\" on a {} with no earlier attempt that could fail: a retry comes after a transaction (begin … commit), a statement of its own or a hold; put the first attempt before it, or remove \"if\"",
                        op.name()
                    ),
                ));
            }
        }
    }
    Ok(condition)
}

/// A condition in a few words, as the errors say it.
fn condition_words(condition: Condition) -> &'static str {
    match condition {
        Condition::Always => "none (it always runs)",
        Condition::Held => "\"held\"",
        Condition::Failed => "\"failed\"",
    }
}

fn parse_op(field: &str, value: serde_json::Value) -> Result<Op, ScheduleError> {
    let op_name = value.get("op").and_then(|v| v.as_str()).map(str::to_string);
    serde_json::from_value::<Op>(value).map_err(|e| {
        let msg = e.to_string();
        match op_name {
            None => ScheduleError::new(field, "missing \"op\": every operation names one, e.g. {\"op\": \"read\", \"seats\": [\"A7\"]}"),
            Some(op) if msg.starts_with("unknown variant") => ScheduleError::new(
                format!("{field}.op"),
                format!(
                    "unknown op {op:?}: use one of begin, commit, rollback, read, lock, write, claim, book, hold, confirm, pay, release, redis_hold, redis_release, advance, sweep"
                ),
            ),
            Some(op) => ScheduleError::new(field, format!("bad {op} operation: {msg}")),
        }
    })
}

fn check_op(
    field: &str,
    actor: &str,
    op: &mut Op,
    seat_ids: &[&str],
    in_tx: bool,
) -> Result<(), ScheduleError> {
    let is_clock = actor == CLOCK;
    if is_clock && !op.is_clock_op() {
        return Err(ScheduleError::new(
            format!("{field}.op"),
            format!(
                "the clock actor runs only advance and sweep, not {}",
                op.name()
            ),
        ));
    }
    if !is_clock && op.is_clock_op() {
        return Err(ScheduleError::new(
            format!("{field}.op"),
            format!(
                "{} is a clock operation: give it to the actor \"clock\"",
                op.name()
            ),
        ));
    }
    match op {
        Op::Begin { .. } if in_tx => {
            return Err(ScheduleError::new(
                field,
                "begin inside an open transaction: commit or roll back first",
            ))
        }
        Op::Commit | Op::Rollback if !in_tx => {
            return Err(ScheduleError::new(
                field,
                format!("{} without begin: add a begin before it", op.name()),
            ))
        }
        op if op.is_one_call() && in_tx => {
            return Err(ScheduleError::new(
                field,
                format!(
                    "{} is one call with its own transaction: move it outside begin … commit",
                    op.name()
                ),
            ))
        }
        Op::Advance { minutes } if !(0..=MAX_MINUTES).contains(minutes) => {
            return Err(ScheduleError::new(
                format!("{field}.minutes"),
                format!(
                    "{minutes} is out of range: advance the clock by 0 to {MAX_MINUTES} minutes"
                ),
            ))
        }
        Op::Write {
            status: SeatStatus::Available,
            ..
        } => {
            return Err(ScheduleError::new(
                format!("{field}.status"),
                "a write sets HELD or BOOKED, not AVAILABLE",
            ))
        }
        Op::Hold {
            attempt: Some(a), ..
        } => {
            let ok = !a.is_empty()
                && a.len() <= 16
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if !ok {
                return Err(ScheduleError::new(
                    format!("{field}.attempt"),
                    format!("{a:?} is not an attempt id: use 1 to 16 letters, digits, _ or -"),
                ));
            }
        }
        _ => {}
    }
    if let Some(seats) = op.seats_mut() {
        if seats.is_empty() {
            return Err(ScheduleError::new(
                format!("{field}.seats"),
                "no seats: name at least one, e.g. [\"A7\"]",
            ));
        }
        for seat in seats.iter() {
            if !seat_ids.contains(&seat.as_str()) {
                return Err(ScheduleError::new(
                    format!("{field}.seats"),
                    format!(
                        "unknown seat {seat:?}: the scenario has {}",
                        seat_ids.join(", ")
                    ),
                ));
            }
        }
        seats.sort();
        seats.dedup();
    }
    Ok(())
}

fn parse_order(order: &[String], actors: &[Actor]) -> Result<Vec<usize>, ScheduleError> {
    if order.len() > MAX_ORDER {
        return Err(ScheduleError::new(
            "order",
            format!(
                "{} entries is more than the limit of {MAX_ORDER}",
                order.len()
            ),
        ));
    }
    let mut used = vec![0usize; actors.len()];
    let mut out = Vec::with_capacity(order.len());
    for (i, name) in order.iter().enumerate() {
        let Some(a) = actors.iter().position(|a| &a.name == name) else {
            let known: Vec<&str> = actors.iter().map(|a| a.name.as_str()).collect();
            return Err(ScheduleError::new(
                format!("order[{i}]"),
                format!(
                    "unknown actor {name:?}: the actors are {}",
                    known.join(", ")
                ),
            ));
        };
        used[a] += 1;
        if used[a] > actors[a].program.len() {
            return Err(ScheduleError::new(
                format!("order[{i}]"),
                format!(
                    "{name} has only {} operations, but the order names {name} {} times by here: remove this entry or add an operation",
                    actors[a].program.len(),
                    used[a]
                ),
            ));
        }
        out.push(a);
    }
    Ok(out)
}

/// The order of a file that gives none: one operation of each actor in turn, until every
/// program has run to its end.
fn round_robin(actors: &[Actor]) -> Vec<usize> {
    let longest = actors.iter().map(|a| a.program.len()).max().unwrap_or(0);
    (0..longest)
        .flat_map(|k| (0..actors.len()).filter(move |&i| k < actors[i].program.len()))
        .collect()
}

fn check_expect(
    expect: Expect,
    actors: &[Actor],
    holders: &[&str],
    seat_ids: &[&str],
    entries: usize,
) -> Result<Expect, ScheduleError> {
    let known = |field: &str, name: &str| -> Result<(), ScheduleError> {
        if actors.iter().any(|a| a.name == name) || holders.contains(&name) {
            Ok(())
        } else {
            Err(ScheduleError::new(field, format!("unknown actor {name:?}")))
        }
    };
    for name in expect.refund_due.iter().flatten() {
        known("expect.refund_due", name)?;
    }
    for name in expect.unpaid_hold.iter().flatten() {
        known("expect.unpaid_hold", name)?;
    }
    for name in expect.booked_late.iter().flatten() {
        known("expect.booked_late", name)?;
    }
    let seats = expect
        .told
        .iter()
        .flat_map(|m| m.keys())
        .chain(expect.final_seats.iter().flat_map(|m| m.keys()));
    for seat in seats {
        if !seat_ids.contains(&seat.as_str()) {
            return Err(ScheduleError::new(
                "expect",
                format!("unknown seat {seat:?}"),
            ));
        }
    }
    for (seat, names) in expect.told.iter().flatten() {
        for name in names {
            known(&format!("expect.told.{seat}"), name)?;
        }
    }
    if let Some(steps) = &expect.steps {
        if steps.len() != entries {
            return Err(ScheduleError::new(
                "expect.steps",
                format!(
                    "{} steps for an order of {entries} entries: give one step per entry",
                    steps.len()
                ),
            ));
        }
    }
    Ok(expect)
}
