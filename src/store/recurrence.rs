//! How a reminder repeats, as one value ([`Recurrence`]): the reminder tool builds it, the store
//! keeps it and the scheduler follows it. The store keeps it in nine integer columns of
//! `reminders` (`freq`, `every_n`, `weekdays`, `month_day`, `until_ms`, `max_count`,
//! `lunar_days`, `lunar_month`, `lunar_leap`); the conversion both ways lives here, once. A stored
//! value the rule cannot hold (a negative `every_n`, say) makes the row a decode error naming its
//! column, never a panic or a guess.

use jiff::Timestamp;
use sqlx::{FromRow, Row};

use super::Freq;

/// A lunar month: its number (1–12) and whether it is the leap month (閏) after that number.
/// The lunar calendar (`crate::sources::calendar::lunar`) works in it; a rule keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LunarMonth {
    /// 1–12.
    pub number: u8,
    /// The leap month that follows month `number`.
    pub leap: bool,
}

/// How a reminder repeats after its first occurrence (its anchor, kept beside the rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recurrence {
    /// How often.
    pub freq: Freq,
    /// Every `interval` units (≥ 1; always 1 for the lunar and workday rules).
    pub interval: u32,
    /// Weekly: the days, bit 0 = Monday … bit 6 = Sunday (0 means the anchor's weekday).
    pub weekdays: u8,
    /// Monthly: the day of the month, 1–31, or −1 for the last day (`None`: the anchor's day).
    pub month_day: Option<i8>,
    /// No occurrence after this instant.
    pub until: Option<Timestamp>,
    /// At most this many occurrences.
    pub count: Option<u32>,
    /// Lunar rules: the lunar days, bit 0 = 初一 … bit 29 = 三十 (yearly: exactly one).
    pub lunar_days: u32,
    /// Lunar yearly: the lunar month.
    pub lunar_month: Option<LunarMonth>,
    /// Lunar yearly: the reminder comes this many days before the lunar date (0: on it).
    pub days_before: u8,
}

impl Recurrence {
    /// No repetition: once, at the anchor.
    pub fn once() -> Self {
        Recurrence {
            freq: Freq::Once,
            interval: 1,
            weekdays: 0,
            month_day: None,
            until: None,
            count: None,
            lunar_days: 0,
            lunar_month: None,
            days_before: 0,
        }
    }

    /// The rule as the columns of `reminders` hold it (every statement that writes them binds
    /// these).
    pub(super) fn columns(self) -> RuleColumns {
        RuleColumns {
            freq: self.freq,
            every_n: i64::from(self.interval),
            weekdays: i64::from(self.weekdays),
            month_day: self.month_day.map(i64::from),
            until_ms: self.until.map(|until| until.as_millisecond()),
            max_count: self.count.map(i64::from),
            lunar_days: i64::from(self.lunar_days),
            lunar_month: self.lunar_month.map(|month| i64::from(month.number)),
            lunar_leap: i64::from(self.lunar_month.is_some_and(|month| month.leap)),
            days_before: i64::from(self.days_before),
        }
    }
}

row! {
    /// A [`Recurrence`] in the columns of `reminders`, named as they are.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) struct RuleColumns {
        /// `freq`.
        pub(super) freq: Freq,
        /// `every_n`: the interval.
        pub(super) every_n: i64,
        /// `weekdays`: the weekly day mask.
        pub(super) weekdays: i64,
        /// `month_day`: the day of the month (−1 = last).
        pub(super) month_day: Option<i64>,
        /// `until_ms`: the series' end, Unix ms.
        pub(super) until_ms: Option<i64>,
        /// `max_count`: the series' length.
        pub(super) max_count: Option<i64>,
        /// `lunar_days`: the lunar days mask.
        pub(super) lunar_days: i64,
        /// `lunar_month`: the lunar month's number.
        pub(super) lunar_month: Option<i64>,
        /// `lunar_leap`: 1 when that month is the leap month, else 0.
        pub(super) lunar_leap: i64,
        /// `days_before`: how many days before the lunar date a yearly lunar rule fires.
        pub(super) days_before: i64,
    }
}

impl RuleColumns {
    /// The rule these columns hold; [`sqlx::Error::ColumnDecode`] names the first column whose
    /// value the rule cannot hold.
    fn rule(self) -> Result<Recurrence, sqlx::Error> {
        let month_rule = |number: i64| -> Result<LunarMonth, sqlx::Error> {
            let leap = match self.lunar_leap {
                0 => false,
                1 => true,
                other => return Err(out_of_range("lunar_leap", other)),
            };
            Ok(LunarMonth { number: narrow("lunar_month", number)?, leap })
        };
        let instant =
            |ms: i64| Timestamp::from_millisecond(ms).map_err(|_| out_of_range("until_ms", ms));
        Ok(Recurrence {
            freq: self.freq,
            interval: narrow("every_n", self.every_n)?,
            weekdays: narrow("weekdays", self.weekdays)?,
            month_day: self.month_day.map(|day| narrow("month_day", day)).transpose()?,
            until: self.until_ms.map(instant).transpose()?,
            count: self.max_count.map(|count| narrow("max_count", count)).transpose()?,
            lunar_days: narrow("lunar_days", self.lunar_days)?,
            lunar_month: self.lunar_month.map(month_rule).transpose()?,
            days_before: narrow("days_before", self.days_before)?,
        })
    }
}

