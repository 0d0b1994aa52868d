//! What the store keeps of the calendar's sync with the family's own calendar server
//! (`HEARTH_CALDAV_URL`): each chat's calendar there, claimed by one replica at a time under a
//! lease ([`super::lease::CALDAV_CALENDARS`]), and where each event is on the server with the
//! versions both sides last agreed on.

use super::calendar::EventRow;
use super::lease::Lease;
use super::{CalendarStore, StoreError};

row! {
    /// Where an event is on the calendar server, and the versions both sides last agreed on.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct SyncedObject {
        /// The event.
        pub event_id: i64,
        /// Its object's path on the server.
        pub href: String,
        /// The object's `ETag` then.
        pub etag: String,
        /// The event's `sequence` then.
        pub sequence: i64,
    }
}

const CALENDARS: &str = "INSERT INTO caldav_calendars (conversation_id) SELECT DISTINCT conversation_id FROM calendar_events WHERE true ON CONFLICT (conversation_id) DO NOTHING";
/// Every chat's calendar is due each round (its `ctag` says at once when nothing changed).
const CLAIM: super::lease::ClaimSql = claim_sql!(
    table: "caldav_calendars",
    key: "conversation_id",
    due: "true",
    order: "synced_at, conversation_id",
    returning: "conversation_id, ctag",
);
const SYNCED: &str = "UPDATE caldav_calendars SET ctag = $3, synced_at = $4, lease_owner = NULL, lease_until = 0 WHERE conversation_id = $1 AND lease_owner = $2";
const OBJECTS: &str = "SELECT event_id, href, etag, sequence FROM caldav_objects WHERE conversation_id = $1 ORDER BY event_id";
const KEEP_OBJECT: &str = "INSERT INTO caldav_objects (event_id, conversation_id, href, etag, sequence) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (event_id) DO UPDATE SET href = excluded.href, etag = excluded.etag, sequence = excluded.sequence";
const FORGET_OBJECTS: &str = "DELETE FROM caldav_objects WHERE conversation_id = $1";
const RETIRE_UID: &str = "UPDATE calendar_events SET uid = uid || '~' || CAST(id AS TEXT) WHERE conversation_id = $1 AND uid = $2 AND cancelled_at IS NOT NULL";
const DROP_OBJECT: &str = "DELETE FROM caldav_objects WHERE conversation_id = $1 AND event_id = $2";
const TO_SYNC: &str = concat!(
    "SELECT ",
    event_columns!(),
    " FROM calendar_events WHERE conversation_id = $1 AND (cancelled_at IS NULL OR id IN (SELECT event_id FROM caldav_objects WHERE conversation_id = $1)) ORDER BY id"
);

impl CalendarStore<'_> {
    /// Claims up to `limit` chats' calendars for `owner` until `until_ms` (every chat with
    /// events has one): each chat with its calendar's version at its last sync.
    pub async fn claim_sync(
        self,
        owner: &str,
        now_ms: i64,
        until_ms: i64,
        limit: i64,
    ) -> Result<Vec<(String, Option<String>)>, StoreError> {
        db!(self.store, db => sqlx::query(CALENDARS).execute(db).await.map(|_| ()))?;
        let lease = Lease { owner, now_ms, until_ms };
        self.store.claim(&CLAIM, lease, limit, &[]).await
    }

    /// Notes that `owner` synced `conversation_id`'s calendar at `now_ms`, leaving it at version
    /// `ctag`, and lets it go.
    pub async fn synced(
        self,
        conversation_id: &str,
        owner: &str,
        ctag: Option<&str>,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(SYNCED)
            .bind(conversation_id).bind(owner).bind(ctag).bind(now_ms)
            .execute(db).await.map(|_| ()))?;
        Ok(())
    }

    /// Where the chat's events are on the calendar server.
    pub async fn synced_objects(
        self,
        conversation_id: &str,
    ) -> Result<Vec<SyncedObject>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(OBJECTS)
            .bind(conversation_id)
            .fetch_all(db)
            .await)?)
    }

    /// Keeps where event `o.event_id` of `conversation_id` is on the server, and its versions.
    pub async fn keep_object(
        self,
        conversation_id: &str,
        o: &SyncedObject,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(KEEP_OBJECT)
            .bind(o.event_id).bind(conversation_id).bind(&o.href).bind(&o.etag).bind(o.sequence)
            .execute(db).await.map(|_| ()))?;
        Ok(())
    }

    /// Forgets where event `event_id` of `conversation_id` was on the server.
    pub async fn drop_object(self, conversation_id: &str, event_id: i64) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(DROP_OBJECT)
            .bind(conversation_id).bind(event_id)
            .execute(db).await.map(|_| ()))?;
        Ok(())
    }

    /// Forgets where every event of `conversation_id` was on the server (its calendar there was
    /// made again).
    pub async fn forget_objects(self, conversation_id: &str) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(FORGET_OBJECTS)
            .bind(conversation_id)
            .execute(db).await.map(|_| ()))?;
        Ok(())
    }

    /// A cancelled event of `conversation_id` known by `uid` gives it up (its `uid` gets its id
    /// appended), so an event calendars know by it can be added.
    pub async fn retire_uid(self, conversation_id: &str, uid: &str) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(RETIRE_UID)
            .bind(conversation_id).bind(uid)
            .execute(db).await.map(|_| ()))?;
        Ok(())
    }

    /// The chat's events a sync looks at: those not cancelled, and the cancelled ones still on
    /// the server.
    pub async fn to_sync(self, conversation_id: &str) -> Result<Vec<EventRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(TO_SYNC)
            .bind(conversation_id)
            .fetch_all(db)
            .await)?)
    }
}
