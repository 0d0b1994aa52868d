//! Exactly once under leases, with the real binary: a turn slower than its lease is never taken
//! from the live process that holds it, and a process killed mid-burst has its events taken over
//! quickly — by itself restarted, or by another replica — each answered once, each side effect
//! (a reminder) made once.
//!
//! The two-replica test needs PostgreSQL (`TEST_DATABASE_URL`; CI always sets it); the others
//! run on an SQLite file without it.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crate::common::replica::{Replica, envelope, event, shared_database};
use crate::common::{FakeLine, FakeLlm, Step};
use hearth::store::Store;
use serde_json::json;

const USER: &str = "U5eaf00d5eaf00d5eaf00d5eaf00d5eaf";

/// A model that asks for a reminder after `delay`, then answers.
fn script_reminder_turns(llm: &FakeLlm, turns: usize, delay: Duration) {
    for i in 0..turns {
        let call = FakeLlm::tool_calls(&[(
            "reminder",
            json!({"text": format!("第{i}件事"), "in_minutes": 60 + i}),
        )]);
        llm.push(Step::Slow(delay, call));
        llm.reply_text("好的，已設定提醒。");
    }
}

/// Answers LINE accepted (replies and pushes), each identified by its reply token or retry key.
fn answers(line: &FakeLine) -> Vec<String> {
    line.requests()
        .into_iter()
        .filter(|r| r.is_accepted_answer())
        .map(|r| match r.body["replyToken"].as_str() {
            Some(token) => token.to_string(),
            None => r.header("x-line-retry-key").unwrap_or_default().to_string(),
        })
        .collect()
}

async fn reminders(db: &str) -> usize {
    let store = Store::open(db).await.expect("store");
    store.reminders().list(USER).await.expect("reminders").len()
}

async fn post_burst(replica: &Replica, first: u64, n: u64) {
    for i in first..first + n {
        let body = envelope(vec![event(i, USER, &format!("提醒我第{i}件事"))]);
        assert_eq!(replica.post(&body).await, 200);
    }
}

fn assert_each_answered_once(line: &FakeLine, n: usize) {
    let answered = answers(line);
    let distinct: HashSet<&String> = answered.iter().collect();
    assert_eq!(answered.len(), n, "answers: {answered:?}");
    assert_eq!(distinct.len(), n, "no event answered twice: {answered:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_turn_slower_than_its_lease_is_handled_once() {
    let db = shared_database("hearth-slow-turn").await;
    let (line, llm) = (FakeLine::start().await, FakeLlm::start().await);
    script_reminder_turns(&llm, 4, Duration::from_secs(3));
    // Each turn outlasts its two-second lease (still well short of a turn, with room for a
    // heartbeat that runs late on a machine busy with other tests); the last event waits behind
    // the others for nine seconds more.
    let a = Replica::spawn(&db, &line, &llm, &[("HEARTH_INBOX_LEASE_SECS", "2")]).await;
    post_burst(&a, 1, 4).await;
    line.wait_for_answers(4, Duration::from_secs(40)).await;
    tokio::time::sleep(Duration::from_secs(3)).await; // a second copy would show by now
    assert_each_answered_once(&line, 4);
    assert_eq!(llm.requests().len(), 8, "four turns of two LLM calls, no more");
    assert_eq!(reminders(&db).await, 4, "one reminder per message");
}

/// Kills the process holding a burst in one chat while its third turn waits for the model, then
/// checks that `taker` (started by `start_taker` after the kill) answers the rest within 30 s,
/// each once.
async fn kill_mid_burst_then<F, Fut>(
    db: &str,
    first: &mut Replica,
    stalling: &FakeLlm,
    line: &FakeLine,
    taker_llm: &FakeLlm,
    start_taker: F,
) where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Option<Replica>>,
{
    post_burst(first, 101, 6).await;
    // Two turns done (two LLM calls each), the third in its slow first call.
    stalling.wait_requests(5, Duration::from_secs(30)).await;
    first.kill();
    let before = answers(line).len();
    assert_eq!(before, 2);
    script_reminder_turns(taker_llm, 4, Duration::ZERO);
    let taking_over = Instant::now();
    let _taker = start_taker().await;
    line.wait_for_answers(before + 1, Duration::from_secs(30)).await;
    let first_answer = taking_over.elapsed();
    eprintln!("first answer {first_answer:?} after the takeover began");
    assert!(first_answer < Duration::from_secs(30), "first answer after {first_answer:?}");
    line.wait_for_answers(6, Duration::from_secs(60)).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_each_answered_once(line, 6);
    assert_eq!(taker_llm.requests().len(), 8, "the four unfinished turns, once each");
    assert_eq!(reminders(db).await, 6, "one reminder per message");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_process_killed_mid_burst_answers_everything_once_soon_after_its_restart() {
    let db = shared_database("hearth-kill-burst").await;
    let line = FakeLine::start().await;
    let (stalling, answering) = (FakeLlm::start().await, FakeLlm::start().await);
    script_reminder_turns(&stalling, 6, Duration::from_secs(2));
    // Default settings: a short lease renewed by the live process.
    let mut first = Replica::spawn(&db, &line, &stalling, &[]).await;
    kill_mid_burst_then(&db, &mut first, &stalling, &line, &answering, || async {
        Some(Replica::spawn(&db, &line, &answering, &[]).await)
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs PostgreSQL: set TEST_DATABASE_URL and pass --include-ignored"]
async fn a_replica_killed_mid_burst_leaves_its_events_to_the_other_within_seconds() {
    let db = crate::common::db::fresh_postgres().await.expect(crate::common::db::NEEDS_POSTGRES);
    let line = FakeLine::start().await;
    let (stalling, answering) = (FakeLlm::start().await, FakeLlm::start().await);
    script_reminder_turns(&stalling, 6, Duration::from_secs(2));
    let mut a = Replica::spawn(&db, &line, &stalling, &[]).await;
    let b = Replica::spawn(&db, &line, &answering, &[]).await;
    kill_mid_burst_then(&db, &mut a, &stalling, &line, &answering, || async { None }).await;
    drop(b);
}
