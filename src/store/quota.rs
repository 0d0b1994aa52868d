//! LINE's monthly quota in the store: what each push cost per chat and month, LINE's readings,
//! the cached size of each chat and whether a user has hearth as a friend, the items held while
//! the month is out (delivered with the chat's next reply), and the chats warned this month.

use super::{QuotaStore, StoreError};

row! {
    /// LINE's quota as read for a month.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct QuotaReading {
        /// The limit (`None`: none).
        pub quota_limit: Option<i64>,
        /// What LINE said was used.
        pub used: i64,
        /// What hearth had recorded as spent when it read.
        pub recorded: i64,
        /// When it was read (Unix ms).
        pub read_at: i64,
        /// When LINE refused a push for the monthly limit, if it did (Unix ms).
        pub exhausted_at: Option<i64>,
    }
}

row! {
    /// What one chat's pushes cost in a month.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct ChatCost {
        /// The chat.
        pub conversation_id: String,
        /// Push requests.
        pub pushes: i64,
        /// Messages counted against the quota.
        pub cost: i64,
    }
}

row! {
    /// An item held while the month's quota was out.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct HeldPush {
        /// What it was, in one line.
        pub summary: String,
        /// When it was due (Unix ms).
        pub held_at: i64,
    }
}

const RECORD_COST: &str = "INSERT INTO push_costs (conversation_id, month, pushes, cost) VALUES ($1, $2, 1, $3) ON CONFLICT (conversation_id, month) DO UPDATE SET pushes = push_costs.pushes + 1, cost = push_costs.cost + excluded.cost";
const MONTH_COST: &str =
    "SELECT CAST(COALESCE(SUM(cost), 0) AS BIGINT) FROM push_costs WHERE month = $1";
const COST_BY_CHAT: &str = "SELECT conversation_id, pushes, cost FROM push_costs WHERE month = $1 ORDER BY cost DESC, conversation_id";
const SAVE_READING: &str = "INSERT INTO quota_readings (month, quota_limit, used, recorded, read_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (month) DO UPDATE SET quota_limit = excluded.quota_limit, used = excluded.used, recorded = excluded.recorded, read_at = excluded.read_at";
const MARK_EXHAUSTED: &str = "INSERT INTO quota_readings (month, quota_limit, used, recorded, read_at, exhausted_at) VALUES ($1, NULL, 0, 0, $2, $2) ON CONFLICT (month) DO UPDATE SET exhausted_at = COALESCE(quota_readings.exhausted_at, excluded.exhausted_at)";
const READING: &str = "SELECT quota_limit, used, recorded, read_at, exhausted_at FROM quota_readings WHERE month = $1";
const READING_COST_AND_HELD: &str = "SELECT r.quota_limit, r.used, r.recorded, r.read_at, r.exhausted_at, (SELECT CAST(COALESCE(SUM(cost), 0) AS BIGINT) FROM push_costs WHERE month = $1) AS spent, (SELECT CAST(COUNT(*) AS BIGINT) FROM (SELECT 1 AS one FROM held_pushes WHERE conversation_id = $2 UNION ALL SELECT 1 AS one FROM outbox WHERE conversation_id = $2 AND status = 'withheld') AS one_held) AS held FROM (SELECT 1 AS one) AS here LEFT JOIN quota_readings AS r ON r.month = $1";
const CHAT_SIZE: &str = "SELECT members, checked_at FROM chat_sizes WHERE conversation_id = $1";
const SAVE_CHAT_SIZE: &str = "INSERT INTO chat_sizes (conversation_id, members, checked_at) VALUES ($1, $2, $3) ON CONFLICT (conversation_id) DO UPDATE SET members = excluded.members, checked_at = excluded.checked_at";
const FRIEND: &str = "SELECT is_friend, checked_at FROM friends WHERE conversation_id = $1";
const SAVE_FRIEND: &str = "INSERT INTO friends (conversation_id, is_friend, checked_at) VALUES ($1, $2, $3) ON CONFLICT (conversation_id) DO UPDATE SET is_friend = excluded.is_friend, checked_at = excluded.checked_at";
const HOLD: &str =
    "INSERT INTO held_pushes (conversation_id, summary, held_at) VALUES ($1, $2, $3)";
const TAKE_HELD: &str =
    "DELETE FROM held_pushes WHERE conversation_id = $1 RETURNING id, summary, held_at";
const HELD_COUNT: &str = "SELECT COUNT(*) FROM held_pushes";
const WARN: &str = "INSERT INTO quota_warnings (conversation_id, month) VALUES ($1, $2) ON CONFLICT (conversation_id, month) DO NOTHING";
const WARNED: &str =
    "SELECT conversation_id FROM quota_warnings WHERE conversation_id = $1 AND month = $2";
const HAS_SCHEDULED: &str = "SELECT (SELECT COUNT(*) FROM reminders WHERE (conversation_id = $1 OR deliver_to = $1) AND status = 'active' AND next_fire_at IS NOT NULL) + (SELECT COUNT(*) FROM price_alerts WHERE (conversation_id = $1 OR deliver_to = $1) AND status = 'active') + (SELECT COUNT(*) FROM digests WHERE conversation_id = $1)";

