//! What the store keeps for Taiwan's official alerts: each CAP document once, by its identifier
//! (an unreadable one too, so it is not fetched again), with the thread it belongs to and
//! whether it was dispatched to the chats; the feed's validators and the lease of the one
//! replica that reads it; the chats that follow the alerts; and what each chat was told
//! (keyed by chat and identifier, so a chat is told of an alert once).

use super::{OfficialAlertStore, StoreError};
use crate::platform::i18n::Lang;

row! {
    /// A kept alert.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct OfficialAlertRow {
        /// Its CAP identifier.
        pub identifier: String,
        /// The identifier of the first alert of its thread.
        pub thread: String,
        /// What kind of alert (suspension, typhoon, rain, earthquake; other, unreadable).
        pub kind: String,
        /// Alert, Update, Cancel.
        pub msg_type: String,
        /// When it was sent, Unix ms.
        pub sent_at: i64,
        /// When it expires, Unix ms.
        pub expires_at: Option<i64>,
        /// The alert as read (JSON); none for one that could not be read.
        pub alert: Option<String>,
    }
}

row! {
    /// A chat that follows the alerts.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct FollowRow {
        /// The chat.
        pub conversation_id: String,
        /// The place it asked about, if it named one.
        pub place: Option<String>,
        /// The language of its cards.
        pub lang: Lang,
        /// The lowest earthquake intensity it is told of (1–7).
        pub min_intensity: i64,
        /// Quiet hours hold even urgent alerts.
        pub quiet_holds_urgent: bool,
    }
}

/// What was told to a chat.
#[derive(Debug, Clone)]
pub struct ToldRow<'a> {
    /// The chat.
    pub conversation_id: &'a str,
    /// The alert.
    pub identifier: &'a str,
    /// Its thread.
    pub thread: &'a str,
    /// The sentence told.
    pub statement: &'a str,
    /// As what (new, updated, cancelled, no_longer).
    pub told: &'a str,
}

const FEED_ROW: &str =
    "INSERT INTO public_alert_feed (id, lease_until) VALUES (1, 0) ON CONFLICT (id) DO NOTHING";
const CLAIM_FEED: &str = "UPDATE public_alert_feed SET lease_owner = $1, lease_until = $2 WHERE id = 1 AND (lease_owner = $1 OR lease_until <= $3) RETURNING etag, last_modified";
const SAVE_FEED: &str = "UPDATE public_alert_feed SET etag = $2, last_modified = $3, polled_at = $4 WHERE id = 1 AND lease_owner = $1";
const READ_AT: &str = "SELECT polled_at FROM public_alert_feed WHERE id = 1";
const KNOWN: &str = "SELECT identifier FROM public_alerts WHERE fetched_at >= $1";
const KEEP: &str = "INSERT INTO public_alerts (identifier, thread, kind, msg_type, sent_at, expires_at, alert, fetched_at, dispatched_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (identifier) DO NOTHING";
const THREAD: &str = "SELECT thread FROM public_alerts WHERE identifier = $1";
const TO_DISPATCH: &str = "SELECT identifier, thread, kind, msg_type, sent_at, expires_at, alert FROM public_alerts WHERE dispatched_at IS NULL ORDER BY sent_at LIMIT CAST($1 AS BIGINT)";
const DISPATCHED: &str = "UPDATE public_alerts SET dispatched_at = $2 WHERE identifier = $1";
const SENT_SINCE: &str = "SELECT identifier, thread, kind, msg_type, sent_at, expires_at, alert FROM public_alerts WHERE sent_at >= $1 AND alert IS NOT NULL ORDER BY sent_at";
const FOLLOW: &str = "INSERT INTO public_alert_follows (conversation_id, place, lang, min_intensity, quiet_holds_urgent, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (conversation_id) DO UPDATE SET place = excluded.place, lang = excluded.lang, min_intensity = excluded.min_intensity, quiet_holds_urgent = excluded.quiet_holds_urgent";
const FOLLOWING: &str = "SELECT conversation_id, place, lang, min_intensity, quiet_holds_urgent FROM public_alert_follows WHERE conversation_id = $1";
const FOLLOWERS: &str = "SELECT conversation_id, place, lang, min_intensity, quiet_holds_urgent FROM public_alert_follows ORDER BY conversation_id";
const UNFOLLOW: &str = "DELETE FROM public_alert_follows WHERE conversation_id = $1";
const IN_THREAD: &str = "SELECT statement FROM public_alert_told WHERE conversation_id = $1 AND thread = $2 ORDER BY told_at DESC, identifier DESC LIMIT 1";
const SAID_LATELY: &str = "SELECT COUNT(*) FROM public_alert_told WHERE conversation_id = $1 AND statement = $2 AND told_at >= $3";
const TELL: &str = "INSERT INTO public_alert_told (conversation_id, identifier, thread, statement, told, told_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (conversation_id, identifier) DO NOTHING";
const PRUNE_ALERTS: &str = "DELETE FROM public_alerts WHERE fetched_at < $1";
const PRUNE_TOLD: &str = "DELETE FROM public_alert_told WHERE told_at < $1";

