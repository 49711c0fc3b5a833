//! Rooms and participants in `lastseat_rooms`: join codes, the facilitator's secret and the
//! participants' tokens (random, stored as their SHA-256 only), every value a bind parameter.

use base64::Engine as _;
use rand::Rng;
use sha2::{Digest, Sha256};
use sqlx::{PgPool, Row};

use super::settings::{self, Settings};
use super::RoomError;

/// The letters of a join code: none that reads as another (no I/1/L, O/0, S/5, Z/2, B/8, G/6).
const CODE_LETTERS: &[u8] = b"ACDEFHJKMNPRTUVWXY";
pub const CODE_LEN: usize = 5;
/// The most participants (people, bots and `backend load`'s buyers) one room takes.
pub const MAX_PARTICIPANTS: usize = 50_000;

/// A room as stored.
#[derive(Clone, Debug)]
pub struct Room {
    pub code: String,
    pub settings: Settings,
    pub round: i32,
    pub phase: String,
    /// When the race of this round opens (after its countdown), ms since the epoch.
    pub race_at_ms: Option<i64>,
    /// The server's clock now, ms since the epoch (read with the row).
    pub now_ms: i64,
}

impl Room {
    /// The round's schema.
    pub fn schema(&self) -> String {
        schema_name(&self.code, self.round)
    }

