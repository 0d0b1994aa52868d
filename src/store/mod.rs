//! The store: everything hearth keeps, behind one [`Store`] type whose callers never see the
//! database. Two backends: SQLite (the default: one file, WAL) and PostgreSQL (several replicas
//! on one database). The SQL is portable (`$n` placeholders, `ON CONFLICT`, `RETURNING`, integer
//! times in Unix milliseconds) and written once: the `db!` macro compiles each statement for
//! both backends. Each backend has its own embedded migrations.
//!
//! A row limit from a parameter is written `LIMIT CAST($n AS BIGINT)`, never `LIMIT $n`: SQLite
//! reads a bare parameter's value when it prepares such a statement, so the statement expires
//! whenever that parameter is bound again, and sqlx binds every parameter on every run. A cached
//! statement was prepared anew each time it ran (for the history a turn reads, a quarter of a
//! million instructions: BENCHMARKS.md, issue 17, sixth round).

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{FromRow, PgPool, SqlitePool};

/// Runs `$body` with `$db` bound to the pool of the store's backend. The body is compiled once
/// per backend, so one piece of SQL (and one set of binds) serves both; each arm must produce
/// the same type (map `execute`'s result to `rows_affected()`).
macro_rules! db {
    ($store:expr, $db:ident => $body:expr) => {
        match &*$store.backend {
            $crate::store::Backend::Sqlite($db) => $body,
            $crate::store::Backend::Postgres($db) => $body,
        }
    };
}

/// Opens the transaction `$tx` in a `db!` body, on a connection of the pool `$db` (optionally
/// with its own `BEGIN` statement, `$begin`). A transaction dropped without a commit is rolled
/// back by sqlx before its connection serves anyone else.
macro_rules! transaction {
    ($db:ident, $tx:ident) => {
        let mut $tx = $db.begin().await?;
    };
    ($db:ident, $tx:ident, $begin:expr) => {
        let mut $tx = $db.begin_with($begin).await?;
    };
}

#[macro_use]
mod columns;
#[macro_use]
pub mod lease;

mod access;
mod alert_deliveries;
mod alerts;
mod backup;
mod batch;
mod budget;
mod capped;
mod care;
mod care_doses;
mod care_menu;
mod chat_row;
mod copy;
mod digests;
mod forget;
mod held_calls;
mod inbox;
mod lists;
mod memory;
mod migrations;
mod outbox;
mod pairing_guesses;
mod person_menus;
mod photos;
mod places;
mod public_alerts;
mod quiet;
mod quota;
mod quoted;
mod recurrence;
mod reminders;
mod retention;
mod schema;
mod shared_files;
mod spoken;
mod values;
mod web_sessions;
mod welcomed;

