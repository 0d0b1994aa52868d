//! What the store's TEXT columns hold, as types: rows are decoded into these enums at the store
//! boundary and written from them, so no caller compares a status or a name as a string. The
//! stored strings are exactly those the migrations document (`active`, `every_time`, …); the
//! enums name them, they do not change them. Each derives `sqlx::Type` as TEXT with snake_case
//! names, which SQLite and PostgreSQL read and write alike. The domain's own rules live beside
//! the domain (`Direction::target` in `crate::features::price_alerts::crossing`, the recurrence of [`Freq`] in
//! `crate::features::reminders::recurrence`); the stored language is `crate::platform::i18n::Lang`.

use serde::{Deserialize, Serialize};

use super::columns::StoredText;
use crate::platform::i18n::Lang;

impl StoredText for Lang {
    fn text(&self) -> &'static str {
        self.code()
    }

    fn parse(text: &str) -> Option<Self> {
        Lang::from_code(text)
    }
}

text_column!(Lang);

text_enum! {
    /// Where a reminder is in its life (`reminders.status`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ReminderStatus {
        /// Waiting for its next occurrence.
        Active => "active",
        /// Stopped until someone looks at it (LINE refused the target).
        Paused => "paused",
        /// The series is over.
        Done => "done",
        /// Cancelled by the family.
        Cancelled => "cancelled",
    }
}

impl ReminderStatus {
    /// True while the reminder is the family's to see and cancel (active or paused).
    pub fn is_live(self) -> bool {
        matches!(self, ReminderStatus::Active | ReminderStatus::Paused)
    }
}

text_enum! {
    /// Where a care plan is in its life (`care_plans.status`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum CareStatus {
        /// Shown on its card, not started yet (✅ 開始).
        Draft => "draft",
        /// Asking its doses.
        Active => "active",
        /// Asking nothing until resumed.
        Paused => "paused",
    }
}

impl CareStatus {
    /// Its stored name, which the model and the export read too.
    pub fn as_str(self) -> &'static str {
        super::columns::StoredText::text(&self)
    }
}

text_enum! {
    /// Where a price alert is in its life (`price_alerts.status`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum AlertStatus {
        /// Watching.
        Active => "active",
        /// A once alert that fired.
        Triggered => "triggered",
        /// Cancelled by the family.
        Cancelled => "cancelled",
    }
}

text_enum! {
    /// What became of a recorded push (`reminder_deliveries.status`, `alert_deliveries.status`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum DeliveryStatus {
        /// Recorded; no attempt has a known outcome yet.
        Pending => "pending",
        /// LINE accepted it.
        Sent => "sent",
        /// LINE refused it for good.
        Failed => "failed",
        /// The monthly quota was used up.
        FailedQuota => "failed_quota",
        /// Due while the month's quota was out: kept for the chat's next reply.
        Held => "held",
        /// An attempt of unknown outcome grew too old to repeat: given up, never resent.
        Abandoned => "abandoned",
        /// Handed to the outbox, which pushes it with the chat's other items due together and
        /// records what became of it here.
        Queued => "queued",
        /// Not sent, not charged: the chat was not served when it was due (revoked).
        Withheld => "withheld",
    }
}

text_enum! {
    /// How often a reminder repeats (`reminders.freq`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Freq {
        /// Once, at the anchor.
        Once => "once",
        /// Every `interval` days.
        Daily => "daily",
        /// Every `interval` weeks, on the chosen weekdays.
        Weekly => "weekly",
        /// Every `interval` months, on a day of the month.
        Monthly => "monthly",
        /// Every `interval` years, on the anchor's month and day.
        Yearly => "yearly",
        /// Every lunar month, on the chosen lunar days (初一、十五).
        LunarMonthly => "lunar_monthly",
        /// Every lunar year, on one lunar month and day (a lunar birthday).
        LunarYearly => "lunar_yearly",
        /// Every workday of Taiwan's working calendar.
        Workdays => "workdays",
    }
}

text_enum! {
    /// Which way the price must go (`price_alerts.direction`; the same names in tool results).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Direction {
        /// Rises to (or through) the level.
        Up => "up",
        /// Falls to (or through) the level.
        Down => "down",
    }
}

impl Freq {
    /// Its name as stored (`weekly`, `lunar_yearly`…), which the tools' arguments use too.
    pub fn name(self) -> &'static str {
        self.text()
    }
}

text_enum! {
    /// How often an alert fires (`price_alerts.frequency`; the same names in tool results).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Frequency {
        /// Once, then the alert is done.
        Once => "once",
        /// Every real re-cross, at most once per cooldown.
        EveryTime => "every_time",
    }
}

text_enum! {
    /// Which side of the level (outside the dead band) the price is on (`price_alerts.last_side`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Side {
        /// At or above `level + band`.
        Above => "above",
        /// At or below `level − band`.
        Below => "below",
    }
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
            DeliveryStatus::Withheld => "withheld",
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
