//! SQLite's connections, handed out without sqlx's pool. sqlx's pool checks every connection
//! that comes back (a ping: for SQLite, a round trip to the connection's worker thread and two
//! context switches) from a task spawned for it, and a turn checks out a connection for each of
//! its dozen statements: a dozen hand-offs and tasks that did nothing (BENCHMARKS.md, issue 17,
//! fourth round). Here a connection that finished its work goes back to the idle list as its
//! guard drops.
//!
//! A connection's statements run in order on its own worker thread, so a statement abandoned
//! half-way (its future dropped, under a time limit) finishes there before the next user's, and
//! a transaction dropped without a commit queues its rollback there (sqlx does), ahead of
//! anything the next user sends. Such a connection may still be busy, though, so it goes to the
//! bottom of the idle list, marked: the next users take the others first, and whoever takes it
//! sends it a `ROLLBACK` first (which waits for the abandoned work, and ends a transaction a
//! batch of [`super::batch`] left open) and closes it if its worker died or a transaction is
//! still open. An in-memory database lives and dies with its one connection, so
//! its pool never opens another in its place.
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
    /// Idle connections, the next one to hand out last.
    idle: Mutex<Vec<Idle>>,
    free: Semaphore,
    /// False for an in-memory database: a new connection would be a new, empty database.
    reopen: bool,
}

/// An idle connection, and whether it came back from abandoned work (to be rolled back before
/// use).
#[derive(Debug)]
struct Idle {
    conn: SqliteConnection,
    abandoned: bool,
}

/// A connection checked out of an [`SqlitePool`]; it goes back when dropped.
pub(crate) struct PooledConnection<'p> {
    conn: Option<SqliteConnection>,
    /// True while a statement run through the pool itself waits for its answer (a connection
    /// checked out for a transaction is done with once no transaction is left open on it).
    statement_pending: bool,
    /// True while a batch ([`super::batch`]) runs: its transaction is opened and committed by
    /// its own query string, where sqlx does not see it.
    batch_pending: bool,
    pool: &'p SqlitePool,
    _slot: SemaphorePermit<'p>,
}

impl SqlitePool {
    /// A pool of at most `max` connections opened with `options` (`reopen` false for an
    /// in-memory database, whose pool keeps the one it opens now); opens one now, so a database
    /// that cannot be opened fails here.
    pub(crate) async fn open(
        options: SqliteConnectOptions,
        max: usize,
        reopen: bool,
    ) -> Result<Self, Error> {
        let first = Idle { conn: options.connect().await?, abandoned: false };
        Ok(Self { options, idle: Mutex::new(vec![first]), free: Semaphore::new(max), reopen })
    }

    /// How many connections are open and not in use.
    #[cfg(test)]
    fn idle_connections(&self) -> usize {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Which idle connections came back from abandoned work, the next one to hand out last.
    #[cfg(test)]
    fn idle_abandoned(&self) -> Vec<bool> {
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|i| i.abandoned)
            .collect()
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
            Some(Idle { conn, abandoned: false }) => Some(conn),
            Some(Idle { conn, abandoned: true }) => usable(conn).await,
            None => None,
        };
        let conn = match conn {
            Some(conn) => conn,
            None if self.reopen => self.options.connect().await?,
            // The in-memory database went with its connection.
            None => return Err(Error::PoolClosed),
        };
        Ok(PooledConnection {
            conn: Some(conn),
            statement_pending: false,
            batch_pending: false,
            pool: self,
            _slot: slot,
        })
    }
}

/// `conn`, back from abandoned work, once that work is over (a `ROLLBACK` waits behind it, and
/// ends a transaction a batch may have left open; with none open it fails, harmlessly); `None`
/// (closed) if its worker died, the `ROLLBACK` failed otherwise, or sqlx still has a transaction
/// open on it.
async fn usable(mut conn: SqliteConnection) -> Option<SqliteConnection> {
    use sqlx::Connection as _;
    let rolled_back = sqlx::raw_sql("ROLLBACK").execute(&mut conn).await;
    match rolled_back {
        ref outcome if nothing_left_open(outcome) && !conn.is_in_transaction() => Some(conn),
        outcome => {
            tracing::warn!(
                ?outcome,
                "an SQLite connection left unusable by abandoned work is closed"
            );
            None
        }
    }
}

/// Whether a `ROLLBACK` that answered `outcome` leaves no transaction open: it rolled one
/// back, or SQLite said there was none.
fn nothing_left_open<T>(outcome: &Result<T, Error>) -> bool {
    match outcome {
        Ok(_) => true,
        Err(Error::Database(e)) => e.message().contains("no transaction is active"),
        Err(_) => false,
    }
}

