//! `apply_redis` on indices: the simulated Redis's hold keys, and who is told they have a seat
//! by a key alone.

use super::{CompactEvent, CompactJudge};
use crate::outcome::{Answer, StepResult};
use crate::schedule::Op;

impl CompactJudge {
    /// `apply_redis` on indices.
    pub(super) fn apply_redis(
        &mut self,
        e: CompactEvent,
        until: i64,
        op: &Op,
        result: &StepResult,
    ) {
        let StepResult::Answer { answer } = result else {
            return;
        };
        let me = 1u128 << e.actor;
        let seat_bits = |mask: u64| (0..64).filter(move |s| mask & (1u64 << s) != 0);
        match (op, answer) {
            (Op::RedisHold { .. }, Answer::Held) => {
                for s in seat_bits(e.seats) {
                    if let Some((before, _, _)) = self.keys[s].replace((e.actor, e.hold, until)) {
                        let book = &mut self.books[before];
                        if before != e.actor && book.redis_only & (1 << s) != 0 {
                            book.redis_only &= !(1 << s);
                            self.told[s] &= !(1u128 << before);
                        }
                    }
                    if self.told[s] & me == 0 {
                        self.told[s] |= me;
                        self.books[e.actor].redis_only |= 1 << s;
                    }
                }
            }
            (Op::RedisRelease, Answer::Released) => {
                let current = self.books[e.actor].current_hold;
                for (s, key) in self.keys.iter_mut().enumerate() {
                    if key.is_some_and(|(holder, id, _)| holder == e.actor && Some(id) == current) {
                        *key = None;
                        let book = &mut self.books[e.actor];
                        if book.redis_only & (1 << s) != 0 {
                            book.redis_only &= !(1 << s);
                            self.told[s] &= !me;
                        }
                    }
                }
            }
            _ => {}
        }
    }
}
