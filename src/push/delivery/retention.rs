//! Forgetting settled pushes: outbox items and delivery records older than the retention
//! (`HEARTH_DELIVERY_RETENTION_DAYS`) are deleted by the hourly background round, in batches of
//! [`BATCH`] rows per table, and at most [`BATCHES_PER_ROUND`] batches a round (a backlog left
//! by an older hearth drains over a few rounds instead of holding the database for long).

use jiff::{SignedDuration, Timestamp};

use crate::store::{Store, StoreError};

/// Rows deleted per table by one statement.
pub const BATCH: i64 = 1_000;
/// Batches per round at most.
pub const BATCHES_PER_ROUND: usize = 50;

/// Deletes the pushes settled more than `retention` before `now`; returns how many rows went.
pub async fn prune_settled(
    store: &Store,
    now: Timestamp,
    retention: SignedDuration,
) -> Result<u64, StoreError> {
    let before = now.saturating_sub(retention).unwrap_or(now).as_millisecond();
    let mut pruned = 0;
    for _ in 0..BATCHES_PER_ROUND {
        let n = store.prune_settled_pushes(before, BATCH).await?;
        pruned += n;
        if n == 0 {
            break;
        }
    }
    if pruned > 0 {
        tracing::info!(pruned, "settled pushes older than the retention deleted");
    }
    Ok(pruned)
}
