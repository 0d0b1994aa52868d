//! `hearth serve` as a real process on a database several processes share: start it, post
//! signed webhooks to it, `kill -9` it, and count what LINE accepted.

use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hearth::line::signature;
use serde_json::json;

use super::harness::{BOT_ID, SECRET};
use super::{FakeLine, FakeLlm};

/// A running `hearth serve`.
pub struct Replica {
    /// The process.
    pub child: Child,
    /// Its base URL.
    pub url: String,
}

impl Replica {
    /// Starts `hearth serve` on `db` against the fakes, with extra environment `env`.
    pub async fn spawn(db: &str, line: &FakeLine, llm: &FakeLlm, env: &[(&str, &str)]) -> Self {
        Self::spawn_logging(db, line, llm, env, Stdio::null()).await
    }

    /// [`Replica::spawn`], its log (standard error) written to `log`.
    pub async fn spawn_logging(
        db: &str,
        line: &FakeLine,
        llm: &FakeLlm,
        env: &[(&str, &str)],
        log: impl Into<Stdio>,
    ) -> Self {
        let port = crate::common::unclaimed_port();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hearth"));
        cmd.arg("serve")
            .env("LINE_CHANNEL_SECRET", SECRET)
            .env("LINE_CHANNEL_ACCESS_TOKEN", "test-token")
            .env("LINE_API_BASE", line.url())
            .env("OPENAI_BASE_URL", llm.url())
            .env("OPENAI_API_KEY", "sk-test")
            .env("DATABASE_URL", db)
            .env("HEARTH_LISTEN", format!("127.0.0.1:{port}"))
            // These tests are about delivery, not about who is served.
            .env("HEARTH_OPEN", "true")
            // The official alerts feed is on the internet: off unless a test serves one.
            .env("HEARTH_OFFICIAL_ALERTS_FEED_URL", "")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(log);
        for (k, v) in env {
            cmd.env(k, v);
        }
        // Owned before it is waited for: a test that fails meanwhile still kills it (Drop).
        let replica = Self {
            child: cmd.spawn().expect("spawn hearth serve"),
            url: format!("http://127.0.0.1:{port}"),
        };
        // Generous: a busy machine migrating many test schemas at once is slow to start.
        let deadline = Instant::now() + Duration::from_secs(60);
        let ready = format!("{}/readyz", replica.url);
        while super::get(&ready).await.map(|r| r.status() != 200).unwrap_or(true) {
            assert!(Instant::now() < deadline, "hearth did not become ready");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        replica
    }

    /// Posts a signed webhook body; returns the status.
    pub async fn post(&self, body: &str) -> u16 {
        hearth::platform::tls::client_builder()
            .build()
            .expect("HTTP client")
            .post(format!("{}/callback", self.url))
            .header("x-line-signature", signature::sign(SECRET, body.as_bytes()))
            .body(body.to_string())
            .send()
            .await
            .expect("post")
            .status()
            .as_u16()
    }

    /// `kill -9`.
    pub fn kill(&mut self) {
        let _ = self.child.kill(); // SIGKILL
        let _ = self.child.wait();
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A database processes can share: PostgreSQL when configured, else an SQLite file.
pub async fn shared_database(name: &str) -> String {
    if let Some(pg) = super::db::fresh_postgres().await {
        return pg;
    }
    let dir = super::scratch_dir(name);
    format!("sqlite://{}", dir.join("hearth.db").display())
}

/// A text message event from `user`, numbered `n`.
pub fn event(n: u64, user: &str, text: &str) -> serde_json::Value {
    json!({
        "type": "message", "mode": "active",
        "timestamp": jiff::Timestamp::now().as_millisecond(),
        "webhookEventId": format!("01REPLICA{}{n:010}", std::process::id()),
        "deliveryContext": {"isRedelivery": false},
        "replyToken": format!("replica-token-{}-{n}", std::process::id()),
        "source": {"type": "user", "userId": user},
        "message": {"id": format!("8{n:017}"), "type": "text", "quoteToken": format!("q{n}"), "text": text},
    })
}

/// A webhook body carrying `events`.
pub fn envelope(events: Vec<serde_json::Value>) -> String {
    json!({"destination": BOT_ID, "events": events}).to_string()
}

/// How many answers (replies and accepted pushes) each user got.
pub fn answers_per_user(line: &FakeLine) -> HashMap<String, usize> {
    let mut per_user: HashMap<String, usize> = HashMap::new();
    for r in line.requests() {
        if !r.is_accepted_answer() {
            continue;
        }
        let who = r.body["to"].as_str().map(str::to_string).or_else(|| {
            // A reply names no user: the fake's reply token carries the event number.
            r.body["replyToken"].as_str().map(str::to_string)
        });
        *per_user.entry(who.unwrap_or_default()).or_default() += 1;
    }
    per_user
}
