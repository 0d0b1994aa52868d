//! What the store keeps of the family calendar (`crate::features::calendar`): a chat's events,
//! each with its times local to a zone and a rule of the reminders' kind
//! ([`Recurrence`], in the same columns), and the members' private feeds of them. A cancelled
//! event is kept (its `cancelled_at` set) so a phone's calendar is told; both tables carry a
//! `conversation_id`, so forgetting the chat takes them.

use sqlx::FromRow;

use super::{CalendarStore, Recurrence, StoreError};

/// The most events a chat keeps that are not cancelled.
pub const MAX_EVENTS: usize = 500;

/// An event as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct EventRow {
    /// Its number in the chat's list.
    pub id: i64,
    /// The chat.
    pub conversation_id: String,
    /// What a phone's calendar knows it by.
    pub uid: String,
    /// What it is.
    pub title: String,
    /// The IANA zone its times are in.
    pub tz: String,
    /// "YYYY-MM-DD" (all day) or "YYYY-MM-DDTHH:MM".
    pub starts_local: String,
    /// The same form, or `None` (one day; no end time).
    pub ends_local: Option<String>,
    /// Where.
    pub place: String,
    /// Who is going.
    pub people: String,
    /// Anything else said of it.
    pub notes: String,
    /// How it repeats (the columns `freq` to `days_before`).
    pub rule: Recurrence,
    /// Bumped at every change (RFC 5545's `SEQUENCE`).
    pub sequence: i64,
    /// Who added it.
    pub created_by: String,
    /// Its last change (Unix ms).
    pub updated_at: i64,
    /// When it was cancelled (Unix ms), if it was.
    pub cancelled_at: Option<i64>,
    /// The local dates a repeating event does not happen on (one time called off),
    /// space-separated "YYYY-MM-DD".
    pub skipped: String,
}

impl<'r, R: sqlx::Row> FromRow<'r, R> for EventRow
where
    &'r str: sqlx::ColumnIndex<R>,
    Recurrence: FromRow<'r, R>,
    i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<i64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        Ok(Self {
            id: row.try_get("id")?,
            conversation_id: row.try_get("conversation_id")?,
            uid: row.try_get("uid")?,
            title: row.try_get("title")?,
            tz: row.try_get("tz")?,
            starts_local: row.try_get("starts_local")?,
            ends_local: row.try_get("ends_local")?,
            place: row.try_get("place")?,
            people: row.try_get("people")?,
            notes: row.try_get("notes")?,
            rule: Recurrence::from_row(row)?,
            sequence: row.try_get("sequence")?,
            created_by: row.try_get("created_by")?,
            updated_at: row.try_get("updated_at")?,
            cancelled_at: row.try_get("cancelled_at")?,
            skipped: row.try_get("skipped")?,
        })
    }
}

/// An event to keep, or what an event becomes when it moves.
#[derive(Debug, Clone, Copy)]
pub struct NewEvent<'a> {
    /// The chat.
    pub conversation_id: &'a str,
    /// Its UID (a new one for a new event).
    pub uid: &'a str,
    /// What it is.
    pub title: &'a str,
    /// The zone.
    pub tz: &'a str,
    /// When it starts.
    pub starts_local: &'a str,
    /// When it ends.
    pub ends_local: Option<&'a str>,
    /// Where.
    pub place: &'a str,
    /// Who.
    pub people: &'a str,
    /// Notes.
    pub notes: &'a str,
    /// How it repeats.
    pub rule: Recurrence,
    /// Who added or moved it.
    pub by: &'a str,
    /// Now (Unix ms).
    pub at_ms: i64,
}

/// The columns of an [`EventRow`], in its order.
macro_rules! event_columns {
    () => {
        "id, conversation_id, uid, title, tz, starts_local, ends_local, place, people, notes, freq, every_n, weekdays, month_day, until_ms, max_count, lunar_days, lunar_month, lunar_leap, days_before, sequence, created_by, updated_at, cancelled_at, skipped"
    };
}

/// Binds what an event is (`$3` to `$19` of [`ADD`] and [`MOVE`]): its title, zone, times,
/// place, people, notes and rule.
macro_rules! event_fields {
    ($query:expr, $e:expr, $rule:expr) => {
        $query
            .bind($e.title)
            .bind($e.tz)
            .bind($e.starts_local)
            .bind($e.ends_local)
            .bind($e.place)
            .bind($e.people)
            .bind($e.notes)
            .bind($rule.freq)
            .bind($rule.every_n)
            .bind($rule.weekdays)
            .bind($rule.month_day)
            .bind($rule.until_ms)
            .bind($rule.max_count)
            .bind($rule.lunar_days)
            .bind($rule.lunar_month)
            .bind($rule.lunar_leap)
            .bind($rule.days_before)
    };
}

