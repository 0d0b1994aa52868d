//! SQLite's connections, handed out without sqlx's pool. sqlx's pool checks every connection
//! that comes back (a ping: for SQLite, a round trip to the connection's worker thread and two
//! context switches) from a task spawned for it, and a turn checks out a connection for each of
//! its dozen statements: a dozen hand-offs and tasks that did nothing (BENCHMARKS.md, issue 17,
//! fourth round). Here a connection goes back to the idle list as its guard drops.
//!
//! Nothing needs checking on the way back. An SQLite connection is a file handle of this
//! process, which no server can drop; its statements run in order on its own worker thread, so a
//! statement cancelled half-way finishes there before the next user's; and a transaction dropped
//! without a commit queues its rollback on that same worker (sqlx does), ahead of anything the
//! next user sends. A connection whose worker died is closed instead of going back.
//!
//! Connections open when first needed, up to the maximum, and stay open; the most recently
//! returned one is handed out first, so an idle process keeps using the one or two it has.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::stream::{self, BoxStream, StreamExt, TryStreamExt};
use sqlx::sqlite::{SqliteConnectOptions, SqliteQueryResult, SqliteRow, SqliteStatement};
use sqlx::{ConnectOptions, Either, Error, Execute, Executor, Sqlite, SqliteConnection};
use tokio::sync::{Semaphore, SemaphorePermit};

/// How long a statement waits for a free connection before it fails (sqlx's pool default).
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(30);

/// Up to `max` connections to one SQLite database.
#[derive(Debug)]
pub(crate) struct SqlitePool {
    options: SqliteConnectOptions,
    idle: Mutex<Vec<SqliteConnection>>,
    free: Semaphore,
}

/// A connection checked out of an [`SqlitePool`]; it goes back when dropped.
pub(crate) struct PooledConnection<'p> {
    conn: Option<SqliteConnection>,
    pool: &'p SqlitePool,
    _slot: SemaphorePermit<'p>,
}

impl SqlitePool {
    /// A pool of at most `max` connections opened with `options`; opens one now, so a database
    /// that cannot be opened fails here.
    pub(crate) async fn open(options: SqliteConnectOptions, max: usize) -> Result<Self, Error> {
        let first = options.connect().await?;
        Ok(Self { options, idle: Mutex::new(vec![first]), free: Semaphore::new(max) })
    }

    /// How many connections are open and not in use.
    #[cfg(test)]
    fn idle_connections(&self) -> usize {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// A connection: the most recently returned idle one, or a new one when none is idle and
    /// fewer than the maximum are open. Waits (at most 30 s) while all are in use.
    pub(crate) async fn acquire(&self) -> Result<PooledConnection<'_>, Error> {
        let slot = tokio::time::timeout(ACQUIRE_TIMEOUT, self.free.acquire())
            .await
            .map_err(|_| Error::PoolTimedOut)?
            .map_err(|_| Error::PoolClosed)?;
        let idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let conn = match idle {
            Some(conn) => conn,
            None => self.options.connect().await?,
        };
        Ok(PooledConnection { conn: Some(conn), pool: self, _slot: slot })
    }
}

impl PooledConnection<'_> {
    /// Passes `result` through; a connection whose worker thread died is closed rather than
    /// returned.
    fn checked<T>(mut self, result: Result<T, Error>) -> Result<T, Error> {
        if matches!(result, Err(Error::WorkerCrashed)) {
            self.conn = None;
        }
        result
    }
}

impl std::ops::Deref for PooledConnection<'_> {
    type Target = SqliteConnection;

    fn deref(&self) -> &SqliteConnection {
        // Some until the guard drops.
        self.conn.as_ref().unwrap_or_else(|| unreachable!("a checked-out connection is present"))
    }
}

impl std::ops::DerefMut for PooledConnection<'_> {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        self.conn.as_mut().unwrap_or_else(|| unreachable!("a checked-out connection is present"))
    }
}

impl Drop for PooledConnection<'_> {
    fn drop(&mut self) {
        // Back on the idle list before the slot is released (fields drop after this body).
        if let Some(conn) = self.conn.take() {
            self.pool.idle.lock().unwrap_or_else(PoisonError::into_inner).push(conn);
        }
    }
}

