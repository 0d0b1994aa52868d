//! One lease for all the work a process holds: due reminders, watched prices, price-alert and
//! digest deliveries, inbox events, the outbox, care doses, the official alerts feed, the
//! calendar server's sync and the HTTPS certificate.
//!
//! Every leased table names its lease the same way: `lease_owner` (the process holding the row)
//! and `lease_until` (Unix ms; the lease is over at that instant: a row with no lease, or a
//! past one, is free). The cycle is the same everywhere:
//!
//! - **claim**: one statement takes due rows that are free (`claim_sql!`); on PostgreSQL the
//!   candidates are locked `FOR UPDATE SKIP LOCKED`, so replicas split the due rows instead of
//!   queueing behind each other. That choice is made here, once per backend.
//! - **renew**: a live holder pushes `lease_until` on while it works (the inbox's heartbeat, the
//!   feed's claim by its own holder).
//! - **finish**: every write of the outcome is fenced on `lease_owner` (and on what was
//!   claimed), and gives the lease up: work another process took over is left alone.
//! - **release**: a stopping process gives back everything it holds at once
//!   ([`Store::release_leases`]), so another takes it without waiting for the lease to end.
//!
//! [`LEASED`] lists every leased table, once; the exactly-once tests run for each entry.

use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::{FromRow, Row};

use super::{Backend, Store, StoreError};

/// A claim statement for each backend (made by `claim_sql!`).
pub struct ClaimSql {
    pub(super) sqlite: &'static str,
    pub(super) postgres: &'static str,
}

impl ClaimSql {
    /// Made by `claim_sql!` only.
    #[doc(hidden)]
    pub const fn new(sqlite: &'static str, postgres: &'static str) -> Self {
        Self { sqlite, postgres }
    }

    fn for_backend(&self, backend: &Backend) -> &'static str {
        match backend {
            Backend::Sqlite(_) => self.sqlite,
            Backend::Postgres(_) => self.postgres,
        }
    }
}

/// The claim of up to `$4` due rows of a table (its rows named by the `key` columns, one or
/// several) for `$1` until `$2`, at `$3` (now), in `order`;
/// `$5`… are the table's own (`due` may use them). `set` adds to the claim's `SET`
/// (`", attempts = attempts + 1"`). The rows are re-checked as free when updated, so a row two
/// claimants picked at once is taken once.
macro_rules! claim_sql {
    (
        table: $table:literal,
        key: $key:literal,
        due: $due:literal,
        order: $order:literal,
        returning: $returning:expr
        $(, set: $set:literal)?
        $(,)?
    ) => {
        $crate::store::lease::ClaimSql::new(
            claim_sql!(@one $table, $key, $due, $order, $returning, "", $($set)?),
            claim_sql!(@one $table, $key, $due, $order, $returning, " FOR UPDATE SKIP LOCKED", $($set)?),
        )
    };
    (@one $table:literal, $key:literal, $due:literal, $order:literal, $returning:expr, $lock:literal, $($set:literal)?) => {
        concat!(
            "UPDATE ", $table, " SET lease_owner = $1, lease_until = $2", $($set,)?
            " WHERE (", $key, ") IN (SELECT ", $key, " FROM ", $table, " WHERE ", $due,
            " AND (lease_until IS NULL OR lease_until <= $3) ORDER BY ", $order,
            " LIMIT CAST($4 AS BIGINT)", $lock,
            ") AND (lease_until IS NULL OR lease_until <= $3) RETURNING ", $returning
        )
    };
}

/// A table whose rows are held under leases.
pub struct Leased {
    /// What its rows are, in logs and tests.
    pub name: &'static str,
    /// Gives back every lease `$1` holds.
    release: &'static str,
    /// Counts the live leases `$1` holds at `$2`.
    held: &'static str,
}

/// Declares a [`Leased`] table; `on_release` adds to the release's `SET`.
macro_rules! leased {
    ($name:literal, $table:literal $(, on_release: $set:literal)?) => {
        Leased {
            name: $name,
            release: concat!(
                "UPDATE ", $table, " SET lease_owner = NULL, lease_until = 0", $($set,)?
                " WHERE lease_owner = $1"
            ),
            held: concat!(
                "SELECT COUNT(*) FROM ", $table, " WHERE lease_owner = $1 AND lease_until > $2"
            ),
        }
    };
}

/// Due reminders, claimed by the scheduler.
pub const REMINDERS: Leased = leased!("reminders", "reminders");
/// Watched symbols, claimed by the price poller.
pub const PRICE_SYMBOLS: Leased = leased!("price symbols", "alert_symbols");
/// Price-alert pushes waiting for their (next) attempt.
pub const ALERT_DELIVERIES: Leased = leased!("price-alert deliveries", "alert_deliveries");
/// Webhook events not handled yet. A handing back counts as a release of a handling that began
/// under this claim, so it does not count toward setting an event aside.
pub const INBOX: Leased = leased!(
    "inbox events",
    "inbox",
    on_release: ", released = released + CASE WHEN started_attempt = attempts AND status = 'pending' THEN 1 ELSE 0 END"
);
/// Pushes waiting in the per-chat outbox.
pub const OUTBOX: Leased = leased!("outbox items", "outbox");
/// Daily digests waiting for their (next) attempt.
pub const DIGEST_DELIVERIES: Leased = leased!("digest deliveries", "digest_deliveries");
/// Care plans' doses whose next step is due.
pub const CARE_DOSES: Leased = leased!("care doses", "care_doses");
/// Reading the official alerts feed: one row, held by one replica at a time.
pub const ALERT_FEED: Leased = leased!("official alerts feed", "public_alert_feed");
/// The chats' calendars on the family's calendar server, each synced by one replica at a time.
pub const CALDAV_CALENDARS: Leased = leased!("calendar server sync", "caldav_calendars");
/// Obtaining or renewing the HTTPS certificate: one row per domain, one replica at a time.
pub const TLS_CERTIFICATES: Leased = leased!("HTTPS certificate", "tls_certificates");

