//! The machinery under every statement of the store: which database backs it ([`Backend`]),
//! how it is opened ([`open_sqlite`]), and the `db!` and `transaction!` macros that compile one
//! piece of SQL for both backends.
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
use sqlx::{PgPool, SqlitePool};

use super::{StoreError, redact_url};

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

/// Which database backs the store.
#[allow(clippy::large_enum_variant, reason = "one per process, behind the store's Arc")]
pub(super) enum Backend {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

impl Backend {
    /// Opens the database at `url` (`sqlite://path`, `sqlite::memory:` or `postgres://…`), with
    /// the pool an SQLite file's checkpoints run on ([`open_sqlite`]).
    pub(super) async fn open(url: &str) -> Result<(Self, Option<SqlitePool>), StoreError> {
        if url.starts_with("sqlite:") {
            let (pool, checkpoints) = open_sqlite(url).await?;
            Ok((Backend::Sqlite(pool), checkpoints))
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            let options = PgConnectOptions::from_str(url)?;
            let pool = PgPoolOptions::new()
                .max_connections(10)
                .acquire_timeout(Duration::from_secs(10))
                .connect_with(options)
                .await?;
            Ok((Backend::Postgres(pool), None))
        } else {
            Err(StoreError::UnsupportedUrl(redact_url(url)))
        }
    }
}

/// How long an SQLite statement waits for the write lock another process holds (a CLI command,
/// a backup). SQLite's wait is not first come, first served, so an unlucky writer can wait
/// seconds: it must not fail then (a failed finish means an event handled twice).
const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(20);

/// Opens SQLite with WAL, a busy timeout and a pool of one connection. One connection, so the
/// process's statements queue in sqlx's pool, in the order they came, rather than in SQLite's
/// busy handler, which sleeps 1, 2, 5, 10… ms between tries: with four connections a webhook's
/// insert that met a turn's transaction waited out those sleeps (acknowledgements' p99 at 500
/// DMs/s 4–7 ms, against 1 ms with one; BENCHMARKS.md). Statements take microseconds, and one
/// connection keeps one page cache and one set of prepared statements warm. `:memory:` lives
/// and dies with its connection, so it is never closed for being idle or old either.
///
/// A file also gets a second pool of one connection, opened at its first use, for checkpoints
/// (`store/checkpoint.rs`): the write-ahead log is copied back into the database and the file
/// synced there, so the store's connection never stops for it (at 500 DMs/s on a disk, the
/// acknowledgements' p99 went from 12 ms to 2 ms; BENCHMARKS.md).
async fn open_sqlite(url: &str) -> Result<(SqlitePool, Option<SqlitePool>), StoreError> {
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
        // A connection checkpoints by itself only past 16,000 WAL pages (64 MiB). A serving
        // process checkpoints four times a second on a connection of its own; this is the
        // backstop for a log that grows faster than that, and what a short-lived command (and
        // its close) relies on.
        .pragma("wal_autocheckpoint", "16000");
    let one = || {
        SqlitePoolOptions::new()
            .max_connections(1)
            // A connection to a local file needs no ping before each use.
            .test_before_acquire(false)
            .idle_timeout(None)
            .max_lifetime(None)
    };
    let checkpoints = (!in_memory).then(|| one().connect_lazy_with(options.clone()));
    Ok((one().connect_with(options).await?, checkpoints))
}

#[cfg(test)]
mod tests {
    use super::open_sqlite;

    #[tokio::test]
    async fn an_sqlite_file_is_one_connection_with_statement_journals_in_memory_and_rare_checkpoints()
     {
        let dir = std::env::temp_dir().join(format!("hearth-pragmas-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let url = format!("sqlite://{}", dir.join("hearth.db").display());
        let (pool, checkpoints) = open_sqlite(&url).await.expect("opened");
        let temp_store: i64 =
            sqlx::query_scalar("PRAGMA temp_store").fetch_one(&pool).await.expect("read");
        let checkpoint: i64 =
            sqlx::query_scalar("PRAGMA wal_autocheckpoint").fetch_one(&pool).await.expect("read");
        let journal: String =
            sqlx::query_scalar("PRAGMA journal_mode").fetch_one(&pool).await.expect("read");
        let connections = pool.options().get_max_connections();
        drop(pool);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(temp_store, 2, "MEMORY");
        assert_eq!(checkpoint, 16000, "the checkpoints' own connection keeps the log short");
        assert!(checkpoints.is_some(), "a file has a connection for its checkpoints");
        assert_eq!(journal, "wal");
        assert_eq!(connections, 1, "the process's writers queue in the pool, not in SQLite");
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
