//! Forgetting a conversation that removed hearth, checked from the database's own catalogue
//! (SQLite: `sqlite_master` and `pragma_table_info`; PostgreSQL: `information_schema` in the
//! current schema), so a table added later cannot be missed: every table with a
//! `conversation_id` column is filled for two chats, one is forgotten, and its rows are gone
//! everywhere while the other's are untouched. Runs on SQLite and, when `TEST_DATABASE_URL` is
//! set, on PostgreSQL.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::common::db::test_databases;
use hearth::store::{Removed, Store};
use sqlx::{PgPool, SqlitePool};

/// Tables without a `conversation_id` column, and why none of them holds a conversation's data.
const CHAT_FREE_TABLES: &[(&str, &str)] = &[
    ("_sqlx_migrations", "the migration record"),
    ("sqlite_sequence", "SQLite's autoincrement counters"),
    ("alert_symbols", "watched symbols, shared by every conversation"),
    ("inbox", "webhook events in hand, pruned once handled"),
    ("quota_readings", "LINE's monthly quota readings for the whole account, no chat's data"),
    ("public_alerts", "Taiwan's official alerts as published, the same for every chat"),
    ("public_alert_feed", "the official alerts feed's validators and lease"),
    ("tls_certificates", "the HTTPS certificate, its key and ACME account: the server's own"),
    ("tls_challenges", "the TLS-ALPN-01 certificate of an ACME check in progress"),
    (
        "care_menu_users",
        "which LINE users hearth linked the care menu to and when each last tapped 📞: a user id \
         and two values, no chat's data",
    ),
    (
        "person_menus",
        "the language LINE's profile gives a LINE user and the English menu linked to them: a \
         user id and three values, no chat's data",
    ),
    ("pairing_guesses", "how many pairing codes were tried each minute, by every chat together"),
    (
        "pairing_source_guesses",
        "pairing codes tried each minute per chat or person, keyed by a hash, kept two days",
    ),
    (
        "token_usage",
        "token counts per day and scope (a chat or the service), no content; kept so removing \
         and re-adding hearth does not reset a chat's daily budget; pruned after a week",
    ),
];

const GONE: &str = "Cgone";
const STAYS: &str = "Cstays";

static NEXT: AtomicU64 = AtomicU64::new(1);

/// A second, direct connection to the store's database, to read its catalogue.
enum Raw {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Runs `$body` with `$db` bound to the raw pool (the same code for both backends).
macro_rules! raw {
    ($raw:expr, $db:ident => $body:expr) => {
        match $raw {
            Raw::Sqlite($db) => $body,
            Raw::Postgres($db) => $body,
        }
    };
}

/// One column of a table, from the catalogue.
struct Column {
    name: String,
    kind: String,
    /// A default (or identity) fills it.
    defaulted: bool,
}

/// The store and a raw connection to the same database: SQLite in a file (an in-memory
/// database is private to its connection), PostgreSQL in a fresh schema.
async fn databases() -> Vec<(Store, Raw, Option<std::path::PathBuf>)> {
    let mut out = Vec::new();
    for url in test_databases().await {
        if url.starts_with("sqlite:") {
            let path = std::env::temp_dir().join(format!(
                "hearth-forget-{}-{}.db",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::SeqCst)
            ));
            let url = format!("sqlite://{}", path.display());
            let store = Store::connect(&url).await.expect("sqlite store");
            let raw = SqlitePool::connect(&url).await.expect("raw sqlite");
            out.push((store, Raw::Sqlite(raw), Some(path)));
        } else {
            let store = Store::connect(&url).await.expect("postgres store");
            let raw = PgPool::connect(&url).await.expect("raw postgres");
            out.push((store, Raw::Postgres(raw), None));
        }
    }
    out
}

