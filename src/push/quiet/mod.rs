//! Quiet hours ("晚上十點到早上七點不要吵"): a conversation's nightly window in which pushes that
//! can wait are held, and the pure decision of whether a push goes now or waits — and until
//! when. A reminder the family set for a time inside the window still fires then (they asked for
//! it); an alert fire or a digest waits for the window's end, when everything held is delivered.
//! Setting them, from the chat or the family page, is [`setting`].

pub mod setting;

use jiff::Timestamp;
use jiff::civil::{Date, Time};
use jiff::tz::TimeZone;

/// A conversation's quiet hours: from `start` to `end` local time, crossing midnight when `end`
/// is not after `start` (22:00–07:00).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuietHours {
    /// When quiet begins.
    pub start: Time,
    /// When quiet ends.
    pub end: Time,
}

/// What a push is, for the decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushKind {
    /// A reminder the family set for that time: never held.
    Reminder,
    /// A price alert firing: can wait.
    Alert,
    /// The daily digest: can wait.
    Digest,
    /// A care plan's prompt or escalation (「阿嬤 08:00 的血壓藥還沒確認」): never held, whatever
    /// the chat asked.
    Care,
    /// An official alert that cannot wait (an earthquake, a work or school suspension): never
    /// held, unless the chat asked for it (then it is pushed as an [`PushKind::Alert`]).
    Urgent,
}

impl PushKind {
    /// Every kind, once: a new kind is a variant, a line here and its arms below.
    pub const ALL: [PushKind; 5] =
        [PushKind::Reminder, PushKind::Alert, PushKind::Digest, PushKind::Care, PushKind::Urgent];

    /// Its stored name (the outbox's `kind`).
    pub fn name(self) -> &'static str {
        match self {
            PushKind::Reminder => "reminder",
            PushKind::Alert => "alert",
            PushKind::Digest => "digest",
            PushKind::Urgent => "urgent",
            PushKind::Care => "care",
        }
    }

    /// The kind a stored name means (an unknown one is held like an alert).
    pub fn named(name: &str) -> Self {
        Self::ALL.into_iter().find(|k| k.name() == name).unwrap_or(PushKind::Alert)
    }

    /// Whether it waits for the end of a chat's quiet hours.
    pub fn waits_for_quiet_hours(self) -> bool {
        match self {
            PushKind::Alert | PushKind::Digest => true,
            PushKind::Reminder | PushKind::Urgent | PushKind::Care => false,
        }
    }

    /// Whether it gives way to care plans when the month runs out (`silent`: a price alert
    /// firing again, sent without a sound).
    pub fn yields_to_care(self, silent: bool) -> bool {
        match self {
            PushKind::Digest => true,
            PushKind::Alert => silent,
            PushKind::Reminder | PushKind::Urgent | PushKind::Care => false,
        }
    }
}

/// Whether to push now or hold until an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Push now.
    Now,
    /// Hold until this instant (the end of quiet hours).
    HoldUntil(Timestamp),
}

/// Why quiet hours were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuietError {
    /// Start and end are the same: that is no window (or all day).
    #[error("quiet hours need different start and end times")]
    Empty,
}

impl QuietHours {
    /// The window from `start` to `end`.
    pub fn new(start: Time, end: Time) -> Result<Self, QuietError> {
        if start == end {
            return Err(QuietError::Empty);
        }
        Ok(Self { start, end })
    }

    /// True when local time `t` is inside the window (start included, end excluded).
    pub fn contains(&self, t: Time) -> bool {
        if self.start < self.end {
            self.start <= t && t < self.end
        } else {
            t >= self.start || t < self.end
        }
    }

    /// The end of the window that `now` is inside, in `tz`; `None` when `now` is outside.
    pub fn ends_after(&self, now: Timestamp, tz: &TimeZone) -> Option<Timestamp> {
        let local = now.to_zoned_datetime(tz.clone());
        if !self.contains(local.time()) {
            return None;
        }
        let date: Date = local.date();
        let end_date = if local.time() < self.end { date } else { date.tomorrow().ok()? };
        let end = end_date.to_datetime(self.end).to_zoned_datetime(tz.clone()).ok()?.timestamp();
        Some(end.max(now))
    }
}

/// Quiet hours as stored (`HH:MM`, `HH:MM`, IANA zone) with their zone; `None` when unreadable
/// (then nothing is held).
pub fn stored(start: &str, end: &str, tz: &str) -> Option<(QuietHours, TimeZone)> {
    let start = crate::platform::clock::parse_local_time(start).ok()?;
    let end = crate::platform::clock::parse_local_time(end).ok()?;
    Some((QuietHours::new(start, end).ok()?, TimeZone::get(tz).ok()?))
}

