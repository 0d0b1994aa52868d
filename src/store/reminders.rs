//! Reminders in the store: creation, the conversation's list, cancel and snooze (always within
//! one conversation), and the scheduler's claim → prepare → finish cycle that makes each
//! occurrence go out once.

use sqlx::FromRow;

use super::{DeliveryStatus, Recurrence, ReminderStatus, ReminderStore, StoreError};

/// A stored reminder.
#[derive(Debug, Clone, PartialEq)]
pub struct ReminderRow {
    /// Its id.
    pub id: i64,
    /// The conversation it belongs to (and is pushed to).
    pub conversation_id: String,
    /// Who created it.
    pub created_by: Option<String>,
    /// In groups, who is @mentioned on delivery.
    pub mention_user_id: Option<String>,
    /// That member's display name.
    pub mention_name: Option<String>,
    /// What to remind about.
    pub text: String,
    /// IANA zone.
    pub tz: String,
    /// First occurrence, local `YYYY-MM-DDTHH:MM`.
    pub anchor_local: String,
    /// How it repeats (the columns `freq` to `days_before`).
    pub rule: Recurrence,
    /// Next occurrence (Unix ms); `None` when the series is over.
    pub next_fire_at: Option<i64>,
    /// Index of the next occurrence.
    pub next_occurrence: i64,
    /// Where it is in its life.
    pub status: ReminderStatus,
    /// The 1:1 chat it is pushed to instead of its own (a personal reminder set in a group).
    pub deliver_to: Option<String>,
    /// Fire times (Unix ms, space-separated) passed over without a push: an event's ⏰ before
    /// one time of it that was called off.
    pub skipped: String,
}

impl<'r, R: sqlx::Row> FromRow<'r, R> for ReminderRow
where
    &'r str: sqlx::ColumnIndex<R>,
    Recurrence: FromRow<'r, R>,
    i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<i64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    ReminderStatus: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        Ok(Self {
            id: row.try_get("id")?,
            conversation_id: row.try_get("conversation_id")?,
            created_by: row.try_get("created_by")?,
            mention_user_id: row.try_get("mention_user_id")?,
            mention_name: row.try_get("mention_name")?,
            text: row.try_get("text")?,
            tz: row.try_get("tz")?,
            anchor_local: row.try_get("anchor_local")?,
            rule: Recurrence::from_row(row)?,
            next_fire_at: row.try_get("next_fire_at")?,
            next_occurrence: row.try_get("next_occurrence")?,
            status: row.try_get("status")?,
            deliver_to: row.try_get("deliver_to")?,
            skipped: row.try_get("skipped")?,
        })
    }
}

impl ReminderRow {
    /// The chat its occurrences are pushed to.
    pub fn target(&self) -> &str {
        self.deliver_to.as_deref().unwrap_or(&self.conversation_id)
    }
}

/// A reminder to create.
#[derive(Debug, Clone)]
pub struct NewReminder<'a> {
    /// The conversation (from the tool context, never from arguments).
    pub conversation_id: &'a str,
    /// Who asked.
    pub created_by: Option<&'a str>,
    /// Who to @mention in a group.
    pub mention_user_id: Option<&'a str>,
    /// Their display name.
    pub mention_name: Option<&'a str>,
    /// What to remind about.
    pub text: &'a str,
    /// IANA zone.
    pub tz: &'a str,
    /// First occurrence, local `YYYY-MM-DDTHH:MM`.
    pub anchor_local: &'a str,
    /// How it repeats.
    pub rule: Recurrence,
    /// The first occurrence (Unix ms).
    pub first_fire_at: i64,
    /// Now (Unix ms).
    pub created_at: i64,
    /// The 1:1 chat to push it to instead of its own, if any.
    pub deliver_to: Option<&'a str>,
}

/// A reminder's rule after it was moved to another time (the 📅 button of its confirmation).
#[derive(Debug, Clone)]
pub struct MovedRule<'a> {
    /// The new first occurrence, local `YYYY-MM-DDTHH:MM`.
    pub anchor_local: &'a str,
    /// The moved rule: the stored one with its weekdays, day of the month and count (the
    /// occurrences left) changed. A move changes nothing else of it, so only those are written.
    pub rule: Recurrence,
    /// When it is next due (Unix ms).
    pub next_fire_at: i64,
}

