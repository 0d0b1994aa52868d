//! What the store keeps for conversation memory and the privacy of the chat log: memories per
//! conversation, the recap window of the log, and deletion (unsend, retention; a conversation that
//! removed hearth is forgotten by `forget`). Every query is keyed by the conversation id; nothing
//! here can read or delete another conversation's rows.

use super::{LoggedMessage, MemoryStore, StoreError};

row! {
    /// A fact a conversation asked hearth to remember.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Memory {
        /// Its id, shown to the family as `#id`.
        pub id: i64,
        /// The fact.
        pub text: String,
        /// The LINE user id of who asked hearth to remember it.
        pub user_id: Option<String>,
        /// Their display name at the time.
        pub speaker: Option<String>,
        /// When, Unix ms.
        pub created_at: i64,
    }
}

/// A memory to store.
#[derive(Debug, Clone)]
pub struct NewMemory<'a> {
    /// The conversation it belongs to.
    pub conversation_id: &'a str,
    /// The fact.
    pub text: &'a str,
    /// Who asked.
    pub user_id: Option<&'a str>,
    /// Their display name.
    pub speaker: Option<&'a str>,
    /// When, Unix ms.
    pub at_ms: i64,
}

const ADD_MEMORY: &str = "INSERT INTO memories (conversation_id, text, user_id, speaker, created_at) SELECT $1, $2, $3, $4, $5 WHERE (SELECT COUNT(*) FROM memories WHERE conversation_id = $1) < $6 RETURNING id";
const MEMORIES: &str = "SELECT id, text, user_id, speaker, created_at FROM memories WHERE conversation_id = $1 ORDER BY id";
const DELETE_MEMORY: &str = "DELETE FROM memories WHERE conversation_id = $1 AND id = $2 RETURNING id, text, user_id, speaker, created_at";
const DELETE_MEMORIES_UP_TO: &str = "DELETE FROM memories WHERE conversation_id = $1 AND id <= $2";
/// The history of a turn (as `HISTORY` in the parent module reads it, newest first) and the
/// conversation's memories (oldest first), told apart by `kind`.
const HISTORY_AND_MEMORIES: &str = "SELECT kind, id, speaker, user_id, from_bot, text, at_ms, tainted FROM (SELECT CAST(0 AS BIGINT) AS kind, id, speaker, CAST(NULL AS TEXT) AS user_id, from_bot, text, at_ms, tainted FROM (SELECT id, speaker, from_bot, text, at_ms, tainted FROM chat_log WHERE conversation_id = $1 AND id < $2 ORDER BY id DESC LIMIT CAST($3 AS BIGINT)) AS history UNION ALL SELECT CAST(1 AS BIGINT), id, speaker, user_id, FALSE, text, created_at, FALSE FROM memories WHERE conversation_id = $1) AS turn ORDER BY kind, CASE WHEN kind = 0 THEN -id ELSE id END";
const LOG_WINDOW: &str = "SELECT speaker, from_bot, text, at_ms FROM chat_log WHERE conversation_id = $1 AND at_ms >= $2 AND NOT from_bot ORDER BY id DESC LIMIT CAST($3 AS BIGINT)";
const UNSEND: &str = "DELETE FROM chat_log WHERE conversation_id = $1 AND message_id = $2";
const PRUNE_LOG: &str = "DELETE FROM chat_log WHERE id IN (SELECT id FROM chat_log WHERE at_ms < $1 LIMIT CAST($2 AS BIGINT))";
const PRUNE_SENT: &str = "DELETE FROM sent_messages WHERE message_id IN (SELECT message_id FROM sent_messages WHERE sent_at < $1 LIMIT CAST($2 AS BIGINT))";

row! {
    /// A row of [`HISTORY_AND_MEMORIES`]: a logged message (`kind` 0) or a memory (`kind` 1).
    struct TurnRow {
        kind: i64,
        id: i64,
        speaker: Option<String>,
        user_id: Option<String>,
        from_bot: bool,
        text: String,
        at_ms: i64,
        tainted: bool,
    }
}

