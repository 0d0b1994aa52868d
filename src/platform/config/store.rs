//! The database: where it is, how long what it keeps is kept, and its daily backups.

use clap::Args;

/// The database and what it keeps.
#[derive(Debug, Clone, Args)]
pub struct StoreSettings {
    /// Database: sqlite://path (created on first run) or postgres://user@host/db (several replicas).
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://hearth.db",
        hide_env_values = true,
        global = true
    )]
    pub database_url: String,
    /// Days the chat log (what recap and history read) is kept; older messages are deleted.
    #[arg(
        long,
        env = "HEARTH_LOG_RETENTION_DAYS",
        default_value_t = 14,
        value_parser = clap::value_parser!(u32).range(1..=3650),
        global = true
    )]
    pub log_retention_days: u32,
    /// Days a settled push is remembered (outbox items sent, held or given up, and the records
    /// of delivered reminder occurrences, alert fires and digests); older ones are deleted.
    #[arg(
        long,
        env = "HEARTH_DELIVERY_RETENTION_DAYS",
        default_value_t = 30,
        value_parser = clap::value_parser!(u32).range(1..=3650),
        global = true
    )]
    pub delivery_retention_days: u32,
    /// A folder for the daily backup of the SQLite database `serve` takes: one per calendar day
    /// in `HEARTH_TIMEZONE`, taken when today's is missing (none: no backups).
    #[arg(long, env = "HEARTH_BACKUP_DIR", global = true)]
    pub backup_dir: Option<std::path::PathBuf>,
    /// How many days' backups are kept in `HEARTH_BACKUP_DIR` (the newest days; only files hearth
    /// wrote are removed).
    #[arg(long, env = "HEARTH_BACKUP_KEEP", default_value_t = 7, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=366), global = true)]
    pub backup_keep: usize,
}