/// A delivery about to be attempted.
#[derive(Debug, Clone)]
pub struct NewDelivery {
    /// The reminder.
    pub reminder_id: i64,
    /// The occurrence's instant (Unix ms).
    pub scheduled_for: i64,
    /// Where it goes.
    pub conversation_id: String,
    /// Deterministic `X-Line-Retry-Key`.
    pub retry_key: String,
    /// The rendered push body's messages (JSON).
    pub payload: String,
    /// Now (Unix ms).
    pub now_ms: i64,
}

row! {
    /// A delivery as stored: an earlier attempt's row wins over a new rendering.
    #[derive(Debug, Clone, PartialEq)]
    pub struct DeliveryRow {
        /// The reminder.
        pub reminder_id: i64,
        /// The occurrence's instant (Unix ms).
        pub scheduled_for: i64,
        /// The retry key of every attempt.
        pub retry_key: String,
        /// The payload of every attempt.
        pub payload: String,
        /// What became of it so far.
        pub status: DeliveryStatus,
        /// Attempts finished so far.
        pub attempts: i64,
        /// When the first attempt was prepared (Unix ms).
        pub first_attempt_at: i64,
    }
}

/// How one claimed reminder ends its turn in the scheduler.
#[derive(Debug, Clone)]
pub struct Finish {
    /// The reminder.
    pub reminder_id: i64,
    /// The occurrence handled (Unix ms), i.e. the claimed `next_fire_at`.
    pub claimed_fire_at: i64,
    /// The delivery status to record for `delivered_for`, if a delivery was attempted.
    pub delivery: Option<(i64, DeliveryStatus)>,
    /// The new `next_fire_at` and occurrence index (`None`: the series is over), or `Retry`.
    pub next: Next,
}

/// What happens to a reminder after a tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Next {
    /// Advance to this occurrence (Unix ms, index).
    At(i64, i64),
    /// The series is over.
    Done,
    /// Try the same occurrence again, not before this instant (Unix ms).
    Retry(i64),
    /// Stop until someone looks at it (LINE refused the target).
    Pause,
}

/// The columns a [`ReminderRow`] is read from, in every statement that returns one.
macro_rules! row_columns {
    () => {
        "id, conversation_id, created_by, mention_user_id, mention_name, text, tz, anchor_local, freq, every_n, weekdays, month_day, until_ms, max_count, lunar_days, lunar_month, lunar_leap, days_before, next_fire_at, next_occurrence, status, deliver_to, skipped"
    };
}

