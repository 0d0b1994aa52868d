//! Files recently shared in a chat: a reference to each (LINE's message id, who sent it, its
//! name, when), so the file a question refers to is found. The chat log only says
//! `[file: NAME]` (`features::media::pick::file_log`), which a person could type too, so the
//! references are kept apart. The content itself is never stored; references older than the
//! caller's horizon are deleted as new ones arrive, an unsent file is forgotten at once (`crate::store::MediaStore::unsend_media`), and a
//! forgotten chat takes its references with it.

use super::{MediaStore, StoreError};

/// A file shared in a chat (its reference is kept apart from the chat log's `[file: NAME]` text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    /// LINE's message id (the key of its content).
    pub message_id: String,
    /// Who sent it.
    pub user_id: Option<String>,
    /// The file's name.
    pub file_name: String,
    /// When it was sent, Unix ms.
    pub at_ms: i64,
}

const NOTE: &str = "INSERT INTO recent_files (conversation_id, message_id, user_id, file_name, at_ms) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (conversation_id, message_id) DO NOTHING";
const PRUNE: &str = "DELETE FROM recent_files WHERE at_ms < $1";
const RECENT: &str = "SELECT message_id, user_id, file_name, at_ms FROM recent_files WHERE conversation_id = $1 AND at_ms >= $2 ORDER BY at_ms";
/// Forgets an unsent file (run by [`crate::store::MediaStore::unsend_media`]).
pub(super) const UNSEND: &str =
    "DELETE FROM recent_files WHERE conversation_id = $1 AND message_id = $2";

row! {
    struct Row {
        message_id: String,
        user_id: Option<String>,
        file_name: String,
        at_ms: i64,
    }
}

impl MediaStore<'_> {
    /// Notes a file shared in the conversation and deletes every reference older than
    /// `prune_before_ms`.
    pub async fn note_file(
        self,
        conversation_id: &str,
        file: &FileRef,
        prune_before_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(PRUNE).bind(prune_before_ms).execute(db).await.map(|_| ()))?;
        db!(self.store, db => sqlx::query(NOTE)
            .bind(conversation_id)
            .bind(&file.message_id)
            .bind(file.user_id.as_deref())
            .bind(&file.file_name)
            .bind(file.at_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// The files shared in the conversation since `since_ms`, oldest first.
    pub async fn recent_files(
        self,
        conversation_id: &str,
        since_ms: i64,
    ) -> Result<Vec<FileRef>, StoreError> {
        let rows: Vec<Row> = db!(self.store, db => sqlx::query_as(RECENT)
            .bind(conversation_id)
            .bind(since_ms)
            .fetch_all(db)
            .await)?;
        Ok(rows
            .into_iter()
            .map(|r| FileRef {
                message_id: r.message_id,
                user_id: r.user_id,
                file_name: r.file_name,
                at_ms: r.at_ms,
            })
            .collect())
    }
}
