//! The clock, injected so that time-dependent behaviour (the date in the prompt, reply-token
//! freshness, caches) is tested without sleeping; times of day as the family gives them (`07:00`);
//! and the small-hours rule: after midnight, 明天 said by someone still up is the coming day.

use std::sync::Mutex;

use jiff::civil::{Date, Time};
use jiff::{SignedDuration, Timestamp};

/// Where "now" comes from.
pub trait Clock: Send + Sync + 'static {
    /// The current instant.
    fn now(&self) -> Timestamp;
}

/// The real wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

/// A clock that only moves when told to: for tests and simulations.
#[derive(Debug)]
pub struct ManualClock(Mutex<Timestamp>);

impl ManualClock {
    /// A clock stopped at `start`.
    pub fn new(start: Timestamp) -> Self {
        Self(Mutex::new(start))
    }

    /// Moves the clock forward (or back, with a negative duration).
    pub fn advance(&self, by: SignedDuration) {
        let mut now = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *now = now.saturating_add(by).unwrap_or(*now);
    }

    /// Sets the clock to `to`.
    pub fn set(&self, to: Timestamp) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = to;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Why a time of day (a digest's, quiet hours') was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeError {
    /// Not `HH:MM` on a 24-hour clock.
    #[error("the time must be HH:MM on a 24-hour clock, e.g. 07:00 (got {0:?})")]
    Unreadable(String),
}

/// A time of day, `HH:MM` (24-hour; `7:00` and `07:00` both read), to the minute.
pub fn parse_local_time(text: &str) -> Result<Time, TimeError> {
    let refuse = || TimeError::Unreadable(text.chars().take(20).collect());
    let (h, m) = text.trim().split_once(':').ok_or_else(refuse)?;
    let ok = |s: &str| !s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit());
    if !ok(h) || !ok(m) {
        return Err(refuse());
    }
    let (h, m) = (h.parse::<i8>().map_err(|_| refuse())?, m.parse::<i8>().map_err(|_| refuse())?);
    Time::new(h, m, 0, 0).map_err(|_| refuse())
}

/// Before this hour, 明天/tomorrow said by someone still up means the coming day (today's
/// date), and "today" for a recap reaches back to the previous morning.
pub const SMALL_HOURS_END: i8 = 4;

/// The day 明天/tomorrow means at local time `now`: the calendar's next day, but in the small
/// hours (before [`SMALL_HOURS_END`]) the coming day, today's date — what the system prompt
/// tells the model, so a tool given no date agrees with it.
pub fn coming_day(now: &jiff::ZonedDateTime) -> Date {
    let today = now.date();
    if now.hour() < SMALL_HOURS_END {
        return today;
    }
    today.tomorrow().unwrap_or(today)
}

/// `time` as stored and shown: `07:00`.
pub fn format_local_time(time: Time) -> String {
    format!("{:02}:{:02}", time.hour(), time.minute())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tomorrow_after_midnight_is_the_coming_day() {
        let at = |t: &str| t.parse::<jiff::ZonedDateTime>().expect("zoned");
        let day = |d: &str| d.parse::<Date>().expect("date");
        assert_eq!(coming_day(&at("2026-12-01T00:30[Asia/Taipei]")), day("2026-12-01"));
        assert_eq!(coming_day(&at("2026-12-01T03:59[Asia/Taipei]")), day("2026-12-01"));
        assert_eq!(coming_day(&at("2026-12-01T04:00[Asia/Taipei]")), day("2026-12-02"));
        assert_eq!(coming_day(&at("2026-12-31T23:30[Asia/Taipei]")), day("2027-01-01"));
    }
}
