//! Which migrations a database has, next to those this build embeds: what `hearth doctor` reads
//! to say "migrated" or "run `hearth migrate`" without changing anything. Also where an SQLite
//! URL keeps its file, so the doctor can tell a database that was never created from one that
//! cannot be opened (opening would create it).

use std::path::PathBuf;
use std::str::FromStr;

use sqlx::sqlite::SqliteConnectOptions;

use super::{Backend, POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS, Store, StoreError};

const SQLITE_HAS_TABLE: &str =
    "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'";
const POSTGRES_HAS_TABLE: &str = "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = '_sqlx_migrations'";
const APPLIED: &str = "SELECT version FROM _sqlx_migrations WHERE success ORDER BY version";

/// The migrations applied to the database and those this build knows, by version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migrations {
    /// Versions applied successfully, ascending.
    pub applied: Vec<i64>,
    /// Versions embedded in this build, ascending.
    pub known: Vec<i64>,
}

impl Store {
    /// The migrations applied and known; reads only (a database never migrated has none).
    pub async fn migrations(&self) -> Result<Migrations, StoreError> {
        let (known, applied) = match &*self.backend {
            Backend::Sqlite(pool) => {
                let (tables,): (i64,) = sqlx::query_as(SQLITE_HAS_TABLE).fetch_one(pool).await?;
                let applied: Vec<(i64,)> = if tables > 0 {
                    sqlx::query_as(APPLIED).fetch_all(pool).await?
                } else {
                    Vec::new()
                };
                (&SQLITE_MIGRATIONS, applied)
            }
            Backend::Postgres(pool) => {
                let (tables,): (i64,) = sqlx::query_as(POSTGRES_HAS_TABLE).fetch_one(pool).await?;
                let applied: Vec<(i64,)> = if tables > 0 {
                    sqlx::query_as(APPLIED).fetch_all(pool).await?
                } else {
                    Vec::new()
                };
                (&POSTGRES_MIGRATIONS, applied)
            }
        };
        let mut known: Vec<i64> = known.iter().map(|m| m.version).collect();
        known.sort_unstable();
        Ok(Migrations { applied: applied.into_iter().map(|(v,)| v).collect(), known })
    }
}

/// The file an `sqlite:` URL names; `None` for an in-memory database or another backend.
pub fn sqlite_file(url: &str) -> Option<PathBuf> {
    if !url.starts_with("sqlite:") || url.contains(":memory:") || url.contains("mode=memory") {
        return None;
    }
    let options = SqliteConnectOptions::from_str(url).ok()?;
    Some(options.get_filename().to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_sqlite_url_names_its_file_and_memory_or_postgres_none() {
        assert_eq!(sqlite_file("sqlite://hearth.db"), Some(PathBuf::from("hearth.db")));
        assert_eq!(sqlite_file("sqlite::memory:"), None);
        assert_eq!(sqlite_file("postgres://h/db"), None);
    }

    #[tokio::test]
    async fn a_migrated_store_has_every_known_migration_applied() {
        let store = Store::in_memory().await.expect("store");
        let m = store.migrations().await.expect("read");
        assert!(!m.known.is_empty());
        assert_eq!(m.applied, m.known);
        let fresh = Store::open("sqlite::memory:").await.expect("open");
        assert!(fresh.migrations().await.expect("read").applied.is_empty());
    }
}