const ADD: &str = concat!(
    "INSERT INTO calendar_events (conversation_id, uid, title, tz, starts_local, ends_local, place, people, notes, freq, every_n, weekdays, month_day, until_ms, max_count, lunar_days, lunar_month, lunar_leap, days_before, created_by, created_at, updated_at) SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $21 WHERE (SELECT COUNT(*) FROM calendar_events WHERE conversation_id = $1 AND cancelled_at IS NULL) < $22 RETURNING ",
    event_columns!()
);
const MOVE: &str = concat!(
    "UPDATE calendar_events SET title = $3, tz = $4, starts_local = $5, ends_local = $6, place = $7, people = $8, notes = $9, freq = $10, every_n = $11, weekdays = $12, month_day = $13, until_ms = $14, max_count = $15, lunar_days = $16, lunar_month = $17, lunar_leap = $18, days_before = $19, sequence = sequence + 1, updated_at = $20 WHERE id = $1 AND conversation_id = $2 AND cancelled_at IS NULL RETURNING ",
    event_columns!()
);
const CANCEL: &str = concat!(
    "UPDATE calendar_events SET cancelled_at = $3, sequence = sequence + 1, updated_at = $3 WHERE id = $1 AND conversation_id = $2 AND cancelled_at IS NULL RETURNING ",
    event_columns!()
);
const SKIP: &str = concat!(
    "UPDATE calendar_events SET skipped = $4, sequence = sequence + 1, updated_at = $5 WHERE id = $1 AND conversation_id = $2 AND cancelled_at IS NULL AND skipped = $3 RETURNING ",
    event_columns!()
);
const GET: &str = concat!(
    "SELECT ",
    event_columns!(),
    " FROM calendar_events WHERE id = $1 AND conversation_id = $2"
);
const LIVE: &str = concat!(
    "SELECT ",
    event_columns!(),
    " FROM calendar_events WHERE conversation_id = $1 AND cancelled_at IS NULL ORDER BY id"
);
const IN_FEED: &str = concat!(
    "SELECT ",
    event_columns!(),
    " FROM calendar_events WHERE conversation_id = $1 AND (cancelled_at IS NULL OR cancelled_at > $2) ORDER BY id"
);
const KEEP_FEED: &str = "INSERT INTO calendar_feeds (token_hash, conversation_id, user_id, salt, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (conversation_id, user_id) DO NOTHING";
const FEED_OF_MEMBER: &str =
    "SELECT token_hash, salt FROM calendar_feeds WHERE conversation_id = $1 AND user_id = $2";
const REHASH_FEED: &str =
    "UPDATE calendar_feeds SET token_hash = $3 WHERE conversation_id = $1 AND user_id = $2";
const FEED: &str = "SELECT conversation_id, user_id FROM calendar_feeds WHERE token_hash = $1";
const END_FEED: &str = "DELETE FROM calendar_feeds WHERE conversation_id = $1 AND user_id = $2";
const LINK_REMINDER: &str = "INSERT INTO event_reminders (event_id, reminder_id, conversation_id, minutes_before) VALUES ($1, $2, $3, $4) ON CONFLICT (event_id, minutes_before) DO UPDATE SET reminder_id = excluded.reminder_id";
const LINKED: &str = "SELECT reminder_id, minutes_before FROM event_reminders WHERE event_id = $1 AND conversation_id = $2 ORDER BY minutes_before";
const FORGET_CANCELLED: &str = "DELETE FROM calendar_events WHERE cancelled_at IS NOT NULL AND cancelled_at < $1 AND id NOT IN (SELECT event_id FROM caldav_objects)";
const UNLINK: &str = "DELETE FROM event_reminders WHERE event_id = $1 AND conversation_id = $2";

