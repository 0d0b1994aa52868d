//! When a reminder fires: an anchor (the first local date and time, in a zone) and a small
//! recurrence rule. Occurrence *k* is always computed from the anchor, never from the previous
//! occurrence, so "monthly on the 31st" does not drift to the 28th after February; local times
//! that do not exist (a DST gap) move forward and ambiguous ones take the earlier instant
//! (jiff's compatible disambiguation).
//!
//! Lunar and workday rules start at the anchor's date and take the matching dates from there on
//! (the anchor is the first *candidate*, and gives the time of day): every lunar month on some
//! lunar days, every lunar year on one lunar date (see [`crate::calendar::lunar`] for short
//! months and leap months), or every workday of Taiwan's working calendar (weekdays past the
//! years it knows). Their `interval` is always 1.

use jiff::civil::{Date, DateTime, Weekday};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};

use crate::calendar::WorkCalendar;
use crate::calendar::lunar::{self, LunarDate, LunarMonth};

/// How often a reminder repeats (stored as `reminders.freq`).
pub use crate::store::Freq;

/// A reminder's schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// The zone the local times are in.
    pub tz: TimeZone,
    /// The first occurrence, local time.
    pub anchor: DateTime,
    /// How it repeats.
    pub freq: Freq,
    /// Every `interval` units (≥ 1).
    pub interval: u32,
    /// Weekly: the days, bit 0 = Monday … bit 6 = Sunday (0 means the anchor's weekday).
    pub weekdays: u8,
    /// Monthly: the day of the month, 1–31, or −1 for the last day (None: the anchor's day).
    pub month_day: Option<i8>,
    /// No occurrence after this instant.
    pub until: Option<Timestamp>,
    /// At most this many occurrences.
    pub count: Option<u32>,
    /// Lunar rules: the lunar days, bit 0 = 初一 … bit 29 = 三十 (yearly: exactly one).
    pub lunar_days: u32,
    /// Lunar yearly: the lunar month.
    pub lunar_month: Option<LunarMonth>,
    /// Workdays: the working calendar followed.
    pub work_calendar: WorkCalendar,
}

/// The most occurrences looked at when searching (a guard against absurd rules).
const SEARCH_LIMIT: u32 = 200_000;

impl Schedule {
    /// A one-off schedule.
    pub fn once(tz: TimeZone, at: DateTime) -> Self {
        Schedule {
            tz,
            anchor: at,
            freq: Freq::Once,
            interval: 1,
            weekdays: 0,
            month_day: None,
            until: None,
            count: None,
            lunar_days: 0,
            lunar_month: None,
            work_calendar: WorkCalendar::weekdays_only(),
        }
    }

    /// The lunar days of the rule, in order (1–30).
    pub fn lunar_day_list(&self) -> Vec<u8> {
        (1..=30u8).filter(|d| self.lunar_days & (1 << (d - 1)) != 0).collect()
    }

    /// The local date-time of period `k`'s occurrences (several for weekly with several days).
    fn period(&self, k: u32) -> Vec<DateTime> {
        let step = i64::from(k) * i64::from(self.interval.max(1));
        let time = self.anchor.time();
        let date = self.anchor.date();
        let dates: Vec<Date> = match self.freq {
            Freq::Once => {
                if k == 0 {
                    vec![date]
                } else {
                    vec![]
                }
            }
            Freq::Daily => date.checked_add(step.days()).into_iter().collect(),
            Freq::Weekly => {
                let monday =
                    date.checked_sub(i64::from(date.weekday().to_monday_zero_offset()).days()).ok();
                let Some(week) = monday.and_then(|m| m.checked_add((step * 7).days()).ok()) else {
                    return vec![];
                };
                let mask = if self.weekdays == 0 {
                    1u8 << date.weekday().to_monday_zero_offset()
                } else {
                    self.weekdays
                };
                (0..7)
                    .filter(|d| mask & (1 << d) != 0)
                    .filter_map(|d| week.checked_add((d as i64).days()).ok())
                    .filter(|d| *d >= date)
                    .collect()
            }
            Freq::Monthly => {
                let first = date.first_of_month().checked_add(step.months()).ok();
                first
                    .map(|first| {
                        let last = first.days_in_month();
                        let day = match self.month_day {
                            Some(-1) => last,
                            Some(d) => d.min(last),
                            None => date.day().min(last),
                        };
                        Date::new(first.year(), first.month(), day).ok()
                    })
                    .into_iter()
                    .flatten()
                    .filter(|d| *d >= date)
                    .collect()
            }
            Freq::LunarMonthly | Freq::LunarYearly | Freq::Workdays => vec![],
            Freq::Yearly => {
                let year = i64::from(date.year()) + step;
                i16::try_from(year)
                    .ok()
                    .and_then(|y| Date::new(y, date.month(), 1).ok())
                    .and_then(|first| {
                        Date::new(
                            first.year(),
                            first.month(),
                            date.day().min(first.days_in_month()),
                        )
                        .ok()
                    })
                    .into_iter()
                    .collect()
            }
        };
        dates.into_iter().map(|d| d.to_datetime(time)).collect()
    }

