//! The Redis hold's commands as redis-cli takes them. Redis is simulated (`crate::client`), so
//! these are what the page shows and the exports mention, never something that is sent.

/// The Redis key of a seat's hold.
pub fn redis_key(show: i64, seat: &str) -> String {
    format!("hold:{show}:{seat}")
}

/// The command of `redis_hold`: `SET … NX PX` for one seat, an all-or-nothing script for
/// several.
pub fn redis_hold_command(show: i64, seats: &[String], hold_id: &str, hold_minutes: i64) -> String {
    let ms = hold_minutes * 60_000;
    match seats {
        [seat] => format!("SET {} {hold_id} NX PX {ms}", redis_key(show, seat)),
        _ => format!(
            "EVAL \"for _, k in ipairs(KEYS) do if redis.call('EXISTS', k) == 1 then return 0 end end; \
             for _, k in ipairs(KEYS) do redis.call('SET', k, ARGV[1], 'PX', ARGV[2]) end; return 1\" {} {} {hold_id} {ms}",
            seats.len(),
            keys(show, seats)
        ),
    }
}

/// The command of `redis_release`: delete each key only while it still holds this hold id.
pub fn redis_release_command(show: i64, seats: &[String], hold_id: &str) -> String {
    format!(
        "EVAL \"local n = 0; for _, k in ipairs(KEYS) do if redis.call('GET', k) == ARGV[1] then n = n + redis.call('DEL', k) end end; return n\" {} {} {hold_id}",
        seats.len(),
        keys(show, seats)
    )
}

fn keys(show: i64, seats: &[String]) -> String {
    seats
        .iter()
        .map(|s| redis_key(show, s))
        .collect::<Vec<_>>()
        .join(" ")
}
