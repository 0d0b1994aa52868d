//! A serving hearth on an SQLite file copies its write-ahead log back into the database file by
//! itself, four times a second, on a connection of its own (`store/checkpoint.rs`): what it writes
//! reaches the file without the store's connection ever stopping to copy it.

use std::time::{Duration, Instant};

use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};

use crate::common::harness::{Harness, temp_db};
use hearth::store::NewMemory;

/// How many memories the database file itself holds, read without the log (`immutable`), or
/// `None` while their table has not reached the file either.
async fn in_the_file(path: &str) -> Option<i64> {
    let options = SqliteConnectOptions::new().filename(path).read_only(true).immutable(true);
    let mut file = options.connect().await.ok()?;
    let count = sqlx::query_scalar("SELECT COUNT(*) FROM memories").fetch_one(&mut file).await;
    let _ = file.close().await;
    count.ok()
}

#[tokio::test(flavor = "multi_thread")]
async fn what_a_serving_hearth_writes_reaches_the_database_file_within_seconds() {
    let db = temp_db("checkpoints");
    let url = db.clone();
    let h = Harness::start_with(move |c| c.store.database_url = url, None).await;
    for n in 0..100 {
        let conversation_id = format!("U{n:032}");
        let memory = NewMemory {
            conversation_id: &conversation_id,
            text: "奶奶喜歡吃軟一點的粥",
            user_id: None,
            speaker: None,
            at_ms: 1,
        };
        h.app.store.memory().add(&memory).await.expect("remembered");
    }
    let path = db.trim_start_matches("sqlite://");
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut seen = in_the_file(path).await;
    while seen != Some(100) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        seen = in_the_file(path).await;
    }
    assert_eq!(seen, Some(100), "the file itself holds what was written, not only the log");
}