/// Reads the rule's columns by name, from a row of either backend.
impl<'r, R> FromRow<'r, R> for Recurrence
where
    R: Row,
    RuleColumns: FromRow<'r, R>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        RuleColumns::from_row(row)?.rule()
    }
}

/// A stored rule column whose value the rule cannot hold: the cause of the
/// [`sqlx::Error::ColumnDecode`] its row fails with.
#[derive(Debug, thiserror::Error)]
#[error("reminders.{column} holds {value}, which a reminder's rule cannot hold")]
struct OutOfRange {
    /// The column.
    column: &'static str,
    /// What it holds.
    value: i64,
}

/// The decode error of `column` holding `value`.
fn out_of_range(column: &'static str, value: i64) -> sqlx::Error {
    sqlx::Error::ColumnDecode {
        index: column.to_owned(),
        source: Box::new(OutOfRange { column, value }),
    }
}

/// `value` of `column` as the rule's narrower integer type.
fn narrow<T: TryFrom<i64>>(column: &'static str, value: i64) -> Result<T, sqlx::Error> {
    T::try_from(value).map_err(|_| out_of_range(column, value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn rules() -> Vec<Recurrence> {
        let until = Timestamp::from_millisecond(1_800_000_000_000).expect("instant");
        vec![
            Recurrence::once(),
            Recurrence { freq: Freq::Weekly, interval: 2, weekdays: 0b101, ..Recurrence::once() },
            Recurrence {
                freq: Freq::Monthly,
                month_day: Some(-1),
                until: Some(until),
                count: Some(12),
                ..Recurrence::once()
            },
            Recurrence { freq: Freq::LunarMonthly, lunar_days: 1 | 1 << 14, ..Recurrence::once() },
            Recurrence {
                freq: Freq::LunarYearly,
                lunar_days: 1 << 7,
                lunar_month: Some(LunarMonth { number: 4, leap: true }),
                ..Recurrence::once()
            },
            Recurrence { freq: Freq::Workdays, ..Recurrence::once() },
        ]
    }

    #[test]
    fn every_rule_comes_back_from_its_columns_unchanged() {
        for rule in rules() {
            assert_eq!(rule.columns().rule().expect("in range"), rule);
        }
    }

    #[test]
    fn the_columns_hold_the_documented_integers() {
        let birthday = rules()[4].columns();
        assert_eq!(
            (birthday.freq, birthday.lunar_days, birthday.lunar_month, birthday.lunar_leap),
            (Freq::LunarYearly, 1 << 7, Some(4), 1)
        );
        let last_day = rules()[2].columns();
        assert_eq!(
            (last_day.month_day, last_day.until_ms, last_day.max_count),
            (Some(-1), Some(1_800_000_000_000), Some(12))
        );
        let once = Recurrence::once().columns();
        let once = (once.every_n, once.weekdays, once.lunar_month, once.lunar_leap);
        assert_eq!(once, (1, 0, None, 0));
    }

    #[test]
    fn a_value_the_rule_cannot_hold_is_refused_naming_its_column() {
        let stored = Recurrence::once().columns();
        let lunar = rules()[4].columns();
        let bad = [
            ("every_n", RuleColumns { every_n: -1, ..stored }),
            ("weekdays", RuleColumns { weekdays: 256, ..stored }),
            ("month_day", RuleColumns { month_day: Some(200), ..stored }),
            ("until_ms", RuleColumns { until_ms: Some(i64::MAX), ..stored }),
            ("max_count", RuleColumns { max_count: Some(-5), ..stored }),
            ("lunar_days", RuleColumns { lunar_days: -1, ..stored }),
            ("lunar_month", RuleColumns { lunar_month: Some(300), ..lunar }),
            ("lunar_leap", RuleColumns { lunar_leap: 2, ..lunar }),
        ];
        for (column, columns) in bad {
            let refused = columns.rule();
            assert!(
                matches!(&refused, Err(sqlx::Error::ColumnDecode { index, .. }) if index == column),
                "{column}: {refused:?}"
            );
        }
    }

    #[tokio::test]
    async fn a_row_decodes_to_its_rule_and_an_out_of_range_column_is_a_decode_error() {
        const ROW: &str = "SELECT 'weekly' AS freq, $1 AS every_n, 5 AS weekdays, \
                           NULL AS month_day, NULL AS until_ms, 3 AS max_count, 0 AS lunar_days, \
                           NULL AS lunar_month, 0 AS lunar_leap, 0 AS days_before";
        let store = Store::in_memory().await.expect("store");
        let crate::store::Backend::Sqlite(db) = &*store.backend else { unreachable!() };
        let read: Recurrence = sqlx::query_as(ROW).bind(2i64).fetch_one(db).await.expect("read");
        assert_eq!(
            read,
            Recurrence {
                freq: Freq::Weekly,
                interval: 2,
                weekdays: 5,
                count: Some(3),
                ..Recurrence::once()
            }
        );
        let refused = sqlx::query_as::<_, Recurrence>(ROW).bind(-1i64).fetch_one(db).await;
        assert!(
            matches!(&refused, Err(sqlx::Error::ColumnDecode { index, .. }) if index == "every_n"),
            "{refused:?}"
        );
    }
}
