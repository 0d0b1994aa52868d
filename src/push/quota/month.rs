//! The month a push counts in (LINE's quota is monthly), in the family's time zone.

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;

/// A calendar month, shown as `YYYY-MM` (the key of the stored per-month counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Month {
    /// The year.
    pub year: i16,
    /// The month, 1–12.
    pub month: i8,
}

impl Month {
    /// The month `at` falls in, in `tz`.
    pub fn of(at: Timestamp, tz: &TimeZone) -> Self {
        let date = at.to_zoned_datetime(tz.clone()).date();
        Self { year: date.year(), month: date.month() }
    }

    /// Its first day.
    fn first_day(self) -> Date {
        Date::new(self.year, self.month, 1).unwrap_or(Date::MIN)
    }

    /// The month after this one.
    pub fn next(self) -> Self {
        if self.month >= 12 {
            Self { year: self.year.saturating_add(1), month: 1 }
        } else {
            Self { year: self.year, month: self.month + 1 }
        }
    }

    /// When it starts, in `tz`.
    pub fn start(self, tz: &TimeZone) -> Timestamp {
        self.first_day()
            .to_datetime(jiff::civil::Time::midnight())
            .to_zoned_datetime(tz.clone())
            .map_or(Timestamp::MIN, |z| z.timestamp())
    }

    /// When it ends (the next month's start), in `tz`.
    pub fn end(self, tz: &TimeZone) -> Timestamp {
        self.next().start(tz)
    }

    /// The stored key, `YYYY-MM`.
    pub fn key(self) -> String {
        format!("{:04}-{:02}", self.year, self.month)
    }
}

impl std::fmt::Display for Month {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taipei() -> TimeZone {
        TimeZone::get("Asia/Taipei").expect("zone")
    }

    #[test]
    fn the_month_is_the_family_s_local_month() {
        let tz = taipei();
        // 16:30 UTC on 30 November is already 1 December in Taipei.
        let at: Timestamp = "2026-11-30T16:30:00Z".parse().expect("instant");
        assert_eq!(Month::of(at, &tz).key(), "2026-12");
        let at: Timestamp = "2026-11-30T15:59:00Z".parse().expect("instant");
        assert_eq!(Month::of(at, &tz).key(), "2026-11");
    }

    #[test]
    fn a_month_runs_from_its_first_local_midnight_to_the_next_one() {
        let tz = taipei();
        let december = Month { year: 2026, month: 12 };
        assert_eq!(december.start(&tz).to_string(), "2026-11-30T16:00:00Z");
        assert_eq!(december.end(&tz).to_string(), "2026-12-31T16:00:00Z");
        assert_eq!(december.next(), Month { year: 2027, month: 1 });
    }
}
