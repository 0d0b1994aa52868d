//! When a plan's doses are due: its times on its days (every day, some weekdays, or Taiwan's
//! workdays), in its zone; which doses came due while hearth was not looking and how each is
//! handled; and when the weekly report is due (Sunday 20:00). Pure functions.

use jiff::civil::{Date, Time, Weekday};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};

use super::Plan;
use super::steps::State;
use crate::sources::calendar::WorkCalendar;

/// A dose that came due longer ago than this when hearth first saw it is not asked about any
/// more (asking 阿嬤 about yesterday's pill helps nobody): the caregivers are told at once that
/// it was not confirmed, as if she had been asked, with their buttons.
pub const ASK_WITHIN: SignedDuration = SignedDuration::from_hours(12);
/// The most doses of one plan recorded in one round.
pub const MAX_CATCH_UP: usize = 64;
/// How far ahead a next dose is looked for (a plan on Sundays only still finds one).
const LOOK_AHEAD_DAYS: i32 = 400;

/// The days of a plan: weekday bits (bit 0 = Monday; 0: every day) and whether only workdays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Days {
    /// Weekday bits.
    pub weekdays: i64,
    /// Only Taiwan's workdays.
    pub workdays: bool,
}

impl Days {
    /// True when doses are due on `date`; without a calendar, workdays are Monday to Friday.
    pub fn include(self, date: Date, calendar: Option<&WorkCalendar>) -> bool {
        let bit = 1i64 << (date.weekday().to_monday_zero_offset());
        let workday = || match calendar {
            Some(c) => c.is_workday(date),
            None => !matches!(date.weekday(), Weekday::Saturday | Weekday::Sunday),
        };
        (self.weekdays == 0 || self.weekdays & bit != 0) && (!self.workdays || workday())
    }
}

/// The first dose strictly after `after`, of `times` on `days` in `tz`.
pub fn next_after(
    times: &[Time],
    days: Days,
    tz: &TimeZone,
    after: Timestamp,
    calendar: Option<&WorkCalendar>,
) -> Option<Timestamp> {
    let mut date = after.to_zoned_datetime(tz.clone()).date();
    for _ in 0..LOOK_AHEAD_DAYS {
        if days.include(date, calendar) {
            let first = times
                .iter()
                .filter_map(|t| date.to_datetime(*t).to_zoned_datetime(tz.clone()).ok())
                .map(|z| z.timestamp())
                .filter(|t| *t > after)
                .min();
            if first.is_some() {
                return first;
            }
        }
        date = date.tomorrow().ok()?;
    }
    None
}

/// The plan's next dose strictly after `after`.
pub fn next_dose(
    plan: &Plan,
    after: Timestamp,
    calendar: Option<&WorkCalendar>,
) -> Option<Timestamp> {
    next_after(&plan.times, plan.days(), &plan.tz, after, calendar)
}

/// The doses from `first` (due, included) until `now` (included), at most [`MAX_CATCH_UP`], with
/// the next one after them.
pub fn due_until(
    plan: &Plan,
    first: Timestamp,
    now: Timestamp,
    calendar: Option<&WorkCalendar>,
) -> (Vec<Timestamp>, Option<Timestamp>) {
    let mut due = Vec::new();
    let mut at = Some(first);
    while let Some(t) = at.filter(|t| *t <= now) {
        if due.len() == MAX_CATCH_UP {
            break;
        }
        due.push(t);
        at = next_dose(plan, t, calendar);
    }
    (due, at)
}

/// How a dose due at `due` is first recorded at `now`: to be asked at its time, unless it is
/// older than [`ASK_WITHIN`] — then as asked, its caregivers to be told now. Never dropped.
pub fn first_state(due: Timestamp, now: Timestamp) -> (&'static str, Option<i64>) {
    if now.duration_since(due) > ASK_WITHIN {
        (State::Asked.as_str(), Some(now.as_millisecond()))
    } else {
        (State::Due.as_str(), Some(due.as_millisecond().max(0)))
    }
}

/// When the weekly report after `after` is due: the next Sunday at 20:00 in `tz`.
pub fn next_report(after: Timestamp, tz: &TimeZone) -> Option<Timestamp> {
    let sunday = Days { weekdays: 1 << Weekday::Sunday.to_monday_zero_offset(), workdays: false };
    next_after(&[Time::constant(20, 0, 0, 0)], sunday, tz, after, None)
}

impl Plan {
    /// The plan's days.
    pub fn days(&self) -> Days {
        Days { weekdays: self.row.weekdays, workdays: self.row.workdays }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::time;

    fn taipei() -> TimeZone {
        TimeZone::get("Asia/Taipei").expect("zone")
    }

    fn ts(s: &str) -> Timestamp {
        s.parse().expect("instant")
    }

    const EVERY_DAY: Days = Days { weekdays: 0, workdays: false };

    #[test]
    fn the_next_dose_is_the_next_time_today_or_the_first_tomorrow() {
        let times = [time(8, 0, 0, 0), time(20, 0, 0, 0)];
        let cal = None;
        // 2026-12-01 10:00 Taipei → 20:00 the same day.
        assert_eq!(
            next_after(&times, EVERY_DAY, &taipei(), ts("2026-12-01T02:00:00Z"), cal),
            Some(ts("2026-12-01T12:00:00Z"))
        );
        // 20:00 exactly → 08:00 the next day (strictly after).
        assert_eq!(
            next_after(&times, EVERY_DAY, &taipei(), ts("2026-12-01T12:00:00Z"), cal),
            Some(ts("2026-12-02T00:00:00Z"))
        );
    }

    #[test]
    fn weekday_plans_skip_the_other_days() {
        let mon_wed = Days { weekdays: 0b101, workdays: false };
        let cal = None;
        // Thursday 2026-12-03 → Monday 2026-12-07 08:00 Taipei.
        assert_eq!(
            next_after(&[time(8, 0, 0, 0)], mon_wed, &taipei(), ts("2026-12-03T02:00:00Z"), cal),
            Some(ts("2026-12-07T00:00:00Z"))
        );
    }

    #[test]
    fn a_dose_seen_within_twelve_hours_is_asked_and_an_older_one_goes_to_the_caregivers_now() {
        let due = ts("2026-12-01T00:00:00Z");
        let soon = ts("2026-12-01T03:00:00Z");
        assert_eq!(first_state(due, soon), ("due", Some(due.as_millisecond())));
        let later = ts("2026-12-01T13:00:00Z");
        assert_eq!(first_state(due, later), ("asked", Some(later.as_millisecond())));
    }

    #[test]
    fn the_weekly_report_is_due_sunday_at_eight_in_the_evening() {
        // Thursday 2026-12-03 → Sunday 2026-12-06 20:00 Taipei (12:00Z).
        assert_eq!(
            next_report(ts("2026-12-03T02:00:00Z"), &taipei()),
            Some(ts("2026-12-06T12:00:00Z"))
        );
        assert_eq!(
            next_report(ts("2026-12-06T12:00:00Z"), &taipei()),
            Some(ts("2026-12-13T12:00:00Z"))
        );
    }
}
