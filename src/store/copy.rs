//! Everything of a SQLite database copied into an empty PostgreSQL one (`hearth copy-data`),
//! for a family outgrowing one machine: every table hearth keeps, row by row, in one
//! transaction, each table's row count checked before it commits, the identity counters moved
//! past the copied ids. A target that holds any row, or any table that is not hearth's, is
//! refused before anything is written, so nothing is ever merged and another application's
//! database is left as it was found.

use sqlx::postgres::PgArguments;
use sqlx::{Arguments, AssertSqlSafe, Row, TypeInfo, ValueRef};

use super::{Backend, Store, StoreError};

/// Why a copy was refused or failed (nothing is written then).
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// The source is not SQLite or the target not PostgreSQL.
    #[error(
        "copy-data copies a SQLite database (--from sqlite://…) into PostgreSQL (--to postgres://…)"
    )]
    Backends,
    /// The source lacks migrations this build has.
    #[error("the source is not migrated to this hearth: run `hearth migrate` on it first")]
    SourceBehind,
    /// The target holds a table that is not hearth's: another application's database.
    #[error(
        "the target is not empty: it holds {table}, which is not hearth's (nothing was written)"
    )]
    Foreign {
        /// The first such table or view.
        table: String,
    },
    /// The target holds rows.
    #[error("the target is not empty: table {table} holds {rows} rows (nothing was written)")]
    NotEmpty {
        /// The first table with rows.
        table: String,
        /// How many.
        rows: i64,
    },
    /// A table's copy does not hold as many rows as its source.
    #[error("table {table}: {copied} rows copied of {source_rows}; nothing was written")]
    Count {
        /// The table.
        table: String,
        /// Rows in the source.
        source_rows: i64,
        /// Rows in the copy.
        copied: i64,
    },
    /// A value the target's column cannot take.
    #[error("table {table}, column {column}: {problem}")]
    Value {
        /// The table.
        table: String,
        /// The column.
        column: String,
        /// What is wrong.
        problem: String,
    },
    /// The database said no.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sqlx::Error> for CopyError {
    fn from(e: sqlx::Error) -> Self {
        Self::Store(StoreError::Database(e))
    }
}

/// The tables of the target and their columns with their types, in order.
/// Every table and view in the target's schema, before anything is written.
const TARGET_RELATIONS: &str = "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name";
/// The source's tables: hearth's own, all migrations applied.
const SOURCE_TABLES: &str = "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_' ORDER BY name";
const TABLES: &str = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> '_sqlx_migrations' ORDER BY table_name";
const COLUMNS: &str = "SELECT column_name, data_type, is_identity FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position";

/// One column of the target.
struct Target {
    name: String,
    data_type: String,
    identity: bool,
}

