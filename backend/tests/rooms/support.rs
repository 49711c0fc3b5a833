//! What the room tests share: a fresh database per test (migrated as `serve` migrates), a real
//! server on port 0 on it, and a client for the room API.

#![allow(dead_code)]

use std::str::FromStr;
use std::time::{Duration, Instant};

use backend::AppState;
use rand::Rng;
use reqwest::StatusCode;
use serde_json::{json, Value};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::PgPool;

/// A fresh database, migrated; dropped when the test's `Db` is dropped (best effort).
pub struct Db {
    pub pool: PgPool,
    pub name: String,
    options: PgConnectOptions,
}

impl Db {
    pub async fn fresh() -> Db {
        let url = backend::db::database_url();
        let admin = PgConnectOptions::from_str(&url).expect("DATABASE_URL");
        let name = format!(
            "lastseat_rooms_test_{:08x}",
            rand::thread_rng().gen::<u32>()
        );
        let admin_pool = PgPoolOptions::new()
            .max_connections(1)
            .connect_with(admin.clone())
            .await
            .expect("PostgreSQL for the room tests");
        sqlx::query(&format!("create database {name}"))
            .execute(&admin_pool)
            .await
            .expect("create database");
        admin_pool.close().await;
        let options = admin.database(&name);
        let pool = Db::pool_on(&options).await;
        sqlx::migrate!("../migrations")
            .run(&pool)
            .await
            .expect("the migrations");
        Db {
            pool,
            name,
            options,
        }
    }

    async fn pool_on(options: &PgConnectOptions) -> PgPool {
        PgPoolOptions::new()
            .max_connections(12)
            .connect_with(options.clone())
            .await
            .expect("the test database")
    }

    /// Another pool on the same database (a second backend process's).
    pub async fn another_pool(&self) -> PgPool {
        Db::pool_on(&self.options).await
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        let name = self.name.clone();
        let url = backend::db::database_url();
        // A thread of its own: the test's runtime is going away.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            rt.block_on(async move {
                if let Ok(pool) = PgPoolOptions::new().max_connections(1).connect(&url).await {
                    let _ = sqlx::query(&format!("drop database if exists {name} with (force)"))
                        .execute(&pool)
                        .await;
                }
            });
        })
        .join();
    }
}

/// Starts a real server on port 0 on `pool`; its base URL.
pub async fn serve(pool: PgPool) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port 0");
    let addr = listener.local_addr().expect("the bound address");
    tokio::spawn(backend::serve(listener, AppState::new(pool, None)));
    format!("http://{addr}")
}

pub struct Api {
    pub base: String,
    pub http: reqwest::Client,
}

impl Api {
    pub fn new(base: &str) -> Api {
        Api {
            base: base.to_string(),
            http: reqwest::Client::new(),
        }
    }

    pub async fn post(&self, path: &str, bearer: Option<&str>, body: Value) -> (StatusCode, Value) {
        let mut request = self.http.post(format!("{}{path}", self.base)).json(&body);
        if let Some(b) = bearer {
            request = request.bearer_auth(b);
        }
        let response = request.send().await.expect("the request");
        let status = response.status();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    pub async fn get(&self, path: &str) -> (StatusCode, Value) {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("the request");
        let status = response.status();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// A room with these settings: its code and secret.
    pub async fn room(&self, settings: Value) -> (String, String) {
        let (status, body) = self.post("/api/rooms", None, settings).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        (
            body["code"].as_str().unwrap().to_string(),
            body["secret"].as_str().unwrap().to_string(),
        )
    }

    pub async fn join(&self, code: &str, name: &str) -> String {
        let (status, body) = self
            .post(
                &format!("/api/rooms/{code}/participants"),
                None,
                json!({ "name": name }),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["token"].as_str().unwrap().to_string()
    }

    /// Starts a round whose race opens at once.
    pub async fn start(&self, code: &str, secret: &str) {
        let (status, body) = self
            .post(
                &format!("/api/rooms/{code}/rounds"),
                Some(secret),
                json!({ "countdown_ms": 0 }),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }

    pub async fn tap(&self, code: &str, token: &str, seats: &[&str]) -> (StatusCode, Value) {
        self.post(
            &format!("/api/rooms/{code}/taps"),
            Some(token),
            json!({ "seats": seats }),
        )
        .await
    }

    pub async fn state(&self, code: &str) -> Value {
        let (status, body) = self.get(&format!("/api/rooms/{code}")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body
    }
}

/// Waits until no bot of this server is racing any more (for at most a minute).
pub async fn bots_done(api: &Api, code: &str) -> Value {
    let give_up = Instant::now() + Duration::from_secs(60);
    loop {
        let state = api.state(code).await;
        if state["bots_racing"] == 0 {
            return state;
        }
        assert!(
            Instant::now() < give_up,
            "bots still racing after a minute: {}",
            state["bots_racing"]
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
