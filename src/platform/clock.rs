//! The clock, injected so that time-dependent behaviour (the date in the prompt, reply-token
//! freshness, caches) is tested without sleeping; and times of day as the family gives them (`07:00`).

use std::sync::Mutex;

use jiff::civil::Time;
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

/// `time` as stored and shown: `07:00`.
pub fn format_local_time(time: Time) -> String {
    format!("{:02}:{:02}", time.hour(), time.minute())
}
