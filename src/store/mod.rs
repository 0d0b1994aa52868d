//! The store: everything hearth keeps, behind one [`Store`] type whose callers never see the
//! database. SQLite (the default, one file) is the backend today; the SQL is written with `$n`
//! placeholders so that a PostgreSQL backend can be added as a second variant of [`Backend`]
//! without touching callers. Times are Unix milliseconds.

use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{FromRow, SqlitePool};

mod alert_deliveries;
mod alerts;
mod memory;
mod reminders;

pub use alert_deliveries::AlertDelivery;
pub use alerts::{AlertFire, AlertRow, AlertUpdate, NewAlert, SymbolRow};
pub use memory::{Memory, NewMemory, Removed};
pub use reminders::{DeliveryRow, Finish, NewDelivery, NewReminder, Next, ReminderRow};

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database URL names a backend this build does not have.
    #[error("unsupported DATABASE_URL {0:?}: use sqlite://path/to/hearth.db")]
    UnsupportedUrl(String),
    /// A database error.
    #[error("database error")]
    Database(#[from] sqlx::Error),
    /// A migration failed.
    #[error("database migration failed")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

enum Backend {
    Sqlite(SqlitePool),
}

/// The store. Cheap to clone.
#[derive(Clone)]
pub struct Store {
    backend: std::sync::Arc<Backend>,
}

/// A message to add to the conversation log.
#[derive(Debug, Clone)]
pub struct NewMessage<'a> {
    /// The conversation (`U…`, `C…`, `R…`).
    pub conversation_id: &'a str,
    /// LINE's message id, when known.
    pub message_id: Option<&'a str>,
    /// The speaker's user id.
    pub user_id: Option<&'a str>,
    /// The speaker's display name.
    pub speaker: Option<&'a str>,
    /// True for hearth's own answers.
    pub from_bot: bool,
    /// The text.
    pub text: &'a str,
    /// When it was said.
    pub at_ms: i64,
}

/// A message from the log.
#[derive(Debug, Clone, PartialEq, FromRow)]
pub struct LoggedMessage {
    /// The speaker's display name.
    pub speaker: Option<String>,
    /// True for hearth's own answers.
    pub from_bot: bool,
    /// The text.
    pub text: String,
    /// When it was said.
    pub at_ms: i64,
}

const RECORD_EVENT: &str = "INSERT INTO webhook_events (event_id, event_type, received_at) VALUES ($1, $2, $3) ON CONFLICT (event_id) DO NOTHING";
const PRUNE_EVENTS: &str = "DELETE FROM webhook_events WHERE received_at < $1";
const LOG_MESSAGE: &str = "INSERT INTO chat_log (conversation_id, message_id, user_id, speaker, from_bot, text, at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id";
const HISTORY: &str = "SELECT speaker, from_bot, text, at_ms FROM chat_log WHERE conversation_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3";
const RECORD_SENT: &str = "INSERT INTO sent_messages (message_id, conversation_id, sent_at) VALUES ($1, $2, $3) ON CONFLICT (message_id) DO NOTHING";
const IS_SENT: &str = "SELECT 1 FROM sent_messages WHERE message_id = $1 AND conversation_id = $2";
const MEMBER_NAME: &str =
    "SELECT display_name, updated_at FROM members WHERE conversation_id = $1 AND user_id = $2";
const SAVE_MEMBER: &str = "INSERT INTO members (conversation_id, user_id, display_name, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT (conversation_id, user_id) DO UPDATE SET display_name = excluded.display_name, updated_at = excluded.updated_at";