/// Statements run on the pool directly, as on sqlx's pool: each checks out a connection for
/// itself. A statement's rows are collected before the connection goes back.
impl<'p> Executor<'p> for &'p SqlitePool {
    type Database = Sqlite;

    fn fetch_many<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxStream<'e, Result<Either<SqliteQueryResult, SqliteRow>, Error>>
    where
        'p: 'e,
        E: 'q + Execute<'q, Sqlite>,
    {
        stream::once(async move {
            let mut conn = self.acquire().await?;
            let steps = conn.fetch_many(query).try_collect::<Vec<_>>().await;
            conn.checked(steps)
        })
        .map_ok(|steps| stream::iter(steps.into_iter().map(Ok)))
        .try_flatten()
        .boxed()
    }

    fn fetch_optional<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxFuture<'e, Result<Option<SqliteRow>, Error>>
    where
        'p: 'e,
        E: 'q + Execute<'q, Sqlite>,
    {
        Box::pin(async move {
            let mut conn = self.acquire().await?;
            let row = conn.fetch_optional(query).await;
            conn.checked(row)
        })
    }

    fn prepare_with<'e>(
        self,
        sql: sqlx::SqlStr,
        parameters: &'e [sqlx::sqlite::SqliteTypeInfo],
    ) -> BoxFuture<'e, Result<SqliteStatement, Error>>
    where
        'p: 'e,
    {
        Box::pin(async move {
            let mut conn = self.acquire().await?;
            let statement = conn.prepare_with(sql, parameters).await;
            conn.checked(statement)
        })
    }

    fn describe<'e>(self, sql: sqlx::SqlStr) -> BoxFuture<'e, Result<sqlx::Describe<Sqlite>, Error>>
    where
        'p: 'e,
    {
        Box::pin(async move {
            let mut conn = self.acquire().await?;
            let described = conn.describe(sql).await;
            conn.checked(described)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    /// A pool of `max` connections to a fresh database file, and the file's directory.
    async fn pool(name: &str, max: usize) -> (SqlitePool, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("hearth-pool-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let url = format!("sqlite://{}", dir.join("pool.db").display());
        let options = SqliteConnectOptions::from_str(&url).expect("url").create_if_missing(true);
        (SqlitePool::open(options, max).await.expect("opened"), dir)
    }

    #[tokio::test]
    async fn connections_open_only_while_every_open_one_is_busy_and_never_beyond_the_maximum() {
        let (pool, dir) = pool("open", 2).await;
        assert_eq!(pool.idle_connections(), 1, "one is opened at once");
        let first = pool.acquire().await.expect("first");
        let second = pool.acquire().await.expect("second, newly opened");
        assert_eq!(pool.idle_connections(), 0);
        let third = tokio::time::timeout(Duration::from_millis(100), pool.acquire()).await;
        assert!(third.is_err(), "a third waits while both are in use");
        drop(first);
        let third = pool.acquire().await.expect("the returned one");
        drop((second, third));
        assert_eq!(pool.idle_connections(), 2, "both kept open for the next users");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_transaction_dropped_without_a_commit_is_rolled_back_before_the_connection_is_reused()
    {
        let (pool, dir) = pool("rollback", 1).await;
        sqlx::query("CREATE TABLE t (x INTEGER)").execute(&pool).await.expect("table");
        {
            let mut conn = pool.acquire().await.expect("conn");
            let mut tx = sqlx::Connection::begin(&mut *conn).await.expect("begin");
            sqlx::query("INSERT INTO t VALUES (1)").execute(&mut *tx).await.expect("insert");
            // Dropped here, uncommitted, and the connection with it.
        }
        let mut conn = pool.acquire().await.expect("the same connection");
        let tx = sqlx::Connection::begin(&mut *conn).await.expect("no transaction left open");
        tx.commit().await.expect("commit");
        drop(conn);
        let (rows,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM t").fetch_one(&pool).await.expect("count");
        assert_eq!(rows, 0, "the dropped transaction's insert is gone");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_statement_abandoned_half_way_leaves_its_connection_answering_the_next_one() {
        let (pool, dir) = pool("cancel", 1).await;
        let slow = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) SELECT COUNT(*) FROM n";
        let abandoned = sqlx::query_scalar::<_, i64>(slow).fetch_one(&pool);
        let cut = tokio::time::timeout(Duration::from_millis(5), abandoned).await;
        assert!(cut.is_err(), "the slow statement was abandoned before it finished");
        let (answer,): (i64,) = sqlx::query_as("SELECT 42").fetch_one(&pool).await.expect("next");
        assert_eq!(answer, 42);
        assert_eq!(pool.idle_connections(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
