//! The actors' connections given back after a run that did not end normally: what still runs
//! is cancelled, again and again, until every actor's task has ended its transaction, reset
//! its connection and given it back (or closed it).

use std::time::Duration;

use futures::stream::{FuturesUnordered, StreamExt};

use super::super::monitor;
use super::Cleanup;

/// How often a clean-up cancels again what still runs.
const CANCEL_EVERY: Duration = Duration::from_millis(50);
/// How long one round of cancelling may take on the monitor before the monitor is given up.
const CANCEL_LIMIT: Duration = Duration::from_secs(2);

impl Cleanup {
    /// Cancels what still runs (again every `CANCEL_EVERY`, in case a cancel arrived before its
    /// statement did) until every actor's task has cleaned its connection and given it back.
    pub(super) async fn release_actors(&mut self) {
        let mut alive = vec![true; self.actors.len()];
        let mut ended: FuturesUnordered<_> = self
            .actors
            .iter_mut()
            .enumerate()
            .map(|(i, a)| {
                let rx = a.finish(false);
                async move {
                    if let Some(rx) = rx {
                        let _ = rx.await;
                    }
                    i
                }
            })
            .collect();
        loop {
            // Only live tasks: a returned connection's pid may already serve another run.
            let busy: Vec<i32> = self
                .actors
                .iter()
                .zip(&alive)
                .filter(|(a, alive)| **alive && a.is_busy())
                .map(|(a, _)| a.pid)
                .collect();
            if let (false, Some(monitor)) = (busy.is_empty(), self.monitor.as_mut()) {
                let cancelled =
                    tokio::time::timeout(CANCEL_LIMIT, monitor::cancel(monitor.conn(), &busy))
                        .await;
                if !matches!(cancelled, Ok(Ok(_))) {
                    tracing::warn!(schema = %self.schema, "cancelling a run's waiting statements failed; giving the monitor up");
                    if let Some(monitor) = self.monitor.take() {
                        monitor.discard();
                    }
                }
            }
            let again = tokio::time::sleep(CANCEL_EVERY);
            tokio::pin!(again);
            loop {
                tokio::select! {
                    next = ended.next() => match next {
                        Some(i) => alive[i] = false,
                        None => return,
                    },
                    _ = &mut again => break,
                }
            }
        }
    }
}