impl PooledConnection<'_> {
    /// A connection for one statement run through the pool itself; see [`Self::checked`].
    async fn for_statement(pool: &SqlitePool) -> Result<PooledConnection<'_>, Error> {
        let mut conn = pool.acquire().await?;
        conn.statement_pending = true;
        Ok(conn)
    }

    /// Marks the start of a batch, whose transaction sqlx does not see: dropped before
    /// [`Self::end_batch`] or [`Self::roll_back_batch`], the connection is closed, which ends the
    /// transaction at once (the in-memory database's one connection is kept, to be rolled back
    /// before its next use).
    pub(crate) fn begin_batch(&mut self) {
        self.batch_pending = true;
    }

    /// Marks the batch committed.
    pub(crate) fn end_batch(&mut self) {
        self.batch_pending = false;
    }

    /// Rolls back a batch that failed half-way (with none open, SQLite refuses, harmlessly); a
    /// connection that cannot answer is closed.
    pub(crate) async fn roll_back_batch(&mut self) {
        // Otherwise the batch stays pending: the connection is closed as its guard drops.
        if nothing_left_open(&sqlx::raw_sql("ROLLBACK").execute(&mut **self).await) {
            self.batch_pending = false;
        }
    }

    /// Passes the answer to the statement through, and marks the connection done with it; a
    /// connection whose worker thread died is closed rather than returned.
    fn checked<T>(mut self, result: Result<T, Error>) -> Result<T, Error> {
        self.statement_pending = false;
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
        use sqlx::Connection as _;
        // Back on the idle list before the slot is released (fields drop after this body):
        // on top when its work is done, at the bottom, to be checked, when it was abandoned.
        let Some(conn) = self.conn.take() else { return };
        if self.batch_pending && self.pool.reopen {
            // Closed: its worker finishes what it was given, and SQLite rolls back on close.
            return;
        }
        let abandoned = self.statement_pending || self.batch_pending || conn.is_in_transaction();
        let mut idle = self.pool.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if abandoned {
            idle.insert(0, Idle { conn, abandoned });
        } else {
            idle.push(Idle { conn, abandoned });
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
            let mut conn = PooledConnection::for_statement(self).await?;
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
            let mut conn = PooledConnection::for_statement(self).await?;
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
            let mut conn = PooledConnection::for_statement(self).await?;
            let statement = conn.prepare_with(sql, parameters).await;
            conn.checked(statement)
        })
    }

    fn describe<'e>(self, sql: sqlx::SqlStr) -> BoxFuture<'e, Result<sqlx::Describe<Sqlite>, Error>>
    where
        'p: 'e,
    {
        Box::pin(async move {
            let mut conn = PooledConnection::for_statement(self).await?;
            let described = conn.describe(sql).await;
            conn.checked(described)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    /// A statement that takes long enough (counting to three million) to be abandoned half-way.
    const SLOW: &str = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) SELECT COUNT(*) FROM n";

    /// A pool of `max` connections to a fresh database file, and the file's directory.
    async fn pool(name: &str, max: usize) -> (SqlitePool, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("hearth-pool-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let url = format!("sqlite://{}", dir.join("pool.db").display());
        let options = SqliteConnectOptions::from_str(&url).expect("url").create_if_missing(true);
        (SqlitePool::open(options, max, true).await.expect("opened"), dir)
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
        let abandoned = sqlx::query_scalar::<_, i64>(SLOW).fetch_one(&pool);
        let cut = tokio::time::timeout(Duration::from_millis(5), abandoned).await;
        assert!(cut.is_err(), "the slow statement was abandoned before it finished");
        let (answer,): (i64,) = sqlx::query_as("SELECT 42").fetch_one(&pool).await.expect("next");
        assert_eq!(answer, 42);
        assert_eq!(pool.idle_connections(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_connection_abandoned_mid_statement_is_handed_out_last_and_checked_before_its_reuse()
    {
        let (pool, dir) = pool("abandoned", 2).await;
        let first = pool.acquire().await.expect("the one open");
        let second = pool.acquire().await.expect("a second one opens");
        drop((first, second));
        assert_eq!(pool.idle_abandoned(), [false, false]);
        let abandoned = sqlx::query_scalar::<_, i64>(SLOW).fetch_one(&pool);
        let cut = tokio::time::timeout(Duration::from_millis(5), abandoned).await;
        assert!(cut.is_err(), "the slow statement was abandoned before it finished");
        assert_eq!(pool.idle_abandoned(), [true, false], "at the bottom, marked");
        let first = pool.acquire().await.expect("the connection that finished its work");
        let mut second = pool.acquire().await.expect("the abandoned one, once it is free");
        let (answer,): (i64,) =
            sqlx::query_as("SELECT 42").fetch_one(&mut *second).await.expect("answers");
        assert_eq!(answer, 42);
        drop((first, second));
        assert_eq!(pool.idle_abandoned(), [false, false], "both done with");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn an_in_memory_pool_never_opens_a_new_empty_database_in_place_of_its_one() {
        let options = SqliteConnectOptions::from_str("sqlite::memory:").expect("url");
        let pool = SqlitePool::open(options, 1, false).await.expect("opened");
        let mut conn = pool.acquire().await.expect("the one connection");
        conn.conn = None; // as when its worker thread dies
        drop(conn);
        assert!(matches!(pool.acquire().await, Err(Error::PoolClosed)));
    }
}