const INSERT: &str = concat!(
    "INSERT INTO reminders (conversation_id, created_by, mention_user_id, mention_name, text, tz, anchor_local, freq, every_n, weekdays, month_day, until_ms, max_count, next_fire_at, next_occurrence, status, created_at, lunar_days, lunar_month, lunar_leap, deliver_to, days_before) SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 0, 'active', $15, $17, $18, $19, $20, $21 WHERE (SELECT COUNT(*) FROM reminders WHERE conversation_id = $1 AND status IN ('active', 'paused')) < $16 RETURNING ",
    row_columns!()
);
const LIST: &str = concat!(
    "SELECT ",
    row_columns!(),
    " FROM reminders WHERE conversation_id = $1 AND status IN ('active', 'paused') ORDER BY next_fire_at, id"
);
const GET: &str = concat!(
    "SELECT ",
    row_columns!(),
    " FROM reminders WHERE id = $1 AND (conversation_id = $2 OR deliver_to = $2)"
);
const RENAME: &str = "UPDATE reminders SET text = $3 WHERE id = $1 AND conversation_id = $2 AND status IN ('active', 'paused')";
const PAUSE_BY_FAMILY: &str = "UPDATE reminders SET status = 'paused', lease_owner = NULL, lease_until = NULL WHERE id = $1 AND conversation_id = $2 AND status = 'active'";
const RESUME: &str = "UPDATE reminders SET status = 'active', next_fire_at = $3 WHERE id = $1 AND conversation_id = $2 AND status = 'paused'";
const CANCEL: &str = "UPDATE reminders SET status = 'cancelled', lease_owner = NULL, lease_until = NULL WHERE id = $1 AND (conversation_id = $2 OR deliver_to = $2) AND status IN ('active', 'paused')";
const SNOOZE: &str = "INSERT INTO reminders (conversation_id, created_by, mention_user_id, mention_name, text, tz, anchor_local, freq, every_n, weekdays, next_fire_at, next_occurrence, status, snooze_of, snooze_occurrence, created_at, deliver_to) SELECT conversation_id, created_by, mention_user_id, mention_name, text, tz, $3, 'once', 1, 0, $4, 0, 'active', id, $5, $6, deliver_to FROM reminders WHERE id = $1 AND (conversation_id = $2 OR deliver_to = $2) ON CONFLICT DO NOTHING RETURNING id";
const RESCHEDULE_OCCURRENCE: &str = "INSERT INTO reminders (conversation_id, created_by, mention_user_id, mention_name, text, tz, anchor_local, freq, every_n, weekdays, next_fire_at, next_occurrence, status, snooze_of, snooze_occurrence, created_at, deliver_to) SELECT conversation_id, created_by, mention_user_id, mention_name, text, tz, $3, 'once', 1, 0, $4, 0, 'active', id, $5, $6, deliver_to FROM reminders WHERE id = $1 AND (conversation_id = $2 OR deliver_to = $2) ON CONFLICT (snooze_of, snooze_occurrence) DO UPDATE SET anchor_local = excluded.anchor_local, next_fire_at = excluded.next_fire_at, next_occurrence = 0, status = 'active', lease_owner = NULL, lease_until = NULL RETURNING id";
const MOVE: &str = "UPDATE reminders SET anchor_local = $3, weekdays = $4, month_day = $5, max_count = $6, next_fire_at = $7, next_occurrence = 0, lease_owner = NULL, lease_until = NULL WHERE id = $1 AND (conversation_id = $2 OR deliver_to = $2) AND status IN ('active', 'paused')";
const PASS_OVER: &str = "UPDATE reminders SET skipped = $4 WHERE id = $1 AND conversation_id = $2 AND status IN ('active', 'paused') AND skipped = $3";
/// Finished copies of earlier occurrences no longer block a snooze of the moved series' first.
const DETACH_SNOOZES: &str =
    "UPDATE reminders SET snooze_occurrence = NULL WHERE snooze_of = $1 AND status <> 'active'";
const CLAIM: super::lease::ClaimSql = claim_sql!(
    table: "reminders",
    key: "id",
    due: "status = 'active' AND next_fire_at <= $3",
    order: "next_fire_at",
    returning: row_columns!(),
);
const PREPARE: &str = "INSERT INTO reminder_deliveries (reminder_id, scheduled_for, conversation_id, retry_key, payload, status, attempts, first_attempt_at) VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6) ON CONFLICT (reminder_id, scheduled_for) DO NOTHING";
const READ_DELIVERY: &str = "SELECT reminder_id, scheduled_for, retry_key, payload, status, attempts, first_attempt_at FROM reminder_deliveries WHERE reminder_id = $1 AND scheduled_for = $2";
const SET_DELIVERY: &str = "UPDATE reminder_deliveries SET status = $3, attempts = attempts + 1, sent_at = CASE WHEN $3 = 'sent' THEN $4 ELSE sent_at END WHERE reminder_id = $1 AND scheduled_for = $2 AND status = 'pending'";
const ADVANCE: &str = "UPDATE reminders SET next_fire_at = $4, next_occurrence = $5, last_fired_at = $6, status = $7, lease_owner = NULL, lease_until = NULL WHERE id = $1 AND next_fire_at = $2 AND lease_owner = $3";
const RETRY: &str = "UPDATE reminders SET lease_owner = NULL, lease_until = $4 WHERE id = $1 AND next_fire_at = $2 AND lease_owner = $3";
const PAUSE: &str = "UPDATE reminders SET status = 'paused', lease_owner = NULL, lease_until = NULL WHERE id = $1 AND next_fire_at = $2 AND lease_owner = $3";
const SCHEDULED: &str = concat!(
    "SELECT ",
    row_columns!(),
    " FROM reminders WHERE status = 'active' AND next_fire_at IS NOT NULL AND next_fire_at < $1 ORDER BY id LIMIT CAST($2 AS BIGINT)"
);
const FIND_MEMBER: &str = "SELECT user_id, display_name FROM members WHERE conversation_id = $1 AND (display_name = $2 OR display_name LIKE '%' || $2 || '%') ORDER BY display_name = $2 DESC, length(display_name) LIMIT 1";

