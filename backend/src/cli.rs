//! The `backend` command's subcommands besides `serve`: their arguments, and each one run to
//! its end, its exit code saying how it went.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use backend::{db, replay};
use clap::Subcommand;
use sqlx::PgPool;

/// The subcommands that do one task and end, flattened into the command's own list after
/// `serve`.
#[derive(Subcommand)]
pub enum Task {
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
    /// one round, every buyer tapping a random seat (and paying, if the defence has a payment),
    /// or with `--tickets N` asking for a ticket of a general-admission section.
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
        /// A general-admission round of this many tickets (1 to 500) instead of numbered seats:
        /// every buyer asks for a ticket of the section.
        #[arg(long, conflicts_with_all = ["seats", "release"])]
        tickets: Option<u32>,
        /// The server.
        #[arg(long, default_value = "http://127.0.0.1:8080")]
        url: String,
    },
    /// Print the claim table: every order of every built-in scenario on both databases' models,
    /// per scenario, as the README carries it (Markdown).
    Claim {
        /// Also run each scenario's example order on both real servers (PostgreSQL at
        /// DATABASE_URL, MariaDB at MYSQL_URL) and say whether each agrees with its model.
        #[arg(long)]
        confirm: bool,
    },
    /// Print the model's view of every step (phones, seats, verdict, reason line) of every
    /// built-in scenario, or of one schedule file, one JSON object per step per line.
    Views { file: Option<PathBuf> },
}

impl Task {
    pub async fn run(self) -> ExitCode {
        match self {
            Task::Replay { json, files } => replay(json, &files).await,
            Task::Compress { dir } => compress(&dir),
            Task::Claim { confirm } => {
                print!("{}", shared::claim::markdown(&shared::claim::families()));
                if !confirm {
                    return ExitCode::SUCCESS;
                }
                let Ok(pool) = connect(4).await else {
                    return ExitCode::from(2);
                };
                match backend::claim::confirm(&pool, backend::innodb::default_pool()).await {
                    true => ExitCode::SUCCESS,
                    false => ExitCode::FAILURE,
                }
            }
            Task::Load {
                defence,
                buyers,
                seats,
                gap_ms,
                duration,
                release,
                tickets,
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
                    tickets,
                })
                .await
            }
            Task::Views { file } => match backend::views::views(file.as_deref()) {
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
            Task::Verify {
                file,
                jobs,
                limit,
                phases,
            } => backend::verify::cli::command(&file, jobs.map(usize::from), limit, phases).await,
            Task::Explore { file } => match backend::explore::explore_file(&file) {
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

/// Whether the file at `path` is a schedule that says `"engine": "innodb"`.
fn names_innodb(path: &std::path::Path) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|v| v["engine"] == "innodb")
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

async fn replay(json: bool, files: &[PathBuf]) -> ExitCode {
    // Files that all run on InnoDB need no PostgreSQL: its pool then connects only if used.
    let lazy = files.iter().all(|f| names_innodb(f));
    let pool = match lazy
        .then(|| sqlx::postgres::PgPoolOptions::new().connect_lazy(&db::database_url()))
    {
        Some(Ok(pool)) => pool,
        _ => match connect(16).await {
            Ok(pool) => pool,
            Err(code) => return code,
        },
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
    if !lazy {
        backend::executor::shutdown(&pool).await;
    }
    pool.close().await;
    if all_passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
