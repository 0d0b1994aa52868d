//! Several `hearth serve` processes on one database, and processes that die: the real binary,
//! fake LINE and LLM APIs in the test. Exactly-once is checked where the family would notice:
//! in what LINE accepted.
//!
//! The tests with two replicas need PostgreSQL (`TEST_DATABASE_URL`; CI always sets it). The
//! kill-after-ack test runs on an SQLite file too.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::replica::{Replica, answers_per_user, envelope, event, shared_database};
use crate::common::{FakeLine, FakeLlm, Step};
use hearth::store::{NewReminder, Store};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs PostgreSQL: set TEST_DATABASE_URL and pass --include-ignored"]
async fn the_same_event_sent_to_two_replicas_is_answered_once() {
    let db = crate::common::db::fresh_postgres().await.expect(crate::common::db::NEEDS_POSTGRES);
    let (line, llm) = (FakeLine::start().await, FakeLlm::start().await);
    llm.reply_text("只回答一次");
    llm.reply_text("不應該出現第二次");
    let a = Replica::spawn(&db, &line, &llm, &[]).await;
    let b = Replica::spawn(&db, &line, &llm, &[]).await;
    let body = envelope(vec![event(1, "U0123456789abcdef0123456789abcdef", "你好")]);
    let (sa, sb) = tokio::join!(a.post(&body), b.post(&body));
    assert_eq!((sa, sb), (200, 200));
    line.wait_for(|r| r.iter().any(|r| r.path.ends_with("/reply")), Duration::from_secs(10)).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(line.replies().len(), 1);
    assert_eq!(llm.requests().len(), 1);
}

