//! The per-chat outbox in the store: every loop (reminders, alert fires, the digest) records its
//! rendered item under its occurrence's stable name (recording twice is a no-op: the first
//! record stays); recording gives the item a random `X-Line-Retry-Key` (UUID v4) of its own,
//! stored beside it and reused by every attempt, so a new item never repeats an old key (not
//! after a restore, not on another database). The sender claims a chat's
//! due items under a lease (one replica at a time), fixes which items go in which request and
//! that request's retry key before the first attempt, and settles each request as LINE answers
//! it — mirroring the outcome onto the item's source record.

use super::{OutboxStore, StoreError};

/// An item to record in the outbox.
#[derive(Debug, Clone)]
pub struct NewOutboxItem<'a> {
    /// The chat it belongs to (where it waits when the month's quota is out).
    pub conversation_id: &'a str,
    /// The chat it is pushed to.
    pub target: &'a str,
    /// `reminder`, `alert` or `digest`.
    pub kind: &'a str,
    /// The stable name of its occurrence (its source record's `retry_key`): how it is found
    /// again, unique; never sent to LINE.
    pub occurrence: &'a str,
    /// Its messages (a JSON array).
    pub payload: &'a str,
    /// It may go without a notification sound.
    pub silent: bool,
    /// Not pushed before (Unix ms).
    pub due_at: i64,
}

row! {
    /// A recorded item.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct OutboxItem {
        /// Its id (the order items were recorded in).
        pub id: i64,
        /// The chat it belongs to.
        pub conversation_id: String,
        /// The chat it is pushed to.
        pub target: String,
        /// `reminder`, `alert` or `digest`.
        pub kind: String,
        /// The stable name of its occurrence (the column's historical name): never sent to LINE.
        pub retry_key: String,
        /// Its `X-Line-Retry-Key`, random, made when it was recorded (none for an item a
        /// release before random keys recorded and the migration did not reach).
        pub line_key: Option<String>,
        /// Its messages (a JSON array).
        pub payload: String,
        /// It may go without a notification sound.
        pub silent: bool,
        /// Not pushed before (Unix ms).
        pub due_at: i64,
        /// `pending`, `sent`, `held`, `failed` or `abandoned`.
        pub status: String,
        /// The retry keys of the request it was put in (comma-separated, one per request LINE
        /// needs), fixed before its first attempt.
        pub request_key: Option<String>,
        /// Attempts of unknown outcome so far.
        pub attempts: i64,
        /// When it was first attempted (Unix ms).
        pub first_attempt_at: Option<i64>,
    }
}

const RECORD: &str = "INSERT INTO outbox (conversation_id, target, kind, retry_key, payload, silent, due_at, created_at, line_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (retry_key) DO NOTHING";
const DUE_TARGETS: &str = "SELECT target FROM outbox WHERE status = 'pending' AND lease_until <= $1 GROUP BY target HAVING MIN(due_at) <= $2 AND MAX(created_at) <= $4 ORDER BY MIN(due_at) LIMIT CAST($3 AS BIGINT)";
const OLDEST_DUE: &str =
    "SELECT MIN(due_at) FROM outbox WHERE target = $1 AND status = 'pending' AND lease_until <= $2";
const CLAIM: &str = "UPDATE outbox SET lease_owner = $1, lease_until = $2 WHERE target = $3 AND status = 'pending' AND due_at <= $4 AND lease_until <= $4 AND created_at <= $5 RETURNING id, conversation_id, target, kind, retry_key, line_key, payload, silent, due_at, status, request_key, attempts, first_attempt_at";
const SET_REQUEST: &str =
    "UPDATE outbox SET request_key = $3 WHERE id = $1 AND lease_owner = $2 AND request_key IS NULL";
