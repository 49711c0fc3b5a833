//! What an operation's SQL depends on besides the op, read from the client side before the
//! entry is sent, and the statement the operation sends with the values its SQL binds.

use crate::schedule::{Now, Op, SeatStatus, Wait};

use super::super::mvcc::SeatVal;
use super::super::stmt::{Confirm, Kind, Upd};
use super::super::Engine;

/// What an operation's SQL depends on besides the op, read from the client side before the
/// entry is sent: `Clients::context` as indices (without building its strings).
pub(crate) struct Cx {
    pub new_hold: u16,
    /// The actor's current hold id, for the operations that name it (a release, a confirm).
    pub current_hold: Option<u16>,
    pub tx_clock: i64,
    pub clock: i64,
    pub minutes: i64,
    /// On a counter's rows: what a request takes, and whether the value is a flag.
    pub counter: Option<(i64, bool)>,
    /// The rows are usernames.
    pub username: bool,
}

impl Cx {
    pub fn of(engine: &Engine<'_>, actor: usize) -> Cx {
        let (names, clients) = (&engine.names, &engine.clients);
        let a = &clients.actors[actor];
        let names_current = matches!(
            engine.schedule.actors()[actor].program[a.next],
            Op::Release | Op::Confirm { .. }
        );
        Cx {
            new_hold: names.op_hold[actor][a.next],
            // Looked up only where it is used: the lookup compares strings.
            current_hold: names_current.then(|| {
                a.current_hold
                    .as_deref()
                    .map_or(names.no_hold[actor], |h| names.hold(h))
            }),
            tx_clock: if a.in_tx { a.tx_clock } else { clients.clock },
            clock: clients.clock,
            minutes: engine.schedule.scenario().hold_minutes,
            counter: {
                let scenario = engine.schedule.scenario();
                let kind = scenario.kind;
                kind.is_counter()
                    .then_some((scenario.take, kind == crate::schedule::Shape::Coupon))
            },
            username: engine.schedule.scenario().kind.is_username(),
        }
    }

    /// The clock reading a deadline test uses: fixed now, or `None` for `clock_now()` read at
    /// each evaluation.
    pub(super) fn now(&self, now: Now) -> Option<i64> {
        match now {
            Now::Transaction => Some(self.tx_clock),
            Now::Statement => Some(self.clock),
            Now::Evaluation => None,
        }
    }
}

/// The statement an operation sends, with the values its SQL binds.
pub(crate) fn statement(op: &Op, actor: usize, cx: &Cx) -> Kind {
    let holder = actor as u8;
    if crate::schedule::SHAPES && cx.username {
        match op {
            Op::Write { .. } => return Kind::Account,
            Op::Claim { .. } => return Kind::Ignore { hold: cx.new_hold },
            _ => {}
        }
    }
    if let (true, Some((take, flag))) = (crate::schedule::SHAPES, cx.counter) {
        match op {
            Op::Claim { .. } | Op::Write { .. } => {
                let bounded = matches!(op, Op::Claim { .. });
                return Kind::Update(Upd::Take {
                    take,
                    bounded,
                    flag,
                });
            }
            _ => {}
        }
    }
    match op {
        Op::Read { .. } => Kind::Lock(Wait::Wait),
        Op::Lock { wait, .. } => Kind::Lock(*wait),
        Op::Claim { .. } => Kind::Update(Upd::Claim {
            holder,
            hold: cx.new_hold,
            minutes: cx.minutes,
            now: cx.now(op.now()),
        }),
        Op::Write { status, .. } => Kind::Update(Upd::Write(SeatVal {
            status: *status,
            holder: Some(holder),
            hold: Some(cx.new_hold),
            until: (*status == SeatStatus::Held).then_some(cx.tx_clock + cx.minutes),
            value: 0,
        })),
        Op::Release => Kind::Update(Upd::Release {
            hold: cx.current_hold.expect("a release names the current hold"),
        }),
        Op::Sweep => Kind::Update(Upd::Sweep),
        Op::Book { .. } => Kind::Book { hold: cx.new_hold },
        Op::Confirm { .. } => Kind::Confirm(Confirm {
            hold: cx.current_hold.expect("a confirm names the current hold"),
            holder,
            called_at: cx.now(op.now()),
            seats: 0,
            inserting: false,
            stage: 0,
            valid: 0,
        }),
        _ => unreachable!("{} answers at once", op.name()),
    }
}
