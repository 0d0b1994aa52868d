//! When a digest is due: its local time parsed, the next instant that time comes round in the
//! family's zone (across midnight and daylight-saving changes), and what to do with a due one.
//! Pure functions of their inputs.

use jiff::civil::{Date, Time};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};

pub use crate::platform::clock::{TimeError, format_local_time, parse_local_time};

/// A day's digest more than this late (hearth was down) is not sent: a morning summary in the
/// afternoon would mislead.
pub const GRACE: SignedDuration = SignedDuration::from_hours(3);

/// The instant `time` falls on `date` in `tz`: a time skipped by a clock change falls just after
/// the change, a repeated one on its first occurrence.
pub fn on_date(date: Date, time: Time, tz: &TimeZone) -> Option<Timestamp> {
    date.to_datetime(time).to_zoned_datetime(tz.clone()).ok().map(|z| z.timestamp())
}

/// The first instant strictly after `after` at which the local clock in `tz` reads `time`.
pub fn next_at(time: Time, tz: &TimeZone, after: Timestamp) -> Option<Timestamp> {
    let mut date = after.to_zoned_datetime(tz.clone()).date();
    for _ in 0..4 {
        if let Some(t) = on_date(date, time, tz).filter(|t| *t > after) {
            return Some(t);
        }
        date = date.tomorrow().ok()?;
    }
    None
}

/// What to do with a digest due at `due` (its stored `next_at`) when looked at `now`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The local day to deliver, and when it was due; `None` when it is too late for that day.
    pub deliver: Option<(Date, Timestamp)>,
    /// The next instant the digest is due.
    pub next_at: Timestamp,
}

/// The step for a digest at `time` in `tz`, due at `due`, looked at `now`: that day's digest (if
/// not more than [`GRACE`] late), and the first time after `now` it comes round again. `None`
/// only when the zone cannot place the time at all.
pub fn step(time: Time, tz: &TimeZone, due: Timestamp, now: Timestamp) -> Option<Step> {
    let on_time = now.duration_since(due) <= GRACE;
    let deliver = on_time.then(|| (due.to_zoned_datetime(tz.clone()).date(), due));
    Some(Step { deliver, next_at: next_at(time, tz, now.max(due))? })
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::{date, time};

    fn ts(s: &str) -> Timestamp {
        s.parse().expect("instant")
    }

    fn taipei() -> TimeZone {
        TimeZone::get("Asia/Taipei").expect("zone")
    }

    fn new_york() -> TimeZone {
        TimeZone::get("America/New_York").expect("zone")
    }

    #[test]
    fn digest_times_read_on_a_24_hour_clock() {
        assert_eq!(parse_local_time("07:00"), Ok(time(7, 0, 0, 0)));
        assert_eq!(parse_local_time(" 7:05 "), Ok(time(7, 5, 0, 0)));
        assert_eq!(parse_local_time("23:59"), Ok(time(23, 59, 0, 0)));
        for bad in ["24:00", "7", "07:60", "7am", "-1:00", "07:00:00", "", "１:00"] {
            assert!(parse_local_time(bad).is_err(), "{bad:?} is refused");
        }
        assert_eq!(format_local_time(time(7, 5, 0, 0)), "07:05");
    }

    #[test]
    fn the_next_time_is_today_if_still_to_come_else_tomorrow_across_midnight() {
        let seven = time(7, 0, 0, 0);
        // 06:59 Taipei on 1 Dec: 07:00 the same day.
        assert_eq!(
            next_at(seven, &taipei(), ts("2026-11-30T22:59:00Z")),
            Some(ts("2026-11-30T23:00:00Z"))
        );
        // 07:00 exactly: strictly after, so tomorrow.
        assert_eq!(
            next_at(seven, &taipei(), ts("2026-11-30T23:00:00Z")),
            Some(ts("2026-12-01T23:00:00Z"))
        );
        // 23:30 Taipei (15:30 UTC): after local midnight comes 07:00 local.
        assert_eq!(
            next_at(seven, &taipei(), ts("2026-11-30T15:30:00Z")),
            Some(ts("2026-11-30T23:00:00Z"))
        );
    }

    #[test]
    fn the_local_time_holds_across_daylight_saving_changes() {
        let seven = time(7, 0, 0, 0);
        // New York springs forward on 8 March 2026: 07:00 EST (12:00Z) then 07:00 EDT (11:00Z).
        let before = next_at(seven, &new_york(), ts("2026-03-07T00:00:00Z")).expect("7 March");
        assert_eq!(before, ts("2026-03-07T12:00:00Z"));
        assert_eq!(next_at(seven, &new_york(), before), Some(ts("2026-03-08T11:00:00Z")));
        // Falls back on 1 November 2026: 07:00 EDT (11:00Z) then 07:00 EST (12:00Z).
        assert_eq!(
            next_at(seven, &new_york(), ts("2026-10-31T11:00:00Z")),
            Some(ts("2026-11-01T12:00:00Z"))
        );
        // 02:30 does not exist on 8 March: it falls just after the change (03:30 EDT, 07:30Z).
        assert_eq!(
            next_at(time(2, 30, 0, 0), &new_york(), ts("2026-03-08T05:00:00Z")),
            Some(ts("2026-03-08T07:30:00Z"))
        );
    }

    #[test]
    fn a_due_digest_delivers_its_local_day_and_moves_to_the_next() {
        let seven = time(7, 0, 0, 0);
        let due = ts("2026-11-30T23:00:00Z");
        let s = step(seven, &taipei(), due, ts("2026-11-30T23:00:30Z")).expect("step");
        assert_eq!(s.deliver, Some((date(2026, 12, 1), due)));
        assert_eq!(s.next_at, ts("2026-12-01T23:00:00Z"));
    }

    #[test]
    fn a_day_missed_by_more_than_the_grace_is_skipped_not_sent_late() {
        let seven = time(7, 0, 0, 0);
        let due = ts("2026-11-30T23:00:00Z");
        let s = step(seven, &taipei(), due, ts("2026-12-01T05:00:00Z")).expect("step");
        assert_eq!(s.deliver, None);
        assert_eq!(s.next_at, ts("2026-12-01T23:00:00Z"));
        // Days later: the next is still after now, never in the past.
        let s = step(seven, &taipei(), due, ts("2026-12-05T00:00:00Z")).expect("step");
        assert_eq!(s.next_at, ts("2026-12-05T23:00:00Z"));
    }
}