pub use crate::platform::config::redact_url;
pub use access::{ChatAccess, HeldBack};
pub use alert_deliveries::AlertDelivery;
pub use alerts::{AlertFire, AlertRow, AlertUpdate, NewAlert, SymbolRow};
pub use backup::{BackupError, ServeLock, Snapshot};
pub use budget::{Charge, ChatUsage, SERVICE_SCOPE, TokenParts, TokensUsed};
pub use capped::{MAX_ALERTS, MAX_MEMORIES, MAX_REMINDERS};
pub use care::{CarePlanRow, MAX_CARE_PLANS, NewCarePlan, NewDose};
pub use care_doses::{DoseRow, NewReading, ReadingRow};
pub use copy::{CopyError, copy_data};
pub use digests::{DigestDay, DigestDelivery, DigestRow, DigestStatus, NewDigest};
pub use forget::Removed;
pub use held_calls::{HeldCall, NewHeldCall};
pub use inbox::{Claim, InboxEvent, Intake, LoggedEvent, MAX_UNFINISHED, PendingEvent, TurnWrites};
pub use lease::{HANDED_BACK, LEASED, Lease, Leased};
pub use lists::{Checked, ItemChange, ListEdit, ListItem, ListRow, ListState, ListSummary};
pub use memory::{Memory, NewMemory};
pub use migrations::{Migrations, sqlite_file};
use migrations::{POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};
pub use outbox::{NewOutboxItem, OutboxItem};
pub use pairing_guesses::GuessesOver;
pub use photos::PhotoRef;
pub use public_alerts::{FollowRow, NewPublicAlert, PublicAlertRow, ToldRow};
pub use quiet::QuietRow;
pub use quota::{ChatSpend, HeldPush, QuotaReading};
pub use quoted::QuotedRow;
pub use recurrence::{LunarMonth, Recurrence};
pub use reminders::{DeliveryRow, Finish, MovedRule, NewDelivery, NewReminder, Next, ReminderRow};
pub use shared_files::FileRef;
pub use values::{
    AlertStatus, CareStatus, DeliveryStatus, Direction, Freq, Frequency, ReminderStatus, Side,
};
pub use web_sessions::{LinkDoor, WebMember, WebSession};

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database URL names a backend this build does not have (shown with its password
    /// redacted, see [`redact_url`]).
    #[error("unsupported DATABASE_URL {0:?}: use sqlite://path/to/hearth.db or postgres://…")]
    UnsupportedUrl(String),
    /// The conversation already has as many of these as it may keep.
    #[error("the conversation already has {cap} {what}, the most it may keep")]
    Full {
        /// What is full (`reminders`, `price alerts`, `memories`).
        what: &'static str,
        /// The cap.
        cap: usize,
    },
    /// A database error; its cause is part of the message, for the log.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// A write shared with other callers was dropped unanswered (the process is stopping).
    #[error("the shared write was abandoned")]
    Abandoned,
    /// A migration failed.
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// Adds to `batch` the logging of `message` (see [`Store::log_message`]).
fn log_message_in<'a>(batch: &mut batch::Batch<'a>, message: &NewMessage<'a>) {
    batch
        .push(LOG_MESSAGE)
        .bind(message.conversation_id)
        .bind(message.message_id)
        .bind(message.user_id)
        .bind(message.speaker)
        .bind(message.from_bot)
        .bind(message.text)
        .bind(message.at_ms)
        .bind(message.tainted);
}

/// Adds to `batch` the record of an answer hearth sent (see [`Store::record_answer`]).
fn record_answer_in<'a>(
    batch: &mut batch::Batch<'a>,
    answer: &NewMessage<'a>,
    message_ids: &'a [String],
) {
    log_message_in(batch, answer);
    let Some((first, more)) = message_ids.split_first() else { return };
    // One statement for all of the answer's messages (a text and a card, say).
    batch.push(record_sent_sql(message_ids.len())).bind(first.as_str());
    batch.bind(answer.conversation_id).bind(answer.at_ms);
    for id in more {
        batch.bind(id.as_str());
    }
}

/// The INSERT of `ids` sent messages of one conversation at one time: `$1` is the first id,
/// `$2` the conversation, `$3` the time, `$4`… the other ids.
fn record_sent_sql(ids: usize) -> std::borrow::Cow<'static, str> {
    let Some(head) = RECORD_SENT.strip_suffix(RECORD_SENT_TAIL).filter(|_| ids > 1) else {
        return RECORD_SENT.into();
    };
    let mut sql = String::from(head);
    for n in 4..ids + 3 {
        sql.push_str(&format!(", (${n}, $2, $3)"));
    }
    sql.push_str(RECORD_SENT_TAIL);
    sql.into()
}

/// The newest of `newest_first` that fit in `max_chars` characters in all, oldest first.
fn oldest_first_within(
    newest_first: impl IntoIterator<Item = LoggedMessage>,
    max_chars: usize,
) -> Vec<LoggedMessage> {
    let mut kept = Vec::new();
    let mut used = 0;
    for row in newest_first {
        used += row.text.chars().count();
        if used > max_chars {
            break;
        }
        kept.push(row);
    }
    kept.reverse();
    kept
}