/// Every leased table, once: a new loop's table joins this list (and so its tests).
pub const LEASED: &[&Leased] = &[
    &REMINDERS,
    &PRICE_SYMBOLS,
    &ALERT_DELIVERIES,
    &INBOX,
    &OUTBOX,
    &DIGEST_DELIVERIES,
    &CARE_DOSES,
    &ALERT_FEED,
    &CALDAV_CALENDARS,
    &TLS_CERTIFICATES,
];

/// What a process hands back as it stops: the work it claims before touching anything
/// outside. The pushes (outbox, deliveries) and care doses it holds are left to their leases'
/// end instead: one of them may be in flight to LINE as the process stops.
pub const HANDED_BACK: &[&Leased] =
    &[&INBOX, &REMINDERS, &PRICE_SYMBOLS, &ALERT_FEED, &CALDAV_CALENDARS, &TLS_CERTIFICATES];

/// Who claims, when, and until when.
#[derive(Debug, Clone, Copy)]
pub struct Lease<'a> {
    /// The claiming process.
    pub owner: &'a str,
    /// Now, Unix ms.
    pub now_ms: i64,
    /// When the lease ends unless renewed, Unix ms.
    pub until_ms: i64,
}

impl Store {
    /// Claims up to `limit` due rows with `claim`, binding `extra` as `$5`….
    pub(super) async fn claim<R>(
        &self,
        claim: &ClaimSql,
        lease: Lease<'_>,
        limit: i64,
        extra: &[i64],
    ) -> Result<Vec<R>, StoreError>
    where
        R: for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + Send + Unpin,
    {
        let sql = claim.for_backend(&self.backend);
        Ok(db!(self, db => {
            let mut query = sqlx::query_as(sql)
                .bind(lease.owner)
                .bind(lease.until_ms)
                .bind(lease.now_ms)
                .bind(limit);
            for value in extra {
                query = query.bind(*value);
            }
            query.fetch_all(db).await
        })?)
    }

    /// Gives back every lease `owner` holds on `leased`'s rows (a graceful shutdown): another
    /// process may claim them at once. Returns how many.
    pub async fn release_leases(&self, leased: &Leased, owner: &str) -> Result<u64, StoreError> {
        Ok(db!(self, db => sqlx::query(leased.release)
            .bind(owner)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?)
    }

    /// How many of `leased`'s rows `owner` holds under a lease still running at `now_ms`.
    pub async fn leases_held(
        &self,
        leased: &Leased,
        owner: &str,
        now_ms: i64,
    ) -> Result<i64, StoreError> {
        Ok(db!(self, db => sqlx::query(leased.held)
            .bind(owner)
            .bind(now_ms)
            .fetch_one(db)
            .await
            .and_then(|row| row.try_get(0)))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOME: ClaimSql = claim_sql!(
        table: "things",
        key: "id",
        due: "due_at <= $3",
        order: "due_at",
        returning: "id",
        set: ", tries = tries + 1",
    );

    #[test]
    fn only_postgresql_skips_the_rows_another_claimant_locked() {
        assert!(!SOME.sqlite.contains("SKIP LOCKED"));
        assert!(SOME.postgres.contains("FOR UPDATE SKIP LOCKED)"));
        assert_eq!(SOME.sqlite, SOME.postgres.replace(" FOR UPDATE SKIP LOCKED", ""));
    }

    #[test]
    fn a_claim_takes_free_due_rows_and_rechecks_them_when_it_writes() {
        assert_eq!(
            SOME.sqlite,
            "UPDATE things SET lease_owner = $1, lease_until = $2, tries = tries + 1 WHERE (id) IN \
             (SELECT id FROM things WHERE due_at <= $3 AND (lease_until IS NULL OR lease_until \
             <= $3) ORDER BY due_at LIMIT CAST($4 AS BIGINT)) AND (lease_until IS NULL OR \
             lease_until <= $3) RETURNING id"
        );
    }

    #[test]
    fn every_leased_table_is_listed_once_under_its_own_name() {
        let mut names: Vec<_> = LEASED.iter().map(|l| l.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), LEASED.len());
        assert!(LEASED.iter().all(|l| l.release.contains("lease_owner = NULL")));
    }

    #[test]
    fn what_a_stopping_process_hands_back_is_listed_leased() {
        assert!(HANDED_BACK.iter().all(|h| LEASED.iter().any(|l| l.name == h.name)));
    }
}
