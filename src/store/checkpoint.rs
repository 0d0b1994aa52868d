//! SQLite's write-ahead log copied back into the database file on a connection of its own.
//!
//! A commit on SQLite in WAL mode appends to the log; a checkpoint copies the log's pages back
//! into the database and syncs the file, after which the log starts over. Done by the store's
//! one connection, it would stop every statement for as long as the copy and the sync take
//! (tens of milliseconds on a disk, more on an SD card), so a serving process checkpoints four
//! times a second on a second connection ([`Store::checkpoint`], the `checkpoints` loop), in
//! SQLite's `PASSIVE` mode: it waits for nobody, and nobody waits for it.

use super::{Store, StoreError};

/// What one checkpoint did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoint {
    /// Pages in the log.
    pub logged: i64,
    /// Pages of the log now in the database file (all of them, unless a read still needed the
    /// older ones).
    pub copied: i64,
}

impl Store {
    /// True for an SQLite file, whose write-ahead log [`Store::checkpoint`] copies back.
    pub fn has_write_ahead_log(&self) -> bool {
        self.checkpoints.is_some()
    }

    /// Copies the write-ahead log back into an SQLite file, on the checkpoints' own connection;
    /// `None` where there is no such log (in memory, PostgreSQL).
    pub async fn checkpoint(&self) -> Result<Option<Checkpoint>, StoreError> {
        let Some(pool) = &self.checkpoints else { return Ok(None) };
        let (_busy, logged, copied): (i64, i64, i64) =
            sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)").fetch_one(pool).await?;
        Ok(Some(Checkpoint { logged, copied }))
    }
}

#[cfg(test)]
mod tests {
    use crate::store::{NewMemory, Store};

    async fn remember(store: &Store, round: usize) {
        for n in 0..50 {
            let conversation_id = format!("U{round}-{n}");
            let memory = NewMemory {
                conversation_id: &conversation_id,
                text: "a line long enough to take some room in the log",
                user_id: None,
                speaker: None,
                at_ms: 1,
            };
            store.memory().add(&memory).await.expect("remembered");
        }
    }

    #[tokio::test]
    async fn a_checkpoint_copies_the_whole_log_back_and_the_log_then_starts_over() {
        let dir = std::env::temp_dir().join(format!("hearth-checkpoint-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let db = dir.join("hearth.db");
        let store = Store::connect(&format!("sqlite://{}", db.display())).await.expect("store");
        assert!(store.has_write_ahead_log());
        let wal = dir.join("hearth.db-wal");
        let mut sizes = Vec::new();
        for round in 0..5 {
            remember(&store, round).await;
            let done = store.checkpoint().await.expect("checkpointed").expect("a file has a log");
            assert!(done.logged > 0, "round {round} wrote to the log");
            assert_eq!(done.copied, done.logged, "round {round}: all of it is in the file");
            sizes.push(std::fs::metadata(&wal).expect("the log").len());
        }
        // Each round's pages went where the last round's were: the log did not grow.
        assert!(sizes.iter().all(|size| *size <= sizes[1]), "the log's sizes: {sizes:?}");
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_store_in_memory_has_no_log_to_copy() {
        let store = Store::in_memory().await.expect("store");
        assert!(!store.has_write_ahead_log());
        assert_eq!(store.checkpoint().await.expect("nothing to do"), None);
    }
}
