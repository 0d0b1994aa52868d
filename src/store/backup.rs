//! A SQLite database copied while it is in use, and a copy checked before it is put back.
//!
//! [`Store::backup_into`] writes a consistent copy with SQLite's `VACUUM INTO` (one read
//! transaction on a connection of its own: the store's connection goes on serving, and its
//! writes go on in the WAL, while it runs) to a temporary name beside the target,
//! then renames it, so a copy that exists is whole. [`Snapshot::check`] opens a copy read-only and
//! says whether it can be put in place: `PRAGMA integrity_check` passes, every migration it
//! has is one this build knows (a copy from a newer hearth is refused, named), and its schema is
//! exactly what this build's migrations make ([`schema`]: a trigger, a view or a dropped table
//! is refused, named). [`ServeLock`] is
//! the lock a server holds on its SQLite file, so a restore (or a second server) cannot touch a
//! database in use. On PostgreSQL, `pg_dump` is the tool.

use super::schema;

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::{ConnectOptions, Connection};

use super::{Backend, Store, StoreError};

/// Why a backup, a check or a restore could not be done.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    /// The database is PostgreSQL.
    #[error("the database is PostgreSQL: back it up with pg_dump (and restore with pg_restore)")]
    Postgres,
    /// The target exists already.
    #[error("{0} exists already: name a new file")]
    Exists(PathBuf),
    /// A file could not be read, written or renamed.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The copy is damaged.
    #[error("{path} fails SQLite's integrity check: {problem}")]
    Damaged {
        /// The copy.
        path: PathBuf,
        /// The check's first complaint.
        problem: String,
    },
    /// The copy was made by a newer hearth.
    #[error(
        "{path} was made by a newer hearth (migration {version} is unknown to this one): upgrade first"
    )]
    Newer {
        /// The copy.
        path: PathBuf,
        /// The first unknown migration.
        version: i64,
    },
    /// The copy's schema is not what this build's migrations make.
    #[error("{path} is not a database hearth made: {differences}")]
    Schema {
        /// The copy.
        path: PathBuf,
        /// What differs, one sentence each.
        differences: String,
    },
    /// There is no database to copy.
    #[error("there is no database at {0}: check DATABASE_URL")]
    Missing(PathBuf),
    /// The copy to restore is not there.
    #[error("there is no copy at {0}: name a file `hearth backup` wrote")]
    NoCopy(PathBuf),
    /// The folder a copy would be written in is not there.
    #[error("the folder {0} does not exist: create it, or name a file in another folder")]
    NoFolder(PathBuf),
    /// A server is using the database.
    #[error("a hearth server is using {0}: stop it first")]
    InUse(PathBuf),
    /// The database said no.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sqlx::Error> for BackupError {
    fn from(e: sqlx::Error) -> Self {
        Self::Store(StoreError::Database(e))
    }
}

impl Store {
    /// Closes the database's connections (before its file is replaced, say).
    pub async fn close(&self) {
        match &*self.backend {
            Backend::Sqlite(pool) => pool.close().await,
            Backend::Postgres(pool) => pool.close().await,
        }
        if let Some(checkpoints) = &self.checkpoints {
            checkpoints.close().await;
        }
    }

    /// Writes a consistent copy of this SQLite database to `path` (which must not exist) while
    /// it stays in use; PostgreSQL is refused (use `pg_dump`).
    pub async fn backup_into(&self, path: &Path) -> Result<(), BackupError> {
        let Backend::Sqlite(pool) = &*self.backend else { return Err(BackupError::Postgres) };
        if path.exists() {
            return Err(BackupError::Exists(path.to_path_buf()));
        }
        let partial = partial_name(path);
        let _ = std::fs::remove_file(&partial);
        let text = partial.to_string_lossy().into_owned();
        // On a connection of its own, opened like the store's: the store's one connection goes
        // on serving webhooks and turns while a large database takes seconds to copy.
        let written = match pool.connect_options().connect().await {
            Ok(mut own) => {
                let written = sqlx::query("VACUUM INTO $1").bind(&text).execute(&mut own).await;
                let _ = own.close().await;
                written
            }
            Err(e) => Err(e),
        };
        if let Err(e) = written {
            let _ = std::fs::remove_file(&partial);
            return Err(e.into());
        }
        std::fs::rename(&partial, path)
            .map_err(|source| BackupError::File { path: path.to_path_buf(), source })
    }
}

/// A file that could not be read, written or renamed.
fn file_error(path: &Path, source: std::io::Error) -> BackupError {
    BackupError::File { path: path.to_path_buf(), source }
}

