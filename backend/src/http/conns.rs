//! The open client connections, counted per client address, with their caps.
//!
//! A connection past a cap does not simply bounce: the client at its own cap loses its oldest
//! idle connection (one with no request in flight), and at the server's cap the client holding
//! the most connections does. So a flood of idle sockets evicts itself, a new client always
//! gets in while anyone holds an idle connection, and a connection is refused only when every
//! open one is in the middle of a request.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;

/// Every open connection, by client address.
pub struct Registry {
    inner: Mutex<Inner>,
    max_total: usize,
    max_per_client: usize,
    /// Signalled when the last connection closes (for the graceful shutdown).
    empty: Notify,
}

#[derive(Default)]
struct Inner {
    total: usize,
    next_id: u64,
    /// Oldest first.
    by_client: HashMap<IpAddr, VecDeque<Arc<Conn>>>,
}

/// One open connection as the registry sees it.
pub struct Conn {
    id: u64,
    /// Requests in flight, counted until their response body has been sent.
    busy: AtomicUsize,
    evicted: AtomicBool,
    evict: Notify,
}

/// A connection's place in the registry; dropping it gives the place back.
pub struct Ticket {
    registry: Arc<Registry>,
    client: IpAddr,
    conn: Arc<Conn>,
}

/// Held while a request (and its response body) is in flight on a connection.
pub struct Busy(Arc<Conn>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Registry {
    pub fn new(max_total: usize, max_per_client: usize) -> Arc<Registry> {
        Arc::new(Registry {
            inner: Mutex::new(Inner::default()),
            max_total: max_total.max(1),
            max_per_client: max_per_client.max(1),
            empty: Notify::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A place for a new connection from `client`, making room by evicting an idle connection
    /// if a cap is reached; `None` if no connection that counts against the cap is idle.
    pub fn admit(self: &Arc<Self>, client: IpAddr) -> Option<Ticket> {
        let mut inner = self.lock();
        let own = inner.by_client.get(&client).map_or(0, VecDeque::len);
        if own >= self.max_per_client {
            evict_oldest_idle(&mut inner, client)?;
        } else if inner.total >= self.max_total {
            let heaviest = inner
                .by_client
                .iter()
                .max_by_key(|(_, conns)| conns.len())
                .map(|(ip, _)| *ip)?;
            evict_oldest_idle(&mut inner, heaviest)?;
        }
        inner.next_id += 1;
        let conn = Arc::new(Conn {
            id: inner.next_id,
            busy: AtomicUsize::new(0),
            evicted: AtomicBool::new(false),
            evict: Notify::new(),
        });
        inner.total += 1;
        inner
            .by_client
            .entry(client)
            .or_default()
            .push_back(conn.clone());
        Some(Ticket {
            registry: self.clone(),
            client,
            conn,
        })
    }

    /// How many connections are open.
    pub fn open(&self) -> usize {
        self.lock().total
    }

    /// Waits until every connection has closed.
    pub async fn closed(&self) {
        loop {
            let notified = self.empty.notified();
            if self.open() == 0 {
                return;
            }
            notified.await;
        }
    }
}

/// Evicts `client`'s oldest connection with no request in flight (it leaves the registry at
/// once; its task closes the socket when it sees the signal). `None` if all of them are busy.
fn evict_oldest_idle(inner: &mut Inner, client: IpAddr) -> Option<()> {
    let conns = inner.by_client.get_mut(&client)?;
    let at = conns
        .iter()
        .position(|c| c.busy.load(Ordering::Acquire) == 0)?;
    let victim = conns.remove(at)?;
    if conns.is_empty() {
        inner.by_client.remove(&client);
    }
    inner.total -= 1;
    victim.evicted.store(true, Ordering::Release);
    victim.evict.notify_one();
    Some(())
}

impl Ticket {
    /// Counts a request in flight until the returned guard is dropped.
    pub fn busy(&self) -> Busy {
        self.conn.busy.fetch_add(1, Ordering::AcqRel);
        Busy(self.conn.clone())
    }

    /// Resolves when the registry evicted this connection to make room for another.
    pub async fn evicted(&self) {
        self.conn.evict.notified().await;
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if self.conn.evicted.load(Ordering::Acquire) {
            return;
        }
        let mut guard = self.registry.lock();
        let inner = &mut *guard;
        if let Some(conns) = inner.by_client.get_mut(&self.client) {
            if let Some(at) = conns.iter().position(|c| c.id == self.conn.id) {
                conns.remove(at);
                inner.total -= 1;
            }
            if conns.is_empty() {
                inner.by_client.remove(&self.client);
            }
        }
        if inner.total == 0 {
            self.registry.empty.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Registry;
    use std::net::IpAddr;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_client_at_its_cap_loses_its_own_oldest_idle_connection() {
        let registry = Registry::new(100, 2);
        let first = registry.admit(ip("10.0.0.1")).unwrap();
        let second = registry.admit(ip("10.0.0.1")).unwrap();
        let _busy = second.busy();
        let other = registry.admit(ip("10.0.0.2")).unwrap();
        let third = registry
            .admit(ip("10.0.0.1"))
            .expect("the first one is idle");
        assert!(first
            .conn
            .evicted
            .load(std::sync::atomic::Ordering::Acquire));
        assert_eq!(registry.open(), 3);
        // Both of its connections are now busy: the next one is refused.
        let _busy_too = third.busy();
        assert!(registry.admit(ip("10.0.0.1")).is_none());
        drop((first, other));
        assert_eq!(registry.open(), 2);
    }

    #[test]
    fn at_the_servers_cap_the_heaviest_client_makes_room() {
        let registry = Registry::new(3, 10);
        let heavy: Vec<_> = (0..2)
            .map(|_| registry.admit(ip("10.0.0.1")).unwrap())
            .collect();
        let light = registry.admit(ip("10.0.0.2")).unwrap();
        let _new = registry.admit(ip("10.0.0.3")).expect("room is made");
        assert!(heavy[0]
            .conn
            .evicted
            .load(std::sync::atomic::Ordering::Acquire));
        assert!(!light
            .conn
            .evicted
            .load(std::sync::atomic::Ordering::Acquire));
        assert_eq!(registry.open(), 3);
    }
}
