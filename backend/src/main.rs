//! The `backend` command: `serve` the API and the page, `replay` schedule files on
//! PostgreSQL and in the simulator, `explore` every interleaving of one in the simulator,
//! `verify` every interleaving of one on PostgreSQL against the simulator, `load` a running
//! server's live rooms with concurrent buyers, `compress` the built page (its `.br` and `.gz`
//! files, which `serve` sends as they are), or print the model's `views` of every step for the
//! browser tests.
//!
//! This file reads the command line and serves: `serve` reads DATABASE_URL, connects in the
//! background and hands a listener to `backend::serve`. The other subcommands are `cli`'s.

mod cli;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use backend::{db, AppState};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "backend",
    about = "Last Seat: the race for one seat, on a real PostgreSQL"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the API and the built page (DATABASE_URL names the database).
    Serve {
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: SocketAddr,
        /// The built frontend (`trunk build` writes it to dist/).
        #[arg(long, default_value = "dist")]
        dist: PathBuf,
    },
    #[command(flatten)]
    Task(cli::Task),
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                // PostgreSQL's notices to our own clean-up ("there is no transaction in
                // progress" for a rollback that found none) say nothing to a user.
                .unwrap_or_else(|_| "info,sqlx=warn,sqlx::postgres::notice=error".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match Cli::parse().command {
        Command::Serve { addr, dist } => serve(addr, dist).await,
        Command::Task(task) => task.run().await,
    }
}

/// How long `serve` waits for the database's first answer before it says it starts without it.
const FIRST_ANSWER: std::time::Duration = db::CONNECT_TIMEOUT;
/// How often `serve` sweeps the run schemas that no live run owns.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(300);

/// Serves whether or not PostgreSQL is up: the page at once, the API as soon as the database
/// answers (a task connects and applies the migrations in the background, again and again).
async fn serve(addr: SocketAddr, dist: PathBuf) -> ExitCode {
    let url = db::database_url();
    let (pool, readiness) = match db::connect_in_background(&url, 40) {
        Ok(connecting) => connecting,
        Err(e) => {
            eprintln!(
                "DATABASE_URL={} is not a PostgreSQL URL: {e}",
                db::redact(&url)
            );
            return ExitCode::from(2);
        }
    };
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("cannot listen on {addr}: {e}");
            return ExitCode::from(2);
        }
    };
    if !dist.join("index.html").exists() {
        eprintln!(
            "note: {} has no index.html: build the page with `trunk build --release`",
            dist.display()
        );
    }
    if let Err(reason) = readiness.first_attempt(FIRST_ANSWER).await {
        eprintln!(
            "warning: PostgreSQL at DATABASE_URL={} is not ready: {reason}\n\
             the server starts anyway: the page is served, /api/health and /api/runs answer 503 \
             until the database answers; it keeps trying in the background",
            db::redact(&url)
        );
    }
    // Run schemas left from before (a crash, a restart mid-run) go as soon as the database
    // answers, and then every few minutes whatever happens.
    tokio::spawn({
        let (pool, readiness) = (pool.clone(), readiness.clone());
        async move {
            readiness.until_ready().await;
            backend::executor::request_sweep(&pool);
            backend::executor::sweep_every(pool, SWEEP_EVERY).await;
        }
    });
    println!(
        "Last Seat is at http://{}",
        listener.local_addr().unwrap_or(addr)
    );
    if let Some(mariadb) = backend::innodb::default_pool() {
        backend::innodb::connect_in_background(mariadb.clone());
    }
    let state = AppState::new(pool.clone(), Some(dist)).with_readiness(readiness);
    let served = backend::serve(listener, state).await;
    // The ready run schemas go with the server (a server killed leaves them to the next sweep).
    backend::executor::shutdown(&pool).await;
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("the server stopped: {e}");
            ExitCode::FAILURE
        }
    }
}
