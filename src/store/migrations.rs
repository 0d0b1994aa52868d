//! The migrations this build embeds (the files of `migrations/sqlite` and `migrations/postgres`,
//! read as sqlx's `migrate!` would, so a database migrated by an earlier build checks out the
//! same), and which a database has: what `hearth doctor` reads to say "migrated" or "run
//! `hearth migrate`" without changing anything. Also where an SQLite
//! URL keeps its file, so the doctor can tell a database that was never created from one that
//! cannot be opened (opening would create it).

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::LazyLock;

use sqlx::SqlStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::sqlite::SqliteConnectOptions;

use super::{Backend, Store, StoreError};

/// Embeds the migration files named, the same names in both backends' folders.
macro_rules! embedded {
    ($($file:literal),* $(,)?) => {
        /// SQLite's migration files: name and SQL.
        const SQLITE_FILES: &[(&str, &str)] =
            &[$(($file, include_str!(concat!("../../migrations/sqlite/", $file)))),*];
        /// PostgreSQL's migration files: name and SQL.
        const POSTGRES_FILES: &[(&str, &str)] =
            &[$(($file, include_str!(concat!("../../migrations/postgres/", $file)))),*];
    };
}

// A new migration is a file in each folder and its name here (a test checks the folders).
embedded![
    "0001_core.sql",
    "0002_reminders.sql",
    "0003_memory.sql",
    "0004_alerts.sql",
    "0005_pending_calls.sql",
    "0006_inbox.sql",
    "0007_inbox_queue.sql",
    "0008_tainted_answers.sql",
    "0009_token_budget.sql",
    "0010_inbox_claim_order.sql",
    "0011_lunar_reminders.sql",
    "0012_lists.sql",
    "0013_push_quota.sql",
    "0014_digests.sql",
    "0015_quiet_hours.sql",
    "0016_recent_photos.sql",
    "0017_native.sql",
    "0018_chat_places.sql",
    "0019_outbox.sql",
    "0020_recent_files.sql",
    "0021_inbox_set_aside.sql",
    "0022_chat_access.sql",
    "0023_reminder_days_before.sql",
    "0024_public_alerts.sql",
    "0025_family_page.sql",
    "0026_care_plans.sql",
    "0027_member_departures.sql",
    "0028_liff_links.sql",
    "0029_pairing_guesses.sql",
    "0030_random_retry_keys.sql",
    "0031_token_usage_parts.sql",
    "0032_care_menu.sql",
    "0033_spoken_answers.sql",
    "0034_one_lease_vocabulary.sql",
    "0035_person_menus.sql",
    "0036_held_calls_and_lease_words.sql",
    "0037_recent_media.sql",
    "0038_changes.sql",
    "0039_pairing_sources.sql",
    "0040_chat_settings.sql",
    "0041_spoken_audio.sql",
    "0042_calendar.sql",
    "0043_caldav.sql",
    "0044_certificates.sql",
    "0045_skipped_days.sql",
];

/// SQLite's migrations.
pub(super) static SQLITE_MIGRATIONS: LazyLock<Migrator> = LazyLock::new(|| migrator(SQLITE_FILES));
/// PostgreSQL's migrations.
pub(super) static POSTGRES_MIGRATIONS: LazyLock<Migrator> =
    LazyLock::new(|| migrator(POSTGRES_FILES));

