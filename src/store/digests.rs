//! What the store keeps for the morning digest: one schedule per conversation ([`DigestRow`]) and
//! one delivery per conversation and local day ([`DigestDelivery`]).
//!
//! Each day is recorded once, whatever the number of processes: moving a digest's `next_at` on is
//! a compare-and-set on its old value, and the day's delivery is inserted in the same transaction
//! (keyed by conversation and day). Deliveries are then claimed under a lease like price-alert
//! deliveries: composed once (the payload is kept, so every attempt sends the same request),
//! pushed with a deterministic retry key, and finished fenced on the claim.

use super::{DigestStore, StoreError};
use crate::platform::i18n::Lang;

row! {
    /// A conversation's digest schedule.
    #[derive(Debug, Clone, PartialEq)]
    pub struct DigestRow {
        /// The conversation it is pushed to.
        pub conversation_id: String,
        /// Its local time, `HH:MM`.
        pub local_time: String,
        /// The zone of that time.
        pub tz: String,
        /// The place of the weather, as the family said it.
        pub place: Option<String>,
        /// The language of the card.
        pub lang: Lang,
        /// Skip a day with nothing to say beyond the weather.
        pub only_when_something: bool,
        /// The next instant it is due, Unix ms.
        pub next_at: i64,
    }
}

/// A digest to save (created, or changed in place).
#[derive(Debug, Clone)]
pub struct NewDigest<'a> {
    /// The conversation.
    pub conversation_id: &'a str,
    /// `HH:MM`.
    pub local_time: &'a str,
    /// IANA zone.
    pub tz: &'a str,
    /// The weather's place.
    pub place: Option<&'a str>,
    /// The card's language.
    pub lang: Lang,
    /// Skip days with nothing to say.
    pub only_when_something: bool,
    /// The first instant it is due, Unix ms.
    pub next_at: i64,
    /// Who asked.
    pub created_by: Option<&'a str>,
    /// Now, Unix ms.
    pub now_ms: i64,
}

text_enum! {
    /// What became of a day's digest (`digest_deliveries.status`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum DigestStatus {
        /// Recorded; not known to be sent yet.
        Pending => "pending",
        /// LINE accepted it.
        Sent => "sent",
        /// Nothing to say and the family asked for silence then.
        Skipped => "skipped",
        /// Not delivered for good (LINE refused it).
        Failed => "failed",
        /// The month's quota could not pay: kept for the chat's next reply.
        Held => "held",
        /// Handed to the outbox (waiting for quiet hours to end, or for the chat's other items
        /// due together), which records what became of it here.
        Queued => "queued",
        /// Not sent, not charged: the chat was not served when it was due (revoked).
        Withheld => "withheld",
    }
}

row! {
    /// A day's digest to compose and push.
    #[derive(Debug, Clone, PartialEq)]
    pub struct DigestDelivery {
        /// Where it goes.
        pub conversation_id: String,
        /// The local day, `YYYY-MM-DD`.
        pub day: String,
        /// When it was due, Unix ms.
        pub scheduled_for: i64,
        /// The retry key of every attempt.
        pub retry_key: String,
        /// The messages, once composed.
        pub payload: Option<String>,
    }
}

/// A day to record for a digest whose `next_at` moves on.
#[derive(Debug, Clone)]
pub struct DigestDay {
    /// The local day, `YYYY-MM-DD`.
    pub day: String,
    /// When it was due, Unix ms.
    pub scheduled_for: i64,
    /// The retry key of its pushes.
    pub retry_key: String,
}

const SAVE: &str = "INSERT INTO digests (conversation_id, local_time, tz, place, lang, only_when_something, next_at, created_by, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (conversation_id) DO UPDATE SET local_time = excluded.local_time, tz = excluded.tz, place = excluded.place, lang = excluded.lang, only_when_something = excluded.only_when_something, next_at = excluded.next_at, updated_at = excluded.updated_at";
const GET: &str = "SELECT conversation_id, local_time, tz, place, lang, only_when_something, next_at FROM digests WHERE conversation_id = $1";
const CANCEL: &str = "DELETE FROM digests WHERE conversation_id = $1";
const DUE: &str = "SELECT conversation_id, local_time, tz, place, lang, only_when_something, next_at FROM digests WHERE next_at <= $1 ORDER BY next_at LIMIT CAST($2 AS BIGINT)";
const ADVANCE: &str = "UPDATE digests SET next_at = $3 WHERE conversation_id = $1 AND next_at = $2";
const RECORD_DAY: &str = "INSERT INTO digest_deliveries (conversation_id, day, scheduled_for, retry_key) VALUES ($1, $2, $3, $4) ON CONFLICT (conversation_id, day) DO NOTHING";
const CLAIM: super::lease::ClaimSql = claim_sql!(
    table: "digest_deliveries",
    key: "conversation_id, day",
    due: "status = 'pending'",
    order: "scheduled_for",
    returning: "conversation_id, day, scheduled_for, retry_key, payload",
);
const KEEP_PAYLOAD: &str = "UPDATE digest_deliveries SET payload = $4 WHERE conversation_id = $1 AND day = $2 AND lease_owner = $3 AND payload IS NULL";
const FINISH: &str = "UPDATE digest_deliveries SET status = $4, attempts = attempts + 1, lease_owner = NULL, sent_at = $5 WHERE conversation_id = $1 AND day = $2 AND lease_owner = $3 AND status = 'pending'";
const RETRY: &str = "UPDATE digest_deliveries SET attempts = attempts + 1, lease_owner = NULL, lease_until = $4 WHERE conversation_id = $1 AND day = $2 AND lease_owner = $3 AND status = 'pending'";
const STATUS: &str = "SELECT status FROM digest_deliveries WHERE conversation_id = $1 AND day = $2";