impl MemoryStore<'_> {
    /// What a turn reads before it asks the model, in one statement: the history
    /// [`crate::store::ChatLogStore::history`] reads and the memories
    /// [`crate::store::MemoryStore::memories`] reads, of one conversation.
    pub async fn history_and_memories(
        self,
        conversation_id: &str,
        before_id: i64,
        limit: usize,
        max_chars: usize,
    ) -> Result<(Vec<LoggedMessage>, Vec<Memory>), StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows: Vec<TurnRow> = db!(self.store, db => sqlx::query_as(HISTORY_AND_MEMORIES)
            .bind(conversation_id)
            .bind(before_id)
            .bind(limit)
            .fetch_all(db)
            .await)?;
        let (history, memories): (Vec<TurnRow>, Vec<TurnRow>) =
            rows.into_iter().partition(|r| r.kind == 0);
        let history = history.into_iter().map(|r| LoggedMessage {
            speaker: r.speaker,
            from_bot: r.from_bot,
            text: r.text,
            at_ms: r.at_ms,
            tainted: r.tainted,
        });
        let memories = memories
            .into_iter()
            .map(|r| Memory {
                id: r.id,
                text: r.text,
                user_id: r.user_id,
                speaker: r.speaker,
                created_at: r.at_ms,
            })
            .collect();
        Ok((super::chat_log::oldest_first_within(history, max_chars), memories))
    }

    /// Stores a memory; returns its id. [`StoreError::Full`] when the conversation already has
    /// [`super::MAX_MEMORIES`] (checked atomically in the insert itself).
    pub async fn add(self, m: &NewMemory<'_>) -> Result<i64, StoreError> {
        let id: Option<(i64,)> = db!(self.store, db => {
            transaction!(db, tx);
            if let Some(lock) = self.store.conversation_lock() {
                sqlx::query(lock).bind(m.conversation_id).execute(&mut *tx).await?;
            }
            let id = sqlx::query_as(ADD_MEMORY)
                .bind(m.conversation_id)
                .bind(m.text)
                .bind(m.user_id)
                .bind(m.speaker)
                .bind(m.at_ms)
                .bind(super::capped::cap(super::MAX_MEMORIES))
                .fetch_optional(&mut *tx)
                .await?;
            tx.commit().await?;
            id
        });
        id.map(|(id,)| id).ok_or(StoreError::Full { what: "memories", cap: super::MAX_MEMORIES })
    }

    /// Every memory of the conversation, oldest first.
    pub async fn memories(self, conversation_id: &str) -> Result<Vec<Memory>, StoreError> {
        Ok(
            db!(self.store, db => sqlx::query_as(MEMORIES).bind(conversation_id).fetch_all(db).await)?,
        )
    }

    /// Deletes memory `id` of the conversation; returns it, or `None` if the conversation has no
    /// such memory (a memory of another conversation is never touched).
    pub async fn delete(
        self,
        conversation_id: &str,
        id: i64,
    ) -> Result<Option<Memory>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(DELETE_MEMORY)
            .bind(conversation_id)
            .bind(id)
            .fetch_optional(db)
            .await)?)
    }

    /// Deletes the conversation's memories with ids up to `max_id` (those that existed when the
    /// family was asked to confirm); returns how many.
    pub async fn delete_up_to(self, conversation_id: &str, max_id: i64) -> Result<u64, StoreError> {
        Ok(db!(self.store, db => sqlx::query(DELETE_MEMORIES_UP_TO)
            .bind(conversation_id)
            .bind(max_id)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?)
    }

    /// The family's messages (not hearth's) of the conversation said at or after `since_ms`,
    /// newest first, at most `limit`.
    pub async fn log_window(
        self,
        conversation_id: &str,
        since_ms: i64,
        limit: u32,
    ) -> Result<Vec<LoggedMessage>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(LOG_WINDOW)
            .bind(conversation_id)
            .bind(since_ms)
            .bind(i64::from(limit))
            .fetch_all(db)
            .await)?)
    }

    /// Removes an unsent message from the conversation's log; returns how many rows went.
    pub async fn unsend_message(
        self,
        conversation_id: &str,
        message_id: &str,
    ) -> Result<u64, StoreError> {
        Ok(db!(self.store, db => sqlx::query(UNSEND)
            .bind(conversation_id)
            .bind(message_id)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?)
    }

    /// Deletes the log of every conversation said before `before_ms`, the ids of hearth's
    /// messages sent before then and the changes recorded before then (the feed is kept as
    /// long as the log), in batches; returns how many log messages went.
    pub async fn prune_chat_log(self, before_ms: i64) -> Result<u64, StoreError> {
        let messages = self.store.delete_in_batches(PRUNE_LOG, before_ms).await?;
        self.store.delete_in_batches(PRUNE_SENT, before_ms).await?;
        self.store.delete_in_batches(super::changes::PRUNE, before_ms).await?;
        Ok(messages)
    }
}
