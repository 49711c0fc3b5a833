//! `scripts/lib.sh`'s `ensure_redis`, run for real: with no `REDIS_URL` and nothing answering
//! where it looks, it starts a private `redis-server` that answers, exports its URL, and
//! `stop_redis` stops it again; with `REDIS_URL` set it uses that and starts nothing.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// `bash` with `scripts/lib.sh` sourced, running `script`, without the test's own `REDIS_URL`.
fn lib_sh(script: &str) -> Command {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut bash = Command::new("bash");
    bash.arg("-c")
        .arg(format!("source scripts/lib.sh\n{script}"))
        .current_dir(root)
        .env_remove("REDIS_URL")
        .env_remove("LASTSEAT_REDIS_HOST");
    bash
}

/// A port on which nothing listens (bound, then let go).
fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("port 0");
    listener.local_addr().expect("its address").port()
}

fn answers(port: u16) -> bool {
    TcpStream::connect_timeout(
        &format!("127.0.0.1:{port}").parse().expect("an address"),
        Duration::from_secs(1),
    )
    .is_ok()
}

/// Stops the private Redis should the test fail before `stop_redis` does.
struct StopOnPanic(u16);

impl Drop for StopOnPanic {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let pidfile = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("../target/redis/redis-{}.pid", self.0));
            if let Ok(pid) = std::fs::read_to_string(pidfile) {
                let _ = Command::new("kill").arg(pid.trim()).status();
            }
        }
    }
}

#[tokio::test]
async fn with_nothing_answering_ensure_redis_starts_a_private_redis_and_stop_redis_stops_it() {
    let nothing_there = closed_port();
    let mut bash =
        lib_sh("ensure_redis\necho \"REDIS_URL=$REDIS_URL\"\nread -r _\nstop_redis\necho stopped")
            .env("LASTSEAT_REDIS_PORT", nothing_there.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("bash runs");
    let mut out = BufReader::new(bash.stdout.take().expect("its stdout"));
    let mut line = String::new();
    out.read_line(&mut line).expect("a line");
    let url = line
        .trim()
        .strip_prefix("REDIS_URL=")
        .unwrap_or_else(|| panic!("ensure_redis exported no REDIS_URL: {line:?}"))
        .to_string();
    let port: u16 = url
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {url}"));
    assert_ne!(port, nothing_there, "{url}");
    let _stop = StopOnPanic(port);

    // A real Redis: it stores and returns a key.
    let client = redis::Client::open(url.as_str()).expect("a Redis URL");
    let mut conn = client
        .get_multiplexed_async_connection()
        .await
        .unwrap_or_else(|e| panic!("the private Redis at {url} does not answer: {e}"));
    let _: () = redis::cmd("SET")
        .arg("lastseat:test")
        .arg("here")
        .query_async(&mut conn)
        .await
        .expect("SET");
    let got: String = redis::cmd("GET")
        .arg("lastseat:test")
        .query_async(&mut conn)
        .await
        .expect("GET");
    assert_eq!(got, "here");
    drop(conn);

    bash.stdin
        .take()
        .expect("its stdin")
        .write_all(b"\n")
        .expect("go on");
    let mut rest = String::new();
    out.read_line(&mut rest).expect("a line");
    let status = bash.wait().expect("bash ends");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut bash.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(status.success(), "{stderr}");
    assert_eq!(rest.trim(), "stopped", "{stderr}");
    assert!(
        stderr.contains(&format!("private redis-server started on 127.0.0.1:{port}")),
        "{stderr}"
    );
    assert!(
        !answers(port),
        "the private Redis still listens on {port} after stop_redis"
    );
}

#[test]
fn with_redis_url_set_ensure_redis_uses_it_and_starts_nothing() {
    let out = lib_sh("ensure_redis\necho \"$REDIS_URL\"\necho \"pid=$REDIS_PRIVATE_PID\"")
        .env("REDIS_URL", "redis://redis.example:6380")
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stdout, "redis://redis.example:6380\npid=\n", "{stderr}");
    assert!(stderr.contains("REDIS_URL is set, using it"), "{stderr}");
}
