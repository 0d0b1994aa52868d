//! The store: everything hearth keeps, behind one [`Store`] whose callers never see the
//! database. Two backends: SQLite (the default: one file, WAL) and PostgreSQL (several replicas
//! on one database). The SQL is portable (`$n` placeholders, `ON CONFLICT`, `RETURNING`, integer
//! times in Unix milliseconds) and written once: the `db!` macro ([`sql`]) compiles each
//! statement for both backends. Each backend has its own embedded migrations.
//!
//! What is kept is reached by part: [`Store::reminders`], [`Store::inbox`], [`Store::care`]…
//! each hands out a repository (a `…Store` that borrows the store) whose methods are that
//! part's reads and writes, in the files named after it. The store itself keeps what concerns
//! the whole database: opening and migrating it, backups, the leases a stopping process gives
//! back, forgetting a chat.

use sql::Backend;

#[macro_use]
mod sql;
#[macro_use]
mod columns;
#[macro_use]
pub mod lease;

mod access;
mod backup;
mod batch;
#[macro_use]
mod calendar;
mod calendar_sync;
mod capped;
mod care;
mod care_doses;
mod care_menu;
mod certificates;
mod changes;
mod chat_log;
mod chat_row;
mod chat_settings;
mod checkpoint;
mod copy;
mod digests;
mod forget;
mod held_calls;
mod inbox;
mod lists;
mod media;
mod memory;
mod migrations;
mod official_alerts;
mod outbox;
mod pairing_guesses;
mod person_menus;
mod price_alert_deliveries;
mod price_alerts;
mod quiet;
mod quota;
mod quoted;
mod recurrence;
mod reminders;
mod retention;
mod schema;
mod spoken_audio;
mod usage;
mod values;
mod web_sessions;
mod welcomed;

pub use crate::platform::config::redact_url;
pub use access::{ChatAccess, HeldBack};
pub use backup::{BackupError, ServeLock, Snapshot};
pub use calendar::{EventRow, MAX_EVENTS, NewEvent};
pub use calendar_sync::SyncedObject;
pub use capped::{MAX_ALERTS, MAX_MEMORIES, MAX_REMINDERS};
pub use care::{CarePlanRow, MAX_CARE_PLANS, NewCarePlan, NewDose};
pub use care_doses::{DoseRow, NewReading, ReadingRow};
pub use certificates::CertificateRow;
pub use changes::{ChangeRow, NewChange};
pub use chat_log::{LoggedMessage, NewMessage};
pub use checkpoint::Checkpoint;
pub use copy::{CopyError, copy_data};
pub use digests::{DigestDay, DigestDelivery, DigestRow, DigestStatus, NewDigest};
pub use forget::Removed;
pub use held_calls::{HeldCall, NewHeldCall};
pub use inbox::{Claim, InboxEvent, Intake, LoggedEvent, MAX_UNFINISHED, PendingEvent, TurnWrites};
pub use lease::{HANDED_BACK, LEASED, Lease, Leased};
pub use lists::{Checked, ItemChange, ListEdit, ListItem, ListRow, ListState, ListSummary};
pub use media::{FileRef, PhotoRef, RecentMedia, SentMedia};
pub use memory::{Memory, NewMemory};
pub use migrations::{Migrations, sqlite_file};
use migrations::{POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};
pub use official_alerts::{FollowRow, NewOfficialAlert, OfficialAlertRow, ToldRow};
pub use outbox::{NewOutboxItem, OutboxItem};
pub use pairing_guesses::GuessesOver;
pub use price_alert_deliveries::AlertDelivery;
pub use price_alerts::{AlertFire, AlertRow, AlertUpdate, NewAlert, SymbolRow};
pub use quiet::QuietRow;
pub use quota::{ChatCost, HeldPush, QuotaReading};
pub use quoted::QuotedRow;
pub use recurrence::{LunarMonth, Recurrence};
pub use reminders::{DeliveryRow, Finish, MovedRule, NewDelivery, NewReminder, Next, ReminderRow};
pub use usage::{Charge, ChatUsage, SERVICE_SCOPE, TokenParts, TokensUsed};
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

/// The store. Cheap to clone.
#[derive(Clone)]
pub struct Store {
    backend: std::sync::Arc<Backend>,
    /// An SQLite file's second connection, where its write-ahead log is copied back into the
    /// database ([`Store::checkpoint`]); none in memory or on PostgreSQL.
    checkpoints: Option<sqlx::SqlitePool>,
}

/// Declares the store's repositories: for each, a type that borrows the store and the method of
/// [`Store`] that hands it out.
macro_rules! repositories {
    ($($(#[doc = $doc:literal])* $accessor:ident => $Repo:ident;)*) => {
        $(
            $(#[doc = $doc])*
            #[derive(Clone, Copy)]
            pub struct $Repo<'s> {
                store: &'s Store,
            }
        )*

        /// # Repositories
        impl Store {
            $(
                $(#[doc = $doc])*
                pub fn $accessor(&self) -> $Repo<'_> {
                    $Repo { store: self }
                }
            )*
        }
    };
}

repositories! {
    /// The conversation log, hearth's sent messages and the members' names.
    chat_log => ChatLogStore;
    /// What the family asked hearth to remember.
    memory => MemoryStore;
    /// Which chats may use hearth, who left them, and the pairing codes that let a chat in.
    access => AccessStore;
    /// The family page's one-time links and sessions.
    web_sessions => WebSessionStore;
    /// Reminders, their schedules and their deliveries.
    reminders => ReminderStore;
    /// Price alerts, the symbols they watch, and their deliveries.
    price_alerts => PriceAlertStore;
    /// Taiwan's official alerts: the feed, the alerts read from it, who follows them and who was
    /// told.
    official_alerts => OfficialAlertStore;
    /// Webhook events waiting to be handled, and the log of those that were.
    inbox => InboxStore;
    /// Pushes waiting in the per-chat outbox.
    outbox => OutboxStore;
    /// LINE's monthly message quota: readings, what each push cost, held pushes, friends.
    quota => QuotaStore;
    /// The model's tokens and what each chat's turns cost.
    usage => UsageStore;
    /// Tool calls held until the family confirms them.
    held_calls => HeldCallStore;
    /// Care plans, their doses and the readings kept.
    care => CareStore;
    /// Whose rich menu is which: the care menu's links and the languages people speak.
    menus => MenuStore;
    /// Daily digests and their deliveries.
    digests => DigestStore;
    /// The shared lists and their items.
    lists => ListStore;
    /// Photos and files sent into a chat, for a later question about them.
    media => MediaStore;
    /// A chat's own settings: quiet hours, its welcome, and the typed ones of
    /// `crate::features::settings` (spoken answers, its last place…).
    chats => ChatStore;
    /// The feed of changes members made, with who and from where.
    changes => ChangeStore;
    /// Spoken answers' audio, served by token for a day.
    spoken_audio => SpokenAudioStore;
    /// The family calendar's events and the members' feeds of them.
    calendar => CalendarStore;
    /// The HTTPS certificate obtained by ACME, and the challenges that prove the domain.
    certificates => CertificateStore;
}

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
        let (backend, checkpoints) = Backend::open(url).await?;
        Ok(Self { backend: std::sync::Arc::new(backend), checkpoints })
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
}

#[cfg(test)]
mod tests {
    use super::redact_url;

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
}