fn remove_sqlite_files(path: Option<std::path::PathBuf>) {
    for suffix in ["", "-wal", "-shm"] {
        if let Some(path) = &path {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }
}

fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Every table of the database, by name.
async fn tables(raw: &Raw) -> Vec<String> {
    let rows: Vec<(String,)> = match raw {
        Raw::Sqlite(db) => sqlx::query_as(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
        )
        .fetch_all(db)
        .await
        .expect("sqlite tables"),
        Raw::Postgres(db) => sqlx::query_as(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1",
        )
        .fetch_all(db)
        .await
        .expect("postgres tables"),
    };
    rows.into_iter().map(|(name,)| name).collect()
}

/// The columns of `table`.
async fn columns(raw: &Raw, table: &str) -> Vec<Column> {
    let rows: Vec<(String, String, bool)> = match raw {
        Raw::Sqlite(db) => sqlx::query_as(
            "SELECT name, type, dflt_value IS NOT NULL FROM pragma_table_info($1) ORDER BY cid",
        )
        .bind(table)
        .fetch_all(db)
        .await
        .expect("sqlite columns"),
        Raw::Postgres(db) => sqlx::query_as(
            "SELECT column_name::text, data_type::text, column_default IS NOT NULL OR is_identity = 'YES' FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
        )
        .bind(table)
        .fetch_all(db)
        .await
        .expect("postgres columns"),
    };
    rows.into_iter().map(|(name, kind, defaulted)| Column { name, kind, defaulted }).collect()
}

/// Inserts a row for `chat` into `table`: every column without a default gets a value of its
/// type (unique numbers, so keys never collide).
async fn insert_row(raw: &Raw, table: &str, cols: &[Column], chat: &str) {
    let filled: Vec<&Column> = cols.iter().filter(|c| !c.defaulted).collect();
    let names: Vec<String> = filled.iter().map(|c| quoted(&c.name)).collect();
    let values: Vec<String> = filled
        .iter()
        .map(|c| match () {
            _ if c.name == "conversation_id" => format!("'{chat}'"),
            _ if c.kind.to_lowercase().contains("bool") => "'true'".to_string(),
            _ => format!("'{}'", NEXT.fetch_add(1, Ordering::SeqCst)),
        })
        .collect();
    let sql = format!(
        "INSERT INTO {} ({}) VALUES ({})",
        quoted(table),
        names.join(", "),
        values.join(", ")
    );
    raw!(raw, db => sqlx::query(sqlx::AssertSqlSafe(sql.clone())).execute(db).await.map(|_| ()))
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

async fn rows_of(raw: &Raw, table: &str, chat: &str) -> i64 {
    let sql = format!("SELECT COUNT(*) FROM {} WHERE conversation_id = $1", quoted(table));
    let (n,): (i64,) = raw!(raw, db => sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(chat)
        .fetch_one(db)
        .await)
    .expect("count");
    n
}

/// The tables with a `conversation_id` column, with their columns.
async fn chat_tables(raw: &Raw) -> Vec<(String, Vec<Column>)> {
    let mut out = Vec::new();
    for table in tables(raw).await {
        let cols = columns(raw, &table).await;
        if cols.iter().any(|c| c.name == "conversation_id") {
            out.push((table, cols));
        }
    }
    out
}

#[tokio::test]
async fn forgetting_a_chat_empties_every_table_with_a_conversation_id_and_keeps_other_chats() {
    for (store, raw, file) in databases().await {
        let chat_tables = chat_tables(&raw).await;
        let names: Vec<&str> = chat_tables.iter().map(|(t, _)| t.as_str()).collect();
        for expected in ["chat_log", "memories", "reminders", "price_alerts", "held_calls"] {
            assert!(names.contains(&expected), "{expected} found in the catalogue: {names:?}");
        }
        for (table, cols) in &chat_tables {
            for chat in [GONE, STAYS] {
                insert_row(&raw, table, cols, chat).await;
            }
            assert_eq!(rows_of(&raw, table, GONE).await, 1, "{table} filled");
        }

        let removed = store.forget_conversation(GONE).await.expect("forget");
        assert_eq!(removed, Removed { messages: 1, memories: 1, reminders: 1, alerts: 1 });

        for (table, _) in &chat_tables {
            assert_eq!(rows_of(&raw, table, GONE).await, 0, "{table} still holds the chat");
            assert_eq!(rows_of(&raw, table, STAYS).await, 1, "{table} lost another chat's row");
        }
        remove_sqlite_files(file);
    }
}

#[tokio::test]
async fn every_table_without_a_conversation_id_holds_no_one_chats_data() {
    for (_store, raw, file) in databases().await {
        for table in tables(&raw).await {
            let cols = columns(&raw, &table).await;
            if cols.iter().any(|c| c.name == "conversation_id") {
                continue;
            }
            assert!(
                CHAT_FREE_TABLES.iter().any(|(name, _)| *name == table),
                "table {table} has no conversation_id column: if it holds a conversation's \
                 data, give it one (forgetting a chat clears exactly those tables); if not, \
                 list it in CHAT_FREE_TABLES with the reason"
            );
        }
        remove_sqlite_files(file);
    }
}
