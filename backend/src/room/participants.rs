//! Who joins a room: people and bots, numbered one after another under the room's row lock,
//! each with an actor name of their own (what a round's schedule calls them) and a token stored
//! as its SHA-256 only.

use std::collections::HashSet;

use sqlx::{PgPool, Postgres, Transaction};

use super::error::RoomError;
use super::settings::actor_base;
use super::store::{hash, random_token};

/// The most participants (people, bots and `backend load`'s buyers) one room takes.
pub const MAX_PARTICIPANTS: usize = 50_000;

/// A participant, as their token finds them.
#[derive(Clone, Debug)]
pub struct Participant {
    pub n: i32,
    pub name: String,
    pub actor: String,
}

/// Adds participants with these names (bots or people) to room `code`; each with their token,
/// in order.
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
    let choices = actor_choices(&numbered);
    let taken = taken(&mut tx, code, &choices).await?;
    let joined = named(&numbered, choices, &taken);
    insert(&mut tx, code, &joined, bot).await?;
    sqlx::query("update lastseat_rooms.rooms set touched_at = now() where code = $1")
        .bind(code)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(joined)
}

/// Each name's own actor name, and the same with the participant's number after it (for when
/// the first is taken).
fn actor_choices(numbered: &[(i32, &String)]) -> Vec<(String, String)> {
    numbered
        .iter()
        .map(|(n, name)| {
            let base = actor_base(name, *n);
            let with_number = format!("{}{n}", &base[..base.len().min(10)]);
            (base, with_number)
        })
        .collect()
}

/// Which of `choices` the room's participants have already.
async fn taken(
    tx: &mut Transaction<'_, Postgres>,
    code: &str,
    choices: &[(String, String)],
) -> Result<HashSet<String>, RoomError> {
    let (bases, numbered): (Vec<&String>, Vec<&String>) =
        choices.iter().map(|(b, n)| (b, n)).unzip();
    let taken: Vec<String> = sqlx::query_scalar(
        "select actor from lastseat_rooms.participants where room = $1 and (actor = any($2) or actor = any($3))",
    )
    .bind(code)
    .bind(bases)
    .bind(numbered)
    .fetch_all(&mut **tx)
    .await?;
    Ok(taken.into_iter().collect())
}

/// The participants, each with the first actor name of theirs that nobody has (else `p{n}x`)
/// and a fresh token.
fn named(
    numbered: &[(i32, &String)],
    choices: Vec<(String, String)>,
    taken: &HashSet<String>,
) -> Vec<(Participant, String)> {
    let mut chosen = HashSet::new();
    let free = |a: &String, chosen: &HashSet<String>| !taken.contains(a) && !chosen.contains(a);
    numbered
        .iter()
        .zip(choices)
        .map(|(&(n, name), (base, with_number))| {
            let actor = if free(&base, &chosen) {
                base
            } else if free(&with_number, &chosen) {
                with_number
            } else {
                format!("p{n}x")
            };
            chosen.insert(actor.clone());
            let who = Participant {
                n,
                name: name.clone(),
                actor,
            };
            (who, random_token())
        })
        .collect()
}

/// Inserts `joined` into room `code`, their tokens hashed.
async fn insert(
    tx: &mut Transaction<'_, Postgres>,
    code: &str,
    joined: &[(Participant, String)],
    bot: bool,
) -> Result<(), RoomError> {
    let column = |f: fn(&(Participant, String)) -> String| joined.iter().map(f).collect::<Vec<_>>();
    let ns: Vec<i32> = joined.iter().map(|(p, _)| p.n).collect();
    let hashes: Vec<Vec<u8>> = joined.iter().map(|(_, token)| hash(token)).collect();
    sqlx::query(
        "insert into lastseat_rooms.participants (room, n, name, actor, token_hash, bot)
         select $1, n, name, actor, token_hash, $6
           from unnest($2::int[], $3::text[], $4::text[], $5::bytea[]) as t(n, name, actor, token_hash)",
    )
    .bind(code)
    .bind(ns)
    .bind(column(|(p, _)| p.name.clone()))
    .bind(column(|(p, _)| p.actor.clone()))
    .bind(hashes)
    .bind(bot)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_actor_name_gets_the_participants_number_then_a_name_of_its_own() {
        let (ana, ana2, x) = ("Ana".to_string(), "ana".to_string(), "!!".to_string());
        let numbered = [(7, &ana), (8, &ana2), (9, &x)];
        let choices = actor_choices(&numbered);
        assert_eq!(choices[0], ("ana".to_string(), "ana7".to_string()));
        let taken = HashSet::from(["ana8".to_string()]);
        let joined = named(&numbered, choices, &taken);
        let actors: Vec<&str> = joined.iter().map(|(p, _)| p.actor.as_str()).collect();
        // Ana takes "ana"; the second "ana" would be "ana8", taken: "p8x". "!!" is "p9".
        assert_eq!(actors, ["ana", "p8x", "p9"]);
        assert_ne!(joined[0].1, joined[1].1, "each has a token of their own");
    }
}
