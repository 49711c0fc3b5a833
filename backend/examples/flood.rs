//! The flood benchmark: how long `GET /api/health` takes while 20,000 idle TCP connections are
//! open against the server (on 127.0.0.1 only). Not a test: it prints figures.
//!
//!     cargo run -p backend --example flood -- [CONNECTIONS] [SOURCE_ADDRESSES] [PROBES]
//!
//! Defaults: 20000 connections from 1 address (127.0.0.1), 300 probes. With several source
//! addresses (127.0.0.1, 127.0.0.2, …) the flood looks like many clients, and the server's
//! total cap, not the per-client one, is what holds. The server and the flooding clients run
//! as child processes of this one (the same binary, told its part by `FLOOD_ROLE`), so each has
//! its own open-files limit; each flooding child holds up to 10,000 connections. The probes
//! open a fresh connection each, from 127.0.0.250 (another client) and from 127.0.0.1 (the
//! flood's own address), one at a time, during the flood's ramp and once it is all open.

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const PER_CHILD: usize = 10_000;

fn main() {
    match std::env::var("FLOOD_ROLE").as_deref() {
        Ok("server") => server(),
        Ok("flood") => flood(),
        _ => bench(),
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// The server: the real `serve` with its default limits; prints its address.
fn server() {
    runtime().block_on(async {
        let pool = backend::db::connect(&backend::db::database_url(), 40)
            .await
            .expect("PostgreSQL (DATABASE_URL)");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        println!("{}", listener.local_addr().unwrap());
        backend::serve(listener, backend::AppState::new(pool, None))
            .await
            .unwrap();
    });
}

/// A flooding client: opens `FLOOD_COUNT` connections from the `FLOOD_FROM` addresses in turn,
/// says how many it holds, and holds them until its stdin closes.
fn flood() {
    let addr: SocketAddr = std::env::var("FLOOD_ADDR").unwrap().parse().unwrap();
    let count: usize = std::env::var("FLOOD_COUNT").unwrap().parse().unwrap();
    let from: Vec<String> = std::env::var("FLOOD_FROM")
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    runtime().block_on(async {
        let mut held = Vec::with_capacity(count);
        let mut failed = 0;
        for i in 0..count {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket
                .bind(format!("{}:0", from[i % from.len()]).parse().unwrap())
                .unwrap();
            match tokio::time::timeout(Duration::from_secs(5), socket.connect(addr)).await {
                Ok(Ok(stream)) => held.push(stream),
                _ => failed += 1,
            }
        }
        println!("open {} failed {failed}", held.len());
        let _ = tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            let _ = std::io::stdin().read_line(&mut line);
        })
        .await;
        drop(held);
    });
}

fn child(role: &str, env: &[(&str, String)]) -> Child {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .env("FLOOD_ROLE", role)
        .env("RUST_LOG", "error")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    command.spawn().expect("a child process")
}

fn first_line(child: &mut Child) -> String {
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    line.trim().to_string()
}

fn bench() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers"))
        .collect();
    let connections = args.first().copied().unwrap_or(20_000);
    let addresses = args.get(1).copied().unwrap_or(1).clamp(1, 200);
    let probes = args.get(2).copied().unwrap_or(300);
    let mut server = child("server", &[]);
    let addr: SocketAddr = first_line(&mut server)
        .parse()
        .expect("the server's address");
    let from: Vec<String> = (1..=addresses).map(|i| format!("127.0.0.{i}")).collect();
    let rt = runtime();
    println!("server at {addr}, pid {}", server.id());
    report("no flood", rt.block_on(probe(addr, probes)));

    let started = Instant::now();
    let mut floods: Vec<Child> = (0..connections.div_ceil(PER_CHILD))
        .map(|i| {
            let count = PER_CHILD.min(connections - i * PER_CHILD);
            child(
                "flood",
                &[
                    ("FLOOD_ADDR", addr.to_string()),
                    ("FLOOD_COUNT", count.to_string()),
                    ("FLOOD_FROM", from.join(",")),
                ],
            )
        })
        .collect();
    report("during the ramp", rt.block_on(probe(addr, probes)));
    let opened: Vec<String> = floods.iter_mut().map(first_line).collect();
    println!(
        "flood of {connections} from {addresses} address(es) open after {:.1} s: {}",
        started.elapsed().as_secs_f64(),
        opened.join(", ")
    );
    println!("server's open files: {}", open_files(server.id()));
    report("all open", rt.block_on(probe(addr, probes)));
    std::thread::sleep(Duration::from_secs(12));
    println!(
        "server's open files 12 s later (past the header-read timeout): {}",
        open_files(server.id())
    );
    report("12 s later", rt.block_on(probe(addr, probes)));
    for mut f in floods {
        let _ = f.stdin.take().map(|mut s| s.write_all(b"\n"));
        let _ = f.wait();
    }
    let _ = server.kill();
    let _ = server.wait();
}

fn open_files(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count())
}

/// Health latencies in ms, a fresh connection each, alternating between another client's
/// address and the flood's (in that order); `None` for a probe that failed or took over 10 s.
async fn probe(addr: SocketAddr, n: usize) -> [Vec<Option<f64>>; 2] {
    let clients: Vec<reqwest::Client> = ["127.0.0.250", "127.0.0.1"]
        .iter()
        .map(|ip| {
            reqwest::Client::builder()
                .local_address(ip.parse::<std::net::IpAddr>().unwrap())
                .pool_max_idle_per_host(0)
                .timeout(Duration::from_secs(10))
                .build()
                .unwrap()
        })
        .collect();
    let mut out = [Vec::new(), Vec::new()];
    for i in 0..n {
        let started = Instant::now();
        let ok = clients[i % 2]
            .get(format!("http://{addr}/api/health"))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success());
        out[i % 2].push(ok.then(|| started.elapsed().as_secs_f64() * 1e3));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    out
}

fn report(what: &str, [other, own]: [Vec<Option<f64>>; 2]) {
    report_one(&format!("{what}, from another address"), &other);
    report_one(&format!("{what}, from the flood's address"), &own);
}

fn report_one(what: &str, latencies: &[Option<f64>]) {
    let mut ok: Vec<f64> = latencies.iter().flatten().copied().collect();
    ok.sort_by(f64::total_cmp);
    let at = |q: f64| ok.get(((ok.len() as f64 * q) as usize).min(ok.len().saturating_sub(1)));
    println!(
        "health {what}: {} of {} answered; p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        ok.len(),
        latencies.len(),
        at(0.5).copied().unwrap_or(f64::NAN),
        at(0.99).copied().unwrap_or(f64::NAN),
        ok.last().copied().unwrap_or(f64::NAN)
    );
}