/// Whether a push of `kind` at `now` goes now or waits for the end of `quiet` hours in `tz`.
pub fn decide(
    kind: PushKind,
    now: Timestamp,
    tz: &TimeZone,
    quiet: Option<&QuietHours>,
) -> Decision {
    match quiet.and_then(|q| q.ends_after(now, tz)) {
        Some(end) if kind.waits_for_quiet_hours() => Decision::HoldUntil(end),
        _ => Decision::Now,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::time;

    #[test]
    fn each_kind_is_stored_by_its_own_name_and_an_unknown_name_is_held_like_an_alert() {
        for kind in PushKind::ALL {
            assert_eq!(PushKind::named(kind.name()), kind);
        }
        assert_eq!(PushKind::named("telegram"), PushKind::Alert);
    }

    fn ts(s: &str) -> Timestamp {
        s.parse().expect("instant")
    }

    fn night() -> QuietHours {
        QuietHours::new(time(22, 0, 0, 0), time(7, 0, 0, 0)).expect("window")
    }

    fn taipei() -> TimeZone {
        TimeZone::get("Asia/Taipei").expect("zone")
    }

    #[test]
    fn a_window_across_midnight_holds_the_night_and_not_the_day() {
        let q = night();
        assert!(q.contains(time(22, 0, 0, 0)));
        assert!(q.contains(time(23, 59, 0, 0)));
        assert!(q.contains(time(0, 0, 0, 0)));
        assert!(q.contains(time(6, 59, 0, 0)));
        assert!(!q.contains(time(7, 0, 0, 0)));
        assert!(!q.contains(time(21, 59, 0, 0)));
        let day = QuietHours::new(time(13, 0, 0, 0), time(14, 0, 0, 0)).expect("nap");
        assert!(day.contains(time(13, 30, 0, 0)) && !day.contains(time(14, 0, 0, 0)));
        assert_eq!(QuietHours::new(time(7, 0, 0, 0), time(7, 0, 0, 0)), Err(QuietError::Empty));
    }

    #[test]
    fn an_alert_at_night_waits_for_the_morning_across_midnight() {
        let q = night();
        // 23:30 Taipei → held until 07:00 the next day.
        assert_eq!(
            decide(PushKind::Alert, ts("2026-11-30T15:30:00Z"), &taipei(), Some(&q)),
            Decision::HoldUntil(ts("2026-11-30T23:00:00Z"))
        );
        // 02:00 Taipei → held until 07:00 the same day.
        assert_eq!(
            decide(PushKind::Digest, ts("2026-11-30T18:00:00Z"), &taipei(), Some(&q)),
            Decision::HoldUntil(ts("2026-11-30T23:00:00Z"))
        );
        // 07:00 → now.
        assert_eq!(
            decide(PushKind::Alert, ts("2026-11-30T23:00:00Z"), &taipei(), Some(&q)),
            Decision::Now
        );
    }

    #[test]
    fn a_reminder_set_for_the_night_fires_at_its_time() {
        assert_eq!(
            decide(PushKind::Reminder, ts("2026-11-30T15:30:00Z"), &taipei(), Some(&night())),
            Decision::Now
        );
    }

    #[test]
    fn an_urgent_official_alert_is_not_held_at_night() {
        assert_eq!(
            decide(PushKind::Urgent, ts("2026-11-30T15:30:00Z"), &taipei(), Some(&night())),
            Decision::Now
        );
    }

    #[test]
    fn a_care_prompt_or_escalation_is_never_held_at_night() {
        assert_eq!(
            decide(PushKind::Care, ts("2026-11-30T15:30:00Z"), &taipei(), Some(&night())),
            Decision::Now
        );
    }

    #[test]
    fn without_quiet_hours_everything_goes_now() {
        assert_eq!(
            decide(PushKind::Alert, ts("2026-11-30T15:30:00Z"), &taipei(), None),
            Decision::Now
        );
    }

    #[test]
    fn the_morning_end_follows_daylight_saving() {
        let ny = TimeZone::get("America/New_York").expect("zone");
        // 23:00 EST on 7 March 2026 → 07:00 EDT on 8 March (11:00Z), after springing forward.
        assert_eq!(
            decide(PushKind::Alert, ts("2026-03-08T04:00:00Z"), &ny, Some(&night())),
            Decision::HoldUntil(ts("2026-03-08T11:00:00Z"))
        );
    }
}
