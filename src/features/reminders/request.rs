//! A new reminder as asked for, before it is checked: when (a local date-time or minutes from
//! now, in a zone), how it repeats (also on the lunar calendar or Taiwan's workdays), for whom.
//! [`schedule_of`] turns the asked time and repetition into a validated [`Schedule`] whose first
//! occurrence is still to come; anything not valid is refused with a sentence saying why.

use jiff::civil::{Date, DateTime, Weekday};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};

use super::calendar_rule::{is_calendar_rule, lunar_rule, start_not_before};
use super::recurrence::{Freq, Schedule};
use crate::contract::ToolError;
use crate::sources::calendar::WorkCalendar;
use crate::store::Recurrence;

/// The most days a yearly lunar reminder may come before its date.
const MAX_DAYS_BEFORE: u8 = 30;

/// A reminder to create in the chat of its context.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReminderRequest {
    /// What it is about, in the asker's words.
    pub text: String,
    /// When it first fires, and how it repeats.
    pub when: WhenRequest,
    /// The member it is for, by name (`None`: the asker).
    pub for_member: Option<String>,
    /// For the whole group.
    pub for_everyone: bool,
    /// The family accepted going over this month's LINE message quota.
    pub accept_cost: bool,
}

/// When a reminder fires.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WhenRequest {
    /// The first local time, "YYYY-MM-DDTHH:MM" (a date alone: 09:00).
    pub at: Option<String>,
    /// Or minutes from now.
    pub in_minutes: Option<u32>,
    /// An IANA zone, when another place's time is named (`None`: the chat's).
    pub timezone: Option<String>,
    /// How it repeats (`None`: once).
    pub repetition: Option<RepetitionRequest>,
}

/// How a reminder repeats, as asked.
#[derive(Debug, Clone, PartialEq)]
pub struct RepetitionRequest {
    /// The frequency.
    pub freq: Freq,
    /// Every `interval` periods (`None`: 1).
    pub interval: Option<u32>,
    /// Weekly: the days (`None`: the first time's weekday).
    pub weekdays: Option<Vec<Weekday>>,
    /// Monthly: 1–31, or -1 for the last day (`None`: the first time's day).
    pub day_of_month: Option<i32>,
    /// Lunar rules: the lunar date.
    pub lunar: Option<LunarRequest>,
    /// The last date, "YYYY-MM-DD".
    pub until: Option<String>,
    /// Times in all.
    pub count: Option<u32>,
}

impl Default for RepetitionRequest {
    fn default() -> Self {
        Self {
            freq: Freq::Once,
            interval: None,
            weekdays: None,
            day_of_month: None,
            lunar: None,
            until: None,
            count: None,
        }
    }
}

/// A lunar date of a repeating reminder, as said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LunarRequest {
    /// The lunar days (初一、十五 → [1, 15]).
    pub days: Vec<u8>,
    /// The lunar month, 1–12 (yearly rules).
    pub month: Option<u8>,
    /// A leap month.
    pub leap: bool,
    /// Days before the date (前一天 → 1).
    pub days_before: Option<u8>,
}

fn invalid(msg: impl Into<String>) -> ToolError {
    ToolError::InvalidArgs(msg.into())
}

/// The validated schedule for `when`, relative to `now` in `default_tz`; workdays follow
/// `work_calendar`.
pub fn schedule_of(
    when: &WhenRequest,
    now: Timestamp,
    default_tz: &TimeZone,
    work_calendar: &WorkCalendar,
) -> Result<Schedule, ToolError> {
    let tz = time_zone(when, default_tz)?;
    let rule = when.repetition.clone().unwrap_or_default();
    let (interval, weekdays, month_day) = repeat_rule(&rule)?;
    let freq = rule.freq;
    let lunar_date = rule.lunar.clone().unwrap_or_default();
    let days_before = match lunar_date.days_before.unwrap_or(0) {
        0 => 0,
        n if freq != Freq::LunarYearly => {
            return Err(invalid(format!(
                "days_before ({n}) is only for a yearly lunar date (lunar_yearly)"
            )));
        }
        n if n > MAX_DAYS_BEFORE => {
            return Err(invalid(format!("days_before is at most {MAX_DAYS_BEFORE}")));
        }
        n => n,
    };
    let lunar = lunar_rule(freq, &lunar_date.days, lunar_date.month, lunar_date.leap)
        .map_err(|e| invalid(e.to_string()))?;
    let mut anchor = anchor(when, now, &tz)?;
    if is_calendar_rule(freq) {
        anchor = start_not_before(anchor, now, &tz);
    }
    let count = match rule.count {
        Some(c) if !(1..=1000).contains(&c) => {
            return Err(invalid("count must be between 1 and 1000"));
        }
        other => other,
    };
    let until = until(&rule, &tz)?;
    let schedule = Schedule {
        tz,
        anchor,
        rule: Recurrence {
            freq,
            interval,
            weekdays,
            month_day,
            until,
            count,
            lunar_days: lunar.days,
            lunar_month: lunar.month,
            days_before,
        },
        work_calendar: work_calendar.clone(),
    };
    still_ahead(schedule, now)
}

