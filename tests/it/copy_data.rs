//! `hearth copy-data`: a SQLite database with every kind of row, copied into an empty
//! PostgreSQL one in one transaction — every table's rows, the ids going on after the copied
//! ones — and a target that holds rows refused.

use crate::common::harness::{Harness, MOM};
use hearth::store::{CopyError, Store, copy_data};

/// A family's SQLite database with reminders, a list, a memory, an alert, a digest, quiet hours
/// and the chat log.
async fn family_database() -> (Harness, String) {
    let dir = crate::common::scratch_dir("hearth-copy");
    let url = format!("sqlite://{}", dir.join("hearth.db").display());
    let db = url.clone();
    let h = Harness::start_with(move |c| c.store.database_url = db, None).await;
    crate::common::family::keep_one_of_each(&h).await;
    (h, url)
}

#[tokio::test]
#[ignore = "needs PostgreSQL: set TEST_DATABASE_URL and pass --include-ignored"]
async fn every_row_of_a_family_s_sqlite_database_is_copied_into_an_empty_postgresql_once() {
    let (h, url) = family_database().await;
    let source = Store::open(&url).await.expect("source");
    let pg = crate::common::db::fresh_postgres().await.expect("TEST_DATABASE_URL");
    let target = Store::open(&pg).await.expect("target");
    let counts = copy_data(&source, &target).await.expect("copy");
    let rows = |table: &str| counts.iter().find(|(t, _)| t == table).map(|(_, n)| *n).unwrap_or(-1);
    assert_eq!(rows("reminders"), 1, "{counts:?}");
    assert_eq!(rows("list_items"), 2, "{counts:?}");
    assert_eq!(rows("memories"), 1);
    assert_eq!(rows("price_alerts"), 1);
    assert_eq!(rows("digests"), 1);
    assert!(rows("chat_log") >= 1 && rows("inbox") >= 1, "{counts:?}");
    assert_eq!(target.memory().memories(MOM).await.expect("read")[0].text, "奶奶對花生過敏");
    assert_eq!(target.price_alerts().list(MOM).await.expect("read")[0].level, 100000.5);
    assert_eq!(target.reminders().list(MOM).await.expect("read")[0].text, "吃藥");
    assert!(target.chats().quiet_hours(MOM).await.expect("read").is_some());
    // New rows take ids after the copied ones.
    let copied = target.memory().memories(MOM).await.expect("read")[0].id;
    let memory = hearth::store::NewMemory {
        conversation_id: MOM,
        text: "新的",
        user_id: None,
        speaker: None,
        at_ms: 1,
    };
    assert!(target.memory().add(&memory).await.expect("a new row") > copied);

    let again = copy_data(&source, &target).await;
    assert!(matches!(again, Err(CopyError::NotEmpty { .. })), "{again:?}");
    drop(h);
}

#[tokio::test]
#[ignore = "needs PostgreSQL: set TEST_DATABASE_URL and pass --include-ignored"]
async fn a_database_of_another_application_is_refused_before_anything_is_written() {
    let (h, url) = family_database().await;
    let source = Store::open(&url).await.expect("source");
    let pg = crate::common::db::fresh_postgres().await.expect("TEST_DATABASE_URL");
    let mut other = <sqlx::PgConnection as sqlx::Connection>::connect(&pg).await.expect("connect");
    for sql in [
        "CREATE TABLE orders (id BIGINT PRIMARY KEY, item TEXT)",
        "INSERT INTO orders VALUES (1, 'tea')",
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&mut other).await.expect("their data");
    }
    let target = Store::open(&pg).await.expect("target");
    let refused = copy_data(&source, &target).await;
    assert!(
        matches!(&refused, Err(CopyError::Foreign { table }) if table == "orders"),
        "{refused:?}"
    );
    let tables: Vec<(String,)> = sqlx::query_as(
        "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()",
    )
    .fetch_all(&mut other)
    .await
    .expect("tables");
    assert_eq!(tables, vec![("orders".to_string(),)], "the target is as it was found");
    drop(h);
}

#[tokio::test]
async fn copy_data_copies_only_from_sqlite_into_postgresql() {
    let a = Store::in_memory().await.expect("store");
    let b = Store::in_memory().await.expect("store");
    let refused = copy_data(&a, &b).await;
    assert!(matches!(refused, Err(CopyError::Backends)), "{refused:?}");
    assert!(refused.expect_err("refused").to_string().contains("postgres://"));
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs PostgreSQL: set TEST_DATABASE_URL and pass --include-ignored"]
async fn two_replicas_on_the_copy_fire_each_due_reminder_once_and_answer_a_redelivered_event_once()
{
    use crate::common::replica::{Replica, answers_per_user, envelope, event};
    use crate::common::{FakeLine, FakeLlm};
    use std::time::Duration;

    let dir = crate::common::scratch_dir("hearth-copy-replicas");
    let sqlite = format!("sqlite://{}", dir.join("hearth.db").display());
    let source = Store::connect(&sqlite).await.expect("source");
    let due = jiff::Timestamp::now().as_millisecond() + 4_000;
    for i in 0..20 {
        let chat = format!("U{:032x}", 0xc000 + i);
        let reminder = crate::common::rows::once_reminder(&chat, "提醒", due);
        source
            .reminders()
            .create(&hearth::store::NewReminder { created_by: None, ..reminder })
            .await
            .expect("reminder");
    }
    let pg = crate::common::db::fresh_postgres().await.expect(crate::common::db::NEEDS_POSTGRES);
    let target = Store::open(&pg).await.expect("target");
    let counts = copy_data(&source, &target).await.expect("copy");
    assert!(counts.iter().any(|(t, n)| t == "reminders" && *n == 20), "{counts:?}");

    let (line, llm) = (FakeLine::start().await, FakeLlm::start().await);
    llm.reply_text("只回答一次");
    llm.reply_text("不應該出現第二次");
    let a = Replica::spawn(&pg, &line, &llm, &[]).await;
    let b = Replica::spawn(&pg, &line, &llm, &[]).await;
    let asker = format!("U{:032x}", 0xd000);
    let body = envelope(vec![event(900, &asker, "你好")]);
    let (sa, sb) = tokio::join!(a.post(&body), b.post(&body));
    assert_eq!((sa, sb), (200, 200));
    line.wait_for(|r| r.iter().filter(|r| r.status == 200).count() >= 21, Duration::from_secs(30))
        .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let per_target = answers_per_user(&line);
    assert_eq!(per_target.len(), 21, "20 reminders and one answer: {per_target:?}");
    assert!(per_target.values().all(|n| *n == 1), "nothing twice: {per_target:?}");
    assert_eq!(llm.requests().len(), 1, "the event reached the model once");
}

#[test]
fn copy_data_refuses_a_source_a_server_is_using() {
    let dir = crate::common::scratch_dir("hearth-copy-held");
    let file = dir.join("hearth.db");
    let _held = hearth::store::ServeLock::take(&file).expect("a server's lock");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
        .args(["copy-data", "--from", &format!("sqlite://{}", file.display())])
        .args(["--to", "postgres://postgres@127.0.0.1:5432/never_reached"])
        .output()
        .expect("run hearth");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("a hearth server is using"));
}
