//! Benchmark of a reminder burst: 100,000 reminders due in the same minute, delivered by the real
//! `hearth serve` binary to a fake LINE API that enforces LINE's push rate limit (2,000 requests
//! a second, so 50 s is the floor). Reports the time from the due minute to the last delivery,
//! duplicates and losses, rate-limit refusals, and the server's memory.
//!
//! Run with `cargo bench --bench reminders`. `BENCH_REMINDERS` sets the count (default 100000),
//! `BENCH_REPLICAS` the number of `hearth serve` processes (default 1), `BENCH_DATABASE_URL` the
//! database (default an SQLite file; several replicas need an empty PostgreSQL database).

#[path = "../tests/it/common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::FakeLine;
use hearth::store::Store;
use jiff::{Timestamp, ToSpan};

#[tokio::main]
async fn main() {
    let count: usize =
        std::env::var("BENCH_REMINDERS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let line = FakeLine::start().await;
    line.set_dump(false);
    line.set_keep_bodies(false);
    line.set_push_rate_limit(2000);

    let dir = std::env::temp_dir().join(format!("hearth-bench-reminders-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let url = std::env::var("BENCH_DATABASE_URL")
        .unwrap_or_else(|_| format!("sqlite://{}", dir.join("hearth.db").display()));
    let replicas: usize =
        std::env::var("BENCH_REPLICAS").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    Store::connect(&url).await.expect("create the database");

    // Due at the next whole minute at least 10 s away, in Taipei time.
    let tz = jiff::tz::TimeZone::get("Asia/Taipei").expect("zone");
    let soon = Timestamp::now().checked_add(10.seconds()).expect("time");
    let due =
        soon.to_zoned_datetime(tz.clone()).datetime().round(jiff::Unit::Minute).expect("round");
    let due = if due.to_zoned_datetime(tz.clone()).expect("zoned").timestamp() < soon {
        due.checked_add(1.minute()).expect("next minute")
    } else {
        due
    };
    let due_at = due.to_zoned_datetime(tz).expect("zoned").timestamp();
    let anchor = due.strftime("%Y-%m-%dT%H:%M").to_string();
    let t = Instant::now();
    insert_reminders(&url, count, &anchor, due_at.as_millisecond()).await;
    println!("inserted {count} reminders due at {due_at} in {:.1} s", t.elapsed().as_secs_f64());

    let mut children = Vec::new();
    for _ in 0..replicas {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("port");
        children.push(
            Command::new(env!("CARGO_BIN_EXE_hearth"))
                .arg("serve")
                .env("LINE_CHANNEL_SECRET", "bench-secret")
                .env("LINE_CHANNEL_ACCESS_TOKEN", "bench-token")
                .env("LINE_API_BASE", line.url())
                .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
                .env("OPENAI_API_KEY", "unused")
                .env("DATABASE_URL", &url)
                .env("HEARTH_LISTEN", format!("127.0.0.1:{port}"))
                // The replicas share LINE's rate limit: each takes its part.
                .env("HEARTH_PUSH_RATE", (1950 / replicas.max(1)).to_string())
                .env("RUST_LOG", "warn")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn hearth serve"),
        );
    }
    let pids: Vec<u32> = children.iter().map(|c| c.id()).collect();

    let wait = due_at.duration_since(Timestamp::now());
    tokio::time::sleep(Duration::try_from(wait).unwrap_or_default()).await;
    let due_instant = Instant::now();
    let deadline = due_instant + Duration::from_secs(300);
    let mut peak_rss = 0;
    loop {
        peak_rss = peak_rss.max(pids.iter().map(|p| rss_kib(*p)).sum());
        let accepted = line.accepted_push_count();
        if accepted >= count || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    // Anything still in flight, or sent twice, shows up within a few more seconds.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let pushes = line.pushes();
    let accepted: Vec<_> = pushes.iter().filter(|p| p.status == 200).collect();
    let last = accepted.iter().map(|p| p.received_at).max().unwrap_or(due_instant);
    let mut per_target: HashMap<String, usize> = HashMap::new();
    for p in &accepted {
        *per_target.entry(p.body["to"].as_str().unwrap_or("").to_string()).or_default() += 1;
    }
    let duplicates: usize = per_target.values().map(|n| n.saturating_sub(1)).sum();
    let lost = count - per_target.len();
    let rate_limited = pushes.iter().filter(|p| p.status == 429).count();
    let conflicts = pushes.iter().filter(|p| p.status == 409).count();
    println!(
        "{count} reminders: last delivered {:.1} s after the due minute (floor at 2,000/s: {:.1} s); \
         {} accepted, {duplicates} duplicates, {lost} lost, {rate_limited} rate-limited (429), {conflicts} retried (409)",
        last.duration_since(due_instant).as_secs_f64(),
        count as f64 / 2000.0,
        accepted.len(),
    );
    println!(
        "{replicas} replica(s); server RSS (all replicas): peak {:.1} MiB during the burst",
        peak_rss as f64 / 1024.0
    );
    for mut child in children {
        let _ = child.kill();
        let _ = child.wait();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

async fn insert_reminders(url: &str, count: usize, anchor: &str, due_ms: i64) {
    if url.starts_with("postgres") {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(url).await.expect("connect");
        let mut tx = conn.begin().await.expect("begin");
        for i in 0..count {
            sqlx::query(INSERT)
                .bind(format!("U{i:032x}"))
                .bind(format!("提醒 {i}"))
                .bind(anchor)
                .bind(due_ms)
                .execute(&mut *tx)
                .await
                .expect("insert");
        }
        tx.commit().await.expect("commit");
        return;
    }
    use sqlx::Connection;
    let mut conn = sqlx::SqliteConnection::connect(url).await.expect("connect");
    let mut tx = conn.begin().await.expect("begin");
    for i in 0..count {
        sqlx::query(
            "INSERT INTO reminders (conversation_id, text, tz, anchor_local, freq, every_n, weekdays, next_fire_at, next_occurrence, status, created_at) \
             VALUES ($1, $2, 'Asia/Taipei', $3, 'once', 1, 0, $4, 0, 'active', $4)",
        )
        .bind(format!("U{i:032x}"))
        .bind(format!("提醒 {i}"))
        .bind(anchor)
        .bind(due_ms)
        .execute(&mut *tx)
        .await
        .expect("insert");
    }
    tx.commit().await.expect("commit");
}

const INSERT: &str = "INSERT INTO reminders (conversation_id, text, tz, anchor_local, freq, every_n, weekdays, next_fire_at, next_occurrence, status, created_at) VALUES ($1, $2, 'Asia/Taipei', $3, 'once', 1, 0, $4, 0, 'active', $4)";

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}
