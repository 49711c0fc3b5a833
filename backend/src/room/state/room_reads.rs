//! The room's reads other than its seats, in one statement: who joined (counted again only
//! when someone did, `joined.rs`), the double bookings, the unique key's refusals and the feed.

use std::collections::HashMap;
use std::sync::Arc;

use shared::protocol::room::Named;

use crate::room::error::RoomError;
use crate::room::joined::{Cache, Joined};
use crate::room::store::Room;

/// A request of the feed as read: actor, name, op, SQL, result, milliseconds it took.
pub type FeedRead = (
    String,
    Option<String>,
    String,
    Option<String>,
    shared::StepResult,
    f64,
);

/// How many of the latest requests the feed shows.
const FEED: i64 = 40;
/// How many participants' names the state lists (the rest are counted).
const NAMES: i64 = 200;

/// The room's reads other than its seats, in one statement: the highest participant number
/// and, only if it is not `$6` (what this process counted last, `joined.rs`), the people and
/// bots, the first names and every participant's name by actor (for the seat map's holders);
/// the double bookings (seats two participants are told they have at once, at clock `$4`), the
/// tickets the unique key refused, the buyers told they have a ticket (a general-admission
/// round's sold), and the feed's latest requests.
/// Each is a subquery that keeps the index it had as a statement of its own (migration 0003's);
/// a subquery in a `case` branch not taken is never run.
const ROOM_READS: &str = "
select m.last_n,
       case when m.last_n is distinct from $6 then
           (select count(*) from lastseat_rooms.participants where room = $1 and not bot) end
           as people,
       case when m.last_n is distinct from $6 then
           (select count(*) from lastseat_rooms.participants where room = $1 and bot) end
           as bots,
       case when m.last_n is distinct from $6 then
           (select coalesce(jsonb_agg(jsonb_build_array(x.n, x.name) order by x.n), '[]')
              from (select n, name from lastseat_rooms.participants
                     where room = $1 and not bot order by n limit $2) as x) end as names,
       case when m.last_n is distinct from $6 then
           (select coalesce(jsonb_object_agg(actor, name), '{}')
              from lastseat_rooms.participants where room = $1) end as actors,
       (select count(*) from (select seat from lastseat_rooms.told where room = $1 and round = $3
                                 and (booked or until >= $4) group by seat having count(*) > 1) as t)
           as double,
       (select count(*) from lastseat_rooms.requests
         where room = $1 and round = $3 and result->>'code' = '23505') as refused,
       (select count(*) from lastseat_rooms.told where room = $1 and round = $3 and booked)
           as tickets_told,
       (select coalesce(jsonb_agg(jsonb_build_array(f.actor, f.name, f.op, f.sql, f.result, f.ms)
                                  order by f.id desc), '[]')
          from (select r.id, r.actor, p.name, r.op->>'op' as op, r.sql, r.result,
                       extract(epoch from r.answered_at - r.sent_at)::float8 * 1000 as ms
                  from lastseat_rooms.requests r
                  left join lastseat_rooms.participants p on p.room = r.room and p.actor = r.actor
                 where r.room = $1 and r.round = $3 order by r.id desc limit $5) as f) as feed
  from (select coalesce(max(n), 0) as last_n from lastseat_rooms.participants where room = $1)
       as m";

/// `ROOM_READS`' row.
type RoomReads = (
    i32,
    Option<i64>,
    Option<i64>,
    Option<sqlx::types::Json<Vec<(i32, String)>>>,
    Option<sqlx::types::Json<HashMap<String, String>>>,
    i64,
    i64,
    i64,
    sqlx::types::Json<Vec<FeedRead>>,
);

/// What `ROOM_READS` says of a room.
pub struct Reads {
    pub joined: Arc<Joined>,
    /// Seats two participants are told they have at once.
    pub double: u64,
    /// Tickets the unique key refused.
    pub refused: u64,
    /// Participants told they have a ticket (booked seats, or a general-admission ticket).
    pub tickets_told: u64,
    pub feed: Vec<FeedRead>,
}

/// Who joined (counted again only if someone did since `cache`'s count), the double bookings,
/// the unique key's refusals and the feed of `room` at `clock`.
pub async fn read(
    pool: &sqlx::PgPool,
    cache: &Cache,
    room: &Room,
    clock: i64,
) -> Result<Reads, RoomError> {
    let mut known = cache.last_n(&room.code);
    loop {
        let (last_n, people, bots, names, actors, double, refused, tickets_told, feed) =
            sqlx::query_as::<_, RoomReads>(ROOM_READS)
                .bind(&room.code)
                .bind(NAMES)
                .bind(room.round)
                .bind(clock)
                .bind(FEED)
                .bind(known)
                .fetch_one(pool)
                .await?;
        let joined = match (people, bots, names, actors) {
            (Some(people), Some(bots), Some(names), Some(actors)) => {
                let joined = Arc::new(Joined {
                    last_n,
                    people: people as u64,
                    bots: bots as u64,
                    names: (names.0.into_iter())
                        .map(|(n, name)| Named { n, name })
                        .collect(),
                    actors: actors.0,
                });
                cache.keep(&room.code, joined.clone());
                Some(joined)
            }
            _ => cache.at(&room.code, last_n),
        };
        match joined {
            Some(joined) => {
                return Ok(Reads {
                    joined,
                    double: double as u64,
                    refused: refused as u64,
                    tickets_told: tickets_told as u64,
                    feed: feed.0,
                })
            }
            // Another rebuild kept a later count meanwhile: count again.
            None if known.is_some() => known = None,
            None => {
                return Err(RoomError::Internal(
                    "the room's participants were not counted".into(),
                ))
            }
        }
    }
}