fn migrator(files: &[(&str, &'static str)]) -> Migrator {
    Migrator::with_migrations(files.iter().map(|&(name, sql)| migration(name, sql)).collect())
}

/// The file `name` (`<version>_<description>.sql`) with its `sql`, as `migrate!` reads it: the
/// checksum is the SQL's, the description the name's words.
fn migration(name: &str, sql: &'static str) -> Migration {
    let stem = name.trim_end_matches(".sql");
    let (version, description) = stem.split_once('_').unwrap_or((stem, ""));
    let version = version.parse().expect("migration files are named <version>_<description>.sql");
    let no_tx = sql.starts_with("-- no-transaction");
    let description = description.replace('_', " ").into();
    Migration::new(version, description, MigrationType::Simple, SqlStr::from_static(sql), no_tx)
}

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

/// For upgrade tests: an SQLite file in a fresh directory of the system's temporary one, migrated
/// by the files before `version` only (as a release before it left it), holding `rows` written
/// in that schema. Returns the file's URL and the directory, which the caller removes.
#[cfg(test)]
pub(super) async fn sqlite_before(version: &str, rows: &[&'static str]) -> (String, PathBuf) {
    use sqlx::Connection;
    let dir = std::env::temp_dir().join(format!("hearth-before-{version}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let old_set = dir.join("migrations");
    std::fs::create_dir_all(&old_set).expect("dir");
    let url = format!("sqlite://{}?mode=rwc", dir.join("hearth.db").display());
    let all = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/sqlite");
    for entry in std::fs::read_dir(all).expect("migrations").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.as_str() < version {
            std::fs::copy(entry.path(), old_set.join(&name)).expect("copy");
        }
    }
    let before = Migrator::new(old_set.as_path()).await.expect("old migrations");
    let mut old = sqlx::SqliteConnection::connect(&url).await.expect("old database");
    before.run(&mut old).await.expect("the schema before");
    for row in rows {
        sqlx::query(*row).execute(&mut old).await.expect("a row of before");
    }
    old.close().await.expect("close");
    (url, dir)
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

#[cfg(test)]
mod embedded_tests {
    use super::*;

    #[tokio::test]
    async fn every_migration_file_is_embedded_as_sqlx_reads_the_folder() {
        for (name, files, embedded) in [
            ("sqlite", SQLITE_FILES, &*SQLITE_MIGRATIONS),
            ("postgres", POSTGRES_FILES, &*POSTGRES_MIGRATIONS),
        ] {
            let dir =
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations").join(name);
            let from_folder = Migrator::new(dir).await.expect("the folder reads");
            assert_eq!(
                embedded.iter().count(),
                from_folder.iter().count(),
                "{name}: a file missing from the list"
            );
            assert_eq!(files.len(), from_folder.iter().count());
            for (ours, theirs) in embedded.iter().zip(from_folder.iter()) {
                let what = format!("{name} {}", theirs.version);
                assert_eq!(ours.version, theirs.version, "{what}");
                assert_eq!(ours.description, theirs.description, "{what}");
                assert_eq!(ours.migration_type, theirs.migration_type, "{what}");
                assert_eq!(
                    ours.checksum, theirs.checksum,
                    "{what}: a database migrated before checks out"
                );
                assert_eq!(ours.no_tx, theirs.no_tx, "{what}");
            }
        }
    }
}

#[cfg(test)]
mod data_tests {
    use super::*;

    /// What a database held before `0040_chat_settings`: spoken answers for a chat and for a
    /// member of a group, and a last place with a quote in it.
    const BEFORE: [&str; 2] = [
        "INSERT INTO spoken_answers (conversation_id, user_id, set_at) VALUES ('C1', '', 5), ('G1', 'U1', 6)",
        "INSERT INTO chat_places (conversation_id, place, updated_at) VALUES ('C1', '台南 \"南區\"', 7)",
    ];
    const AFTER: &str = "SELECT conversation_id, member_id, name, value, set_at FROM chat_settings ORDER BY 1, 2, 3";

    type Row = (String, String, String, String, i64);

    fn expected() -> Vec<Row> {
        let row =
            |c: &str, m: &str, n: &str, v: &str, at| (c.into(), m.into(), n.into(), v.into(), at);
        vec![
            row("C1", "", "last_place", r#""台南 \"南區\"""#, 7),
            row("C1", "", "spoken_answers", "true", 5),
            row("G1", "U1", "spoken_answers", "true", 6),
        ]
    }

    /// The migrations before `name`.
    fn until(files: &[(&str, &'static str)], name: &str) -> Migrator {
        let end = files.iter().position(|(file, _)| *file == name).expect("the migration");
        migrator(&files[..end])
    }

    #[tokio::test]
    async fn spoken_answers_and_last_places_move_into_the_chat_settings_on_sqlite() {
        let pool = sqlx::sqlite::SqlitePoolOptions::new()
            .max_connections(1)
            .connect("sqlite::memory:")
            .await
            .expect("open");
        until(SQLITE_FILES, "0040_chat_settings.sql").run(&pool).await.expect("up to 0039");
        for sql in BEFORE {
            sqlx::query(sql).execute(&pool).await.expect("the old rows");
        }
        SQLITE_MIGRATIONS.run(&pool).await.expect("0040");
        let rows: Vec<Row> = sqlx::query_as(AFTER).fetch_all(&pool).await.expect("read");
        assert_eq!(rows, expected());
    }

    #[tokio::test]
    #[ignore = "needs PostgreSQL: set TEST_DATABASE_URL and pass --include-ignored"]
    async fn spoken_answers_and_last_places_move_into_the_chat_settings_on_postgresql() {
        let base = std::env::var("TEST_DATABASE_URL").expect("TEST_DATABASE_URL");
        let schema =
            format!("m{}_{}", std::process::id(), jiff::Timestamp::now().subsec_nanosecond());
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(1)
            .after_connect({
                let schema = schema.clone();
                move |conn, _| {
                    let schema = schema.clone();
                    Box::pin(async move {
                        let create = format!(
                            "CREATE SCHEMA IF NOT EXISTS {schema}; SET search_path TO {schema}"
                        );
                        sqlx::raw_sql(sqlx::AssertSqlSafe(create)).execute(conn).await.map(|_| ())
                    })
                }
            })
            .connect(&base)
            .await
            .expect("PostgreSQL");
        until(POSTGRES_FILES, "0040_chat_settings.sql").run(&pool).await.expect("up to 0039");
        for sql in BEFORE {
            sqlx::query(sql).execute(&pool).await.expect("the old rows");
        }
        POSTGRES_MIGRATIONS.run(&pool).await.expect("0040");
        let rows: Vec<Row> = sqlx::query_as(AFTER).fetch_all(&pool).await.expect("read");
        assert_eq!(rows, expected());
    }
}
