//! Databases for tests: SQLite always; PostgreSQL when `TEST_DATABASE_URL` is set (CI sets it
//! and starts the server). Each PostgreSQL store gets a schema of its own, so tests never see
//! each other's rows. A set but unreachable `TEST_DATABASE_URL` fails the test: a database test
//! must never pass by being skipped.

use std::sync::atomic::{AtomicU64, Ordering};

use sqlx::Connection;

/// Why a PostgreSQL-only test cannot run: it is `#[ignore]`d, and run with `--include-ignored`
/// where `TEST_DATABASE_URL` is set (CI).
pub const NEEDS_POSTGRES: &str = "this test needs PostgreSQL: set TEST_DATABASE_URL";

static NEXT_SCHEMA: AtomicU64 = AtomicU64::new(1);

/// The PostgreSQL server for tests, if configured.
pub fn postgres_url() -> Option<String> {
    std::env::var("TEST_DATABASE_URL").ok().filter(|u| !u.trim().is_empty())
}

/// A `DATABASE_URL` for a fresh, empty PostgreSQL schema.
pub async fn fresh_postgres() -> Option<String> {
    let base = postgres_url()?;
    let schema = format!(
        "t{}_{}_{}",
        std::process::id(),
        NEXT_SCHEMA.fetch_add(1, Ordering::SeqCst),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0)
    );
    let mut conn = sqlx::PgConnection::connect(&base)
        .await
        .unwrap_or_else(|e| panic!("TEST_DATABASE_URL is set but PostgreSQL is unreachable: {e}"));
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
        .execute(&mut conn)
        .await
        .expect("create a test schema");
    let sep = if base.contains('?') { '&' } else { '?' };
    Some(format!("{base}{sep}options=-c%20search_path%3D{schema}"))
}

/// The database URLs a store test runs against: SQLite in memory, and PostgreSQL when set.
pub async fn test_databases() -> Vec<String> {
    let mut urls = vec!["sqlite::memory:".to_string()];
    if let Some(pg) = fresh_postgres().await {
        urls.push(pg);
    }
    urls
}

/// The database the end-to-end harness uses: SQLite in memory, or PostgreSQL when
/// `HEARTH_TEST_BACKEND=postgres` (CI runs the end-to-end suites once more that way).
pub async fn harness_database() -> String {
    match std::env::var("HEARTH_TEST_BACKEND").as_deref() {
        Ok("postgres") => {
            fresh_postgres().await.expect("HEARTH_TEST_BACKEND=postgres needs TEST_DATABASE_URL")
        }
        _ => "sqlite::memory:".to_string(),
    }
}
