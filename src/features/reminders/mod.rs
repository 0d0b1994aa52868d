//! Reminders: when they fire ([`recurrence`]; lunar and workday rules checked in
//! [`calendar_rule`]), how they are described to the family ([`describe`]), what a delivery looks
//! like ([`render`]), how it is delivered exactly once ([`ops::scheduler`]), what its buttons do
//! ([`actions`]; 📅 change time in [`picker`]) and what the scheduled ones will spend of LINE's
//! monthly quota ([`ops::projection`], [`ops::quota_cost`], the month as a whole in [`ops::month_ahead`]). A new
//! reminder is a [`request`] checked and created by [`ops::create`]; the changes the family page makes
//! are [`ops`].

pub mod actions;
pub mod calendar_rule;
pub mod describe;
pub mod ops;
pub mod picker;
pub mod recurrence;
pub mod render;
pub mod request;
pub mod taps;

use jiff::civil::DateTime;
use jiff::tz::TimeZone;

use crate::sources::calendar::WorkCalendar;
use crate::store::ReminderRow;
use recurrence::Schedule;

/// The most fire times still to come a reminder passes over.
pub const MAX_PASSED_OVER: usize = 100;

impl ReminderRow {
    /// The reminder's schedule, workdays following `work_calendar`; `None` if its stored zone or
    /// first occurrence is unreadable (it is then paused). Its rule was read with the row.
    pub fn schedule(&self, work_calendar: &WorkCalendar) -> Option<Schedule> {
        Some(Schedule {
            tz: self.time_zone()?,
            anchor: self.anchor_local.parse::<DateTime>().ok()?,
            rule: self.rule,
            work_calendar: work_calendar.clone(),
        })
    }

    /// Whether its fire time `at_ms` is passed over without a push (the time of an event it
    /// comes before was called off).
    pub fn passes_over(&self, at_ms: i64) -> bool {
        self.skipped.split_whitespace().any(|t| t.parse() == Ok(at_ms))
    }

    /// Its fire times passed over with `at_ms` added, those before `now_ms` dropped, as kept;
    /// `None` when it already passes over [`MAX_PASSED_OVER`] times still to come.
    pub fn passing_over(&self, at_ms: i64, now_ms: i64) -> Option<String> {
        let mut times: Vec<i64> = self
            .skipped
            .split_whitespace()
            .filter_map(|t| t.parse().ok())
            .filter(|t| *t >= now_ms && *t != at_ms)
            .collect();
        if times.len() >= MAX_PASSED_OVER {
            return None;
        }
        times.push(at_ms);
        times.sort_unstable();
        Some(times.iter().map(i64::to_string).collect::<Vec<_>>().join(" "))
    }

    /// The reminder's time zone (the conversation's when the stored one is unknown).
    pub fn time_zone(&self) -> Option<TimeZone> {
        TimeZone::get(&self.tz).ok()
    }
}
