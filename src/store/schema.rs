//! Whether a copy's schema is the one this build's migrations make: its tables (with their
//! columns), indexes, triggers and views, as SQLite keeps them in `sqlite_master`. A restore
//! refuses any difference, named — a trigger added on `inbox`, a table dropped, `chat_access`
//! replaced by a view — since hearth's rules live in that schema and a copy could carry its own.
//! The comparison is a pure function ([`differences`]).

use sqlx::SqlitePool;
use sqlx::sqlite::SqlitePoolOptions;

/// One object of a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    /// `table`, `index`, `trigger` or `view`.
    pub kind: String,
    /// Its name.
    pub name: String,
    /// The table it belongs to.
    pub table: String,
    /// Its definition (none for an automatic index).
    pub sql: Option<String>,
}

/// Every object of the schema but SQLite's own — the tables it names `sqlite_…` (its sequence
/// and statistics) and its automatic indexes (`sqlite_autoindex_…`, without a definition) —
/// and sqlx's record of migrations. `sqlite_` is compared exactly (`LIKE` would take `_` for
/// any character and ignore case, so `sqlitex_open` or `SQLITE9x` could hide).
const OBJECTS: &str = "SELECT type AS kind, name, tbl_name AS \"table\", sql FROM sqlite_master WHERE NOT (substr(name, 1, 7) = 'sqlite_' AND (type = 'table' OR (type = 'index' AND sql IS NULL))) AND NOT (type = 'table' AND name = '_sqlx_migrations') ORDER BY type, name";

/// The schema of the database behind `pool`.
pub async fn of(pool: &SqlitePool) -> Result<Vec<Object>, sqlx::Error> {
    let rows: Vec<(String, String, String, Option<String>)> =
        sqlx::query_as(OBJECTS).fetch_all(pool).await?;
    Ok(rows.into_iter().map(|(kind, name, table, sql)| Object { kind, name, table, sql }).collect())
}

/// The schema this build's migrations up to `version` make (in a database of its own, in
/// memory).
pub async fn expected(version: Option<i64>) -> Result<Vec<Object>, sqlx::Error> {
    let pool = SqlitePoolOptions::new().max_connections(1).connect("sqlite::memory:").await?;
    for m in super::migrations::SQLITE_MIGRATIONS.iter() {
        if version.is_some_and(|v| m.version <= v) {
            sqlx::raw_sql(m.sql.clone()).execute(&pool).await?;
        }
    }
    let objects = of(&pool).await;
    pool.close().await;
    objects
}

/// A definition with its spacing made even, so a copy's text compares with this build's.
fn even(sql: &Option<String>) -> String {
    sql.as_deref().unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What differs between the schema hearth's migrations make (`expected`) and a copy's
/// (`found`), one sentence each; empty when they are the same.
pub fn differences(expected: &[Object], found: &[Object]) -> Vec<String> {
    let mut out = Vec::new();
    for f in found {
        match expected.iter().find(|e| e.name == f.name) {
            None => out.push(format!(
                "{} {} `{}` on `{}` that hearth does not make",
                if f.kind.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" },
                f.kind,
                f.name,
                f.table
            )),
            Some(e) if e.kind != f.kind => {
                out.push(format!("`{}` is a {}, not a {}", f.name, f.kind, e.kind))
            }
            Some(e) if even(&e.sql) != even(&f.sql) => {
                out.push(format!("the {} `{}` is not defined as hearth defines it", f.kind, f.name))
            }
            Some(_) => {}
        }
    }
    for e in expected {
        if !found.iter().any(|f| f.name == e.name) {
            out.push(format!("the {} `{}` is missing", e.kind, e.name));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(kind: &str, name: &str, table: &str, sql: &str) -> Object {
        Object { kind: kind.into(), name: name.into(), table: table.into(), sql: Some(sql.into()) }
    }

    #[test]
    fn the_same_schema_differs_in_nothing_even_spaced_otherwise() {
        let ours = [object("table", "inbox", "inbox", "CREATE TABLE inbox (id INTEGER)")];
        let copy = [object("table", "inbox", "inbox", "CREATE TABLE inbox  (id\n INTEGER)")];
        assert!(differences(&ours, &copy).is_empty());
    }

    #[test]
    fn an_added_trigger_a_dropped_table_a_view_in_a_table_s_place_and_a_changed_table_are_named() {
        let ours = [
            object("table", "inbox", "inbox", "CREATE TABLE inbox (id INTEGER)"),
            object("table", "chat_access", "chat_access", "CREATE TABLE chat_access (id TEXT)"),
            object("table", "reminders", "reminders", "CREATE TABLE reminders (id INTEGER)"),
        ];
        let copy = [
            object("table", "inbox", "inbox", "CREATE TABLE inbox (id INTEGER, x TEXT)"),
            object("view", "chat_access", "chat_access", "CREATE VIEW chat_access AS SELECT 1"),
            object("trigger", "approve", "inbox", "CREATE TRIGGER approve AFTER INSERT ON inbox"),
        ];
        assert_eq!(
            differences(&ours, &copy),
            [
                "the table `inbox` is not defined as hearth defines it",
                "`chat_access` is a view, not a table",
                "a trigger `approve` on `inbox` that hearth does not make",
                "the table `reminders` is missing",
            ]
        );
    }
}