    fn instant(&self, local: DateTime) -> Option<Timestamp> {
        local.to_zoned_datetime(self.tz.clone()).ok().map(|z| z.timestamp())
    }

    /// The local date-times of the occurrences, in order, before `until` and `count`.
    fn local_times(&self) -> Box<dyn Iterator<Item = DateTime> + '_> {
        let start = self.anchor.date();
        let time = self.anchor.time();
        let from_start = move |d: &Date| *d >= start;
        let dates: Box<dyn Iterator<Item = Date> + '_> = match self.freq {
            Freq::LunarMonthly => {
                let days = self.lunar_day_list();
                Box::new(
                    lunar::month_starts(start)
                        .flat_map(move |first| lunar_month_days(first, &days))
                        .filter(from_start),
                )
            }
            Freq::LunarYearly => {
                let (Some(month), Some(&day)) = (self.lunar_month, self.lunar_day_list().first())
                else {
                    return Box::new(std::iter::empty());
                };
                let first_year = LunarDate::of(start).map_or(i32::from(start.year()), |l| l.year);
                Box::new(
                    (first_year..=9998)
                        .filter_map(move |y| lunar::yearly(y, month, day))
                        .filter(from_start),
                )
            }
            Freq::Workdays => Box::new(
                (0..i64::from(SEARCH_LIMIT))
                    .map_while(move |k| start.checked_add(k.days()).ok())
                    .filter(|d| self.work_calendar.is_workday(*d)),
            ),
            _ => {
                let per_period = if self.freq == Freq::Once { 1 } else { SEARCH_LIMIT };
                return Box::new((0..per_period).flat_map(move |k| self.period(k)));
            }
        };
        Box::new(dates.map(move |d| d.to_datetime(time)))
    }

    /// Occurrences in order, with their index, starting at the anchor.
    pub fn occurrences(&self) -> impl Iterator<Item = (u32, Timestamp)> + '_ {
        self.local_times()
            .filter_map(move |local| self.instant(local))
            .enumerate()
            .map(|(i, t)| (u32::try_from(i).unwrap_or(u32::MAX), t))
            .take_while(move |(i, t)| {
                self.count.is_none_or(|c| *i < c) && self.until.is_none_or(|u| *t <= u)
            })
            .take(SEARCH_LIMIT as usize)
    }

    /// The first occurrence strictly after `after`.
    pub fn next_after(&self, after: Timestamp) -> Option<(u32, Timestamp)> {
        self.occurrences().find(|(_, t)| *t > after)
    }

    /// The last occurrence at or before `at`, if any.
    pub fn last_at_or_before(&self, at: Timestamp) -> Option<(u32, Timestamp)> {
        self.occurrences().take_while(|(_, t)| *t <= at).last()
    }
}

/// The dates of the lunar `days` (1–30) in the lunar month starting on `first`: a day 30 in a
/// month of 29 days falls on its 29th (once, even when the 29th is asked for too).
fn lunar_month_days(first: Date, days: &[u8]) -> Vec<Date> {
    let len = LunarDate::of(first).map_or(29, |l| l.days_in_month);
    let mut dates: Vec<Date> = days
        .iter()
        .filter_map(|d| first.checked_add((i64::from((*d).min(len)) - 1).days()).ok())
        .collect();
    dates.dedup();
    dates
}

