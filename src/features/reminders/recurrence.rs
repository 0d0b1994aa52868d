//! When a reminder fires: an anchor (the first local date and time, in a zone) and a small
//! recurrence rule. Occurrence *k* is always computed from the anchor, never from the previous
//! occurrence, so "monthly on the 31st" does not drift to the 28th after February; local times
//! that do not exist (a DST gap) move forward and ambiguous ones take the earlier instant
//! (jiff's compatible disambiguation).
//!
//! Lunar and workday rules start at the anchor's date and take the matching dates from there on
//! (the anchor is the first *candidate*, and gives the time of day): every lunar month on some
//! lunar days, every lunar year on one lunar date (see [`crate::sources::calendar::lunar`] for short
//! months and leap months; some days before it when the rule says so), or every workday of Taiwan's working calendar (weekdays past the
//! years it knows). Their `interval` is always 1.

use jiff::civil::{Date, DateTime, Weekday};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};

use crate::sources::calendar::WorkCalendar;
use crate::sources::calendar::lunar::{self, LunarDate};
use crate::store::Recurrence;

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
    pub rule: Recurrence,
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
            rule: Recurrence::once(),
            work_calendar: WorkCalendar::weekdays_only(),
        }
    }

    /// The lunar days of the rule, in order (1–30).
    pub fn lunar_day_list(&self) -> Vec<u8> {
        (1..=30u8).filter(|d| self.rule.lunar_days & (1 << (d - 1)) != 0).collect()
    }

    /// The local date-time of period `k`'s occurrences (several for weekly with several days).
    fn period(&self, k: u32) -> Vec<DateTime> {
        let step = i64::from(k) * i64::from(self.rule.interval.max(1));
        let time = self.anchor.time();
        let date = self.anchor.date();
        let dates: Vec<Date> = match self.rule.freq {
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
                let mask = if self.rule.weekdays == 0 {
                    1u8 << date.weekday().to_monday_zero_offset()
                } else {
                    self.rule.weekdays
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
                        let day = match self.rule.month_day {
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
        let dates: Box<dyn Iterator<Item = Date> + '_> = match self.rule.freq {
            Freq::LunarMonthly => {
                let days = self.lunar_day_list();
                Box::new(
                    lunar::month_starts(start)
                        .flat_map(move |first| lunar_month_days(first, &days))
                        .filter(from_start),
                )
            }
            Freq::LunarYearly => {
                let (Some(month), Some(&day)) =
                    (self.rule.lunar_month, self.lunar_day_list().first())
                else {
                    return Box::new(std::iter::empty());
                };
                let first_year = LunarDate::of(start).map_or(i32::from(start.year()), |l| l.year);
                let before = i64::from(self.rule.days_before);
                Box::new(
                    (first_year..=9998)
                        .filter_map(move |y| lunar::yearly(y, month, day))
                        .filter_map(move |d| d.checked_sub(before.days()).ok())
                        .filter(from_start),
                )
            }
            Freq::Workdays => Box::new(
                (0..i64::from(SEARCH_LIMIT))
                    .map_while(move |k| start.checked_add(k.days()).ok())
                    .filter(|d| self.work_calendar.is_workday(*d)),
            ),
            _ => {
                let per_period = if self.rule.freq == Freq::Once { 1 } else { SEARCH_LIMIT };
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
                self.rule.count.is_none_or(|c| *i < c) && self.rule.until.is_none_or(|u| *t <= u)
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
#[path = "recurrence_tests.rs"]
mod tests;
