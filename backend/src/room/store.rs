//! Rooms in `lastseat_rooms`: join codes, the facilitator's secret and the participants'
//! tokens (random, stored as their SHA-256 only), every value a bind parameter. Who joins is
//! `participants.rs`'s.

use base64::Engine as _;
use rand::Rng;
use sha2::{Digest, Sha256};
use sqlx::{PgPool, Row};

use shared::protocol::room::{Phase, Settings};
use shared::schedule::Shape;
use shared::Defence;

use super::error::RoomError;

/// The letters of a join code: none that reads as another (no I/1/L, O/0, S/5, Z/2, B/8, G/6).
const CODE_LETTERS: &[u8] = b"ACDEFHJKMNPRTUVWXY";
pub const CODE_LEN: usize = 5;

/// A room as stored.
#[derive(Clone, Debug)]
pub struct Room {
    pub code: String,
    pub settings: Settings,
    pub round: i32,
    /// As stored: the lobby, a race (counting down until `race_at_ms`) or its results.
    pub phase: Phase,
    /// When the race of this round opens (after its countdown), ms since the epoch.
    pub race_at_ms: Option<i64>,
    /// The server's clock now, ms since the epoch (read with the row).
    pub now_ms: i64,
    /// What the current round sells, as it was started (the settings' before the first round):
    /// the settings may have changed for the next one since.
    pub played: Played,
}

/// What a round sells: numbered seats, or `tickets` in one section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    pub kind: Shape,
    pub seats: i32,
    pub tickets: i32,
}

impl Played {
    /// What the round of `settings` sells.
    pub fn of(settings: &Settings) -> Played {
        Played {
            kind: settings.kind,
            seats: settings.seats,
            tickets: settings.tickets,
        }
    }
}

impl Room {
    /// The round's schema.
    pub fn schema(&self) -> String {
        schema_name(&self.code, self.round)
    }

    /// Whether taps are taken now: the round is racing and its countdown is over.
    pub fn racing(&self) -> bool {
        self.phase == Phase::Race && self.race_at_ms.is_some_and(|at| self.now_ms >= at)
    }

    /// The phase as the screens show it: a race whose countdown is still running is the
    /// countdown.
    pub fn phase_now(&self) -> Phase {
        match self.phase {
            Phase::Race if !self.racing() => Phase::Countdown,
            phase => phase,
        }
    }

    /// The round's clock now: whole seconds since the race opened.
    pub fn clock(&self) -> i64 {
        self.race_at_ms
            .map_or(0, |at| ((self.now_ms - at) / 1000).max(0))
    }
}

/// The booking schema of round `round` of room `code` (a code is letters only).
pub fn schema_name(code: &str, round: i32) -> String {
    format!("room_{}_r{round}", code.to_ascii_lowercase())
}

