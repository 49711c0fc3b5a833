//! A private PostgreSQL cluster for the tests that restart, stop or break the database: never
//! the shared server. `initdb` runs once per machine and PostgreSQL version (a template under
//! the temporary directory); each cluster is a copy of it, on a free port of its own, started
//! and stopped with `pg_ctl`, and stopped and removed when dropped.
//!
//! PostgreSQL refuses to run as root: when the tests do, every command runs as the `postgres`
//! OS user (`runuser`), which owns the clusters' files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// What a cluster for tests needs, beside the defaults: no durability, no Unix socket, and
/// room for several runs of eight buyers at once.
const CONF: &str = "
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 120
shared_buffers = 16MB
log_min_messages = warning
";

pub struct Cluster {
    /// The cluster's own directory (its data directory is `data/` inside).
    dir: PathBuf,
    port: u16,
    /// Backends stopped with `SIGSTOP` and not yet continued.
    stopped: Mutex<Vec<i32>>,
}

impl Cluster {
    /// A fresh cluster, started.
    pub fn start() -> Cluster {
        let cluster = Cluster::create();
        cluster.start_again();
        cluster
    }

    /// A fresh cluster, not started: its port and URL are known, nothing answers there yet.
    pub fn create() -> Cluster {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "lastseat-pg-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a cluster directory");
        let copied = Command::new("cp")
            .arg("-a")
            .arg(template())
            .arg(dir.join("data"))
            .output()
            .expect("cp runs");
        check(&copied, "copying the template cluster");
        Cluster {
            dir,
            port: free_port(),
            stopped: Mutex::new(Vec::new()),
        }
    }

    /// The URL of its `postgres` database, as `application_name`.
    pub fn url(&self, application_name: &str) -> String {
        format!(
            "postgres://postgres@127.0.0.1:{}/postgres?application_name={application_name}",
            self.port
        )
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn pg_ctl(&self, args: &[&str]) -> Output {
        let data = self.data();
        let log = data.join("server.log");
        let port = format!("-p {}", self.port);
        let mut all = vec![
            "-D",
            data.to_str().expect("a UTF-8 path"),
            "-l",
            log.to_str().expect("a UTF-8 path"),
            "-o",
            &port,
        ];
        all.extend_from_slice(args);
        as_owner(&bin().join("pg_ctl"), &all)
    }

    /// Starts it (again), waiting until it accepts connections.
    pub fn start_again(&self) {
        let out = self.pg_ctl(&["-w", "-t", "60", "start"]);
        check(&out, &format!("starting the cluster\n{}", self.log()));
    }

    /// Stops it the way an administrator would before maintenance: `fast`, every session
    /// ended with 57P01.
    pub fn stop(&self) {
        self.continue_all();
        let out = self.pg_ctl(&["-m", "fast", "-w", "-t", "60", "stop"]);
        check(&out, "stopping the cluster");
    }

    /// `pg_ctl restart -m fast`: every session ended, the server up again when this returns.
    pub fn restart(&self) {
        self.continue_all();
        let out = self.pg_ctl(&["-m", "fast", "-w", "-t", "60", "restart"]);
        check(&out, &format!("restarting the cluster\n{}", self.log()));
    }

    /// Stops backend `pid` (`SIGSTOP`): it holds its locks and answers nothing until continued.
    pub fn stop_backend(&self, pid: i32) {
        signal("-STOP", pid);
        self.stopped.lock().unwrap().push(pid);
    }

    /// Continues backend `pid` (`SIGCONT`).
    pub fn continue_backend(&self, pid: i32) {
        signal("-CONT", pid);
        self.stopped.lock().unwrap().retain(|&p| p != pid);
    }

    /// Kills backend `pid` (`SIGKILL`, stopped or not): the postmaster then ends every other
    /// session (57P02) and recovers, as after a crash.
    pub fn kill_backend(&self, pid: i32) {
        signal("-KILL", pid);
        self.stopped.lock().unwrap().retain(|&p| p != pid);
    }

    fn continue_all(&self) {
        let stopped = std::mem::take(&mut *self.stopped.lock().unwrap());
        for pid in stopped {
            signal("-CONT", pid);
        }
    }

    /// The end of the server's log, for a failure's message.
    pub fn log(&self) -> String {
        let log = std::fs::read_to_string(self.data().join("server.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.continue_all();
        if self.data().join("postmaster.pid").exists() {
            let _ = self.pg_ctl(&["-m", "immediate", "-w", "-t", "30", "stop"]);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn signal(which: &str, pid: i32) {
    let out = Command::new("kill")
        .args([which, &pid.to_string()])
        .output()
        .expect("kill runs");
    check(&out, &format!("kill {which} {pid}"));
}

fn check(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The newest PostgreSQL's server binaries: under /usr/lib/postgresql (Debian's layout), else
/// where `pg_config` says, else on the PATH.
fn bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let mut debian: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let e = e.ok()?;
                let version = e.file_name().to_str()?.parse().ok()?;
                Some((version, e.path().join("bin")))
            })
            .collect();
        debian.sort();
        let pg_config = Command::new("pg_config")
            .arg("--bindir")
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
        let path = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .unwrap_or_default();
        debian
            .into_iter()
            .rev()
            .map(|(_, bin)| bin)
            .chain(pg_config)
            .chain(path)
            .find(|dir| dir.join("initdb").exists() && dir.join("pg_ctl").exists())
            .expect(
                "the fault tests start a PostgreSQL cluster of their own: install PostgreSQL's \
                 server binaries (initdb, pg_ctl; Debian: apt-get install postgresql)",
            )
    })
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("Uid:"))?.to_string();
            line.split_whitespace().nth(1).map(|uid| uid == "0")
        })
        .unwrap_or(false)
}

/// Runs `program` as the clusters' owner: `postgres` when the tests run as root.
fn as_owner(program: &Path, args: &[&str]) -> Output {
    let mut command = if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    };
    command.args(args).output().expect("the command runs")
}

/// The template cluster: made by `initdb` once, kept for the next runs of the tests.
fn template() -> &'static Path {
    static TEMPLATE: OnceLock<PathBuf> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        // One template per installation: the binaries' directory, as a number.
        let version = bin()
            .to_string_lossy()
            .bytes()
            .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(b.into()));
        let dir = std::env::temp_dir().join(format!("lastseat-pg-template-{version}-1"));
        if dir.join("PG_VERSION").exists() {
            return dir;
        }
        let fresh = std::env::temp_dir().join(format!(
            "lastseat-pg-template-{version}-1.{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&fresh);
        std::fs::create_dir_all(&fresh).expect("a template directory");
        if is_root() {
            let out = Command::new("chown")
                .arg("postgres:")
                .arg(&fresh)
                .output()
                .expect("chown runs");
            check(&out, "chown of the template");
        }
        let out = as_owner(
            &bin().join("initdb"),
            &[
                "-D",
                fresh.to_str().expect("a UTF-8 path"),
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            ],
        );
        check(&out, "initdb");
        let conf = fresh.join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf).expect("postgresql.conf");
        text.push_str(CONF);
        std::fs::write(&conf, text).expect("postgresql.conf");
        // Another test binary may have made one meanwhile: then use that one.
        if std::fs::rename(&fresh, &dir).is_err() {
            let _ = std::fs::remove_dir_all(&fresh);
        }
        dir
    })
}

/// A port nobody listens on now.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}
