//! Writes that take effect together: a [`Batch`] is statements run in order in one transaction
//! that takes SQLite's write lock at once (`BEGIN IMMEDIATE`; on PostgreSQL an ordinary `BEGIN`).
//! Callers build it from pieces (a chat-log line, an answer, a token charge, the done mark) and
//! the SQL of each piece is written once, for both backends. A batch that fails half-way, or is
//! abandoned half-way (its future dropped), is rolled back: its write lock is never kept.

use std::borrow::Cow;

use sqlx::AssertSqlSafe;

use super::{Store, StoreError};

/// A value bound to a statement of a [`Batch`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Value<'a> {
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// Text, or NULL.
    Text(Option<&'a str>),
}

impl From<i64> for Value<'_> {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}

impl From<bool> for Value<'_> {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

impl<'a> From<&'a str> for Value<'a> {
    fn from(v: &'a str) -> Self {
        Value::Text(Some(v))
    }
}

impl<'a> From<Option<&'a str>> for Value<'a> {
    fn from(v: Option<&'a str>) -> Self {
        Value::Text(v)
    }
}

/// One statement of a batch and the values of its `$1`, `$2`, ….
#[derive(Debug, Clone, PartialEq)]
struct Statement<'a> {
    sql: Cow<'static, str>,
    values: Vec<Value<'a>>,
}

/// Statements to run atomically, in order ([`Store::run_batch`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Batch<'a> {
    statements: Vec<Statement<'a>>,
}

impl<'a> Batch<'a> {
    /// An empty batch.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Adds a statement (one, not empty: SQLite answers nothing for an empty one, and the
    /// results would no longer line up); [`Batch::bind`] gives its `$1`, `$2`, … in order.
    pub(crate) fn push(&mut self, sql: impl Into<Cow<'static, str>>) -> &mut Self {
        let sql = sql.into();
        debug_assert!(!sql.trim().is_empty(), "an empty statement in a batch");
        self.statements.push(Statement { sql, values: Vec::new() });
        self
    }

    /// Binds the next parameter of the statement added last.
    pub(crate) fn bind(&mut self, value: impl Into<Value<'a>>) -> &mut Self {
        if let Some(last) = self.statements.last_mut() {
            last.values.push(value.into());
        }
        self
    }

    /// How many statements the batch holds.
    pub(crate) fn len(&self) -> usize {
        self.statements.len()
    }
}

/// Binds `values` to `query`, for either backend.
macro_rules! bind_values {
    ($query:expr, $values:expr) => {{
        let mut query = $query;
        for value in $values {
            query = match value {
                Value::Int(v) => query.bind(v),
                Value::Bool(v) => query.bind(v),
                Value::Text(v) => query.bind(v),
            };
        }
        query
    }};
}

impl Store {
    /// Runs `batch` atomically: all of its statements take effect, or none (the error says
    /// why). Returns how many rows each statement changed, in order.
    pub(crate) async fn run_batch(&self, batch: &Batch<'_>) -> Result<Vec<u64>, StoreError> {
        if batch.statements.is_empty() {
            return Ok(Vec::new());
        }
        let begin = self.lists().write_transaction();
        db!(self, db => {
            transaction!(db, tx, begin);
            let mut changed = Vec::with_capacity(batch.len());
            for statement in &batch.statements {
                let query = match &statement.sql {
                    Cow::Borrowed(sql) => sqlx::query(AssertSqlSafe(*sql)),
                    Cow::Owned(sql) => sqlx::query(AssertSqlSafe(sql.clone())),
                };
                let query = bind_values!(query, statement.values.iter().copied());
                changed.push(query.execute(&mut *tx).await?.rows_affected());
            }
            tx.commit().await?;
            Ok(changed)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Charge;

    /// A migrated SQLite store in a fresh file, and the file's directory.
    async fn sqlite_store(name: &str) -> (Store, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("hearth-batch-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let url = format!("sqlite://{}", dir.join("batch.db").display());
        (Store::connect(&url).await.expect("store"), dir)
    }

    async fn tokens(store: &Store, conversation: &str) -> u64 {
        store.usage().tokens_used("2026-12-02", conversation).await.expect("read").chat
    }

    /// `tokens` for `conversation` on the test day.
    fn charge(conversation: &str, tokens: u64) -> Charge {
        Charge {
            day: "2026-12-02".into(),
            conversation_id: conversation.into(),
            tokens,
            parts: Default::default(),
        }
    }

    #[tokio::test]
    async fn a_batch_answers_how_many_rows_each_statement_changed() {
        let (store, dir) = sqlite_store("changed").await;
        let (five, two) = (charge("Ua", 5), charge("Ua", 2));
        let mut batch = Batch::new();
        five.add_to(&mut batch);
        batch.push("DELETE FROM token_usage WHERE scope = $1").bind("Ub");
        two.add_to(&mut batch);
        assert_eq!(store.run_batch(&batch).await.expect("ran"), [2, 0, 2]);
        assert_eq!(tokens(&store, "Ua").await, 7);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_batch_that_fails_half_way_changes_nothing_and_leaves_the_database_writable() {
        let (store, dir) = sqlite_store("failed").await;
        let five = charge("Ua", 5);
        let mut batch = Batch::new();
        five.add_to(&mut batch);
        batch.push("INSERT INTO no_such_table VALUES ($1)").bind(1i64);
        assert!(store.run_batch(&batch).await.is_err());
        assert_eq!(tokens(&store, "Ua").await, 0, "the first statement was rolled back");
        // The write lock was let go: a write now does not wait out the busy timeout.
        let started = std::time::Instant::now();
        store.usage().add_tokens("2026-12-02", "Ua", 3).await.expect("written");
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        assert_eq!(tokens(&store, "Ua").await, 3);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_batch_abandoned_half_way_is_rolled_back_and_lets_go_of_the_write_lock() {
        let (store, dir) = sqlite_store("abandoned").await;
        let five = charge("Ua", 5);
        let mut batch = Batch::new();
        five.add_to(&mut batch);
        // Long enough (counting to a million) to be abandoned half-way, short enough to end well
        // within the busy timeout on a loaded machine.
        batch.push("WITH RECURSIVE n(i) AS (SELECT $1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000) SELECT COUNT(*) FROM n").bind(1i64);
        let cut =
            tokio::time::timeout(std::time::Duration::from_millis(5), store.run_batch(&batch))
                .await;
        assert!(cut.is_err(), "abandoned before it finished");
        let started = std::time::Instant::now();
        store.usage().add_tokens("2026-12-02", "Ub", 3).await.expect("written");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "the lock went with the closed connection, not after the busy timeout (20 s)"
        );
        assert_eq!(tokens(&store, "Ua").await, 0, "the abandoned batch took no effect");
        assert_eq!(tokens(&store, "Ub").await, 3);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