/// Which database backs the store.
#[allow(clippy::large_enum_variant, reason = "one per process, behind the store's Arc")]
enum Backend {
    Sqlite(SqlitePool),
    Postgres(PgPool),
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
    /// True for an answer written after untrusted web content entered its turn.
    pub tainted: bool,
}

/// A message from the log.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedMessage {
    /// The speaker's display name.
    pub speaker: Option<String>,
    /// True for hearth's own answers.
    pub from_bot: bool,
    /// The text.
    pub text: String,
    /// When it was said.
    pub at_ms: i64,
    /// True for an answer written after untrusted web content entered its turn (read by
    /// history only; other reads leave it false).
    pub tainted: bool,
}

impl<'r, R: sqlx::Row> FromRow<'r, R> for LoggedMessage
where
    &'r str: sqlx::ColumnIndex<R>,
    Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    bool: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        let tainted = match row.try_get("tainted") {
            Err(sqlx::Error::ColumnNotFound(_)) => false,
            read => read?,
        };
        Ok(Self {
            speaker: row.try_get("speaker")?,
            from_bot: row.try_get("from_bot")?,
            text: row.try_get("text")?,
            at_ms: row.try_get("at_ms")?,
            tainted,
        })
    }
}

const LOG_MESSAGE: &str = "INSERT INTO chat_log (conversation_id, message_id, user_id, speaker, from_bot, text, at_ms, tainted) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id";
const HISTORY: &str = "SELECT speaker, from_bot, text, at_ms, tainted FROM chat_log WHERE conversation_id = $1 AND id < $2 ORDER BY id DESC LIMIT CAST($3 AS BIGINT)";
const RECORD_SENT: &str = "INSERT INTO sent_messages (message_id, conversation_id, sent_at) VALUES ($1, $2, $3) ON CONFLICT (message_id) DO NOTHING";
/// The part of [`RECORD_SENT`] after its row of values.
const RECORD_SENT_TAIL: &str = " ON CONFLICT (message_id) DO NOTHING";
const IS_SENT: &str =
    "SELECT message_id FROM sent_messages WHERE message_id = $1 AND conversation_id = $2";
const MEMBER_NAME: &str =
    "SELECT display_name, updated_at FROM members WHERE conversation_id = $1 AND user_id = $2";
const SAVE_MEMBER: &str = "INSERT INTO members (conversation_id, user_id, display_name, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT (conversation_id, user_id) DO UPDATE SET display_name = excluded.display_name, updated_at = excluded.updated_at";

