//! One statement for many requests: a task takes the items that requests hand it, sends every
//! item handed over since its last statement in one statement, and answers each request with
//! its own result. While one batch is on its way the items that arrive wait for the next, so a
//! busy process costs one round trip (and one commit) per batch instead of one per request,
//! and a quiet one sends at once. Used for the requests' starts (`attempt/begin.rs`) and their
//! records (`recorder.rs`).

use std::collections::{HashSet, VecDeque};
use std::future::Future;

use tokio::sync::{mpsc, oneshot};

/// The most items one statement carries.
pub const MAX_BATCH: usize = 256;

type Job<T, R> = (T, oneshot::Sender<R>);

/// The handle requests give their items to.
pub struct Batcher<T, R> {
    jobs: mpsc::UnboundedSender<Job<T, R>>,
}

// Not derived: a derive would ask `T` and `R` to be `Clone` too.
impl<T, R> Clone for Batcher<T, R> {
    fn clone(&self) -> Self {
        Batcher {
            jobs: self.jobs.clone(),
        }
    }
}

/// The receiving end, until its task is started (`Waiting::start`).
pub struct Waiting<T, R>(mpsc::UnboundedReceiver<Job<T, R>>);

/// A batcher and its receiving end: the handle can be kept before its task can be started.
pub fn channel<T, R>() -> (Batcher<T, R>, Waiting<T, R>) {
    let (jobs, rx) = mpsc::unbounded_channel();
    (Batcher { jobs }, Waiting(rx))
}

impl<T, R> Batcher<T, R> {
    /// Hands `item` over; its result, once its batch is answered (none if the task is gone).
    pub async fn call(&self, item: T) -> Option<R> {
        let (done, answer) = oneshot::channel();
        self.jobs.send((item, done)).ok()?;
        answer.await.ok()
    }
}

impl<T: Send + 'static, R: Send + 'static> Waiting<T, R> {
    /// Starts the task: `send` answers a batch with one result per item, in order. Two items
    /// with the same `key` never share a batch: the later waits for the next one.
    pub fn start<K, Fut>(
        self,
        key: impl Fn(&T) -> Option<K> + Send + 'static,
        send: impl Fn(Vec<T>) -> Fut + Send + 'static,
    ) where
        K: Eq + std::hash::Hash + Send,
        Fut: Future<Output = Vec<R>> + Send,
    {
        let Waiting(mut rx) = self;
        tokio::spawn(async move {
            let mut later: VecDeque<Job<T, R>> = VecDeque::new();
            loop {
                let first = match later.pop_front() {
                    Some(job) => job,
                    None => match rx.recv().await {
                        Some(job) => job,
                        None => return,
                    },
                };
                let mut keys: HashSet<K> = key(&first.0).into_iter().collect();
                let mut batch = vec![first];
                let mut put_off = VecDeque::new();
                while batch.len() < MAX_BATCH {
                    let Some(job) = later.pop_front().or_else(|| rx.try_recv().ok()) else {
                        break;
                    };
                    let fresh = key(&job.0).is_none_or(|k| keys.insert(k));
                    if fresh {
                        batch.push(job);
                    } else {
                        put_off.push_back(job);
                    }
                }
                put_off.extend(later.drain(..));
                later = put_off;
                let (items, answers): (Vec<T>, Vec<oneshot::Sender<R>>) = batch.into_iter().unzip();
                let results = send(items).await;
                for (answer, result) in answers.into_iter().zip(results) {
                    let _ = answer.send(result);
                }
            }
        });
    }
}
