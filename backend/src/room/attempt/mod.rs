//! A participant's request: a tap (the defence's program up to its payment), a payment (the
//! rest: pay, then confirm or book) or a cancel (release the hold). It begins in one batched
//! statement (`begin.rs`: the participant, the room, their lease, their history), its operations
//! are planned (`plan.rs`) and run one by one through a `shared::client::Clients` rebuilt from
//! what the participant did earlier in the round (`run.rs`), so that every condition, hold id
//! and remembered seat is decided exactly as the simulator decides it, and every statement is
//! `shared::sql`'s. Everything is recorded (`record.rs`); the phone's words are `words.rs`'s.

mod begin;
mod plan;
mod redis_op;
mod run;
mod words;

pub use begin::{start as start_starts, starts, Starts, StartsWaiting};
pub use run::Runner;

use std::time::Instant;

use shared::protocol::room::{Phase, Reply};

use super::error::RoomError;
use super::participants::Participant;
use super::phases;
use super::record::{self, Records, Settlement};
use super::request::{Done, Kind, Planned};
use super::store::Room;

/// What a request needs: the batched starts, what runs its operations, and the records.
#[derive(Clone)]
pub struct Attempts {
    pub starts: Starts,
    pub runner: Runner,
    pub records: Records,
}

impl Attempts {
    /// Carries out the request of the participant whose token is `token` in room `code`:
    /// `kind` says what it is, from the room (it may refuse, with a message naming the field).
    pub async fn act_by_token(
        &self,
        code: &str,
        token: &str,
        kind: impl FnOnce(&Room) -> Result<Kind, RoomError>,
    ) -> Result<Reply, RoomError> {
        timed(async {
            let mut begun = begin::by_token(&self.starts, code, token).await?;
            let kind = match kind(&begun.room) {
                Ok(kind) => kind,
                Err(e) => {
                    self.give_back(&mut begun).await?;
                    return Err(e);
                }
            };
            self.proceed(begun, kind).await
        })
        .await
    }

    /// Carries out `kind` for `who` in `room` (a bot's request).
    pub async fn act(
        &self,
        room: &Room,
        who: &Participant,
        kind: Kind,
    ) -> Result<Reply, RoomError> {
        timed(async {
            let mut begun = begin::by_number(&self.starts, &room.code, who.n).await?;
            // A bot races in the round it was released into.
            if begun.room.round != room.round {
                self.give_back(&mut begun).await?;
                return Err(RoomError::Conflict(
                    "this round is over: wait for the next one".into(),
                ));
            }
            self.proceed(begun, kind).await
        })
        .await
    }

    /// Gives back the lease `begun` took (if it took one) as it was: a request refused before
    /// it ran anything.
    async fn give_back(&self, begun: &mut begin::Begun) -> Result<(), RoomError> {
        if let Some(lease) = begun.lease.take() {
            let untouched = Settlement::untouched(lease.pending, lease.id);
            record::settle(&self.records, &begun.room, &begun.who, untouched, false).await?;
        }
        Ok(())
    }

    async fn proceed(&self, begun: begin::Begun, kind: Kind) -> Result<Reply, RoomError> {
        let begin::Begun {
            room,
            who,
            lease,
            settling,
            history,
        } = begun;
        if !room.racing() {
            return Err(RoomError::Conflict(not_racing(room.phase).into()));
        }
        let Some(begin::Lease { id: lease, pending }) = lease else {
            return Err(no_lease(settling));
        };
        let ran = self
            .runner
            .run(&room, &who, &kind, pending.clone(), history)
            .await;
        let (settlement, outcome) = match ran {
            Ok(ran) => {
                let s = &room.settings;
                let rules = (s.defence, s.hold_seconds, room.played.kind);
                let message = words::message(rules, &kind, ran.holding, &ran.done);
                answered(ran, kind, message, pending, lease)
            }
            Err(e) => (Settlement::untouched(pending, lease), Err(e)),
        };
        // The phone's answer waits for the record of what ran; a request that ran nothing does
        // not keep its phone waiting for a restarting database.
        let ran_something = !settlement.done.is_empty();
        record::settle(&self.records, &room, &who, settlement, ran_something).await?;
        outcome
    }
}

/// What a request that ran leaves behind, and the phone's answer (none after a fault).
fn answered(
    ran: run::Ran,
    kind: Kind,
    message: String,
    pending: Vec<Planned>,
    lease: i64,
) -> (Settlement, Result<Reply, RoomError>) {
    let left = if ran.fault.is_some() {
        // A request that failed leaves the last hold's payment as it was.
        pending
    } else if ran.holding {
        ran.left
    } else {
        vec![]
    };
    let outcome = match ran.fault {
        Some(e) => Err(e),
        None => Ok(Reply {
            holding: ran.holding,
            message,
            steps: ran.done.iter().map(Done::step).collect(),
        }),
    };
    let settlement = Settlement {
        done: ran.done,
        kind,
        holding: ran.holding,
        left,
        lease,
    };
    (settlement, outcome)
}

/// Why a room that is not racing takes no tap, by its phase as stored.
fn not_racing(phase: Phase) -> &'static str {
    match phase {
        Phase::Race | Phase::Countdown => {
            "the countdown is still running: tap when it reaches zero"
        }
        Phase::Results => "this round is over: wait for the next one",
        Phase::Lobby => "the round has not started yet: wait for the countdown",
    }
}

/// Why a request found no lease: the participant's last request is still being answered, or
/// its record is still being sent again after the database restarted.
fn no_lease(settling: bool) -> RoomError {
    if settling {
        // Their last request met the database restarting; its record (which frees them) is
        // still being sent (in the background, if that request was answered 503).
        RoomError::Unavailable(
            "the database is restarting: your last request is still being saved; try again in \
             a moment"
                .into(),
        )
    } else {
        RoomError::Conflict("your last request is still being answered: wait for it".into())
    }
}

/// `request`'s answer, its time counted as a whole request's (`phases::REQUEST`).
async fn timed<T>(request: impl std::future::Future<Output = T>) -> T {
    let started = Instant::now();
    let answer = request.await;
    phases::REQUEST.since(started);
    answer
}