/// An alert to keep.
#[derive(Debug, Clone)]
pub struct NewOfficialAlert<'a> {
    /// Its CAP identifier.
    pub identifier: &'a str,
    /// Its thread.
    pub thread: &'a str,
    /// Its kind.
    pub kind: &'a str,
    /// Its message type.
    pub msg_type: &'a str,
    /// Sent, Unix ms.
    pub sent_at: i64,
    /// Expires, Unix ms.
    pub expires_at: Option<i64>,
    /// The alert as read (JSON), or none.
    pub alert: Option<&'a str>,
    /// Now, Unix ms.
    pub now_ms: i64,
    /// Nothing is to be told of it (unreadable, another kind of event): kept as dispatched.
    pub settled: bool,
}

impl OfficialAlertStore<'_> {
    /// Takes (or renews) the lease on reading the feed for `owner` until `lease_until_ms`;
    /// the feed's validators when this process holds it, `None` when another does.
    pub async fn claim_feed(
        self,
        owner: &str,
        now_ms: i64,
        lease_until_ms: i64,
    ) -> Result<Option<(Option<String>, Option<String>)>, StoreError> {
        Ok(db!(self.store, db => {
            sqlx::query(FEED_ROW).execute(db).await?;
            sqlx::query_as(CLAIM_FEED).bind(owner).bind(lease_until_ms).bind(now_ms).fetch_optional(db).await
        })?)
    }

    /// Keeps the feed's validators after a read by `owner`.
    pub async fn save_feed(
        self,
        owner: &str,
        etag: Option<&str>,
        last_modified: Option<&str>,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(SAVE_FEED)
            .bind(owner).bind(etag).bind(last_modified).bind(now_ms)
            .execute(db).await.map(|_| ()))?;
        Ok(())
    }

    /// When the feed was last read in full, Unix ms.
    pub async fn feed_read_at(self) -> Result<Option<i64>, StoreError> {
        let row: Option<(Option<i64>,)> =
            db!(self.store, db => sqlx::query_as(READ_AT).fetch_optional(db).await)?;
        Ok(row.and_then(|(at,)| at))
    }

    /// The identifiers of the alerts fetched since `since_ms`.
    pub async fn known(
        self,
        since_ms: i64,
    ) -> Result<std::collections::HashSet<String>, StoreError> {
        let rows: Vec<(String,)> =
            db!(self.store, db => sqlx::query_as(KNOWN).bind(since_ms).fetch_all(db).await)?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }

    /// Keeps an alert; false when it was kept already.
    pub async fn keep(self, a: &NewOfficialAlert<'_>) -> Result<bool, StoreError> {
        let dispatched = a.settled.then_some(a.now_ms);
        let n = db!(self.store, db => sqlx::query(KEEP)
            .bind(a.identifier).bind(a.thread).bind(a.kind).bind(a.msg_type).bind(a.sent_at)
            .bind(a.expires_at).bind(a.alert).bind(a.now_ms).bind(dispatched)
            .execute(db).await.map(|r| r.rows_affected()))?;
        Ok(n > 0)
    }

    /// The thread of the first of `identifiers` that is kept.
    pub async fn thread(self, identifiers: &[String]) -> Result<Option<String>, StoreError> {
        for identifier in identifiers {
            let row: Option<(String,)> = db!(self.store, db => sqlx::query_as(THREAD)
                .bind(identifier).fetch_optional(db).await)?;
            if let Some((thread,)) = row {
                return Ok(Some(thread));
            }
        }
        Ok(None)
    }

    /// Alerts not yet dispatched to the chats, oldest first.
    pub async fn to_dispatch(self, limit: i64) -> Result<Vec<OfficialAlertRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(TO_DISPATCH).bind(limit).fetch_all(db).await)?)
    }

    /// Records that an alert was dispatched to every chat following.
    pub async fn dispatched(self, identifier: &str, now_ms: i64) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(DISPATCHED).bind(identifier).bind(now_ms)
            .execute(db).await.map(|_| ()))?;
        Ok(())
    }

    /// The readable alerts sent since `since_ms`, oldest first.
    pub async fn since(self, since_ms: i64) -> Result<Vec<OfficialAlertRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(SENT_SINCE).bind(since_ms).fetch_all(db).await)?)
    }

    /// Makes the chat follow the alerts (or changes how).
    pub async fn follow(self, f: &FollowRow, now_ms: i64) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(FOLLOW)
            .bind(&f.conversation_id).bind(&f.place).bind(f.lang.code())
            .bind(f.min_intensity).bind(f.quiet_holds_urgent).bind(now_ms)
            .execute(db).await.map(|_| ()))?;
        Ok(())
    }

    /// How the chat follows the alerts, if it does.
    pub async fn following(self, conversation_id: &str) -> Result<Option<FollowRow>, StoreError> {
        self.store.chats().chat_row(FOLLOWING, conversation_id).await
    }

    /// Every chat that follows the alerts.
    pub async fn followers(self) -> Result<Vec<FollowRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(FOLLOWERS).fetch_all(db).await)?)
    }

    /// Stops the chat following the alerts; false when it did not.
    pub async fn unfollow(self, conversation_id: &str) -> Result<bool, StoreError> {
        self.store.chats().delete_chat_row(UNFOLLOW, conversation_id).await
    }

    /// The last sentence the chat was told in `thread`, and whether `statement` was told to it
    /// since `lately_ms` (from any thread).
    pub async fn told_before(
        self,
        conversation_id: &str,
        thread: &str,
        statement: Option<&str>,
        lately_ms: i64,
    ) -> Result<(Option<String>, bool), StoreError> {
        let in_thread: Option<(String,)> = db!(self.store, db => sqlx::query_as(IN_THREAD)
            .bind(conversation_id).bind(thread).fetch_optional(db).await)?;
        let said = match statement {
            Some(s) => {
                let (n,): (i64,) = db!(self.store, db => sqlx::query_as(SAID_LATELY)
                    .bind(conversation_id).bind(s).bind(lately_ms).fetch_one(db).await)?;
                n > 0
            }
            None => false,
        };
        Ok((in_thread.map(|(s,)| s), said))
    }

    /// Records what the chat was told (once per chat and alert).
    pub async fn record_told(self, t: &ToldRow<'_>, now_ms: i64) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(TELL)
            .bind(t.conversation_id).bind(t.identifier).bind(t.thread).bind(t.statement)
            .bind(t.told).bind(now_ms)
            .execute(db).await.map(|_| ()))?;
        Ok(())
    }

    /// Deletes alerts fetched, and what was told, before `before_ms`.
    pub async fn prune(self, before_ms: i64) -> Result<u64, StoreError> {
        let mut n = 0;
        for sql in [PRUNE_ALERTS, PRUNE_TOLD] {
            n += db!(self.store, db => sqlx::query(sql).bind(before_ms).execute(db).await.map(|r| r.rows_affected()))?;
        }
        Ok(n)
    }
}