/// The reminder's time zone: the one named in `when`, else the conversation's.
fn time_zone(when: &WhenRequest, default_tz: &TimeZone) -> Result<TimeZone, ToolError> {
    match &when.timezone {
        Some(name) => TimeZone::get(name.trim()).map_err(|_| {
            invalid(format!("unknown time zone {name:?}; use an IANA name like Asia/Taipei"))
        }),
        None => Ok(default_tz.clone()),
    }
}

/// The first local time: `at` as given, or `in_minutes` from `now` (to the minute).
fn anchor(when: &WhenRequest, now: Timestamp, tz: &TimeZone) -> Result<DateTime, ToolError> {
    match (&when.at, when.in_minutes) {
        (Some(_), Some(_)) => Err(invalid("give either at or in_minutes, not both")),
        (None, None) => Err(invalid("say when: at (local date-time) or in_minutes")),
        (None, Some(m)) => {
            if !(1..=525_600).contains(&m) {
                return Err(invalid("in_minutes must be between 1 and 525600 (a year)"));
            }
            let at = now
                .saturating_add(SignedDuration::from_mins(i64::from(m)))
                .map_err(|_| invalid("time out of range"))?;
            let local = at.to_zoned_datetime(tz.clone()).datetime();
            Ok(local.round(jiff::Unit::Minute).unwrap_or(local))
        }
        (Some(at), None) => local_date_time(at).ok_or_else(|| {
            invalid(format!(
                "{at:?} is not a valid local date-time; use YYYY-MM-DDTHH:MM with a real date"
            ))
        }),
    }
}

/// A local date-time "YYYY-MM-DDTHH:MM"; a date alone means 09:00 that day (no hour said).
fn local_date_time(at: &str) -> Option<DateTime> {
    let at = at.trim();
    if !at.contains(':') {
        let date = at.parse::<Date>().ok()?;
        return Some(date.to_datetime(jiff::civil::time(9, 0, 0, 0)));
    }
    at.parse::<DateTime>().ok()
}

/// How it repeats: the interval, the weekday mask (Monday the lowest bit) and the day of the
/// month.
fn repeat_rule(rule: &RepetitionRequest) -> Result<(u32, u8, Option<i8>), ToolError> {
    let freq = rule.freq;
    let interval = rule.interval.unwrap_or(1);
    if !(1..=100).contains(&interval) {
        return Err(invalid("interval must be between 1 and 100"));
    }
    if interval != 1 && is_calendar_rule(freq) {
        return Err(invalid("lunar and workday reminders repeat every time; interval must be 1"));
    }
    let weekdays = match &rule.weekdays {
        Some(days) if !days.is_empty() => {
            if freq != Freq::Weekly {
                return Err(invalid("weekdays only apply to weekly reminders"));
            }
            days.iter().fold(0u8, |mask, d| mask | (1 << d.to_monday_zero_offset()))
        }
        _ => 0,
    };
    let month_day = match rule.day_of_month {
        None => None,
        Some(_) if freq != Freq::Monthly => {
            return Err(invalid("day_of_month only applies to monthly reminders"));
        }
        Some(d) if d == -1 || (1..=31).contains(&d) => Some(d as i8),
        Some(_) => return Err(invalid("day_of_month must be 1-31, or -1 for the last day")),
    };
    Ok((interval, weekdays, month_day))
}

/// The end of the `until` date, local time, if one is given.
fn until(rule: &RepetitionRequest, tz: &TimeZone) -> Result<Option<Timestamp>, ToolError> {
    let Some(u) = &rule.until else { return Ok(None) };
    let date: Date =
        u.trim().parse().map_err(|_| invalid(format!("{u:?} is not a valid date (YYYY-MM-DD)")))?;
    let end = date
        .to_datetime(jiff::civil::Time::MAX)
        .to_zoned_datetime(tz.clone())
        .map_err(|_| invalid("until is out of range"))?;
    Ok(Some(end.timestamp()))
}

/// `schedule`, if its first occurrence is after `now`.
fn still_ahead(schedule: Schedule, now: Timestamp) -> Result<Schedule, ToolError> {
    let first = schedule.occurrences().next().map(|(_, t)| t);
    match first {
        None => Err(invalid("that repetition never happens (check until, count and the days)")),
        Some(t) if t <= now => {
            let now_local =
                now.to_zoned_datetime(schedule.tz.clone()).strftime("%Y-%m-%dT%H:%M").to_string();
            Err(invalid(format!(
                "that time has already passed (it is now {now_local} local time); ask for a future time"
            )))
        }
        Some(_) => Ok(schedule),
    }
}
