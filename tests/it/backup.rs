//! `hearth backup` and `hearth restore` on SQLite: a copy taken while writes go on holds every
//! row written before it began and passes SQLite's integrity check, and does not hold up the
//! store's own connection while it is made; a restore checks the copy
//! (integrity, migrations from a newer hearth) and is refused while a server holds the
//! database, changing nothing; PostgreSQL is sent to pg_dump.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use hearth::platform::config::Config;
use hearth::store::{BackupError, NewMemory, ServeLock, Snapshot, Store};

/// A fresh folder for one test.
fn folder(tag: &str) -> PathBuf {
    crate::common::scratch_dir(&format!("hearth-backup-{tag}"))
}

fn url(path: &Path) -> String {
    format!("sqlite://{}", path.display())
}

async fn remember(store: &Store, text: &str) -> i64 {
    let memory =
        NewMemory { conversation_id: "Ufamily", text, user_id: None, speaker: None, at_ms: 1 };
    store.memory().add(&memory).await.expect("remember")
}

async fn memories(store: &Store) -> Vec<String> {
    store
        .memory()
        .memories("Ufamily")
        .await
        .expect("memories")
        .into_iter()
        .map(|m| m.text)
        .collect()
}

#[tokio::test]
async fn a_backup_taken_while_writes_go_on_is_whole_and_holds_every_row_written_before_it() {
    let dir = folder("live");
    let store = Store::connect(&url(&dir.join("hearth.db"))).await.expect("store");
    for n in 0..20 {
        remember(&store, &format!("before {n}")).await;
    }
    let writing = Arc::new(AtomicBool::new(true));
    let written = Arc::new(AtomicI64::new(0));
    let writer = {
        let (store, writing, written) = (store.clone(), writing.clone(), written.clone());
        tokio::spawn(async move {
            let mut n = 0;
            while writing.load(Ordering::SeqCst) && n < 50 {
                let text = format!("during {n}");
                let memory = NewMemory {
                    conversation_id: "Ugrandma",
                    text: &text,
                    user_id: None,
                    speaker: None,
                    at_ms: 2,
                };
                store.memory().add(&memory).await.expect("write during the backup");
                written.fetch_add(1, Ordering::SeqCst);
                n += 1;
            }
        })
    };
    let copy = dir.join("copy.db");
    store.backup_into(&copy).await.expect("backup");
    writing.store(false, Ordering::SeqCst);
    writer.await.expect("writer");
    assert!(!dir.join("copy.db.partial").exists(), "no partial copy is left");
    let checked = Snapshot::check(&copy).await.expect("the copy checks out");
    assert!(checked.version.is_some());
    let restored = Store::connect(&url(&copy)).await.expect("open the copy");
    let kept = memories(&restored).await;
    assert_eq!(kept.len(), 20, "every row written before the backup began: {kept:?}");
    assert!(
        matches!(store.backup_into(&copy).await, Err(BackupError::Exists(_))),
        "never overwritten"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_backup_being_made_leaves_the_store_free_to_write_and_read() {
    let dir = folder("meanwhile");
    let db = dir.join("hearth.db");
    let store = Store::connect(&url(&db)).await.expect("store");
    // 40 MB beside hearth's tables, so the copy takes a while to make.
    let mut raw = <sqlx::SqliteConnection as sqlx::Connection>::connect(&url(&db))
        .await
        .expect("open the database");
    sqlx::raw_sql("CREATE TABLE filler AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000) SELECT i, randomblob(1000) AS b FROM n")
        .execute(&mut raw)
        .await
        .expect("filled");
    sqlx::Connection::close(raw).await.expect("close");
    let copy = dir.join("copy.db");
    let backup = {
        let (store, copy) = (store.clone(), copy.clone());
        tokio::spawn(async move { store.backup_into(&copy).await })
    };
    let partial = dir.join("copy.db.partial");
    while !partial.exists() {
        assert!(!backup.is_finished(), "the copy was being made long enough to look at");
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    remember(&store, "written while the copy was made").await;
    assert_eq!(memories(&store).await, ["written while the copy was made"]);
    assert!(
        partial.exists(),
        "the write and the read were answered while the copy was still being made"
    );
    backup.await.expect("joined").expect("backup");
    assert!(copy.exists() && !partial.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_restore_puts_the_copy_back_but_is_refused_while_a_server_holds_the_database() {
    let dir = folder("restore");
    let database = dir.join("hearth.db");
    let mut config = Config::defaults();
    config.store.database_url = url(&database);
    let store = Store::connect(&config.store.database_url).await.expect("store");
    remember(&store, "奶奶對花生過敏").await;
    let copy = dir.join("monday.db");
    hearth::cli::backup::backup(&config, &copy).await.expect("backup");
    remember(&store, "a mistake made after the backup").await;
    store.close().await;

    let held = ServeLock::take(&database).expect("a server's lock");
    let refused = hearth::cli::backup::restore(&config, &copy).await;
    assert!(matches!(refused, Err(BackupError::InUse(_))), "{refused:?}");
    drop(held);

    let said = hearth::cli::backup::restore(&config, &copy).await.expect("restore");
    assert!(said.contains("integrity ok"), "{said}");
    let store = Store::connect(&config.store.database_url).await.expect("reopen");
    assert_eq!(memories(&store).await, ["奶奶對花生過敏"], "the database is the copy again");
}

#[tokio::test]
async fn a_damaged_copy_or_one_from_a_newer_hearth_is_refused_and_changes_nothing() {
    let dir = folder("refused");
    let database = dir.join("hearth.db");
    let mut config = Config::defaults();
    config.store.database_url = url(&database);
    let store = Store::connect(&config.store.database_url).await.expect("store");
    remember(&store, "kept").await;

    let garbage = dir.join("garbage.db");
    std::fs::write(&garbage, b"this is not a database, just bytes that look like one")
        .expect("write");
    let damaged = hearth::cli::backup::restore(&config, &garbage).await;
    assert!(matches!(damaged, Err(BackupError::Damaged { .. })), "{damaged:?}");

    let newer = dir.join("newer.db");
    store.backup_into(&newer).await.expect("backup");
    let future = sqlx::SqlitePool::connect(&url(&newer)).await.expect("open the copy");
    sqlx::query("INSERT INTO _sqlx_migrations (version, description, installed_on, success, checksum, execution_time) VALUES (9999, 'from the future', CURRENT_TIMESTAMP, 1, x'00', 0)")
        .execute(&future)
        .await
        .expect("a migration from the future");
    future.close().await;
    let refused = hearth::cli::backup::restore(&config, &newer).await;
    assert!(matches!(refused, Err(BackupError::Newer { version: 9999, .. })), "{refused:?}");
    assert!(refused.expect_err("refused").to_string().contains("newer hearth"));
    assert_eq!(memories(&store).await, ["kept"], "nothing changed");
}

#[tokio::test]
async fn on_postgresql_backup_and_restore_say_to_use_pg_dump() {
    let mut config = Config::defaults();
    config.store.database_url = "postgres://postgres@127.0.0.1:5432/hearth_test".into();
    let backup = hearth::cli::backup::backup(&config, Path::new("x.db")).await;
    assert!(matches!(backup, Err(BackupError::Postgres)), "{backup:?}");
    assert!(backup.expect_err("refused").to_string().contains("pg_dump"));
}

#[test]
fn the_commands_exit_non_zero_with_the_reason() {
    let dir = folder("cli");
    let database = dir.join("hearth.db");
    let run = |args: &[&str], db: &str| {
        Command::new(env!("CARGO_BIN_EXE_hearth"))
            .args(args)
            .env("DATABASE_URL", db)
            .output()
            .expect("run hearth")
    };
    let copy = dir.join("copy.db");
    let nothing = run(&["backup", &copy.display().to_string()], &url(&database));
    assert!(!nothing.status.success(), "no database, no copy");
    assert!(String::from_utf8_lossy(&nothing.stderr).contains("no database"));
    let migrate = run(&["migrate"], &url(&database));
    assert!(migrate.status.success(), "{}", String::from_utf8_lossy(&migrate.stderr));
    let made = run(&["backup", &copy.display().to_string()], &url(&database));
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    assert!(String::from_utf8_lossy(&made.stdout).contains("wrote"));
    let again = run(&["backup", &copy.display().to_string()], &url(&database));
    assert!(!again.status.success() && String::from_utf8_lossy(&again.stderr).contains("exists"));
    let pg = run(&["backup", "x.db"], "postgres://postgres@127.0.0.1:5432/hearth_test");
    assert!(!pg.status.success() && String::from_utf8_lossy(&pg.stderr).contains("pg_dump"));
    let back = run(&["restore", &copy.display().to_string()], &url(&database));
    assert!(back.status.success(), "{}", String::from_utf8_lossy(&back.stderr));
    // A path that is not there is named once, in words.
    let nowhere = dir.join("no-such-folder").join("copy.db");
    let said = run(&["backup", &nowhere.display().to_string()], &url(&database));
    let stderr = String::from_utf8_lossy(&said.stderr);
    assert!(!said.status.success() && stderr.contains("does not exist"), "{stderr}");
    assert!(!stderr.contains(".partial") && stderr.lines().count() == 1, "{stderr}");
    let missing = dir.join("missing.db");
    let said = run(&["restore", &missing.display().to_string()], &url(&database));
    let stderr = String::from_utf8_lossy(&said.stderr);
    assert!(!said.status.success() && stderr.contains("there is no copy at"), "{stderr}");
    assert!(!stderr.contains("entity not found"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_serving_hearth_backs_up_its_database_and_holds_it_against_a_restore() {
    let dir = folder("serving");
    let database = dir.join("hearth.db");
    let backups = dir.join("backups");
    let (line, llm) =
        (crate::common::FakeLine::start().await, crate::common::FakeLlm::start().await);
    let backup_dir = backups.display().to_string();
    let server = crate::common::replica::Replica::spawn(
        &url(&database),
        &line,
        &llm,
        &[("HEARTH_BACKUP_DIR", &backup_dir), ("HEARTH_BACKUP_KEEP", "3")],
    )
    .await;
    let mut taken = Vec::new();
    for _ in 0..100 {
        // Only whole copies: one being written has another name until it is complete.
        taken = std::fs::read_dir(&backups)
            .map(|d| {
                d.flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".db")).collect()
            })
            .unwrap_or_default();
        if !taken.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(taken.len(), 1, "one backup at start");
    let copy = taken[0].path();
    assert!(copy.file_name().is_some_and(|n| n.to_string_lossy().starts_with("hearth-")));
    Snapshot::check(&copy).await.expect("the daily copy checks out");

    let mut config = Config::defaults();
    config.store.database_url = url(&database);
    let refused = hearth::cli::backup::restore(&config, &copy).await;
    assert!(matches!(refused, Err(BackupError::InUse(_))), "{refused:?}");
    drop(server);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_backup_taken_while_webhooks_are_acknowledged_and_reminders_fire_restores_to_a_server_answering_each_once()
 {
    use crate::common::replica::{Replica, answers_per_user, envelope, event};
    use crate::common::{FakeLine, FakeLlm, Step};
    use std::time::Duration;

    let dir = folder("acked");
    let database = dir.join("hearth.db");
    let line = FakeLine::start().await;
    // The first server's model never answers in time: every acknowledged event stays queued.
    let (stalling, answering) = (FakeLlm::start().await, FakeLlm::start().await);
    for _ in 0..40 {
        stalling.push(Step::Stall(Duration::from_secs(30)));
    }
    let env = [("HEARTH_INBOX_LEASE_SECS", "2")];
    // Reminders due while the first server runs: pushed by it, before the backup.
    let store = Store::connect(&url(&database)).await.expect("store");
    let due = jiff::Timestamp::now().as_millisecond() + 1_500;
    let reminded: Vec<String> = (0..5).map(|i| format!("U{:032x}", 0xe000 + i)).collect();
    for chat in &reminded {
        let reminder = crate::common::rows::once_reminder(chat, "吃藥", due);
        store
            .reminders()
            .create(&hearth::store::NewReminder { created_by: None, ..reminder })
            .await
            .expect("reminder");
    }
    store.close().await;
    let mut first = Replica::spawn(&url(&database), &line, &stalling, &env).await;
    line.wait_for(
        |r| r.iter().filter(|r| r.is_accepted_answer()).count() >= 5,
        Duration::from_secs(20),
    )
    .await;
    let before: Vec<String> = (0..10).map(|i| format!("U{:032x}", 0xa000 + i)).collect();
    for (i, user) in before.iter().enumerate() {
        assert_eq!(first.post(&envelope(vec![event(500 + i as u64, user, "在嗎？")])).await, 200);
    }
    let copy = dir.join("while-serving.db");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_hearth"))
            .args(args)
            .env("DATABASE_URL", url(&database))
            .output()
            .expect("run hearth")
    };
    let made = run(&["backup", &copy.display().to_string()]);
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    // Acknowledged after the backup began: not in the copy.
    for i in 0..3u64 {
        let user = format!("U{:032x}", 0xb000 + i);
        assert_eq!(first.post(&envelope(vec![event(600 + i, &user, "還在嗎？")])).await, 200);
    }
    let refused = run(&["restore", &copy.display().to_string()]);
    assert!(!refused.status.success(), "refused while the server runs");
    first.kill();
    let restored = run(&["restore", &copy.display().to_string()]);
    assert!(restored.status.success(), "{}", String::from_utf8_lossy(&restored.stderr));

    let _second = Replica::spawn(&url(&database), &line, &answering, &env).await;
    line.wait_for_answers(10, Duration::from_secs(30)).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let answered = answers_per_user(&line);
    assert_eq!(
        answered.len(),
        15,
        "five reminders and the ten events before the backup: {answered:?}"
    );
    assert!(
        reminded.iter().all(|chat| answered.get(chat) == Some(&1)),
        "no reminder twice: {answered:?}"
    );
    // Replies are counted by their token, one per event (`replica-token-{pid}-{n}`).
    for n in 500..510 {
        let token = format!("replica-token-{}-{n}", std::process::id());
        assert_eq!(answered.get(&token), Some(&1), "event {n} once: {answered:?}");
    }
    assert_eq!(before.len(), 10);
}

#[tokio::test]
async fn daily_copies_keep_a_week_of_days_through_a_crash_loop_and_touch_no_other_file() {
    let dir = folder("daily");
    let store = Store::connect(&url(&dir.join("hearth.db"))).await.expect("store");
    remember(&store, "kept").await;
    let copies = dir.join("backups");
    std::fs::create_dir_all(&copies).expect("folder");
    // The operator's own files, and one named like a copy that hearth did not write.
    for own in ["hearth-0-grandma-photos-index.db", "hearth-keep.db", "hearth-20261101.db"] {
        std::fs::write(copies.join(own), b"the operator's").expect("write");
    }
    let tz = jiff::tz::TimeZone::get("Asia/Taipei").expect("zone");
    let backups = hearth::server::backups::Backups { dir: copies.clone(), keep: 7, tz: tz.clone() };
    // Nine days, a copy each at 07:30 in Taipei (23:30 UTC the day before).
    for day in 1..=9 {
        let at = tz.to_timestamp(jiff::civil::date(2026, 12, day).at(7, 30, 0, 0)).expect("t");
        let taken = backups.take(&store, at).await.expect("backup");
        assert!(taken.is_some(), "day {day}");
    }
    // Then seven crash-restarts in 35 seconds on the ninth: today's copy is there already.
    let ninth = tz.to_timestamp(jiff::civil::date(2026, 12, 9).at(9, 0, 0, 0)).expect("t");
    for restart in 0..7 {
        let at = ninth + jiff::SignedDuration::from_secs(5 * restart);
        assert_eq!(backups.take(&store, at).await.expect("backup"), None);
    }
    let mut names: Vec<String> = std::fs::read_dir(&copies)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected: Vec<String> = (3..=9).map(|d| format!("hearth-202612{d:02}.db")).collect();
    expected.extend(
        ["hearth-0-grandma-photos-index.db", "hearth-20261101.db", "hearth-keep.db"]
            .map(String::from),
    );
    expected.sort();
    assert_eq!(names, expected, "a week of days, and every file hearth did not write");
    let oldest = Store::connect(&url(&copies.join("hearth-20261203.db"))).await.expect("open");
    assert_eq!(memories(&oldest).await, ["kept"]);
}

#[tokio::test]
async fn a_copy_whose_schema_is_not_hearth_s_is_refused_named_and_the_database_is_untouched() {
    let dir = folder("schema");
    let database = dir.join("hearth.db");
    let mut config = Config::defaults();
    config.store.database_url = url(&database);
    let store = Store::connect(&config.store.database_url).await.expect("store");
    remember(&store, "kept").await;
    let changes = [
        (
            "trigger.db",
            "CREATE TRIGGER approve_all AFTER INSERT ON inbox BEGIN SELECT 1; END",
            "a trigger `approve_all` on `inbox` that hearth does not make",
        ),
        ("dropped.db", "DROP TABLE reminders", "the table `reminders` is missing"),
        // Names only like SQLite's own (`sqlite_` is SQLite's, exactly): they cannot hide.
        (
            "like_sqlite.db",
            "CREATE TRIGGER sqlitex_open AFTER INSERT ON inbox BEGIN SELECT 1; END",
            "a trigger `sqlitex_open` on `inbox` that hearth does not make",
        ),
        (
            "upper_sqlite.db",
            "CREATE INDEX SQLITE9x ON inbox (event_id)",
            "an index `SQLITE9x` on `inbox` that hearth does not make",
        ),
        (
            "view.db",
            "ALTER TABLE chat_access RENAME TO old_access; CREATE VIEW chat_access AS SELECT * FROM old_access",
            "`chat_access` is a view, not a table",
        ),
    ];
    for (name, change, named) in changes {
        let copy = dir.join(name);
        store.backup_into(&copy).await.expect("backup");
        let mut edited = <sqlx::SqliteConnection as sqlx::Connection>::connect(&url(&copy))
            .await
            .expect("open the copy");
        sqlx::raw_sql(change).execute(&mut edited).await.expect("change the copy");
        sqlx::Connection::close(edited).await.expect("close");
        let refused = hearth::cli::backup::restore(&config, &copy).await;
        match refused {
            Err(BackupError::Schema { differences, .. }) => {
                assert!(differences.contains(named), "{name}: {differences}")
            }
            other => panic!("{name}: restored: {other:?}"),
        }
    }
    let store = Store::connect(&config.store.database_url).await.expect("reopen");
    assert_eq!(memories(&store).await, ["kept"], "the live database is untouched");
    let plain = dir.join("plain.db");
    store.backup_into(&plain).await.expect("backup");
    assert!(Snapshot::check(&plain).await.is_ok(), "hearth's own copy checks out");
}