impl CalendarStore<'_> {
    /// Keeps a new event; `None` when the chat already keeps [`MAX_EVENTS`].
    pub async fn add(self, e: &NewEvent<'_>) -> Result<Option<EventRow>, StoreError> {
        let rule = e.rule.columns();
        Ok(db!(self.store, db => event_fields!(sqlx::query_as(ADD)
            .bind(e.conversation_id)
            .bind(e.uid), e, rule)
            .bind(e.by)
            .bind(e.at_ms)
            .bind(super::capped::cap(MAX_EVENTS))
            .fetch_optional(db)
            .await)?)
    }

    /// Event `id` of the chat becomes `e` (its sequence bumped); `None` when the chat has no
    /// such event, or it was cancelled.
    pub async fn change(self, id: i64, e: &NewEvent<'_>) -> Result<Option<EventRow>, StoreError> {
        let rule = e.rule.columns();
        Ok(db!(self.store, db => event_fields!(sqlx::query_as(MOVE)
            .bind(id)
            .bind(e.conversation_id), e, rule)
            .bind(e.at_ms)
            .fetch_optional(db)
            .await)?)
    }

    /// Cancels event `id` of `conversation_id` at `at_ms`; the event as it was, or `None` when
    /// there is no such event or it was already cancelled.
    pub async fn cancel(
        self,
        conversation_id: &str,
        id: i64,
        at_ms: i64,
    ) -> Result<Option<EventRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(CANCEL)
            .bind(id)
            .bind(conversation_id)
            .bind(at_ms)
            .fetch_optional(db)
            .await)?)
    }

    /// The days event `id` of `conversation_id` does not happen on become `skipped` (its sequence
    /// bumped), if they still are `was`: `None` when they changed meanwhile, or the event is
    /// cancelled or not the chat's.
    pub async fn skip(
        self,
        conversation_id: &str,
        id: i64,
        (was, skipped): (&str, &str),
        at_ms: i64,
    ) -> Result<Option<EventRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(SKIP)
            .bind(id)
            .bind(conversation_id)
            .bind(was)
            .bind(skipped)
            .bind(at_ms)
            .fetch_optional(db)
            .await)?)
    }

    /// Event `id` of `conversation_id`, cancelled or not.
    pub async fn get(self, conversation_id: &str, id: i64) -> Result<Option<EventRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(GET)
            .bind(id)
            .bind(conversation_id)
            .fetch_optional(db)
            .await)?)
    }

    /// The chat's events that are not cancelled.
    pub async fn live(self, conversation_id: &str) -> Result<Vec<EventRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(LIVE)
            .bind(conversation_id)
            .fetch_all(db)
            .await)?)
    }

    /// What the chat's feed holds: its events, and those cancelled after `cancelled_since_ms`.
    pub async fn in_feed(
        self,
        conversation_id: &str,
        cancelled_since_ms: i64,
    ) -> Result<Vec<EventRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(IN_FEED)
            .bind(conversation_id)
            .bind(cancelled_since_ms)
            .fetch_all(db)
            .await)?)
    }

    /// The token's hash and the salt of `user_id`'s feed of `conversation_id`, if they have one.
    pub async fn feed_of(
        self,
        conversation_id: &str,
        user_id: &str,
    ) -> Result<Option<(String, String)>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(FEED_OF_MEMBER)
            .bind(conversation_id)
            .bind(user_id)
            .fetch_optional(db)
            .await)?)
    }

    /// `user_id`'s feed of `conversation_id` is known by `token_hash` from now on (its token is
    /// derived anew: the postback key changed).
    pub async fn rehash_feed(
        self,
        conversation_id: &str,
        user_id: &str,
        token_hash: &str,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(REHASH_FEED)
            .bind(conversation_id)
            .bind(user_id)
            .bind(token_hash)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// Keeps `user_id`'s feed of `conversation_id` with `salt`, by its token's hash, made at
    /// `at_ms`; false when they already had one (which stays).
    pub async fn keep_feed(
        self,
        conversation_id: &str,
        user_id: &str,
        token_hash: &str,
        salt: &str,
        at_ms: i64,
    ) -> Result<bool, StoreError> {
        let kept = db!(self.store, db => sqlx::query(KEEP_FEED)
            .bind(token_hash)
            .bind(conversation_id)
            .bind(user_id)
            .bind(salt)
            .bind(at_ms)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(kept > 0)
    }

    /// The chat and member of the feed of `token_hash`.
    pub async fn feed(self, token_hash: &str) -> Result<Option<(String, String)>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(FEED)
            .bind(token_hash)
            .fetch_optional(db)
            .await)?)
    }

    /// Ends `user_id`'s feed of `conversation_id`; whether there was one.
    pub async fn end_feed(self, conversation_id: &str, user_id: &str) -> Result<bool, StoreError> {
        let ended = db!(self.store, db => sqlx::query(END_FEED)
            .bind(conversation_id)
            .bind(user_id)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(ended > 0)
    }

    /// Notes that reminder `reminder_id` of `conversation_id` comes `minutes_before` event
    /// `event_id` (replacing one set for the same time before it).
    pub async fn link_reminder(
        self,
        conversation_id: &str,
        event_id: i64,
        reminder_id: i64,
        minutes_before: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(LINK_REMINDER)
            .bind(event_id)
            .bind(reminder_id)
            .bind(conversation_id)
            .bind(minutes_before)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// The reminders set before event `event_id` of `conversation_id`: `(reminder, minutes)`.
    pub async fn linked_reminders(
        self,
        conversation_id: &str,
        event_id: i64,
    ) -> Result<Vec<(i64, i64)>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(LINKED)
            .bind(event_id)
            .bind(conversation_id)
            .fetch_all(db)
            .await)?)
    }

    /// Forgets the events cancelled before `before_ms` that the calendar server no longer holds
    /// (one it still holds is deleted there first): how many.
    pub async fn forget_cancelled(self, before_ms: i64) -> Result<u64, StoreError> {
        Ok(db!(self.store, db => sqlx::query(FORGET_CANCELLED)
            .bind(before_ms)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?)
    }

    /// Forgets the reminders set before event `event_id` of `conversation_id`.
    pub async fn unlink_reminders(
        self,
        conversation_id: &str,
        event_id: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(UNLINK)
            .bind(event_id)
            .bind(conversation_id)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }
}