    /// Whether taps are taken now: the round is racing and its countdown is over.
    pub fn racing(&self) -> bool {
        self.phase == "race" && self.race_at_ms.is_some_and(|at| self.now_ms >= at)
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

/// A participant, as their token finds them.
#[derive(Clone, Debug)]
pub struct Participant {
    pub n: i32,
    pub name: String,
    pub actor: String,
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
                    (code, secret_hash, seats, defence, gap_ms, hold_seconds, late_payments, duplicate_payments)
             values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict (code) do nothing",
        )
        .bind(&code)
        .bind(hash(&secret))
        .bind(settings.seats)
        .bind(&settings.defence)
        .bind(settings.gap_ms)
        .bind(settings.hold_seconds)
        .bind(settings.late_payments)
        .bind(settings.duplicate_payments)
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

pub(crate) const ROOM_COLUMNS: &str =
    "code, seats, defence, gap_ms, hold_seconds, late_payments, duplicate_payments, \
     round, phase, (extract(epoch from race_at) * 1000)::bigint as race_at_ms, \
     (extract(epoch from clock_timestamp()) * 1000)::bigint as now_ms";

pub(crate) fn room_of(row: &sqlx::postgres::PgRow) -> Result<Room, sqlx::Error> {
    Ok(Room {
        code: row.try_get("code")?,
        settings: Settings {
            seats: row.try_get("seats")?,
            defence: row.try_get("defence")?,
            gap_ms: row.try_get("gap_ms")?,
            hold_seconds: row.try_get("hold_seconds")?,
            late_payments: row.try_get("late_payments")?,
            duplicate_payments: row.try_get("duplicate_payments")?,
        },
        round: row.try_get("round")?,
        phase: row.try_get("phase")?,
        race_at_ms: row.try_get("race_at_ms")?,
        now_ms: row.try_get("now_ms")?,
    })
}

/// The room with this code.
pub async fn load(pool: &PgPool, code: &str) -> Result<Room, RoomError> {
    let row = sqlx::query(&format!(
        "select {ROOM_COLUMNS} from lastseat_rooms.rooms where code = $1"
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
                late_payments = $6, duplicate_payments = $7, touched_at = now() where code = $1",
    )
    .bind(code)
    .bind(s.seats)
    .bind(&s.defence)
    .bind(s.gap_ms)
    .bind(s.hold_seconds)
    .bind(s.late_payments)
    .bind(s.duplicate_payments)
    .execute(pool)
    .await?;
    Ok(())
}

/// Adds participants with these names (bots or people); their tokens, in order.
pub async fn join(
    pool: &PgPool,
    code: &str,
    names: &[String],
    bot: bool,
) -> Result<Vec<(Participant, String)>, RoomError> {
    let mut tx = pool.begin().await?;
    // One join at a time per room, so that numbers and actor names stay unique. `no key
    // update`, not `update`: the foreign keys' checks of the requests being recorded meanwhile
    // (`for key share` of the room's row) need not wait for it.
    sqlx::query("select 1 from lastseat_rooms.rooms where code = $1 for no key update")
        .bind(code)
        .execute(&mut *tx)
        .await?;
    let (first, count): (i32, i64) = sqlx::query_as(
        "select coalesce(max(n), 0) + 1, count(*) from lastseat_rooms.participants where room = $1",
    )
    .bind(code)
    .fetch_one(&mut *tx)
    .await?;
    if count as usize + names.len() > MAX_PARTICIPANTS {
        return Err(RoomError::Conflict(format!(
            "this room is full: at most {MAX_PARTICIPANTS} participants and bots"
        )));
    }
    let numbered: Vec<(i32, &String)> = (first..).zip(names).collect();
    // Each name's own actor name, unless taken: then with the participant's number after it.
    let bases: Vec<String> = numbered
        .iter()
        .map(|(n, name)| settings::actor_base(name, *n))
        .collect();
    let numbered_bases: Vec<String> = numbered
        .iter()
        .zip(&bases)
        .map(|((n, _), b)| format!("{}{n}", &b[..b.len().min(10)]))
        .collect();
    let taken: std::collections::HashSet<String> = sqlx::query_scalar(
        "select actor from lastseat_rooms.participants where room = $1 and (actor = any($2) or actor = any($3))",
    )
    .bind(code)
    .bind(&bases)
    .bind(&numbered_bases)
    .fetch_all(&mut *tx)
    .await?
    .into_iter()
    .collect();
    let mut chosen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(names.len());
    let (mut ns, mut nm, mut ac, mut th) = (vec![], vec![], vec![], vec![]);
    for (((next, name), base), numbered) in numbered.into_iter().zip(bases).zip(numbered_bases) {
        let actor = if !taken.contains(&base) && !chosen.contains(&base) {
            base
        } else if !taken.contains(&numbered) && !chosen.contains(&numbered) {
            numbered
        } else {
            format!("p{next}x")
        };
        chosen.insert(actor.clone());
        let token = random_token();
        ns.push(next);
        nm.push(name.clone());
        ac.push(actor.clone());
        th.push(hash(&token));
        out.push((
            Participant {
                n: next,
                name: name.clone(),
                actor,
            },
            token,
        ));
    }
    sqlx::query(
        "insert into lastseat_rooms.participants (room, n, name, actor, token_hash, bot)
         select $1, n, name, actor, token_hash, $6
           from unnest($2::int[], $3::text[], $4::text[], $5::bytea[]) as t(n, name, actor, token_hash)",
    )
    .bind(code)
    .bind(&ns)
    .bind(&nm)
    .bind(&ac)
    .bind(&th)
    .bind(bot)
    .execute(&mut *tx)
    .await?;
    sqlx::query("update lastseat_rooms.rooms set touched_at = now() where code = $1")
        .bind(code)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(out)
}

/// The participant whose token this is, in this room.
pub async fn participant(
    pool: &PgPool,
    code: &str,
    token: Option<&str>,
) -> Result<Participant, RoomError> {
    let token = token.ok_or_else(|| {
        RoomError::Unauthorized(
            "join the room first: send your token as Authorization: Bearer".into(),
        )
    })?;
    let row: Option<(i32, String, String)> = sqlx::query_as(
        "select n, name, actor from lastseat_rooms.participants where room = $1 and token_hash = $2",
    )
    .bind(code)
    .bind(hash(token))
    .fetch_optional(pool)
    .await?;
    let (n, name, actor) = row.ok_or_else(|| {
        RoomError::Unauthorized(
            "that token is not one of this room's participants: join again".into(),
        )
    })?;
    Ok(Participant { n, name, actor })
}