pub fn random_token() -> String {
    let bytes: [u8; 24] = rand::thread_rng().gen();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

pub fn hash(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

/// A join code typed by a person, normalised, or what is wrong with it.
pub fn code(raw: &str) -> Result<String, RoomError> {
    let code = raw.trim().to_ascii_uppercase();
    if code.len() == CODE_LEN && code.bytes().all(|b| CODE_LETTERS.contains(&b)) {
        Ok(code)
    } else {
        Err(RoomError::invalid(
            "code",
            format!("{raw:?} is not a room code: a code is {CODE_LEN} letters, as the projector shows it"),
        ))
    }
}

/// Creates a room; its code and the facilitator's secret.
pub async fn create(pool: &PgPool, settings: &Settings) -> Result<(String, String), RoomError> {
    let secret = random_token();
    for _ in 0..20 {
        let code: String = {
            let mut rng = rand::thread_rng();
            (0..CODE_LEN)
                .map(|_| CODE_LETTERS[rng.gen_range(0..CODE_LETTERS.len())] as char)
                .collect()
        };
        let inserted = sqlx::query(
            "insert into lastseat_rooms.rooms
                    (code, secret_hash, seats, defence, gap_ms, hold_seconds, late_payments,
                     duplicate_payments, kind, tickets)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict (code) do nothing",
        )
        .bind(&code)
        .bind(hash(&secret))
        .bind(settings.seats)
        .bind(settings.defence.id())
        .bind(settings.gap_ms)
        .bind(settings.hold_seconds)
        .bind(settings.late_payments)
        .bind(settings.duplicate_payments)
        .bind(settings.kind.id())
        .bind(settings.tickets)
        .execute(pool)
        .await?
        .rows_affected();
        if inserted == 1 {
            return Ok((code, secret));
        }
    }
    Err(RoomError::Internal(
        "no free room code after 20 tries".into(),
    ))
}

/// A room's columns, and its current round's kind, seats and tickets (a subquery on the
/// rounds' primary key; `rooms` is aliased `r`).
pub(crate) const ROOM_COLUMNS: &str =
    "r.code, r.seats, r.defence, r.gap_ms, r.hold_seconds, r.late_payments, r.duplicate_payments, \
     r.kind, r.tickets, r.round, r.phase, \
     (extract(epoch from r.race_at) * 1000)::bigint as race_at_ms, \
     (extract(epoch from clock_timestamp()) * 1000)::bigint as now_ms, \
     (select jsonb_build_array(p.kind, p.seats, p.tickets) from lastseat_rooms.rounds p \
       where p.room = r.code and p.n = r.round) as played";

pub(crate) fn room_of(row: &sqlx::postgres::PgRow) -> Result<Room, sqlx::Error> {
    let defence: String = row.try_get("defence")?;
    let phase: String = row.try_get("phase")?;
    let kind: String = row.try_get("kind")?;
    let settings = Settings {
        kind: stored_kind(&kind)?,
        seats: row.try_get("seats")?,
        tickets: row.try_get("tickets")?,
        defence: Defence::parse(&defence).ok_or_else(|| {
            sqlx::Error::Decode(format!("a room's defence {defence:?} is not a defence").into())
        })?,
        gap_ms: row.try_get("gap_ms")?,
        hold_seconds: row.try_get("hold_seconds")?,
        late_payments: row.try_get("late_payments")?,
        duplicate_payments: row.try_get("duplicate_payments")?,
    };
    type PlayedRow = (String, i32, Option<i32>);
    let played = match row.try_get::<Option<sqlx::types::Json<PlayedRow>>, _>("played")? {
        Some(sqlx::types::Json((kind, seats, tickets))) => Played {
            kind: stored_kind(&kind)?,
            seats,
            tickets: tickets.unwrap_or(settings.tickets),
        },
        None => Played::of(&settings),
    };
    Ok(Room {
        code: row.try_get("code")?,
        settings,
        played,
        round: row.try_get("round")?,
        phase: stored_phase(&phase)?,
        race_at_ms: row.try_get("race_at_ms")?,
        now_ms: row.try_get("now_ms")?,
    })
}

/// The kind a room's or a round's row holds (migration 0006 allows these two).
fn stored_kind(word: &str) -> Result<Shape, sqlx::Error> {
    match word {
        "seats" => Ok(Shape::Seats),
        "general_admission" => Ok(Shape::GeneralAdmission),
        _ => Err(sqlx::Error::Decode(
            format!("a room's kind {word:?} is not one").into(),
        )),
    }
}

/// The phase a room's row holds: `lobby`, `race` or `results`.
fn stored_phase(word: &str) -> Result<Phase, sqlx::Error> {
    match word {
        "lobby" => Ok(Phase::Lobby),
        "race" => Ok(Phase::Race),
        "results" => Ok(Phase::Results),
        _ => Err(sqlx::Error::Decode(
            format!("a room's phase {word:?} is not one").into(),
        )),
    }
}

/// The room with this code.
pub async fn load(pool: &PgPool, code: &str) -> Result<Room, RoomError> {
    let row = sqlx::query(&format!(
        "select {ROOM_COLUMNS} from lastseat_rooms.rooms r where r.code = $1"
    ))
    .bind(code)
    .fetch_optional(pool)
    .await?
    .ok_or_else(|| RoomError::NoRoom(code.to_string()))?;
    Ok(room_of(&row)?)
}

/// The room, if `secret` is its facilitator's; marks it used.
pub async fn as_facilitator(
    pool: &PgPool,
    code: &str,
    secret: Option<&str>,
) -> Result<Room, RoomError> {
    let room = load(pool, code).await?;
    let secret = secret.ok_or_else(|| {
        RoomError::Unauthorized(
            "only the facilitator can do this: send the room's secret as Authorization: Bearer"
                .into(),
        )
    })?;
    let ok: bool = sqlx::query_scalar(
        "update lastseat_rooms.rooms set touched_at = now() where code = $1 and secret_hash = $2 returning true",
    )
    .bind(code)
    .bind(hash(secret))
    .fetch_optional(pool)
    .await?
    .unwrap_or(false);
    if ok {
        Ok(room)
    } else {
        Err(RoomError::Unauthorized(
            "that is not this room's facilitator secret".into(),
        ))
    }
}

/// Saves changed settings.
pub async fn save_settings(pool: &PgPool, code: &str, s: &Settings) -> Result<(), RoomError> {
    sqlx::query(
        "update lastseat_rooms.rooms set seats = $2, defence = $3, gap_ms = $4, hold_seconds = $5,
                late_payments = $6, duplicate_payments = $7, kind = $8, tickets = $9,
                touched_at = now() where code = $1",
    )
    .bind(code)
    .bind(s.seats)
    .bind(s.defence.id())
    .bind(s.gap_ms)
    .bind(s.hold_seconds)
    .bind(s.late_payments)
    .bind(s.duplicate_payments)
    .bind(s.kind.id())
    .bind(s.tickets)
    .execute(pool)
    .await?;
    Ok(())
}
