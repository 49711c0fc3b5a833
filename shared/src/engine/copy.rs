//! Copying an engine into another's buffers: the explorer copies the model's state at every
//! branch of its walk, so `clone_from` reuses every allocation it can, the client side's
//! included.

use std::collections::BTreeMap;

use super::Engine;
use crate::client::{ActorState, Clients};

impl Clone for Engine<'_> {
    fn clone(&self) -> Self {
        let Engine {
            schedule,
            names,
            clients,
            db,
            locks,
            ssi,
            inno,
            open,
            running,
            log,
            view,
            races,
        } = self;
        Engine {
            schedule,
            names: names.clone(),
            clients: clients.clone(),
            db: db.clone(),
            locks: locks.clone(),
            ssi: ssi.clone(),
            inno: inno.clone(),
            open: open.clone(),
            running: running.clone(),
            log: log.clone(),
            view: view.clone(),
            races: races.clone(),
        }
    }

    /// Reuses every buffer of `self`, the client side's included.
    fn clone_from(&mut self, source: &Self) {
        let Engine {
            schedule,
            names,
            clients,
            db,
            locks,
            ssi,
            inno,
            open,
            running,
            log,
            view,
            races,
        } = self;
        if std::ptr::eq(*schedule, source.schedule) {
            copy_clients(clients, &source.clients);
        } else {
            clients.clone_from(&source.clients);
        }
        *schedule = source.schedule;
        names.clone_from(&source.names);
        db.clone_from(&source.db);
        locks.clone_from(&source.locks);
        ssi.clone_from(&source.ssi);
        inno.clone_from(&source.inno);
        open.clone_from(&source.open);
        running.clone_from(&source.running);
        log.clone_from(&source.log);
        view.clone_from(&source.view);
        races.clone_from(&source.races);
    }
}

/// Copies the client side of an engine of the same schedule into another's, reusing its
/// buffers (`Clients::clone` allocates every actor's strings and maps anew). The fields it
/// cannot reach (the show, the hold length) come from the schedule and never change.
fn copy_clients(to: &mut Clients, from: &Clients) {
    to.clock = from.clock;
    copy_map(&mut to.provider, &from.provider);
    to.redis.clone_from(&from.redis);
    to.actors.truncate(from.actors.len());
    for (t, f) in to.actors.iter_mut().zip(&from.actors) {
        let ActorState {
            next,
            in_flight,
            in_tx,
            failed,
            tx_clock,
            remembered,
            current_hold,
            holding,
            retry,
            tx_took,
            tx_retryable,
            skipping,
        } = t;
        *next = f.next;
        in_flight.clone_from(&f.in_flight);
        *in_tx = f.in_tx;
        *failed = f.failed;
        *tx_clock = f.tx_clock;
        copy_map(remembered, &f.remembered);
        current_hold.clone_from(&f.current_hold);
        *holding = f.holding;
        *retry = f.retry;
        *tx_took = f.tx_took;
        *tx_retryable = f.tx_retryable;
        *skipping = f.skipping;
    }
    let have = to.actors.len();
    to.actors.extend_from_slice(&from.actors[have..]);
    debug_assert!(to == from, "the client side was copied whole");
}

/// `to.clone_from(from)` for a map, without reallocating when both have the same keys.
fn copy_map<V: Copy>(to: &mut BTreeMap<String, V>, from: &BTreeMap<String, V>) {
    if to.len() == from.len() && to.keys().eq(from.keys()) {
        for (t, f) in to.values_mut().zip(from.values()) {
            *t = *f;
        }
    } else {
        to.clone_from(from);
    }
}
