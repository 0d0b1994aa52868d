//! What the store's TEXT columns hold, as types: rows are decoded into these enums at the store
//! boundary and written from them, so no caller compares a status or a name as a string. The
//! stored strings are exactly those the migrations document (`active`, `every_time`, …); the
//! enums name them, they do not change them. Each derives `sqlx::Type` as TEXT with snake_case
//! names, which SQLite and PostgreSQL read and write alike. The domain's own rules live beside
//! the domain (`Direction::target` in `crate::features::alerts::crossing`, the recurrence of [`Freq`] in
//! `crate::features::reminders::recurrence`); the stored language is `crate::platform::i18n::Lang`.

use serde::{Deserialize, Serialize};

/// Where a reminder is in its life (`reminders.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::Type)]
#[sqlx(type_name = "TEXT", rename_all = "snake_case")]
pub enum ReminderStatus {
    /// Waiting for its next occurrence.
    Active,
    /// Stopped until someone looks at it (LINE refused the target).
    Paused,
    /// The series is over.
    Done,
    /// Cancelled by the family.
    Cancelled,
}

impl ReminderStatus {
    /// True while the reminder is the family's to see and cancel (active or paused).
    pub fn is_live(self) -> bool {
        matches!(self, ReminderStatus::Active | ReminderStatus::Paused)
    }
}

/// Where a price alert is in its life (`price_alerts.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::Type)]
#[sqlx(type_name = "TEXT", rename_all = "snake_case")]
pub enum AlertStatus {
    /// Watching.
    Active,
    /// A once alert that fired.
    Triggered,
    /// Cancelled by the family.
    Cancelled,
}

/// What became of a recorded push (`reminder_deliveries.status`, `alert_deliveries.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::Type)]
#[sqlx(type_name = "TEXT", rename_all = "snake_case")]
pub enum DeliveryStatus {
    /// Recorded; no attempt has a known outcome yet.
    Pending,
    /// LINE accepted it.
    Sent,
    /// LINE refused it for good.
    Failed,
    /// The monthly quota was used up.
    FailedQuota,
    /// Due while the month's quota was out: kept for the chat's next reply.
    Held,
    /// An attempt of unknown outcome grew too old to repeat: given up, never resent.
    Abandoned,
    /// Handed to the outbox, which pushes it with the chat's other items due together and
    /// records what became of it here.
    Queued,
}

/// How often a reminder repeats (`reminders.freq`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::Type)]
#[sqlx(type_name = "TEXT", rename_all = "snake_case")]
pub enum Freq {
    /// Once, at the anchor.
    Once,
    /// Every `interval` days.
    Daily,
    /// Every `interval` weeks, on the chosen weekdays.
    Weekly,
    /// Every `interval` months, on a day of the month.
    Monthly,
    /// Every `interval` years, on the anchor's month and day.
    Yearly,
    /// Every lunar month, on the chosen lunar days (初一、十五).
    LunarMonthly,
    /// Every lunar year, on one lunar month and day (a lunar birthday).
    LunarYearly,
    /// Every workday of Taiwan's working calendar.
    Workdays,
}

/// Which way the price must go (`price_alerts.direction`; the same names in tool results).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "snake_case")]
#[sqlx(type_name = "TEXT", rename_all = "snake_case")]
pub enum Direction {
    /// Rises to (or through) the level.
    Up,
    /// Falls to (or through) the level.
    Down,
}

/// How often an alert fires (`price_alerts.frequency`; the same names in tool results).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "snake_case")]
#[sqlx(type_name = "TEXT", rename_all = "snake_case")]
pub enum Frequency {
    /// Once, then the alert is done.
    Once,
    /// Every real re-cross, at most once per cooldown.
    EveryTime,
}

/// Which side of the level (outside the dead band) the price is on (`price_alerts.last_side`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::Type)]
#[sqlx(type_name = "TEXT", rename_all = "snake_case")]
pub enum Side {
    /// At or above `level + band`.
    Above,
    /// At or below `level − band`.
    Below,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// Writes `value` through sqlx, reads it back as plain TEXT, and decodes `text` into `T`.
    async fn round_trip<T>(store: &Store, value: T, text: &str) -> (String, T)
    where
        T: for<'r> sqlx::Decode<'r, sqlx::Sqlite>
            + for<'q> sqlx::Encode<'q, sqlx::Sqlite>
            + sqlx::Type<sqlx::Sqlite>
            + Send
            + Unpin
            + 'static,
    {
        let crate::store::Backend::Sqlite(db) = &*store.backend else { unreachable!() };
        let (stored,): (String,) =
            sqlx::query_as("SELECT $1").bind(value).fetch_one(db).await.expect("encode");
        let (decoded,): (T,) =
            sqlx::query_as("SELECT $1").bind(text).fetch_one(db).await.expect("decode");
        (stored, decoded)
    }

    macro_rules! assert_stored_as {
        ($store:expr, $($value:expr => $text:literal),+ $(,)?) => {$(
            assert_eq!(round_trip(&$store, $value, $text).await, ($text.to_string(), $value));
        )+};
    }

    #[tokio::test]
    async fn statuses_are_stored_as_their_documented_strings() {
        let store = Store::in_memory().await.expect("store");
        assert_stored_as!(store,
            ReminderStatus::Active => "active",
            ReminderStatus::Paused => "paused",
            ReminderStatus::Done => "done",
            ReminderStatus::Cancelled => "cancelled",
            AlertStatus::Active => "active",
            AlertStatus::Triggered => "triggered",
            AlertStatus::Cancelled => "cancelled",
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Sent => "sent",
            DeliveryStatus::Failed => "failed",
            DeliveryStatus::FailedQuota => "failed_quota",
            DeliveryStatus::Held => "held",
            DeliveryStatus::Abandoned => "abandoned",
            DeliveryStatus::Queued => "queued",
        );
    }

    #[tokio::test]
    async fn rules_are_stored_as_their_documented_strings() {
        let store = Store::in_memory().await.expect("store");
        assert_stored_as!(store,
            Freq::Once => "once",
            Freq::Daily => "daily",
            Freq::Weekly => "weekly",
            Freq::Monthly => "monthly",
            Freq::Yearly => "yearly",
            Freq::LunarMonthly => "lunar_monthly",
            Freq::LunarYearly => "lunar_yearly",
            Freq::Workdays => "workdays",
            Direction::Up => "up",
            Direction::Down => "down",
            Frequency::Once => "once",
            Frequency::EveryTime => "every_time",
            Side::Above => "above",
            Side::Below => "below",
        );
    }

    #[tokio::test]
    async fn a_string_no_variant_names_is_a_decode_error_not_a_guess() {
        let store = Store::in_memory().await.expect("store");
        let crate::store::Backend::Sqlite(db) = &*store.backend else { unreachable!() };
        let read: Result<(Direction,), _> = sqlx::query_as("SELECT 'sideways'").fetch_one(db).await;
        assert!(read.is_err());
    }

    #[test]
    fn directions_and_frequencies_keep_their_names_in_tool_results() {
        let wire = serde_json::json!([Direction::Up, Direction::Down, Frequency::EveryTime]);
        assert_eq!(wire, serde_json::json!(["up", "down", "every_time"]));
    }

    #[test]
    fn only_active_and_paused_reminders_are_live() {
        use ReminderStatus::*;
        let live: Vec<_> =
            [Active, Paused, Done, Cancelled].into_iter().filter(|s| s.is_live()).collect();
        assert_eq!(live, [Active, Paused]);
    }
}
