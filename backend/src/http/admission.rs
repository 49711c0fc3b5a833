//! Who runs next on PostgreSQL. The rule:
//!
//! - At most `slots` runs at once (what the pool can serve: a connection per buyer and one).
//! - A run whose estimated cost (`cost.rs`) is above `max_cost` is refused before it starts.
//!   One above `cheap` is *expensive*: at most `expensive_slots` of those run at once, so cheap
//!   runs always find a slot while slow ones occupy theirs.
//! - Clients are told apart by their address. Waiting runs are served round-robin across
//!   clients, and in a first pass only a client below its fair share (`slots` divided among the
//!   clients that are running or waiting, rounded up) gets a slot; a slot nobody below their
//!   share wants goes to the next in turn, so a lone client may use them all.
//! - A client may have `max_waiting_per_client` runs waiting; a run past that, or one that
//!   waited `queue_limit` for its turn, is refused as busy, with the seconds after which a slot
//!   should be free (`Retry-After`).
//!
//! The rule's numbers and its refusals are `rules.rs`'s.

mod rules;

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::time::Instant;

use super::cost::Cost;

pub use rules::{Refusal, Rules};

/// The run queue.
pub struct Admission {
    rules: Rules,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    next_id: u64,
    running: usize,
    running_expensive: usize,
    clients: HashMap<IpAddr, Client>,
    /// The clients with runs waiting, in the order they are served.
    turn: VecDeque<IpAddr>,
    /// The runs in progress: id, when each should end.
    ends: Vec<(u64, Instant)>,
}

#[derive(Default)]
struct Client {
    running: usize,
    waiting: VecDeque<Waiter>,
}

struct Waiter {
    id: u64,
    expensive: bool,
    estimate: Duration,
    grant: oneshot::Sender<Permit>,
}

impl Admission {
    pub fn new(rules: Rules) -> Arc<Admission> {
        Arc::new(Admission {
            rules,
            state: Mutex::new(State::default()),
        })
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A slot for a run of `cost` from `client`, when its turn comes.
    pub async fn admit(self: &Arc<Self>, client: IpAddr, cost: Cost) -> Result<Permit, Refusal> {
        if cost.estimate > self.rules.max_cost {
            return Err(Refusal::TooCostly {
                cost,
                limit: self.rules.max_cost,
            });
        }
        let (grant, mut granted) = oneshot::channel();
        let id = {
            let mut state = self.lock();
            let queue = state.clients.entry(client).or_default();
            if queue.waiting.len() >= self.rules.max_waiting_per_client {
                return Err(self.busy(&state, false));
            }
            state.next_id += 1;
            let id = state.next_id;
            let waiter = Waiter {
                id,
                expensive: cost.estimate > self.rules.cheap,
                estimate: cost.estimate,
                grant,
            };
            state
                .clients
                .entry(client)
                .or_default()
                .waiting
                .push_back(waiter);
            if !state.turn.contains(&client) {
                state.turn.push_back(client);
            }
            self.grant(&mut state);
            id
        };
        let waiting = Waiting {
            admission: self,
            client,
            id,
        };
        match tokio::time::timeout(self.rules.queue_limit, &mut granted).await {
            Ok(Ok(permit)) => Ok(permit),
            _ => {
                let state = waiting.withdraw();
                // Granted in the meantime: take it after all.
                match granted.try_recv() {
                    Ok(permit) => Ok(permit),
                    Err(_) => Err(self.busy(&state, true)),
                }
            }
        }
    }

    /// The refusal for a run that finds no slot: when the first run in progress should end.
    fn busy(&self, state: &State, waited: bool) -> Refusal {
        let now = Instant::now();
        let soonest = state
            .ends
            .iter()
            .map(|(_, end)| end.saturating_duration_since(now))
            .min()
            .unwrap_or(Duration::ZERO);
        let seconds = u64::try_from(soonest.as_millis().div_ceil(1000)).unwrap_or(60);
        Refusal::Busy {
            retry_after: seconds.clamp(1, 60),
            waited,
        }
    }
}

/// A run in the queue; dropped (its caller gone, or its wait over) it leaves the queue.
struct Waiting<'a> {
    admission: &'a Arc<Admission>,
    client: IpAddr,
    id: u64,
}

impl<'a> Waiting<'a> {
    /// Leaves the queue now; the state, still locked.
    fn withdraw(self) -> MutexGuard<'a, State> {
        let admission = self.admission;
        let (client, id) = (self.client, self.id);
        std::mem::forget(self);
        let mut state = admission.lock();
        remove_waiter(&mut state, client, id);
        state
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let mut state = self.admission.lock();
        remove_waiter(&mut state, self.client, self.id);
    }
}

fn remove_waiter(state: &mut State, ip: IpAddr, id: u64) {
    let Some(client) = state.clients.get_mut(&ip) else {
        return;
    };
    client.waiting.retain(|w| w.id != id);
    if client.waiting.is_empty() {
        state.turn.retain(|c| *c != ip);
        if client.running == 0 {
            state.clients.remove(&ip);
        }
    }
}

#[cfg(test)]
#[path = "admission_tests.rs"]
mod tests;

/// A slot held by a run; dropping it frees the slot for the next in turn.
pub struct Permit {
    admission: Option<Arc<Admission>>,
    client: IpAddr,
    id: u64,
    expensive: bool,
}

impl Admission {
    /// Starts waiting runs while there are slots, round-robin across clients, fair shares
    /// first.
    fn grant(self: &Arc<Self>, state: &mut State) {
        while state.running < self.rules.slots {
            let active = state
                .clients
                .values()
                .filter(|c| c.running > 0 || !c.waiting.is_empty())
                .count()
                .max(1);
            let fair = self.rules.slots.div_ceil(active);
            let expensive_room = state.running_expensive < self.rules.expensive_slots;
            let pick = [true, false].into_iter().find_map(|fair_only| {
                state.turn.iter().enumerate().find_map(|(at, ip)| {
                    let client = &state.clients[ip];
                    if fair_only && client.running >= fair {
                        return None;
                    }
                    let w = client
                        .waiting
                        .iter()
                        .position(|w| !w.expensive || expensive_room)?;
                    Some((at, *ip, w))
                })
            });
            let Some((at, ip, w)) = pick else { break };
            let client = state.clients.get_mut(&ip).expect("a client in turn");
            let waiter = client.waiting.remove(w).expect("a waiter");
            client.running += 1;
            state.turn.remove(at);
            if !client.waiting.is_empty() {
                state.turn.push_back(ip);
            }
            state.running += 1;
            state.running_expensive += usize::from(waiter.expensive);
            state
                .ends
                .push((waiter.id, Instant::now() + waiter.estimate));
            let permit = Permit {
                admission: Some(self.clone()),
                client: ip,
                id: waiter.id,
                expensive: waiter.expensive,
            };
            if let Err(mut permit) = waiter.grant.send(permit) {
                // Its caller has gone: give the slot back here, under the lock already held.
                permit.admission = None;
                release(state, &permit);
            }
        }
    }
}

/// Frees a permit's slot in `state`.
fn release(state: &mut State, permit: &Permit) {
    state.running -= 1;
    state.running_expensive -= usize::from(permit.expensive);
    state.ends.retain(|(id, _)| *id != permit.id);
    if let Some(client) = state.clients.get_mut(&permit.client) {
        client.running -= 1;
        if client.running == 0 && client.waiting.is_empty() {
            state.clients.remove(&permit.client);
        }
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        if let Some(admission) = self.admission.take() {
            let mut state = admission.lock();
            release(&mut state, self);
            admission.grant(&mut state);
        }
    }
}