const LATEST_MIGRATION: &str = "SELECT MAX(version) FROM _sqlx_migrations WHERE success";
impl Store {
    /// Opens the database at `url` — `sqlite://path` (created if missing), `sqlite::memory:`, or
    /// `postgres://…` — and applies its migrations.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let store = Self::open(url).await?;
        store.migrate().await?;
        Ok(store)
    }

    /// Opens the database without migrating it.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite(open_sqlite(url).await?)
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            let options = PgConnectOptions::from_str(url)?;
            Backend::Postgres(
                PgPoolOptions::new()
                    .max_connections(10)
                    .acquire_timeout(Duration::from_secs(10))
                    .connect_with(options)
                    .await?,
            )
        } else {
            return Err(StoreError::UnsupportedUrl(redact_url(url)));
        };
        Ok(Self { backend: std::sync::Arc::new(backend) })
    }

    /// Applies the embedded migrations that are not applied yet.
    pub async fn migrate(&self) -> Result<(), StoreError> {
        match &*self.backend {
            Backend::Sqlite(pool) => SQLITE_MIGRATIONS.run(pool).await?,
            Backend::Postgres(pool) => POSTGRES_MIGRATIONS.run(pool).await?,
        }
        Ok(())
    }

    /// True when the database answers and every embedded migration is applied (`/readyz`).
    pub async fn ready(&self) -> Result<bool, StoreError> {
        let (migrator, applied): (&sqlx::migrate::Migrator, Option<i64>) = match &*self.backend {
            Backend::Sqlite(pool) => (
                &SQLITE_MIGRATIONS,
                sqlx::query_as::<_, (Option<i64>,)>(LATEST_MIGRATION).fetch_one(pool).await?.0,
            ),
            Backend::Postgres(pool) => (
                &POSTGRES_MIGRATIONS,
                sqlx::query_as::<_, (Option<i64>,)>(LATEST_MIGRATION).fetch_one(pool).await?.0,
            ),
        };
        let latest = migrator.iter().map(|m| m.version).max();
        Ok(applied == latest)
    }

    /// A fresh private in-memory store (tests, `hearth chat`).
    pub async fn in_memory() -> Result<Self, StoreError> {
        Self::connect("sqlite::memory:").await
    }

    /// The backend's name, for logs.
    pub fn backend_name(&self) -> &'static str {
        match &*self.backend {
            Backend::Sqlite(_) => "sqlite",
            Backend::Postgres(_) => "postgres",
        }
    }

    /// Adds a message to the conversation log; returns its row id.
    pub async fn log_message(&self, m: &NewMessage<'_>) -> Result<i64, StoreError> {
        let (id,): (i64,) = db!(self, db => sqlx::query_as(LOG_MESSAGE)
            .bind(m.conversation_id)
            .bind(m.message_id)
            .bind(m.user_id)
            .bind(m.speaker)
            .bind(m.from_bot)
            .bind(m.text)
            .bind(m.at_ms)
            .bind(m.tainted)
            .fetch_one(db)
            .await)?;
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
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows: Vec<LoggedMessage> = db!(self, db => sqlx::query_as(HISTORY)
            .bind(conversation_id)
            .bind(before_id)
            .bind(limit)
            .fetch_all(db)
            .await)?;
        Ok(oldest_first_within(rows, max_chars))
    }

    /// Records an answer hearth sent: its text in the conversation log and the ids LINE gave its
    /// messages (to recognise quotes of the bot), together.
    pub async fn record_answer(
        &self,
        answer: &NewMessage<'_>,
        message_ids: &[String],
    ) -> Result<(), StoreError> {
        let mut batch = batch::Batch::new();
        record_answer_in(&mut batch, answer, message_ids);
        self.run_batch(&batch).await?;
        Ok(())
    }

    /// True if `message_id` is a message hearth sent into this conversation.
    pub async fn is_bot_message(
        &self,
        conversation_id: &str,
        message_id: &str,
    ) -> Result<bool, StoreError> {
        let row: Option<(String,)> = db!(self, db => sqlx::query_as(IS_SENT)
            .bind(message_id)
            .bind(conversation_id)
            .fetch_optional(db)
            .await)?;
        Ok(row.is_some())
    }

    /// The cached display name of a member, with when it was learned.
    pub async fn member_name(
        &self,
        conversation_id: &str,
        user_id: &str,
    ) -> Result<Option<(String, i64)>, StoreError> {
        Ok(db!(self, db => sqlx::query_as(MEMBER_NAME)
            .bind(conversation_id)
            .bind(user_id)
            .fetch_optional(db)
            .await)?)
    }

    /// Saves a member's display name.
    pub async fn save_member(
        &self,
        conversation_id: &str,
        user_id: &str,
        display_name: &str,
        at_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self, db => sqlx::query(SAVE_MEMBER)
            .bind(conversation_id)
            .bind(user_id)
            .bind(display_name)
            .bind(at_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }
}

/// How long an SQLite statement waits for the write lock. SQLite's wait is not first come, first
/// served, so under a flood of writes an unlucky writer can wait seconds: it must not fail then
/// (a failed finish means an event handled twice).
const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(20);

