//! What the push loops leave behind once it is settled: outbox items sent, held, failed or
//! abandoned, and the delivery records of reminder occurrences, alert fires and digest days.
//! Nothing reads them after a while, so they are deleted once older than the retention
//! (`HEARTH_DELIVERY_RETENTION_DAYS`), a bounded batch per table and statement so one round
//! never holds a long lock. A pending item (or one handed to the outbox) is never deleted, and
//! neither is the record of the occurrence a reminder still points at (it says that occurrence
//! was dealt with, so a resumed reminder is not pushed again).
//!
//! The handled webhook events and the chat log are pruned the same way, a batch a statement
//! until none is left ([`Store::delete_in_batches`]): between two statements the store's one
//! SQLite connection serves the webhooks and turns that wait for it.

use super::{Store, StoreError};

const OUTBOX: &str = "DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE status <> 'pending' AND done_at < $1 ORDER BY id LIMIT CAST($2 AS BIGINT))";
const REMINDERS: &str = "DELETE FROM reminder_deliveries WHERE (reminder_id, scheduled_for) IN (SELECT d.reminder_id, d.scheduled_for FROM reminder_deliveries d WHERE d.status NOT IN ('pending', 'queued') AND d.scheduled_for < $1 AND NOT EXISTS (SELECT 1 FROM reminders r WHERE r.id = d.reminder_id AND r.next_fire_at = d.scheduled_for) LIMIT CAST($2 AS BIGINT))";
const ALERTS: &str = "DELETE FROM alert_deliveries WHERE (alert_id, fire_seq) IN (SELECT alert_id, fire_seq FROM alert_deliveries WHERE status NOT IN ('pending', 'queued') AND first_attempt_at < $1 LIMIT CAST($2 AS BIGINT))";
const DIGESTS: &str = "DELETE FROM digest_deliveries WHERE (conversation_id, day) IN (SELECT conversation_id, day FROM digest_deliveries WHERE status NOT IN ('pending', 'queued') AND scheduled_for < $1 LIMIT CAST($2 AS BIGINT))";

/// Rows one pruning statement of [`Store::delete_in_batches`] deletes at most: between two, the
/// store's connection serves whoever waits, so a large backlog never holds it for long.
const PRUNE_BATCH: i64 = 1_000;

impl Store {
    /// Runs `sql` (a `DELETE` of at most `$2` rows older than `$1`) again and again until it
    /// deletes less than a batch; returns how many rows went in all.
    pub(super) async fn delete_in_batches(
        &self,
        sql: &'static str,
        before_ms: i64,
    ) -> Result<u64, StoreError> {
        let mut pruned = 0;
        loop {
            let n = db!(self, db => sqlx::query(sql)
                .bind(before_ms)
                .bind(PRUNE_BATCH)
                .execute(db)
                .await
                .map(|r| r.rows_affected()))?;
            pruned += n;
            if n < PRUNE_BATCH.unsigned_abs() {
                return Ok(pruned);
            }
        }
    }

    /// Deletes at most `batch` settled rows older than `before_ms` from each of the outbox and
    /// the three delivery tables; returns how many went in all (call again while it is not 0).
    pub async fn prune_settled_pushes(
        &self,
        before_ms: i64,
        batch: i64,
    ) -> Result<u64, StoreError> {
        let mut pruned = 0;
        for sql in [OUTBOX, REMINDERS, ALERTS, DIGESTS] {
            pruned += db!(self, db => sqlx::query(sql)
                .bind(before_ms)
                .bind(batch)
                .execute(db)
                .await
                .map(|r| r.rows_affected()))?;
        }
        Ok(pruned)
    }
}