/// Copies every row of `from` (SQLite, migrated to this build) into `to` (PostgreSQL, empty;
/// migrated here first), in one transaction; returns each table with its row count.
pub async fn copy_data(from: &Store, to: &Store) -> Result<Vec<(String, i64)>, CopyError> {
    let (Backend::Sqlite(source), Backend::Postgres(target)) = (&*from.backend, &*to.backend)
    else {
        return Err(CopyError::Backends);
    };
    let migrations = from.migrations().await?;
    if migrations.applied != migrations.known {
        return Err(CopyError::SourceBehind);
    }
    // Before anything is written: the target holds nothing but (empty) tables of hearth's.
    let ours: Vec<(String,)> = sqlx::query_as(SOURCE_TABLES).fetch_all(source).await?;
    let present: Vec<(String,)> = sqlx::query_as(TARGET_RELATIONS).fetch_all(target).await?;
    for (table,) in &present {
        if !ours.iter().any(|(t,)| t == table) {
            return Err(CopyError::Foreign { table: table.clone() });
        }
        let (rows,): (i64,) =
            sqlx::query_as(AssertSqlSafe(format!("SELECT COUNT(*) FROM \"{table}\"")))
                .fetch_one(target)
                .await?;
        if rows > 0 && table != "_sqlx_migrations" {
            return Err(CopyError::NotEmpty { table: table.clone(), rows });
        }
    }
    to.migrate().await?;
    let tables: Vec<(String,)> = sqlx::query_as(TABLES).fetch_all(target).await?;
    let mut tx = target.begin().await?;
    let mut counts = Vec::new();
    for (table,) in &tables {
        let (rows,): (i64,) =
            sqlx::query_as(AssertSqlSafe(format!("SELECT COUNT(*) FROM \"{table}\"")))
                .fetch_one(&mut *tx)
                .await?;
        if rows > 0 {
            return Err(CopyError::NotEmpty { table: table.clone(), rows });
        }
    }
    for (table,) in &tables {
        let columns: Vec<Target> = sqlx::query_as::<_, (String, String, String)>(COLUMNS)
            .bind(table)
            .fetch_all(&mut *tx)
            .await?
            .into_iter()
            .map(|(name, data_type, identity)| Target {
                name,
                data_type,
                identity: identity == "YES",
            })
            .collect();
        let names: Vec<String> = columns.iter().map(|c| format!("\"{}\"", c.name)).collect();
        let select = format!("SELECT {} FROM \"{table}\"", names.join(", "));
        let placeholders: Vec<String> = (1..=columns.len()).map(|i| format!("${i}")).collect();
        let overriding =
            if columns.iter().any(|c| c.identity) { " OVERRIDING SYSTEM VALUE" } else { "" };
        let insert = format!(
            "INSERT INTO \"{table}\" ({}){overriding} VALUES ({})",
            names.join(", "),
            placeholders.join(", ")
        );
        let rows = sqlx::query(AssertSqlSafe(select)).fetch_all(source).await?;
        for row in &rows {
            let mut args = PgArguments::default();
            for (i, column) in columns.iter().enumerate() {
                bind(&mut args, row, i, column).map_err(|problem| CopyError::Value {
                    table: table.clone(),
                    column: column.name.clone(),
                    problem,
                })?;
            }
            sqlx::query_with(AssertSqlSafe(insert.clone()), args).execute(&mut *tx).await?;
        }
        let source_rows = i64::try_from(rows.len()).unwrap_or(i64::MAX);
        let (copied,): (i64,) =
            sqlx::query_as(AssertSqlSafe(format!("SELECT COUNT(*) FROM \"{table}\"")))
                .fetch_one(&mut *tx)
                .await?;
        if copied != source_rows {
            return Err(CopyError::Count { table: table.clone(), source_rows, copied });
        }
        for column in columns.iter().filter(|c| c.identity) {
            // The next id given out follows the copied ones.
            let moved = format!(
                "SELECT setval(pg_get_serial_sequence('\"{table}\"', '{name}'), COALESCE((SELECT MAX(\"{name}\") FROM \"{table}\"), 0) + 1, false)",
                name = column.name
            );
            sqlx::query(AssertSqlSafe(moved)).execute(&mut *tx).await?;
        }
        counts.push((table.clone(), copied));
    }
    tx.commit().await?;
    Ok(counts)
}

/// Binds the value of column `i` of a SQLite `row` as the target `column` takes it (the types
/// hearth's tables use: integers, booleans, doubles, text and bytes).
fn bind(
    args: &mut PgArguments,
    row: &sqlx::sqlite::SqliteRow,
    i: usize,
    column: &Target,
) -> Result<(), String> {
    let raw = row.try_get_raw(i).map_err(|e| e.to_string())?;
    let stored = raw.type_info().name().to_string();
    let integer = || row.try_get::<Option<i64>, _>(i).map_err(|e| e.to_string());
    let added = match column.data_type.as_str() {
        "bigint" | "integer" | "smallint" => args.add(integer()?),
        "boolean" => args.add(integer()?.map(|v| v != 0)),
        // SQLite keeps a whole number written to a REAL column as an INTEGER.
        "double precision" | "real" if stored == "INTEGER" => {
            args.add(integer()?.map(|v| v as f64))
        }
        "double precision" | "real" => {
            args.add(row.try_get::<Option<f64>, _>(i).map_err(|e| e.to_string())?)
        }
        "text" | "character varying" => {
            args.add(row.try_get::<Option<String>, _>(i).map_err(|e| e.to_string())?)
        }
        "bytea" => args.add(row.try_get::<Option<Vec<u8>>, _>(i).map_err(|e| e.to_string())?),
        other => {
            return Err(format!("a {other} column (stored as {stored}) is not one hearth keeps"));
        }
    };
    added.map_err(|e| e.to_string())
}
