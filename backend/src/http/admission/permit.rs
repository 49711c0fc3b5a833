//! Slots: granting them to waiting runs, round-robin across clients and fair shares first, and
//! giving one back when its run's `Permit` is dropped.

use std::net::IpAddr;
use std::sync::Arc;

use tokio::time::Instant;

use super::{Admission, State};

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
    pub(super) fn grant(self: &Arc<Self>, state: &mut State) {
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