impl DigestStore<'_> {
    /// Creates the conversation's digest, or changes the one it has.
    pub async fn save(self, d: &NewDigest<'_>) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(SAVE)
            .bind(d.conversation_id)
            .bind(d.local_time)
            .bind(d.tz)
            .bind(d.place)
            .bind(d.lang.code())
            .bind(d.only_when_something)
            .bind(d.next_at)
            .bind(d.created_by)
            .bind(d.now_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// The conversation's digest, if it has one.
    pub async fn get(self, conversation_id: &str) -> Result<Option<DigestRow>, StoreError> {
        self.store.chats().chat_row(GET, conversation_id).await
    }

    /// Stops the conversation's digest; false when it had none.
    pub async fn cancel(self, conversation_id: &str) -> Result<bool, StoreError> {
        self.store.chats().delete_chat_row(CANCEL, conversation_id).await
    }

    /// Up to `limit` digests due at `now_ms`, earliest first.
    pub async fn due(self, now_ms: i64, limit: i64) -> Result<Vec<DigestRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(DUE).bind(now_ms).bind(limit).fetch_all(db).await)?)
    }

    /// Moves a due digest on from `was` to `next_at` and, when `day` is given, records that
    /// day's delivery, in one transaction. False when another process moved it first (nothing is
    /// recorded then).
    pub async fn advance(
        self,
        conversation_id: &str,
        was: i64,
        next_at: i64,
        day: Option<&DigestDay>,
    ) -> Result<bool, StoreError> {
        let moved = db!(self.store, db => {
            transaction!(db, tx);
            let moved = sqlx::query(ADVANCE)
                .bind(conversation_id)
                .bind(was)
                .bind(next_at)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                == 1;
            if let (true, Some(day)) = (moved, day) {
                sqlx::query(RECORD_DAY)
                    .bind(conversation_id)
                    .bind(&day.day)
                    .bind(day.scheduled_for)
                    .bind(&day.retry_key)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            moved
        });
        Ok(moved)
    }

    /// Claims the pending digest deliveries whose earlier claim or wait is over, until
    /// `lease_until_ms`.
    pub async fn claim_deliveries(
        self,
        owner: &str,
        now_ms: i64,
        lease_until_ms: i64,
    ) -> Result<Vec<DigestDelivery>, StoreError> {
        let lease = super::Lease { owner, now_ms, until_ms: lease_until_ms };
        self.store.claim(&CLAIM, lease, i64::MAX, &[]).await
    }

    /// Keeps the composed `payload` of a claimed delivery that had none; false when the claim
    /// was lost or a payload is kept already.
    pub async fn keep_payload(
        self,
        owner: &str,
        d: &DigestDelivery,
        payload: &str,
    ) -> Result<bool, StoreError> {
        let n = db!(self.store, db => sqlx::query(KEEP_PAYLOAD)
            .bind(&d.conversation_id)
            .bind(&d.day)
            .bind(owner)
            .bind(payload)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }

    /// Records the outcome of a delivery `owner` claimed: a final `status`, or (with `None`) a
    /// retry not before `retry_at_ms`.
    pub async fn finish_delivery(
        self,
        owner: &str,
        d: &DigestDelivery,
        status: Option<DigestStatus>,
        now_ms: i64,
        retry_at_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => {
            let query = match status {
                Some(status) => sqlx::query(FINISH)
                    .bind(&d.conversation_id)
                    .bind(&d.day)
                    .bind(owner)
                    .bind(status)
                    .bind((status == DigestStatus::Sent).then_some(now_ms)),
                None => sqlx::query(RETRY)
                    .bind(&d.conversation_id)
                    .bind(&d.day)
                    .bind(owner)
                    .bind(retry_at_ms),
            };
            query.execute(db).await.map(|_| ())
        })?;
        Ok(())
    }

    /// What became of the conversation's digest of `day`, if one was recorded.
    pub async fn status(
        self,
        conversation_id: &str,
        day: &str,
    ) -> Result<Option<DigestStatus>, StoreError> {
        let row: Option<(DigestStatus,)> = db!(self.store, db => sqlx::query_as(STATUS)
            .bind(conversation_id)
            .bind(day)
            .fetch_optional(db)
            .await)?;
        Ok(row.map(|(s,)| s))
    }
}