const DEFER: &str = "UPDATE outbox SET due_at = $3, lease_owner = NULL, lease_until = 0 WHERE id = $1 AND lease_owner = $2 AND status = 'pending'";
const SETTLE: &str = "UPDATE outbox SET status = $3, done_at = $4, lease_owner = NULL WHERE id = $1 AND lease_owner = $2 AND status = 'pending'";
const RETRY: &str = "UPDATE outbox SET attempts = attempts + $5, first_attempt_at = CASE WHEN $5 > 0 THEN COALESCE(first_attempt_at, $3) ELSE first_attempt_at END, lease_owner = NULL, lease_until = $4 WHERE id = $1 AND lease_owner = $2 AND status = 'pending'";
const BY_KEY: &str = "SELECT id, conversation_id, target, kind, retry_key, line_key, payload, silent, due_at, status, request_key, attempts, first_attempt_at FROM outbox WHERE retry_key = $1";
const MIRROR_REMINDER: &str = "UPDATE reminder_deliveries SET status = $2 WHERE retry_key = $1 AND status IN ('pending', 'queued')";
const MIRROR_ALERT: &str = "UPDATE alert_deliveries SET status = $2, lease_owner = NULL WHERE retry_key = $1 AND status IN ('pending', 'queued')";
const MIRROR_DIGEST: &str = "UPDATE digest_deliveries SET status = $2, lease_owner = NULL WHERE retry_key = $1 AND status IN ('pending', 'queued')";
const TAKE_WITHHELD: &str = "UPDATE outbox SET status = 'held' WHERE conversation_id = $1 AND status = 'withheld' RETURNING id, payload, due_at";
const PENDING_COUNT: &str = "SELECT COUNT(*) FROM outbox WHERE status = 'pending'";

