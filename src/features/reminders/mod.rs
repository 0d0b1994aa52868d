//! Reminders: when they fire ([`recurrence`]; lunar and workday rules checked in
//! [`calendar_rule`]), how they are described to the family
//! ([`describe`]), what a delivery looks like ([`render`]), how it is delivered exactly once
//! ([`scheduler`]), what its buttons do ([`actions`]; 📅 change time in [`picker`]) and what the scheduled ones will spend of
//! LINE's monthly quota ([`projection`], [`spend`]).

pub mod actions;
pub mod calendar_rule;
pub mod describe;
pub mod picker;
pub mod projection;
pub mod recurrence;
pub mod render;
pub mod scheduler;
pub mod spend;

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::TimeZone;

use crate::sources::calendar::WorkCalendar;
use crate::sources::calendar::lunar::LunarMonth;
use crate::store::ReminderRow;
use recurrence::Schedule;

impl ReminderRow {
    /// The reminder's schedule, workdays following `work_calendar`; `None` if the stored rule is
    /// unreadable (it is then paused).
    pub fn schedule(&self, work_calendar: &WorkCalendar) -> Option<Schedule> {
        let lunar_month = match self.lunar_month {
            None => None,
            Some(m) => {
                Some(LunarMonth { number: u8::try_from(m).ok()?, leap: self.lunar_leap != 0 })
            }
        };
        Some(Schedule {
            tz: TimeZone::get(&self.tz).ok()?,
            anchor: self.anchor_local.parse::<DateTime>().ok()?,
            freq: self.freq,
            interval: u32::try_from(self.every_n).ok()?,
            weekdays: u8::try_from(self.weekdays).ok()?,
            month_day: self.month_day.and_then(|d| i8::try_from(d).ok()),
            until: self.until_ms.and_then(|u| Timestamp::from_millisecond(u).ok()),
            count: self.max_count.and_then(|c| u32::try_from(c).ok()),
            lunar_days: u32::try_from(self.lunar_days).ok()?,
            lunar_month,
            work_calendar: work_calendar.clone(),
        })
    }

    /// The reminder's time zone (the conversation's when the stored one is unknown).
    pub fn time_zone(&self) -> Option<TimeZone> {
        TimeZone::get(&self.tz).ok()
    }
}