/// Opens SQLite with WAL, a busy timeout and a small pool (one connection for `:memory:`, which
/// lives and dies with its connection, so it is never closed for being idle or old).
async fn open_sqlite(url: &str) -> Result<SqlitePool, StoreError> {
    let in_memory = url.contains(":memory:") || url.contains("mode=memory");
    let options = SqliteConnectOptions::from_str(url)?
        .create_if_missing(true)
        .journal_mode(if in_memory { SqliteJournalMode::Memory } else { SqliteJournalMode::Wal })
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(SQLITE_BUSY_TIMEOUT)
        .foreign_keys(true)
        // Statement journals (a multi-row insert inside a transaction keeps one, to undo just
        // that statement) and temporary indexes stay in memory instead of temporary files.
        .pragma("temp_store", "memory")
        // Checkpoints every 4,000 WAL pages (16 MiB) rather than every 1,000: the same pages
        // written again and again (the inbox, the chat log's newest) are copied back to the
        // database once per checkpoint, and each checkpoint syncs the file.
        .pragma("wal_autocheckpoint", "4000");
    let connections = if in_memory { 1 } else { 4 };
    Ok(SqlitePoolOptions::new()
        .max_connections(connections)
        // A connection to a local file needs no ping before each use.
        .test_before_acquire(false)
        .idle_timeout(None)
        .max_lifetime(None)
        .connect_with(options)
        .await?)
}

#[cfg(test)]
mod tests {
    use super::{open_sqlite, redact_url};

    #[tokio::test]
    async fn an_sqlite_file_keeps_statement_journals_in_memory_and_checkpoints_rarely() {
        let dir = std::env::temp_dir().join(format!("hearth-pragmas-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let url = format!("sqlite://{}", dir.join("hearth.db").display());
        let pool = open_sqlite(&url).await.expect("opened");
        let temp_store: i64 =
            sqlx::query_scalar("PRAGMA temp_store").fetch_one(&pool).await.expect("read");
        let checkpoint: i64 =
            sqlx::query_scalar("PRAGMA wal_autocheckpoint").fetch_one(&pool).await.expect("read");
        let journal: String =
            sqlx::query_scalar("PRAGMA journal_mode").fetch_one(&pool).await.expect("read");
        drop(pool);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(temp_store, 2, "MEMORY");
        assert_eq!(checkpoint, 4000);
        assert_eq!(journal, "wal");
    }

    #[test]
    fn a_password_in_a_database_url_is_redacted() {
        assert_eq!(
            redact_url("mysql://hearth:hunter2@db.example:3306/hearth"),
            "mysql://***@db.example:3306/hearth"
        );
        assert_eq!(redact_url("postgres://u:p%40ss@h/db?x=@"), "postgres://***@h/db?x=@");
        assert_eq!(redact_url("postgres://:secret@h/db"), "postgres://***@h/db");
        assert_eq!(redact_url("postgres://hearth@h/db"), "postgres://***@h/db", "a user alone");
    }

    #[test]
    fn urls_without_credentials_are_unchanged() {
        for url in ["sqlite://hearth.db", "postgres://h/db?user=a@b", "sqlite::memory:"] {
            assert_eq!(redact_url(url), url);
        }
    }

    #[test]
    fn no_statement_limits_its_rows_by_a_bare_parameter() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/store");
        let mut bare = Vec::new();
        for entry in std::fs::read_dir(dir).expect("the store's sources") {
            let path = entry.expect("entry").path();
            let source = std::fs::read_to_string(&path).expect("source");
            for (n, line) in source.lines().enumerate() {
                let parameter = line.split("LIMIT $").skip(1);
                if parameter
                    .into_iter()
                    .any(|after| after.starts_with(|c: char| c.is_ascii_digit()))
                {
                    bare.push(format!(
                        "{}:{}",
                        path.file_name().unwrap_or_default().display(),
                        n + 1
                    ));
                }
            }
        }
        assert!(bare.is_empty(), "LIMIT $n (SQLite prepares it anew on every run): {bare:?}");
    }
}
