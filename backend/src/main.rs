//! The `backend` command: `serve` the API and the page, `replay` schedule files on
//! PostgreSQL and in the simulator, `explore` every interleaving of one in the simulator,
//! `verify` every interleaving of one on PostgreSQL against the simulator, `load` a running
//! server's live rooms with concurrent buyers, `compress` the built page (its `.br` and `.gz`
//! files, which `serve` sends as they are), or print the model's `views` of every step for the
//! browser tests.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use backend::{db, replay, AppState};
use clap::{Parser, Subcommand};
use sqlx::PgPool;

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
    /// Replay schedule files on PostgreSQL and in the simulator, and compare.
    Replay {
        /// One JSON object per file per line.
        #[arg(long)]
        json: bool,
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Run every feasible interleaving of a schedule file in the simulator, grouped by verdict.
    Explore { file: PathBuf },
    /// Run every feasible interleaving of a schedule file on PostgreSQL and in the simulator,
    /// and say per verdict whether the two agreed on every one.
    Verify {
        file: PathBuf,
        /// Runs at once, each in its own schema with a connection per buyer (default: four per
        /// core).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
        jobs: Option<u16>,
        /// The most orders run; past it, a sample spread evenly over all of them.
        #[arg(long, default_value_t = backend::verify::cli::DEFAULT_LIMIT,
              value_parser = clap::value_parser!(u64).range(1..=backend::verify::COUNT_LIMIT))]
        limit: u64,
        /// Also print where the runs' time went, phase by phase, and their round trips.
        #[arg(long)]
        phases: bool,
    },
    /// Write a brotli (.br) and a gzip (.gz) copy beside every text and wasm file of the built
    /// page, for `serve` to send precompressed.
    Compress {
        #[arg(default_value = "dist")]
        dir: PathBuf,
    },
    /// Drive a running server's room API with N concurrent buyers: a room with this defence,
    /// one round, every buyer tapping a random seat (and paying, if the defence has a payment).
    Load {
        #[arg(long)]
        defence: String,
        /// Concurrent clients.
        #[arg(long, default_value_t = 32)]
        buyers: usize,
        #[arg(long, default_value_t = 8)]
        seats: u32,
        /// The pause between the check and the write, in milliseconds.
        #[arg(long, default_value_t = 0)]
        gap_ms: u32,
        /// Keep every client tapping (as a fresh buyer each time) for this many seconds; without
        /// it, each buyer taps once.
        #[arg(long)]
        duration: Option<f64>,
        /// Every buyer cancels a seat it won at once, so that the seats are free again and taps
        /// keep winning: the winning write path (a claim that takes the seat, then its release).
        #[arg(long)]
        release: bool,
        /// The server.
        #[arg(long, default_value = "http://127.0.0.1:8080")]
        url: String,
    },
    /// Print the model's view of every step (phones, seats, verdict, reason line) of every
    /// built-in scenario, or of one schedule file, one JSON object per step per line.
    Views { file: Option<PathBuf> },
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
        Command::Replay { json, files } => replay(json, &files).await,
        Command::Compress { dir } => compress(&dir),
        Command::Load {
            defence,
            buyers,
            seats,
            gap_ms,
            duration,
            release,
            url,
        } => {
            load(backend::load::Load {
                url,
                defence,
                buyers,
                seats,
                gap_ms,
                duration: duration.map(std::time::Duration::from_secs_f64),
                release,
            })
            .await
        }
        Command::Views { file } => match backend::views::views(file.as_deref()) {
            Ok(lines) => {
                let mut out = std::io::stdout().lock();
                for line in lines {
                    if writeln!(out, "{line}").is_err() {
                        break;
                    }
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::from(2)
            }
        },
        Command::Verify {
            file,
            jobs,
            limit,
            phases,
        } => backend::verify::cli::command(&file, jobs.map(usize::from), limit, phases).await,
        Command::Explore { file } => match backend::explore::explore_file(&file) {
            Ok(report) => {
                print!("{report}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::from(2)
            }
        },
    }
}

fn compress(dir: &std::path::Path) -> ExitCode {
    match backend::http::assets::compress_dir(dir) {
        Ok(files) => {
            for f in files {
                println!(
                    "{}: {} bytes, {} brotli, {} gzip",
                    f.path.display(),
                    f.raw,
                    f.brotli,
                    f.gzip
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("cannot compress {}: {e}", dir.display());
            ExitCode::from(2)
        }
    }
}

async fn load(load: backend::load::Load) -> ExitCode {
    if load.buyers == 0 || load.buyers > 10_000 {
        eprintln!(
            "--buyers {}: use 1 to 10000 concurrent clients",
            load.buyers
        );
        return ExitCode::from(2);
    }
    if load
        .duration
        .is_some_and(|d| d.is_zero() || d > std::time::Duration::from_secs(3600))
    {
        eprintln!("--duration: use more than 0 and at most 3600 seconds");
        return ExitCode::from(2);
    }
    match backend::load::run(&load).await {
        Ok(report) => {
            println!("{}", backend::load::describe(&load, &report));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("the load run failed: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn connect(max_connections: u32) -> Result<PgPool, ExitCode> {
    let url = db::database_url();
    db::connect(&url, max_connections).await.map_err(|e| {
        eprintln!(
            "cannot connect to PostgreSQL at DATABASE_URL={}: {e}\n\
             start PostgreSQL, or set DATABASE_URL to a database that is running",
            db::redact(&url)
        );
        ExitCode::from(2)
    })
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

async fn replay(json: bool, files: &[PathBuf]) -> ExitCode {
    let pool = match connect(16).await {
        Ok(pool) => pool,
        Err(code) => return code,
    };
    let mut all_passed = true;
    for path in files {
        let file = path.display().to_string();
        let result = replay::replay_file(&pool, path).await;
        all_passed &= result.as_ref().is_ok_and(replay::Report::passed);
        let line = if json {
            replay::json_line(&file, &result)
        } else {
            replay::describe(&file, &result)
        };
        // Whoever reads the lines may stop early (`| head`): then so do we, without a panic.
        if writeln!(std::io::stdout(), "{line}").is_err() {
            all_passed = false;
            break;
        }
    }
    backend::executor::shutdown(&pool).await;
    pool.close().await;
    if all_passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
