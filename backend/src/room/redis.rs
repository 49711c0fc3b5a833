//! The real Redis of the Redis hold (`redis_hold`): `SET key hold NX PX ms` for one seat, an
//! all-or-nothing script for several, and a release that deletes a key only while it still holds
//! the participant's hold. `REDIS_URL`, or Redis on 127.0.0.1:6379; when it does not answer, the
//! Redis defence says so and the others go on working.

use std::sync::Arc;
use std::time::Duration;

use redis::aio::MultiplexedConnection;
use tokio::sync::Mutex;

/// How long a Redis command may take before Redis counts as unavailable.
const LIMIT: Duration = Duration::from_secs(2);

const HOLD_SCRIPT: &str =
    "for _, k in ipairs(KEYS) do if redis.call('EXISTS', k) == 1 then return 0 end end; \
     for _, k in ipairs(KEYS) do redis.call('SET', k, ARGV[1], 'PX', ARGV[2]) end; return 1";
const RELEASE_SCRIPT: &str = "local n = 0; for _, k in ipairs(KEYS) do \
     if redis.call('GET', k) == ARGV[1] then n = n + redis.call('DEL', k) end end; return n";

#[derive(Clone)]
pub struct Redis {
    url: String,
    conn: Arc<Mutex<Option<MultiplexedConnection>>>,
}

impl Redis {
    pub fn from_env() -> Redis {
        Redis::at(
            &std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_string()),
        )
    }

    pub fn at(url: &str) -> Redis {
        Redis {
            url: url.to_string(),
            conn: Arc::default(),
        }
    }

    async fn connection(&self) -> Result<MultiplexedConnection, String> {
        let mut slot = self.conn.lock().await;
        if let Some(c) = slot.as_ref() {
            return Ok(c.clone());
        }
        let client =
            redis::Client::open(self.url.as_str()).map_err(|e| self.down(&e.to_string()))?;
        let conn = tokio::time::timeout(LIMIT, client.get_multiplexed_async_connection())
            .await
            .map_err(|_| self.down("no answer within 2 s"))?
            .map_err(|e| self.down(&e.to_string()))?;
        *slot = Some(conn.clone());
        Ok(conn)
    }

    fn down(&self, why: &str) -> String {
        format!("Redis at {} is unavailable ({why}): the Redis hold cannot run; pick another defence or start redis-server", self.url)
    }

    /// Whether Redis answers, or why not.
    pub async fn check(&self) -> Result<(), String> {
        self.run(redis::cmd("PING")).await.map(|_: String| ())
    }

    async fn run<T: redis::FromRedisValue>(&self, cmd: redis::Cmd) -> Result<T, String> {
        let mut conn = self.connection().await?;
        match tokio::time::timeout(LIMIT, cmd.query_async::<T>(&mut conn)).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => {
                self.conn.lock().await.take();
                Err(self.down(&e.to_string()))
            }
            Err(_) => {
                self.conn.lock().await.take();
                Err(self.down("no answer within 2 s"))
            }
        }
    }

    /// Holds every one of `keys` for `hold` for `ms`, or none; whether it did, and the command
    /// as redis-cli takes it.
    pub async fn hold(
        &self,
        keys: &[String],
        hold: &str,
        ms: i64,
    ) -> Result<(bool, String), String> {
        if let [key] = keys {
            let mut cmd = redis::cmd("SET");
            cmd.arg(key).arg(hold).arg("NX").arg("PX").arg(ms);
            let set: Option<String> = self.run(cmd).await?;
            return Ok((set.is_some(), format!("SET {key} {hold} NX PX {ms}")));
        }
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(HOLD_SCRIPT)
            .arg(keys.len())
            .arg(keys)
            .arg(hold)
            .arg(ms);
        let done: i64 = self.run(cmd).await?;
        Ok((
            done == 1,
            format!(
                "EVAL \"{HOLD_SCRIPT}\" {} {} {hold} {ms}",
                keys.len(),
                keys.join(" ")
            ),
        ))
    }

    /// Deletes those of `keys` that still hold `hold`; how many, and the command.
    pub async fn release(&self, keys: &[String], hold: &str) -> Result<(i64, String), String> {
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(RELEASE_SCRIPT).arg(keys.len()).arg(keys).arg(hold);
        let n: i64 = self.run(cmd).await?;
        Ok((
            n,
            format!(
                "EVAL \"{RELEASE_SCRIPT}\" {} {} {hold}",
                keys.len(),
                keys.join(" ")
            ),
        ))
    }
}

/// The Redis key of a seat's hold in a round of a room: the room and round first, then
/// `shared::sql::redis_key`.
pub fn key(code: &str, round: i32, seat: &str) -> String {
    format!(
        "lastseat:{code}:r{round}:{}",
        shared::sql::redis_key(super::booking::SHOW, seat)
    )
}