impl Store {
    /// Opens (creating if needed) the database at `url` and applies the migrations.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        if !url.starts_with("sqlite:") {
            return Err(StoreError::UnsupportedUrl(url.to_string()));
        }
        let in_memory = url.contains(":memory:") || url.contains("mode=memory");
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(if in_memory {
                SqliteJournalMode::Memory
            } else {
                SqliteJournalMode::Wal
            })
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true);
        // An in-memory database lives and dies with its one connection.
        let pool = if in_memory {
            SqlitePoolOptions::new()
                .max_connections(1)
                .idle_timeout(None)
                .max_lifetime(None)
                .connect_with(options)
                .await?
        } else {
            SqlitePoolOptions::new().max_connections(4).connect_with(options).await?
        };
        sqlx::migrate!("migrations/sqlite").run(&pool).await?;
        Ok(Self { backend: std::sync::Arc::new(Backend::Sqlite(pool)) })
    }

    /// A fresh private in-memory store (tests, `hearth chat`).
    pub async fn in_memory() -> Result<Self, StoreError> {
        Self::connect("sqlite::memory:").await
    }

    fn pool(&self) -> &SqlitePool {
        match &*self.backend {
            Backend::Sqlite(pool) => pool,
        }
    }

    /// Records a webhook event id; true if it is new (act on it), false if already seen.
    pub async fn record_event(
        &self,
        event_id: &str,
        event_type: &str,
        received_at_ms: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(RECORD_EVENT)
            .bind(event_id)
            .bind(event_type)
            .bind(received_at_ms)
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Forgets event ids received before `before_ms`; returns how many.
    pub async fn prune_events(&self, before_ms: i64) -> Result<u64, StoreError> {
        Ok(sqlx::query(PRUNE_EVENTS).bind(before_ms).execute(self.pool()).await?.rows_affected())
    }

    /// Adds a message to the conversation log; returns its row id.
    pub async fn log_message(&self, m: &NewMessage<'_>) -> Result<i64, StoreError> {
        let (id,): (i64,) = sqlx::query_as(LOG_MESSAGE)
            .bind(m.conversation_id)
            .bind(m.message_id)
            .bind(m.user_id)
            .bind(m.speaker)
            .bind(m.from_bot)
            .bind(m.text)
            .bind(m.at_ms)
            .fetch_one(self.pool())
            .await?;
        Ok(id)
    }

    /// Up to `limit` messages of the conversation logged before row `before_id`, oldest first,
    /// trimmed from the oldest end to at most `max_chars` characters in all.
    pub async fn history(
        &self,
        conversation_id: &str,
        before_id: i64,
        limit: usize,
        max_chars: usize,
    ) -> Result<Vec<LoggedMessage>, StoreError> {
        let rows: Vec<LoggedMessage> = sqlx::query_as(HISTORY)
            .bind(conversation_id)
            .bind(before_id)
            .bind(i64::try_from(limit).unwrap_or(i64::MAX))
            .fetch_all(self.pool())
            .await?;
        let mut kept = Vec::new();
        let mut used = 0;
        for row in rows {
            used += row.text.chars().count();
            if used > max_chars {
                break;
            }
            kept.push(row);
        }
        kept.reverse();
        Ok(kept)
    }

    /// Records an answer hearth sent: its text in the conversation log and the ids LINE gave its
    /// messages (to recognise quotes of the bot), in one transaction.
    pub async fn record_answer(
        &self,
        answer: &NewMessage<'_>,
        message_ids: &[String],
    ) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await?;
        sqlx::query(LOG_MESSAGE)
            .bind(answer.conversation_id)
            .bind(answer.message_id)
            .bind(answer.user_id)
            .bind(answer.speaker)
            .bind(answer.from_bot)
            .bind(answer.text)
            .bind(answer.at_ms)
            .fetch_one(&mut *tx)
            .await?;
        for id in message_ids {
            sqlx::query(RECORD_SENT)
                .bind(id)
                .bind(answer.conversation_id)
                .bind(answer.at_ms)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// True if `message_id` is a message hearth sent into this conversation.
    pub async fn is_bot_message(
        &self,
        conversation_id: &str,
        message_id: &str,
    ) -> Result<bool, StoreError> {
        let row: Option<(i64,)> = sqlx::query_as(IS_SENT)
            .bind(message_id)
            .bind(conversation_id)
            .fetch_optional(self.pool())
            .await?;
        Ok(row.is_some())
    }

    /// The cached display name of a member, with when it was learned.
    pub async fn member_name(
        &self,
        conversation_id: &str,
        user_id: &str,
    ) -> Result<Option<(String, i64)>, StoreError> {
        Ok(sqlx::query_as(MEMBER_NAME)
            .bind(conversation_id)
            .bind(user_id)
            .fetch_optional(self.pool())
            .await?)
    }

    /// Saves a member's display name.
    pub async fn save_member(
        &self,
        conversation_id: &str,
        user_id: &str,
        display_name: &str,
        at_ms: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(SAVE_MEMBER)
            .bind(conversation_id)
            .bind(user_id)
            .bind(display_name)
            .bind(at_ms)
            .execute(self.pool())
            .await?;
        Ok(())
    }
}
