//! The durable inbox: verified webhook events are stored before LINE gets its 200 and handled
//! from the store. Storing is deduplication (LINE's `webhookEventId` is the key) and a lease for
//! the process that stored them; events whose lease ran out unfinished (the process died) are
//! claimed by another process — or the same one after a restart — and handled then.

use sqlx::FromRow;

use super::{Backend, Store, StoreError};

/// A verified event to store.
#[derive(Debug, Clone)]
pub struct InboxEvent<'a> {
    /// LINE's `webhookEventId`.
    pub event_id: &'a str,
    /// The event type.
    pub event_type: &'a str,
    /// The event's JSON as received.
    pub payload: &'a str,
    /// When the webhook arrived (Unix ms).
    pub received_at_ms: i64,
}

/// A stored event not handled yet, claimed for handling.
#[derive(Debug, Clone, PartialEq, FromRow)]
pub struct PendingEvent {
    /// LINE's `webhookEventId`.
    pub event_id: String,
    /// The event's JSON.
    pub payload: String,
    /// When the webhook arrived (Unix ms): decides whether the reply token may still work.
    pub received_at: i64,
    /// How many processes have claimed it, this one included.
    pub attempts: i64,
}

/// Claims after this many end unfinished are not retried (a poison event).
pub const MAX_ATTEMPTS: i64 = 5;

const ACCEPT_HEAD: &str = "INSERT INTO inbox (event_id, event_type, payload, received_at, status, claimed_by, claim_expires_at, attempts) ";
const ACCEPT_TAIL: &str = " ON CONFLICT (event_id) DO NOTHING RETURNING event_id";
const FINISH: &str = "UPDATE inbox SET status = 'done', done_at = $3, claimed_by = NULL WHERE event_id = $1 AND claimed_by = $2 AND status = 'pending'";
const CLAIM: &str = "UPDATE inbox SET claimed_by = $1, claim_expires_at = $2, attempts = attempts + 1 WHERE event_id IN (SELECT event_id FROM inbox WHERE status = 'pending' AND claim_expires_at < $3 AND attempts < $5 ORDER BY received_at LIMIT $4) RETURNING event_id, payload, received_at, attempts";
const CLAIM_SKIP_LOCKED: &str = "UPDATE inbox SET claimed_by = $1, claim_expires_at = $2, attempts = attempts + 1 WHERE event_id IN (SELECT event_id FROM inbox WHERE status = 'pending' AND claim_expires_at < $3 AND attempts < $5 ORDER BY received_at LIMIT $4 FOR UPDATE SKIP LOCKED) RETURNING event_id, payload, received_at, attempts";
const GIVE_UP: &str = "UPDATE inbox SET status = 'done', done_at = $1, claimed_by = NULL WHERE status = 'pending' AND claim_expires_at < $1 AND attempts >= $2";
const RELEASE: &str = "UPDATE inbox SET claimed_by = NULL, claim_expires_at = 0 WHERE claimed_by = $1 AND status = 'pending'";
const PRUNE: &str = "DELETE FROM inbox WHERE status = 'done' AND done_at < $1";

impl Store {
    /// Stores verified events in one statement, leased to `owner` until `lease_until_ms`;
    /// returns, for each, whether it is new (a duplicate is already stored and is not handled
    /// again).
    pub async fn accept_events(
        &self,
        events: &[InboxEvent<'_>],
        owner: &str,
        lease_until_ms: i64,
    ) -> Result<Vec<bool>, StoreError> {
        if events.is_empty() {
            return Ok(Vec::new());
        }
        let inserted: Vec<(String,)> = db!(self, db => {
            let mut insert = sqlx::QueryBuilder::new(ACCEPT_HEAD);
            insert.push_values(events, |mut row, e| {
                row.push_bind(e.event_id)
                    .push_bind(e.event_type)
                    .push_bind(e.payload)
                    .push_bind(e.received_at_ms)
                    .push_bind("pending")
                    .push_bind(owner)
                    .push_bind(lease_until_ms)
                    .push_bind(1i64);
            });
            insert.push(ACCEPT_TAIL);
            insert.build_query_as().fetch_all(db).await
        })?;
        // A batch may carry the same event twice: only its first copy counts as new.
        let mut fresh: std::collections::HashSet<&str> =
            inserted.iter().map(|(id,)| id.as_str()).collect();
        Ok(events.iter().map(|e| fresh.remove(e.event_id)).collect())
    }

    /// Marks an event handled by `owner`; false if another process took it over meanwhile.
    pub async fn finish_event(
        &self,
        event_id: &str,
        owner: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let n = db!(self, db => sqlx::query(FINISH)
            .bind(event_id)
            .bind(owner)
            .bind(now_ms)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }

    /// Claims up to `limit` unfinished events whose lease ran out (their process died or gave
    /// them back), oldest first. Events claimed [`MAX_ATTEMPTS`] times are given up instead.
    pub async fn claim_stale_events(
        &self,
        owner: &str,
        now_ms: i64,
        lease_until_ms: i64,
        limit: i64,
    ) -> Result<Vec<PendingEvent>, StoreError> {
        let given_up = db!(self, db => sqlx::query(GIVE_UP)
            .bind(now_ms)
            .bind(MAX_ATTEMPTS)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        if given_up > 0 {
            tracing::error!(
                given_up,
                "webhook events failed {MAX_ATTEMPTS} times and were dropped"
            );
        }
        let sql = match &*self.backend {
            Backend::Sqlite(_) => CLAIM,
            Backend::Postgres(_) => CLAIM_SKIP_LOCKED,
        };
        Ok(db!(self, db => sqlx::query_as(sql)
            .bind(owner)
            .bind(lease_until_ms)
            .bind(now_ms)
            .bind(limit)
            .bind(MAX_ATTEMPTS)
            .fetch_all(db)
            .await)?)
    }

    /// Gives back `owner`'s unfinished events at once (graceful shutdown): another process may
    /// claim them immediately.
    pub async fn release_events(&self, owner: &str) -> Result<u64, StoreError> {
        Ok(db!(self, db => sqlx::query(RELEASE)
            .bind(owner)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?)
    }

    /// Forgets handled events finished before `before_ms`; returns how many.
    pub async fn prune_inbox(&self, before_ms: i64) -> Result<u64, StoreError> {
        Ok(db!(self, db => sqlx::query(PRUNE)
            .bind(before_ms)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?)
    }
}