async fn insert_due_reminders(db: &str, count: usize, due_ms: i64) {
    let store = Store::connect(db).await.expect("store");
    for i in 0..count {
        let conversation = format!("U{i:032x}");
        store
            .reminders()
            .create(&NewReminder {
                created_by: None,
                ..crate::common::rows::once_reminder(&conversation, "提醒", due_ms)
            })
            .await
            .expect("create");
    }
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs PostgreSQL: set TEST_DATABASE_URL and pass --include-ignored"]
async fn a_thousand_due_reminders_are_pushed_once_each_even_when_a_replica_dies_mid_burst() {
    let db = crate::common::db::fresh_postgres().await.expect(crate::common::db::NEEDS_POSTGRES);
    let (line, llm) = (FakeLine::start().await, FakeLlm::start().await);
    line.set_dump(false);
    let due = jiff::Timestamp::now().as_millisecond() + 3_000;
    insert_due_reminders(&db, 1000, due).await;
    // Slow pushes, so the burst is still going when one replica is killed.
    let env = [("HEARTH_REMINDER_LEASE_SECS", "3"), ("HEARTH_PUSH_RATE", "400")];
    let mut a = Replica::spawn(&db, &line, &llm, &env).await;
    let _b = Replica::spawn(&db, &line, &llm, &env).await;
    line.wait_for(|r| r.iter().filter(|r| r.status == 200).count() >= 150, Duration::from_secs(30))
        .await;
    a.kill();
    line.wait_for(
        |r| r.iter().filter(|r| r.status == 200).count() >= 1000,
        Duration::from_secs(60),
    )
    .await;
    tokio::time::sleep(Duration::from_secs(5)).await; // anything sent twice would arrive by now
    let per_target = answers_per_user(&line);
    assert_eq!(per_target.len(), 1000, "every reminder delivered");
    assert!(per_target.values().all(|n| *n == 1), "none delivered twice");
}

#[tokio::test(flavor = "multi_thread")]
async fn events_acknowledged_before_a_crash_are_answered_once_after_the_restart() {
    let db = shared_database("hearth-kill").await;
    let line = FakeLine::start().await;
    // The first process's LLM never answers; the restarted one's answers at once.
    let (stalling, answering) = (FakeLlm::start().await, FakeLlm::start().await);
    for _ in 0..20 {
        stalling.push(Step::Stall(Duration::from_secs(30)));
    }
    let env = [("HEARTH_INBOX_LEASE_SECS", "2")];
    let mut first = Replica::spawn(&db, &line, &stalling, &env).await;
    let users: Vec<String> = (0..20).map(|i| format!("U{i:032x}")).collect();
    for (i, user) in users.iter().enumerate() {
        assert_eq!(first.post(&envelope(vec![event(100 + i as u64, user, "在嗎？")])).await, 200);
    }
    first.kill(); // right after the 200s, with every turn still waiting for the LLM
    assert!(line.replies().is_empty() && line.pushes().is_empty());

    let _second = Replica::spawn(&db, &line, &answering, &env).await;
    line.wait_for_answers(20, Duration::from_secs(30)).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let answered = answers_per_user(&line);
    assert_eq!(answered.len(), 20, "every event answered: {answered:?}");
    assert!(answered.values().all(|n| *n == 1), "none answered twice: {answered:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_stops_within_the_grace_period_and_hands_unfinished_events_back() {
    let db = shared_database("hearth-term").await;
    let line = FakeLine::start().await;
    let (stalling, answering) = (FakeLlm::start().await, FakeLlm::start().await);
    for _ in 0..5 {
        stalling.push(Step::Stall(Duration::from_secs(30)));
    }
    // A long lease: only the hand-back lets another process take the events before it ends.
    let env = [("HEARTH_INBOX_LEASE_SECS", "600"), ("HEARTH_SHUTDOWN_GRACE_SECS", "1")];
    let mut first = Replica::spawn(&db, &line, &stalling, &env).await;
    for i in 0..5u64 {
        let user = format!("U{i:032x}");
        assert_eq!(first.post(&envelope(vec![event(200 + i, &user, "晚安")])).await, 200);
    }
    stalling.wait_requests(5, Duration::from_secs(10)).await;
    let pid = first.child.id().to_string();
    let stopping = Instant::now();
    let status = Command::new("kill").args(["-TERM", &pid]).status().expect("kill -TERM");
    assert!(status.success());
    let exited = loop {
        if let Some(code) = first.child.try_wait().expect("wait") {
            break code;
        }
        assert!(stopping.elapsed() < Duration::from_secs(10), "did not stop in time");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(exited.success(), "clean exit: {exited:?}");

    let _second = Replica::spawn(&db, &line, &answering, &env).await;
    line.wait_for_answers(5, Duration::from_secs(15)).await;
    let answered = answers_per_user(&line);
    assert_eq!(answered.len(), 5);
    assert!(answered.values().all(|n| *n == 1), "{answered:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_event_that_kills_hearth_twice_is_set_aside_with_one_apology_and_the_next_is_answered() {
    let db = shared_database("hearth-poison").await;
    let line = FakeLine::start().await;
    let llm = FakeLlm::start().await;
    let mom = "U00000000000000000000000000000099";
    // Each process that takes the poison event hangs in its turn until it is killed.
    llm.push(Step::Stall(Duration::from_secs(120)));
    llm.push(Step::Stall(Duration::from_secs(120)));
    let env = [("HEARTH_INBOX_LEASE_SECS", "1")];
    let mut first = Replica::spawn(&db, &line, &llm, &env).await;
    // The poison event, and an innocent one queued behind it in the same chat: claimed by
    // both processes that die, but never started, so never set aside.
    let both = vec![event(900, mom, "毒藥訊息"), event(902, mom, "第二則訊息")];
    assert_eq!(first.post(&envelope(both)).await, 200);
    llm.wait_requests(1, Duration::from_secs(10)).await;
    first.kill(); // 1: in the middle of the event's first attempt
    let mut second = Replica::spawn(&db, &line, &llm, &env).await;
    llm.wait_requests(2, Duration::from_secs(15)).await;
    second.kill(); // 2: in the middle of its second attempt
    llm.reply_text("第二則收到");
    let mut third = Replica::spawn(&db, &line, &llm, &env).await;
    // The apology, then the innocent event answered.
    line.wait_for_answers(2, Duration::from_secs(20)).await;
    third.kill(); // 3: after it set the event aside
    llm.reply_text("在喔");
    let fourth = Replica::spawn(&db, &line, &llm, &env).await;
    assert_eq!(fourth.post(&envelope(vec![event(901, mom, "你還在嗎")])).await, 200);
    line.wait_for_answers(3, Duration::from_secs(15)).await;
    tokio::time::sleep(Duration::from_secs(3)).await;

    // Requests whose question (the last message) is `words`; later turns carry it in history.
    let asked = |words: &str| {
        let last = |r: &serde_json::Value| r["messages"].as_array()?.last().map(|m| m.to_string());
        llm.requests().iter().filter(|r| last(r).is_some_and(|m| m.contains(words))).count()
    };
    assert_eq!(asked("毒藥訊息"), 2, "two attempts, never a third");
    assert_eq!(asked("第二則訊息"), 1, "the innocent event queued behind it was answered");
    let apologies: Vec<_> = line
        .accepted_pushes()
        .into_iter()
        .filter(|p| p.body.to_string().contains("跳過"))
        .collect();
    assert_eq!(apologies.len(), 1, "one apology");
    assert_eq!(apologies[0].body["to"], mom);
    let answered = line
        .requests()
        .into_iter()
        .any(|r| r.is_accepted_answer() && r.body.to_string().contains("在喔"));
    assert!(answered, "the next event was answered");
}