/// Weekday names, Monday first.
pub fn weekday_from_index(i: u8) -> Option<Weekday> {
    Weekday::from_monday_zero_offset(i8::try_from(i).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::datetime;

    fn tz(name: &str) -> TimeZone {
        TimeZone::get(name).expect("zone")
    }

    fn schedule(freq: Freq, anchor: DateTime) -> Schedule {
        Schedule { freq, ..Schedule::once(tz("Asia/Taipei"), anchor) }
    }

    fn local(s: &Schedule, n: usize) -> Vec<String> {
        s.occurrences()
            .take(n)
            .map(|(_, t)| {
                t.to_zoned_datetime(s.tz.clone()).strftime("%Y-%m-%d %H:%M %a").to_string()
            })
            .collect()
    }

    #[test]
    fn daily_reminder_keeps_its_local_time_across_new_york_dst() {
        let s = Schedule {
            tz: tz("America/New_York"),
            ..schedule(Freq::Daily, datetime(2026, 3, 7, 8, 0, 0, 0))
        };
        let utc: Vec<String> = s.occurrences().take(3).map(|(_, t)| t.to_string()).collect();
        assert_eq!(utc, ["2026-03-07T13:00:00Z", "2026-03-08T12:00:00Z", "2026-03-09T12:00:00Z"]);
    }

    #[test]
    fn a_time_inside_the_dst_gap_moves_forward() {
        let s = Schedule {
            tz: tz("America/New_York"),
            ..schedule(Freq::Once, datetime(2026, 3, 8, 2, 30, 0, 0))
        };
        let (_, t) = s.occurrences().next().expect("one");
        assert_eq!(
            t.to_zoned_datetime(s.tz.clone()).strftime("%H:%M %z").to_string(),
            "03:30 -0400"
        );
    }

    #[test]
    fn monthly_on_the_31st_clamps_without_drifting() {
        let s = schedule(Freq::Monthly, datetime(2026, 1, 31, 9, 0, 0, 0));
        assert_eq!(
            local(&s, 4),
            [
                "2026-01-31 09:00 Sat",
                "2026-02-28 09:00 Sat",
                "2026-03-31 09:00 Tue",
                "2026-04-30 09:00 Thu"
            ]
        );
    }

    #[test]
    fn monthly_last_day_and_fifth_of_month() {
        let last = Schedule {
            month_day: Some(-1),
            ..schedule(Freq::Monthly, datetime(2026, 2, 1, 9, 0, 0, 0))
        };
        assert_eq!(local(&last, 2), ["2026-02-28 09:00 Sat", "2026-03-31 09:00 Tue"]);
        let fifth = Schedule {
            month_day: Some(5),
            ..schedule(Freq::Monthly, datetime(2026, 12, 1, 9, 0, 0, 0))
        };
        assert_eq!(local(&fifth, 2), ["2026-12-05 09:00 Sat", "2027-01-05 09:00 Tue"]);
    }

    #[test]
    fn weekly_on_several_days_every_other_week() {
        let s = Schedule {
            weekdays: 0b0000_0101, // Monday and Wednesday
            interval: 2,
            ..schedule(Freq::Weekly, datetime(2026, 12, 2, 19, 0, 0, 0)) // a Wednesday
        };
        assert_eq!(
            local(&s, 4),
            [
                "2026-12-02 19:00 Wed",
                "2026-12-14 19:00 Mon",
                "2026-12-16 19:00 Wed",
                "2026-12-28 19:00 Mon"
            ]
        );
    }

    #[test]
    fn yearly_on_february_29th_falls_back_to_the_28th() {
        let s = schedule(Freq::Yearly, datetime(2028, 2, 29, 7, 0, 0, 0));
        assert_eq!(
            local(&s, 3),
            ["2028-02-29 07:00 Tue", "2029-02-28 07:00 Wed", "2030-02-28 07:00 Thu"]
        );
    }

    #[test]
    fn count_and_until_end_the_series() {
        let counted =
            Schedule { count: Some(3), ..schedule(Freq::Daily, datetime(2026, 12, 1, 8, 0, 0, 0)) };
        assert_eq!(counted.occurrences().count(), 3);
        let until: Timestamp = "2026-12-03T00:00:00Z".parse().expect("instant"); // 08:00 Taipei on the 3rd
        let bounded = Schedule {
            until: Some(until),
            ..schedule(Freq::Daily, datetime(2026, 12, 1, 8, 0, 0, 0))
        };
        assert_eq!(
            local(&bounded, 10),
            ["2026-12-01 08:00 Tue", "2026-12-02 08:00 Wed", "2026-12-03 08:00 Thu"]
        );
    }

    #[test]
    fn next_after_and_last_before() {
        let s = schedule(Freq::Daily, datetime(2026, 12, 1, 8, 0, 0, 0));
        let now: Timestamp = "2026-12-03T01:00:00Z".parse().expect("instant"); // 09:00 Taipei on the 3rd
        let (i, next) = s.next_after(now).expect("next");
        assert_eq!((i, next.to_string()), (3, "2026-12-04T00:00:00Z".to_string()));
        let (i, last) = s.last_at_or_before(now).expect("last");
        assert_eq!((i, last.to_string()), (2, "2026-12-03T00:00:00Z".to_string()));
        assert!(
            Schedule::once(tz("Asia/Taipei"), datetime(2026, 12, 1, 8, 0, 0, 0))
                .next_after(now)
                .is_none()
        );
    }

    fn dates(s: &Schedule, n: usize) -> Vec<String> {
        local(s, n).into_iter().map(|d| d[..10].to_string()).collect()
    }

    #[test]
    fn every_lunar_first_and_fifteenth_walks_through_the_leap_month() {
        // From 2025-07-01 (六月初七): 六月十五, 閏六月初一, 閏六月十五, 七月初一.
        let s = Schedule {
            lunar_days: 1 | 1 << 14,
            ..schedule(Freq::LunarMonthly, datetime(2025, 7, 1, 7, 0, 0, 0))
        };
        assert_eq!(dates(&s, 4), ["2025-07-09", "2025-07-25", "2025-08-08", "2025-08-23"]);
    }

    #[test]
    fn lunar_new_year_every_year_matches_the_published_dates() {
        let s = Schedule {
            lunar_days: 1,
            lunar_month: Some(LunarMonth { number: 1, leap: false }),
            ..schedule(Freq::LunarYearly, datetime(2026, 12, 1, 8, 0, 0, 0))
        };
        assert_eq!(dates(&s, 3), ["2027-02-06", "2028-01-26", "2029-02-13"]);
        let mid_autumn = Schedule {
            lunar_days: 1 << 14,
            lunar_month: Some(LunarMonth { number: 8, leap: false }),
            ..s.clone()
        };
        assert_eq!(dates(&mid_autumn, 2), ["2027-09-15", "2028-10-03"]);
    }

    #[test]
    fn a_leap_month_birthday_falls_on_the_regular_month_in_years_without_it() {
        // 閏六月初八: 2025-08-01 in 2025 (which has 閏六月), 六月初八 in the years after.
        let s = Schedule {
            lunar_days: 1 << 7,
            lunar_month: Some(LunarMonth { number: 6, leap: true }),
            ..schedule(Freq::LunarYearly, datetime(2025, 1, 1, 9, 0, 0, 0))
        };
        let expected: Vec<String> = [
            (2025, LunarMonth { number: 6, leap: true }),
            (2026, LunarMonth { number: 6, leap: false }),
        ]
        .into_iter()
        .map(|(y, m)| lunar::gregorian(y, m, 8).expect("date").to_string())
        .collect();
        assert_eq!(dates(&s, 2), expected);
        assert_eq!(expected[0], "2025-08-01");
    }

    #[test]
    fn workdays_skip_holidays_and_include_make_up_saturdays() {
        let cal = WorkCalendar::builtin().expect("calendar");
        let s = Schedule {
            work_calendar: cal.clone(),
            ..schedule(Freq::Workdays, datetime(2025, 1, 24, 7, 0, 0, 0)) // a Friday
        };
        // 01-27 bridge day off, 01-28..01-31 除夕 and 春節, 02-08 Saturday 補班.
        assert_eq!(dates(&s, 4), ["2025-01-24", "2025-02-03", "2025-02-04", "2025-02-05"]);
        let around_make_up = Schedule {
            work_calendar: cal.clone(),
            ..schedule(Freq::Workdays, datetime(2025, 2, 7, 7, 0, 0, 0))
        };
        assert_eq!(dates(&around_make_up, 3), ["2025-02-07", "2025-02-08", "2025-02-10"]);
        // 中秋 2026 (Friday 09-25), then 孔子誕辰 (Monday 09-28).
        let mid_autumn = Schedule {
            work_calendar: cal,
            ..schedule(Freq::Workdays, datetime(2026, 9, 24, 7, 0, 0, 0))
        };
        assert_eq!(dates(&mid_autumn, 2), ["2026-09-24", "2026-09-29"]);
    }

    #[test]
    fn past_the_known_years_workdays_are_monday_to_friday() {
        let s = Schedule {
            work_calendar: WorkCalendar::builtin().expect("calendar"),
            ..schedule(Freq::Workdays, datetime(2028, 10, 2, 7, 0, 0, 0))
        };
        // 2028-10-03 is 中秋 but 2028 is not in the calendar yet.
        assert_eq!(dates(&s, 3), ["2028-10-02", "2028-10-03", "2028-10-04"]);
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn occurrences_strictly_increase_and_keep_the_wall_clock(
            freq in prop::sample::select(vec![Freq::Daily, Freq::Weekly, Freq::Monthly, Freq::Yearly]),
            interval in 1u32..4, day in 1i8..29, month in 1i8..13, hour in 0i8..24, weekdays in 0u8..128,
            zone in prop::sample::select(vec!["Asia/Taipei", "America/New_York", "Europe/London"]),
        ) {
            let s = Schedule {
                tz: tz(zone), interval, weekdays,
                ..schedule(freq, datetime(2026, month, day, hour, 15, 0, 0))
            };
            let all: Vec<(u32, Timestamp)> = s.occurrences().take(40).collect();
            prop_assert!(all.len() == 40);
            for pair in all.windows(2) {
                prop_assert!(pair[0].1 < pair[1].1, "not increasing");
                prop_assert_eq!(pair[0].0 + 1, pair[1].0);
            }
            for (_, t) in &all {
                let z = t.to_zoned_datetime(s.tz.clone());
                // Same minute always; same hour except when the hour fell into a DST gap.
                prop_assert_eq!(z.minute(), 15);
                let shifted = (z.hour() - hour).rem_euclid(24);
                prop_assert!(shifted == 0 || shifted == 1, "{} at {}", z, hour);
            }
        }
    }
}