impl ReminderStore<'_> {
    /// Creates a reminder; it is due at `first_fire_at`. [`StoreError::Full`] when the
    /// conversation already has [`super::MAX_REMINDERS`] (checked atomically in the insert
    /// itself).
    pub async fn create(self, r: &NewReminder<'_>) -> Result<ReminderRow, StoreError> {
        let rule = r.rule.columns();
        let row: Option<ReminderRow> = db!(self.store, db => {
            transaction!(db, tx);
            if let Some(lock) = self.store.conversation_lock() {
                sqlx::query(lock).bind(r.conversation_id).execute(&mut *tx).await?;
            }
            let row = sqlx::query_as(INSERT)
            .bind(r.conversation_id)
            .bind(r.created_by)
            .bind(r.mention_user_id)
            .bind(r.mention_name)
            .bind(r.text)
            .bind(r.tz)
            .bind(r.anchor_local)
            .bind(rule.freq)
            .bind(rule.every_n)
            .bind(rule.weekdays)
            .bind(rule.month_day)
            .bind(rule.until_ms)
            .bind(rule.max_count)
            .bind(r.first_fire_at)
            .bind(r.created_at)
            .bind(super::capped::cap(super::MAX_REMINDERS))
            .bind(rule.lunar_days)
            .bind(rule.lunar_month)
            .bind(rule.lunar_leap)
            .bind(r.deliver_to)
            .bind(rule.days_before)
            .fetch_optional(&mut *tx)
            .await?;
            tx.commit().await?;
            row
        });
        row.ok_or(StoreError::Full { what: "reminders", cap: super::MAX_REMINDERS })
    }

    /// The conversation's active and paused reminders, soonest first.
    pub async fn list(self, conversation_id: &str) -> Result<Vec<ReminderRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(LIST).bind(conversation_id).fetch_all(db).await)?)
    }

    /// One reminder of this conversation (another conversation's id finds nothing).
    pub async fn get(
        self,
        conversation_id: &str,
        id: i64,
    ) -> Result<Option<ReminderRow>, StoreError> {
        Ok(
            db!(self.store, db => sqlx::query_as(GET).bind(id).bind(conversation_id).fetch_optional(db).await)?,
        )
    }

    /// Cancels a reminder of this conversation; false if there was none to cancel.
    pub async fn cancel(self, conversation_id: &str, id: i64) -> Result<bool, StoreError> {
        let n = db!(self.store, db => sqlx::query(CANCEL)
            .bind(id)
            .bind(conversation_id)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }

    /// The fire times reminder `id` of `conversation_id` passes over become `skipped`
    /// (space-separated Unix ms), if they still are `was`; false when they changed meanwhile,
    /// or the reminder is over or not the chat's.
    pub async fn pass_over(
        self,
        conversation_id: &str,
        id: i64,
        (was, skipped): (&str, &str),
    ) -> Result<bool, StoreError> {
        let n = db!(self.store, db => sqlx::query(PASS_OVER)
            .bind(id)
            .bind(conversation_id)
            .bind(was)
            .bind(skipped)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }

    /// Schedules a one-off copy of occurrence `occurrence` of reminder `id` at `at_ms` (local
    /// `anchor_local`); `None` if that occurrence was already snoozed or the id is not here.
    pub async fn snooze(
        self,
        conversation_id: &str,
        id: i64,
        occurrence: i64,
        anchor_local: &str,
        at_ms: i64,
        now_ms: i64,
    ) -> Result<Option<i64>, StoreError> {
        self.copy_occurrence(SNOOZE, conversation_id, id, occurrence, anchor_local, at_ms, now_ms)
            .await
    }

    /// Moves occurrence `occurrence` of reminder `id` to `at_ms` (local `anchor_local`): a
    /// one-off copy, or its existing copy (a snooze) moved and made active again. The copy's
    /// id; `None` if the id is not this conversation's.
    pub async fn reschedule_occurrence(
        self,
        conversation_id: &str,
        id: i64,
        occurrence: i64,
        anchor_local: &str,
        at_ms: i64,
        now_ms: i64,
    ) -> Result<Option<i64>, StoreError> {
        self.copy_occurrence(
            RESCHEDULE_OCCURRENCE,
            conversation_id,
            id,
            occurrence,
            anchor_local,
            at_ms,
            now_ms,
        )
        .await
    }

    /// Runs `sql`, a statement that makes (or moves) the one-off copy of an occurrence, and
    /// returns the copy's id.
    #[allow(clippy::too_many_arguments)]
    async fn copy_occurrence(
        self,
        sql: &'static str,
        conversation_id: &str,
        id: i64,
        occurrence: i64,
        anchor_local: &str,
        at_ms: i64,
        now_ms: i64,
    ) -> Result<Option<i64>, StoreError> {
        let row: Option<(i64,)> = db!(self.store, db => sqlx::query_as(sql)
            .bind(id)
            .bind(conversation_id)
            .bind(anchor_local)
            .bind(at_ms)
            .bind(occurrence)
            .bind(now_ms)
            .fetch_optional(db)
            .await)?;
        Ok(row.map(|(id,)| id))
    }

    /// Changes the text of an active or paused reminder of this conversation; false if there
    /// was none.
    pub async fn rename(
        self,
        conversation_id: &str,
        id: i64,
        text: &str,
    ) -> Result<bool, StoreError> {
        let n = db!(self.store, db => sqlx::query(RENAME).bind(id).bind(conversation_id).bind(text)
            .execute(db).await.map(|r| r.rows_affected()))?;
        Ok(n > 0)
    }

    /// Pauses an active reminder of this conversation (nothing is pushed until it is resumed);
    /// false if there was none.
    pub async fn pause(self, conversation_id: &str, id: i64) -> Result<bool, StoreError> {
        let n = db!(self.store, db => sqlx::query(PAUSE_BY_FAMILY).bind(id).bind(conversation_id)
            .execute(db).await.map(|r| r.rows_affected()))?;
        Ok(n > 0)
    }

    /// Resumes a paused reminder of this conversation, next due at `next_fire_at`; false if
    /// there was none.
    pub async fn resume(
        self,
        conversation_id: &str,
        id: i64,
        next_fire_at: i64,
    ) -> Result<bool, StoreError> {
        let n = db!(self.store, db => sqlx::query(RESUME).bind(id).bind(conversation_id).bind(next_fire_at)
            .execute(db).await.map(|r| r.rows_affected()))?;
        Ok(n > 0)
    }

    /// Moves an active or paused reminder of this conversation to a new rule (`m`): it starts
    /// again from its new anchor, due at `m.next_fire_at`. False if there was none to move.
    pub async fn move_rule(
        self,
        conversation_id: &str,
        id: i64,
        m: &MovedRule<'_>,
    ) -> Result<bool, StoreError> {
        let rule = m.rule.columns();
        let moved = db!(self.store, db => {
            transaction!(db, tx);
            let n = sqlx::query(MOVE)
                .bind(id)
                .bind(conversation_id)
                .bind(m.anchor_local)
                .bind(rule.weekdays)
                .bind(rule.month_day)
                .bind(rule.max_count)
                .bind(m.next_fire_at)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            if n == 1 {
                sqlx::query(DETACH_SNOOZES).bind(id).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            n == 1
        });
        Ok(moved)
    }

    /// Claims up to `limit` due reminders for `owner` until `lease_until_ms` (see
    /// [`super::lease`]: replicas split the due rows between them).
    pub async fn claim_due(
        self,
        owner: &str,
        now_ms: i64,
        lease_until_ms: i64,
        limit: i64,
    ) -> Result<Vec<ReminderRow>, StoreError> {
        let lease = super::Lease { owner, now_ms, until_ms: lease_until_ms };
        self.store.claim(&CLAIM, lease, limit, &[]).await
    }

    /// Records the intent to deliver each of `deliveries` (an earlier row for the same occurrence
    /// is kept) and returns the rows as stored, in one transaction.
    pub async fn prepare_deliveries(
        self,
        deliveries: &[NewDelivery],
    ) -> Result<Vec<DeliveryRow>, StoreError> {
        if deliveries.is_empty() {
            return Ok(Vec::new());
        }
        Ok(db!(self.store, db => {
            transaction!(db, tx);
            let mut rows = Vec::with_capacity(deliveries.len());
            for d in deliveries {
                sqlx::query(PREPARE)
                    .bind(d.reminder_id)
                    .bind(d.scheduled_for)
                    .bind(&d.conversation_id)
                    .bind(&d.retry_key)
                    .bind(&d.payload)
                    .bind(d.now_ms)
                    .execute(&mut *tx)
                    .await?;
                let row: DeliveryRow = sqlx::query_as(READ_DELIVERY)
                    .bind(d.reminder_id)
                    .bind(d.scheduled_for)
                    .fetch_one(&mut *tx)
                    .await?;
                rows.push(row);
            }
            tx.commit().await?;
            rows
        }))
    }

    /// Records the outcome of a tick for each claimed reminder, in one transaction. Every update
    /// is fenced on the claimed occurrence and the owner, so a reminder another process took
    /// over is left alone.
    pub async fn finish(
        self,
        owner: &str,
        now_ms: i64,
        finishes: &[Finish],
    ) -> Result<(), StoreError> {
        db!(self.store, db => {
            transaction!(db, tx);
            for f in finishes {
                if let Some((scheduled_for, status)) = f.delivery {
                    sqlx::query(SET_DELIVERY)
                        .bind(f.reminder_id)
                        .bind(scheduled_for)
                        .bind(status)
                        .bind(now_ms)
                        .execute(&mut *tx)
                        .await?;
                }
                let query = match f.next {
                    Next::At(at, occurrence) => sqlx::query(ADVANCE)
                        .bind(f.reminder_id)
                        .bind(f.claimed_fire_at)
                        .bind(owner)
                        .bind(Some(at))
                        .bind(occurrence)
                        .bind(now_ms)
                        .bind(ReminderStatus::Active),
                    Next::Done => sqlx::query(ADVANCE)
                        .bind(f.reminder_id)
                        .bind(f.claimed_fire_at)
                        .bind(owner)
                        .bind(None::<i64>)
                        .bind(0i64)
                        .bind(now_ms)
                        .bind(ReminderStatus::Done),
                    Next::Retry(not_before) => sqlx::query(RETRY)
                        .bind(f.reminder_id)
                        .bind(f.claimed_fire_at)
                        .bind(owner)
                        .bind(not_before),
                    Next::Pause => sqlx::query(PAUSE)
                        .bind(f.reminder_id)
                        .bind(f.claimed_fire_at)
                        .bind(owner),
                };
                query.execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// A member of the conversation whose display name is (or contains) `name`.
    pub async fn find_member(
        self,
        conversation_id: &str,
        name: &str,
    ) -> Result<Option<(String, String)>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(FIND_MEMBER)
            .bind(conversation_id)
            .bind(name)
            .fetch_optional(db)
            .await)?)
    }

    /// Every conversation's active reminders due before `before_ms` (at most `limit`): what is
    /// scheduled to spend LINE's quota.
    pub async fn scheduled(
        self,
        before_ms: i64,
        limit: i64,
    ) -> Result<Vec<ReminderRow>, StoreError> {
        Ok(
            db!(self.store, db => sqlx::query_as(SCHEDULED).bind(before_ms).bind(limit).fetch_all(db).await)?,
        )
    }
}