impl QuotaStore<'_> {
    /// Records one push into `conversation_id` costing `cost` in `month`.
    pub async fn record_push_cost(
        self,
        conversation_id: &str,
        month: &str,
        cost: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(RECORD_COST)
            .bind(conversation_id)
            .bind(month)
            .bind(cost)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// What hearth's pushes cost in `month`, all chats together.
    pub async fn month_cost(self, month: &str) -> Result<i64, StoreError> {
        let (spent,): (i64,) =
            db!(self.store, db => sqlx::query_as(MONTH_COST).bind(month).fetch_one(db).await)?;
        Ok(spent)
    }

    /// What each chat's pushes cost in `month`, the costliest first.
    pub async fn cost_by_chat(self, month: &str) -> Result<Vec<ChatCost>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(COST_BY_CHAT).bind(month).fetch_all(db).await)?)
    }

    /// Saves LINE's reading of `month` (a monthly-limit refusal already noted stays).
    pub async fn save_reading(
        self,
        month: &str,
        limit: Option<i64>,
        used: i64,
        recorded: i64,
        read_at: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(SAVE_READING)
            .bind(month)
            .bind(limit)
            .bind(used)
            .bind(recorded)
            .bind(read_at)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// Notes that LINE refused a push in `month` for the monthly limit.
    pub async fn mark_exhausted(self, month: &str, at_ms: i64) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(MARK_EXHAUSTED)
            .bind(month)
            .bind(at_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// LINE's last reading of `month`, if any.
    pub async fn reading(self, month: &str) -> Result<Option<QuotaReading>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(READING).bind(month).fetch_optional(db).await)?)
    }

    /// LINE's last reading of `month` (as [`crate::store::QuotaStore::reading`]), what hearth's
    /// pushes cost in it (as [`crate::store::QuotaStore::month_cost`]), and whether items are held
    /// for `conversation_id` (as [`crate::store::QuotaStore::take_held`] would find; none for
    /// `""`), in one statement: a turn reads them all, and items are rarely held.
    pub async fn month_and_held(
        self,
        month: &str,
        conversation_id: &str,
    ) -> Result<(Option<QuotaReading>, i64, bool), StoreError> {
        type Row = (Option<i64>, Option<i64>, Option<i64>, Option<i64>, Option<i64>, i64, i64);
        let row: Row = db!(self.store, db => sqlx::query_as(READING_COST_AND_HELD)
            .bind(month)
            .bind(conversation_id)
            .fetch_one(db)
            .await)?;
        let (quota_limit, used, recorded, read_at, exhausted_at, spent, held) = row;
        let reading = match (used, recorded, read_at) {
            (Some(used), Some(recorded), Some(read_at)) => {
                Some(QuotaReading { quota_limit, used, recorded, read_at, exhausted_at })
            }
            _ => None,
        };
        Ok((reading, spent, held > 0))
    }

    /// The cached member count of a group or room, with when it was checked.
    pub async fn chat_size(self, conversation_id: &str) -> Result<Option<(i64, i64)>, StoreError> {
        Ok(
            db!(self.store, db => sqlx::query_as(CHAT_SIZE).bind(conversation_id).fetch_optional(db).await)?,
        )
    }

    /// Caches the member count of a group or room.
    pub async fn save_chat_size(
        self,
        conversation_id: &str,
        members: i64,
        at_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(SAVE_CHAT_SIZE)
            .bind(conversation_id)
            .bind(members)
            .bind(at_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// Whether `user_id` has hearth as a friend, as cached, with when it was learned.
    pub async fn friend(self, user_id: &str) -> Result<Option<(bool, i64)>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(FRIEND).bind(user_id).fetch_optional(db).await)?)
    }

    /// Caches whether `user_id` has hearth as a friend.
    pub async fn save_friend(
        self,
        user_id: &str,
        is_friend: bool,
        at_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(SAVE_FRIEND)
            .bind(user_id)
            .bind(is_friend)
            .bind(at_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// Keeps an item that was due while the month's quota was out, for the chat's next reply.
    pub async fn hold_push(
        self,
        conversation_id: &str,
        summary: &str,
        held_at: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(HOLD)
            .bind(conversation_id)
            .bind(summary)
            .bind(held_at)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// Takes (and removes) the chat's held items, oldest first.
    pub async fn take_held(self, conversation_id: &str) -> Result<Vec<HeldPush>, StoreError> {
        let mut rows: Vec<(i64, String, i64)> = db!(self.store, db => sqlx::query_as(TAKE_HELD)
            .bind(conversation_id)
            .fetch_all(db)
            .await)?;
        rows.sort_by_key(|(id, _, _)| *id);
        Ok(rows.into_iter().map(|(_, summary, held_at)| HeldPush { summary, held_at }).collect())
    }

    /// How many items wait in all chats.
    pub async fn held_count(self) -> Result<i64, StoreError> {
        let (n,): (i64,) = db!(self.store, db => sqlx::query_as(HELD_COUNT).fetch_one(db).await)?;
        Ok(n)
    }

    /// Notes that the chat was warned in `month`; false if it already was.
    pub async fn note_warning(
        self,
        conversation_id: &str,
        month: &str,
    ) -> Result<bool, StoreError> {
        let n = db!(self.store, db => sqlx::query(WARN)
            .bind(conversation_id)
            .bind(month)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }

    /// True if the chat was warned in `month`.
    pub async fn warned(self, conversation_id: &str, month: &str) -> Result<bool, StoreError> {
        let row: Option<(String,)> = db!(self.store, db => sqlx::query_as(WARNED)
            .bind(conversation_id)
            .bind(month)
            .fetch_optional(db)
            .await)?;
        Ok(row.is_some())
    }

    /// True if pushes are scheduled to the chat: an active reminder set there or delivered
    /// there, an active price alert, or a daily digest.
    pub async fn has_scheduled_pushes(self, conversation_id: &str) -> Result<bool, StoreError> {
        let (n,): (i64,) = db!(self.store, db => sqlx::query_as(HAS_SCHEDULED).bind(conversation_id).fetch_one(db).await)?;
        Ok(n > 0)
    }
}