impl OutboxStore<'_> {
    /// Records items in the outbox, each with a fresh random retry key; an item already recorded
    /// (same occurrence) stays as it is, its first key with it.
    pub async fn record(self, items: &[NewOutboxItem<'_>], now_ms: i64) -> Result<(), StoreError> {
        db!(self.store, db => {
            transaction!(db, tx);
            for i in items {
                sqlx::query(RECORD)
                    .bind(i.conversation_id)
                    .bind(i.target)
                    .bind(i.kind)
                    .bind(i.occurrence)
                    .bind(i.payload)
                    .bind(i.silent)
                    .bind(i.due_at)
                    .bind(now_ms)
                    .bind(uuid::Uuid::new_v4().to_string())
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// The chats whose oldest unclaimed pending item is due at or before `oldest_by_ms` (the
    /// window has passed) and whose pending items were all recorded by `recorded_by_ms`, oldest
    /// first.
    pub async fn due_targets(
        self,
        now_ms: i64,
        oldest_by_ms: i64,
        recorded_by_ms: i64,
        limit: i64,
    ) -> Result<Vec<String>, StoreError> {
        let rows: Vec<(String,)> = db!(self.store, db => sqlx::query_as(DUE_TARGETS)
            .bind(now_ms)
            .bind(oldest_by_ms)
            .bind(limit)
            .bind(recorded_by_ms)
            .fetch_all(db)
            .await)?;
        Ok(rows.into_iter().map(|(t,)| t).collect())
    }

    /// When the oldest unclaimed pending item for `target` is due, if any.
    pub async fn oldest_due(self, target: &str, now_ms: i64) -> Result<Option<i64>, StoreError> {
        let row: Option<(Option<i64>,)> = db!(self.store, db => sqlx::query_as(OLDEST_DUE)
            .bind(target)
            .bind(now_ms)
            .fetch_optional(db)
            .await)?;
        Ok(row.and_then(|(at,)| at))
    }

    /// Claims every pending item for `target` due by `now_ms`, recorded by `recorded_by_ms`,
    /// that no one holds, until `lease_until_ms`, and returns what this claim took, oldest
    /// first. The claim is one statement that returns its own rows: two senders of one process
    /// claiming at the same instant (same owner, same lease end) cannot both take an item.
    /// Unlike the other claims (see [`super::lease`]) it skips no locked row: a chat's items go
    /// to one claimer together, so a second claimant waits and then finds them held.
    pub async fn claim(
        self,
        owner: &str,
        target: &str,
        now_ms: i64,
        lease_until_ms: i64,
        recorded_by_ms: i64,
    ) -> Result<Vec<OutboxItem>, StoreError> {
        let mut claimed: Vec<OutboxItem> = db!(self.store, db => sqlx::query_as(CLAIM)
            .bind(owner)
            .bind(lease_until_ms)
            .bind(target)
            .bind(now_ms)
            .bind(recorded_by_ms)
            .fetch_all(db)
            .await)?;
        // PostgreSQL returns updated rows in no particular order.
        claimed.sort_by_key(|item| item.id);
        Ok(claimed)
    }

    /// Fixes the request a claimed item goes in (only before its first attempt).
    pub async fn set_request(
        self,
        owner: &str,
        id: i64,
        request_key: &str,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(SET_REQUEST)
            .bind(id)
            .bind(owner)
            .bind(request_key)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// Gives a claimed item back, not to be pushed before `due_at_ms` (quiet hours).
    pub async fn defer(self, owner: &str, id: i64, due_at_ms: i64) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(DEFER)
            .bind(id)
            .bind(owner)
            .bind(due_at_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// Settles claimed items for good (`sent`, `held`, `failed`, `abandoned`) and mirrors the
    /// outcome onto their source records, in one transaction.
    pub async fn settle(
        self,
        owner: &str,
        items: &[&OutboxItem],
        status: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => {
            transaction!(db, tx);
            for item in items {
                sqlx::query(SETTLE)
                    .bind(item.id)
                    .bind(owner)
                    .bind(status)
                    .bind(now_ms)
                    .execute(&mut *tx)
                    .await?;
                let (mirror, mirrored) = match item.kind.as_str() {
                    "reminder" => (MIRROR_REMINDER, status),
                    "alert" => (MIRROR_ALERT, status),
                    // A digest has no "abandoned": it failed.
                    _ => (MIRROR_DIGEST, if status == "abandoned" { "failed" } else { status }),
                };
                sqlx::query(mirror).bind(&item.retry_key).bind(mirrored).execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// Gives claimed items back after an attempt that failed, to be tried again (with the same
    /// request and key) not before `retry_at_ms`. Only an attempt that `may_have_reached` LINE
    /// (its outcome unknown) counts as one: the first such attempt starts the time after which
    /// the item is abandoned rather than sent again; one LINE surely refused (rate limited, or
    /// hearth's channel refused) leaves the item as if never tried.
    pub async fn retry(
        self,
        owner: &str,
        items: &[&OutboxItem],
        now_ms: i64,
        retry_at_ms: i64,
        may_have_reached: bool,
    ) -> Result<(), StoreError> {
        db!(self.store, db => {
            transaction!(db, tx);
            for item in items {
                sqlx::query(RETRY)
                    .bind(item.id)
                    .bind(owner)
                    .bind(now_ms)
                    .bind(retry_at_ms)
                    .bind(i64::from(may_have_reached))
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// Takes the items withheld from `conversation_id` while it was not served, each once (they
    /// are held now, to be told with its next reply): id, payload and when each was due.
    pub async fn take_withheld(
        self,
        conversation_id: &str,
    ) -> Result<Vec<(i64, String, i64)>, StoreError> {
        let mut rows: Vec<(i64, String, i64)> = db!(self.store, db => sqlx::query_as(TAKE_WITHHELD)
            .bind(conversation_id)
            .fetch_all(db)
            .await)?;
        rows.sort_by_key(|(id, _, _)| *id);
        Ok(rows)
    }

    /// The item recorded for the occurrence `retry_key`, if any.
    pub async fn item(self, retry_key: &str) -> Result<Option<OutboxItem>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(BY_KEY).bind(retry_key).fetch_optional(db).await)?)
    }

    /// Items waiting in the outbox (all chats).
    pub async fn pending(self) -> Result<i64, StoreError> {
        let (n,): (i64,) =
            db!(self.store, db => sqlx::query_as(PENDING_COUNT).fetch_one(db).await)?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[tokio::test]
    async fn two_claims_by_one_process_at_one_instant_take_an_item_once() {
        let store = Store::in_memory().await.expect("store");
        let items: Vec<NewOutboxItem<'_>> = ["k1", "k2"]
            .iter()
            .map(|key| NewOutboxItem {
                conversation_id: "Umom",
                target: "Umom",
                kind: "reminder",
                occurrence: key,
                payload: "[]",
                silent: false,
                due_at: 10,
            })
            .collect();
        store.outbox().record(&items, 10).await.expect("record");
        let (first, second) = tokio::join!(
            store.outbox().claim("me", "Umom", 10, 100, 10),
            store.outbox().claim("me", "Umom", 10, 100, 10)
        );
        let (first, second) = (first.expect("claim"), second.expect("claim"));
        assert_eq!(first.len() + second.len(), 2, "each item taken once: {first:?} {second:?}");
        let taken = if first.is_empty() { &second } else { &first };
        assert_eq!(taken.iter().map(|i| i.retry_key.as_str()).collect::<Vec<_>>(), ["k1", "k2"]);
        assert!(store.outbox().claim("me", "Umom", 10, 100, 10).await.expect("claim").is_empty());
    }
}