/// The temporary name a copy is written under before it is renamed.
fn partial_name(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// A copy of a SQLite database, checked ([`Snapshot::check`]) before it is put in place.
#[derive(Debug)]
pub struct Snapshot {
    /// Where it is.
    pub path: PathBuf,
    /// The newest migration it has.
    pub version: Option<i64>,
}

impl Snapshot {
    /// Opens `path` read-only and checks it: SQLite's integrity check passes, and every
    /// migration it has is one this build knows.
    pub async fn check(path: &Path) -> Result<Self, BackupError> {
        if !path.is_file() {
            let source = std::io::Error::from(std::io::ErrorKind::NotFound);
            return Err(BackupError::File { path: path.to_path_buf(), source });
        }
        let options = SqliteConnectOptions::from_str(&format!("sqlite://{}", path.display()))
            .map_err(BackupError::from)?
            .read_only(true);
        let pool = SqlitePoolOptions::new().max_connections(1).connect_with(options).await?;
        let damaged = |problem: String| BackupError::Damaged { path: path.to_path_buf(), problem };
        let integrity: Result<(String,), sqlx::Error> =
            sqlx::query_as("PRAGMA integrity_check").fetch_one(&pool).await;
        match integrity {
            Ok((verdict,)) if verdict == "ok" => {}
            Ok((verdict,)) => return Err(damaged(verdict)),
            Err(e) => return Err(damaged(e.to_string())),
        }
        let applied: Vec<(i64,)> =
            sqlx::query_as("SELECT version FROM _sqlx_migrations WHERE success ORDER BY version")
                .fetch_all(&pool)
                .await
                .map_err(|e| damaged(format!("no migrations table ({e})")))?;
        let found = schema::of(&pool).await;
        pool.close().await;
        let known: Vec<i64> =
            super::migrations::SQLITE_MIGRATIONS.iter().map(|m| m.version).collect();
        if let Some(&(version,)) = applied.iter().find(|(v,)| !known.contains(v)) {
            return Err(BackupError::Newer { path: path.to_path_buf(), version });
        }
        let version = applied.last().map(|(v,)| *v);
        let differences = schema::differences(&schema::expected(version).await?, &found?);
        if !differences.is_empty() {
            let differences = differences.join("; ");
            return Err(BackupError::Schema { path: path.to_path_buf(), differences });
        }
        Ok(Self { path: path.to_path_buf(), version })
    }

    /// Whether `path` is a database hearth wrote: an SQLite file whose first migration is this
    /// build's own (name and checksum). Anything else — another program's database, a file that
    /// is not SQLite — is not, and pruning leaves it alone.
    pub async fn is_hearths(path: &Path) -> bool {
        let Ok(mut head) = File::open(path) else { return false };
        let mut magic = [0u8; 16];
        if std::io::Read::read_exact(&mut head, &mut magic).is_err()
            || &magic != b"SQLite format 3\0"
        {
            return false;
        }
        let Ok(options) = SqliteConnectOptions::from_str(&format!("sqlite://{}", path.display()))
        else {
            return false;
        };
        let Ok(pool) =
            SqlitePoolOptions::new().max_connections(1).connect_with(options.read_only(true)).await
        else {
            return false;
        };
        let first: Result<Option<(i64, Vec<u8>)>, sqlx::Error> = sqlx::query_as(
            "SELECT version, checksum FROM _sqlx_migrations ORDER BY version LIMIT 1",
        )
        .fetch_optional(&pool)
        .await;
        pool.close().await;
        let Some(ours) = super::migrations::SQLITE_MIGRATIONS.iter().next() else { return false };
        matches!(first, Ok(Some((version, checksum)))
            if version == ours.version && checksum == ours.checksum.as_ref())
    }

    /// Puts this copy in place of the database at `database`: written beside it, then renamed
    /// over it, its WAL files removed. The caller holds the [`ServeLock`].
    pub fn put_in_place(&self, database: &Path, _lock: &ServeLock) -> Result<(), BackupError> {
        let partial = partial_name(database);
        std::fs::copy(&self.path, &partial).map_err(|e| file_error(&partial, e))?;
        for suffix in ["-wal", "-shm"] {
            let mut side = database.as_os_str().to_owned();
            side.push(suffix);
            let side = PathBuf::from(side);
            match std::fs::remove_file(&side) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(file_error(&side, e));
                }
                _ => {}
            }
        }
        std::fs::rename(&partial, database).map_err(|e| file_error(database, e))
    }
}

/// The lock a server holds on its SQLite database for as long as it runs (an advisory lock on
/// `<database>.lock`, released by the operating system when the process ends, even by a kill).
#[derive(Debug)]
pub struct ServeLock {
    _file: File,
}

impl ServeLock {
    /// Takes the lock of `database`, or says that a server holds it.
    pub fn take(database: &Path) -> Result<Self, BackupError> {
        let mut name = database.as_os_str().to_owned();
        name.push(".lock");
        let path = PathBuf::from(name);
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|source| BackupError::File { path: path.clone(), source })?;
        match file.try_lock() {
            Ok(()) => Ok(Self { _file: file }),
            Err(TryLockError::WouldBlock) => Err(BackupError::InUse(database.to_path_buf())),
            Err(TryLockError::Error(source)) => Err(BackupError::File { path, source }),
        }
    }
}
