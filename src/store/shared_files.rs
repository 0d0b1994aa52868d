//! Files recently shared in a chat, found in the chat log: a file is logged as `[file: NAME]`
//! with its LINE message id and sender ([`crate::media::pick::file_log`]), so the file a question
//! refers to is found there without keeping anything else (and goes with the log when a message
//! is unsent, the log is pruned or the chat is forgotten). Only the latest [`SCANNED`] messages
//! of the chat are looked at.

use sqlx::FromRow;

use super::{Store, StoreError};
use crate::media::pick::{FileRef, file_name_in};

/// How many of a chat's latest logged messages are looked through.
const SCANNED: i64 = 200;

const RECENT_FILES: &str = "SELECT message_id, user_id, text, at_ms FROM (SELECT message_id, user_id, from_bot, text, at_ms FROM chat_log WHERE conversation_id = $1 ORDER BY id DESC LIMIT $3) latest WHERE NOT from_bot AND message_id IS NOT NULL AND at_ms >= $2 AND text LIKE '[file: %' ORDER BY at_ms";

#[derive(FromRow)]
struct Row {
    message_id: String,
    user_id: Option<String>,
    text: String,
    at_ms: i64,
}

impl Store {
    /// The files shared in the conversation since `since_ms`, oldest first.
    pub async fn recent_files(
        &self,
        conversation_id: &str,
        since_ms: i64,
    ) -> Result<Vec<FileRef>, StoreError> {
        let rows: Vec<Row> = db!(self, db => sqlx::query_as(RECENT_FILES)
            .bind(conversation_id)
            .bind(since_ms)
            .bind(SCANNED)
            .fetch_all(db)
            .await)?;
        Ok(rows
            .into_iter()
            .filter_map(|r| {
                let file_name = file_name_in(&r.text)?.to_string();
                Some(FileRef {
                    message_id: r.message_id,
                    user_id: r.user_id,
                    file_name,
                    at_ms: r.at_ms,
                })
            })
            .collect())
    }
}
