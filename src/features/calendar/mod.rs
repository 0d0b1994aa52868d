//! The family calendar: the plans a family makes in its chat — 「下週六中午阿公生日，欣葉」,
//! 「小明週三四點鋼琴課」 — kept as events with a place and the people going, once or repeating by
//! the reminders' rules (weekly, monthly, yearly, on lunar dates, on Taiwan's workdays:
//! [`crate::features::reminders::recurrence`]), shown as an agenda, and put on each member's
//! phone by a private feed ([`ics`], RFC 5545). The verbs are in [`ops`].
//!
//! An event is a day (all day, perhaps several days) or a time (with an end, or not); its times
//! are local to the chat's zone. What happens when is a pure question of the event and a range
//! ([`Event::occurrences`]); so is a clash ([`clashes`]).

pub mod actions;
pub mod ics;
pub mod ics_read;
pub mod ops;

use jiff::civil::{Date, DateTime, Time};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp, ToSpan};

use crate::features::reminders::recurrence::Schedule;
use crate::sources::calendar::WorkCalendar;
use crate::store::{EventRow, Recurrence};

/// When an event starts or ends: a whole day, or a time of one. Moments are ordered by their
/// date, a whole day before the times of that day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment {
    /// All day.
    Day(Date),
    /// At a local time.
    At(DateTime),
}

impl Ord for Moment {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.date(), self.time()).cmp(&(other.date(), other.time()))
    }
}

impl PartialOrd for Moment {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Moment {
    /// "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM" (seconds dropped); `None` otherwise.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if text.len() == 10 {
            return text.parse::<Date>().ok().map(Moment::Day);
        }
        let at: DateTime = text.parse().ok()?;
        Some(Moment::At(at.with().second(0).subsec_nanosecond(0).build().ok()?))
    }

    /// As stored: "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM".
    pub fn stored(self) -> String {
        match self {
            Moment::Day(date) => date.to_string(),
            Moment::At(at) => at.strftime("%Y-%m-%dT%H:%M").to_string(),
        }
    }

    /// Its date.
    pub fn date(self) -> Date {
        match self {
            Moment::Day(date) => date,
            Moment::At(at) => at.date(),
        }
    }

    /// Its time of day (`None`: all day).
    pub fn time(self) -> Option<Time> {
        match self {
            Moment::Day(_) => None,
            Moment::At(at) => Some(at.time()),
        }
    }
}

/// An event, read from its row.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Its number in the chat.
    pub id: i64,
    /// What a phone's calendar knows it by.
    pub uid: String,
    /// What it is.
    pub title: String,
    /// Its zone.
    pub tz: TimeZone,
    /// When it (first) starts: for a lunar or workday rule, the first date searched from.
    pub start: Moment,
    /// When it ends, if said: of the same kind as `start`.
    pub end: Option<Moment>,
    /// Where.
    pub place: String,
    /// Who is going.
    pub people: String,
    /// Anything else.
    pub notes: String,
    /// How it repeats.
    pub rule: Recurrence,
    /// Its RFC 5545 `SEQUENCE`.
    pub sequence: i64,
    /// Its last change.
    pub updated: Timestamp,
    /// Cancelled, and when.
    pub cancelled: Option<Timestamp>,
    /// The days a repeating event does not happen on (one time called off).
    pub skipped: Vec<Date>,
}

/// One time an event happens.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Occurrence {
    /// When it starts.
    pub start: Moment,
    /// When it ends, if the event says.
    pub end: Option<Moment>,
    /// The event's number.
    pub id: i64,
}

/// How an event with `freq` repeats, in the tool's words; `None` for once.
pub fn repeats(freq: crate::store::Freq) -> Option<&'static str> {
    (freq != crate::store::Freq::Once).then(|| freq.name())
}

/// The days called off an event's row keeps ("YYYY-MM-DD", space-separated); one that does not
/// read is left out.
pub fn skipped_days(kept: &str) -> Vec<Date> {
    kept.split_whitespace().filter_map(|d| d.parse().ok()).collect()
}

/// A noon, for all-day events' schedules (no zone skips it).
const NOON: Time = Time::constant(12, 0, 0, 0);

impl Event {
    /// The event of `row`; `None` when its zone or times are not readable (logged).
    pub fn of(row: &EventRow) -> Option<Self> {
        let read = || {
            let tz = TimeZone::get(&row.tz).ok()?;
            let start = Moment::parse(&row.starts_local)?;
            let end = match row.ends_local.as_deref() {
                Some(end) => Some(Moment::parse(end)?),
                None => None,
            };
            Some((tz, start, end))
        };
        let Some((tz, start, end)) = read() else {
            tracing::warn!(id = row.id, "a calendar event whose zone or times cannot be read");
            return None;
        };
        let instant = |ms: i64| Timestamp::from_millisecond(ms).ok();
        Some(Self {
            id: row.id,
            uid: row.uid.clone(),
            title: row.title.clone(),
            tz,
            start,
            end,
            place: row.place.clone(),
            people: row.people.clone(),
            notes: row.notes.clone(),
            rule: row.rule,
            sequence: row.sequence,
            updated: instant(row.updated_at).unwrap_or(Timestamp::UNIX_EPOCH),
            cancelled: row.cancelled_at.and_then(instant),
            skipped: skipped_days(&row.skipped),
        })
    }

    /// Its schedule: the reminders' rule from its start.
    pub fn schedule(&self, work_calendar: &WorkCalendar) -> Schedule {
        let anchor = match self.start {
            Moment::Day(date) => date.to_datetime(NOON),
            Moment::At(at) => at,
        };
        Schedule {
            tz: self.tz.clone(),
            anchor,
            rule: self.rule,
            work_calendar: work_calendar.clone(),
        }
    }

    /// How long each occurrence lasts: from its start to its end (days for a day event).
    fn length(&self) -> SignedDuration {
        match (self.start, self.end) {
            (Moment::Day(a), Some(Moment::Day(b))) => {
                SignedDuration::from_hours(24 * i64::from((b - a).get_days()))
            }
            (Moment::At(a), Some(Moment::At(b))) => a.duration_until(b),
            _ => SignedDuration::ZERO,
        }
    }

    /// Its occurrences whose days meet `[from, to]` (local dates), in order: at most `max`; a
    /// day called off ([`Event::skipped`]) has none.
    pub fn occurrences(
        &self,
        from: Date,
        to: Date,
        work_calendar: &WorkCalendar,
        max: usize,
    ) -> Vec<Occurrence> {
        let schedule = self.schedule(work_calendar);
        let length = self.length();
        let mut found = Vec::new();
        for (_, at) in schedule.occurrences() {
            let local = self.tz.to_datetime(at);
            if local.date() > to || found.len() >= max {
                break;
            }
            if self.skipped.contains(&local.date()) {
                continue;
            }
            let start = match self.start {
                Moment::Day(_) => Moment::Day(local.date()),
                Moment::At(_) => Moment::At(local),
            };
            let end = self.end.map(|_| match start {
                Moment::Day(day) => Moment::Day(
                    day.checked_add(length.as_hours().div_euclid(24).days()).unwrap_or(day),
                ),
                Moment::At(at) => Moment::At(at.checked_add(length).unwrap_or(at)),
            });
            if end.unwrap_or(start).date() >= from {
                found.push(Occurrence { start, end, id: self.id });
            }
        }
        found
    }
}

/// The events of `others` that clash with `new`'s occurrence `at`: on the same day when either
/// is all day; else when their times overlap (an event without an end taken as an hour).
pub fn clashes<'a>(at: &Occurrence, others: &'a [(Event, Vec<Occurrence>)]) -> Vec<&'a Event> {
    let hour = SignedDuration::from_hours(1);
    let span = |o: &Occurrence| -> Option<(DateTime, DateTime)> {
        let Moment::At(start) = o.start else { return None };
        let end = match o.end {
            Some(Moment::At(end)) if end > start => end,
            _ => start.checked_add(hour).ok()?,
        };
        Some((start, end))
    };
    let days = |o: &Occurrence| (o.start.date(), o.end.map_or(o.start.date(), Moment::date));
    others
        .iter()
        .filter(|(event, occurrences)| {
            event.id != at.id
                && occurrences.iter().any(|other| {
                    let ((a0, a1), (b0, b1)) = (days(at), days(other));
                    let same_days = a0 <= b1 && b0 <= a1;
                    match (span(at), span(other)) {
                        (Some((s0, e0)), Some((s1, e1))) => s0 < e1 && s1 < e0,
                        _ => same_days,
                    }
                })
        })
        .map(|(event, _)| event)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(id: i64, start: &str, end: Option<&str>) -> Event {
        Event {
            id,
            uid: format!("{id}@hearth"),
            title: format!("event {id}"),
            tz: TimeZone::get("Asia/Taipei").expect("zone"),
            start: Moment::parse(start).expect("start"),
            end: end.map(|e| Moment::parse(e).expect("end")),
            place: String::new(),
            people: String::new(),
            notes: String::new(),
            rule: Recurrence::once(),
            sequence: 0,
            updated: Timestamp::UNIX_EPOCH,
            cancelled: None,
            skipped: Vec::new(),
        }
    }

    fn days(a: &str, b: &str) -> (Date, Date) {
        (a.parse().expect("date"), b.parse().expect("date"))
    }

    #[test]
    fn a_moment_is_a_day_or_a_local_time_and_nothing_else() {
        assert_eq!(Moment::parse("2026-12-19"), Some(Moment::Day(jiff::civil::date(2026, 12, 19))));
        assert_eq!(
            Moment::parse("2026-12-19T12:00").map(Moment::stored).as_deref(),
            Some("2026-12-19T12:00")
        );
        assert_eq!(
            Moment::parse("2026-12-19T12:00:30").map(Moment::stored).as_deref(),
            Some("2026-12-19T12:00")
        );
        assert_eq!(Moment::parse("next saturday"), None);
        assert_eq!(Moment::parse("2026-13-01"), None);
    }

    #[test]
    fn moments_are_in_the_order_of_their_days_a_whole_day_first() {
        let mut moments: Vec<Moment> =
            ["2026-12-20", "2026-12-19T18:00", "2026-12-19", "2026-12-19T08:00"]
                .into_iter()
                .map(|m| Moment::parse(m).expect("moment"))
                .collect();
        moments.sort();
        let shown: Vec<String> = moments.into_iter().map(Moment::stored).collect();
        assert_eq!(shown, ["2026-12-19", "2026-12-19T08:00", "2026-12-19T18:00", "2026-12-20"]);
    }

    #[test]
    fn a_weekly_lesson_happens_on_its_days_within_the_range() {
        let mut lesson = event(1, "2026-12-09T16:00", Some("2026-12-09T17:00"));
        lesson.rule = Recurrence { freq: crate::store::Freq::Weekly, ..Recurrence::once() };
        let (from, to) = days("2026-12-10", "2026-12-31");
        let found = lesson.occurrences(from, to, &WorkCalendar::weekdays_only(), 10);
        let starts: Vec<String> = found.iter().map(|o| o.start.stored()).collect();
        assert_eq!(starts, ["2026-12-16T16:00", "2026-12-23T16:00", "2026-12-30T16:00"]);
        assert_eq!(found[0].end.map(Moment::stored).as_deref(), Some("2026-12-16T17:00"));
    }

    #[test]
    fn a_weekly_lesson_called_off_one_week_skips_that_day_only() {
        let mut lesson = event(1, "2026-12-09T16:00", Some("2026-12-09T17:00"));
        lesson.rule = Recurrence { freq: crate::store::Freq::Weekly, ..Recurrence::once() };
        lesson.skipped = vec![jiff::civil::date(2026, 12, 23)];
        let (from, to) = days("2026-12-10", "2026-12-31");
        let found = lesson.occurrences(from, to, &WorkCalendar::weekdays_only(), 2);
        let starts: Vec<String> = found.iter().map(|o| o.start.stored()).collect();
        assert_eq!(starts, ["2026-12-16T16:00", "2026-12-30T16:00"], "at most 2, past the 23rd");
    }

    #[test]
    fn a_trip_of_several_days_is_in_a_range_it_overlaps() {
        let trip = event(2, "2026-12-24", Some("2026-12-27"));
        let (from, to) = days("2026-12-26", "2026-12-31");
        let found = trip.occurrences(from, to, &WorkCalendar::weekdays_only(), 10);
        assert_eq!(found.len(), 1, "it is still on on the 26th");
        assert_eq!(found[0].end, Some(Moment::Day(jiff::civil::date(2026, 12, 27))));
    }

    #[test]
    fn a_clash_is_the_same_time_or_the_same_day_when_either_is_all_day() {
        let noon = event(1, "2026-12-19T12:00", Some("2026-12-19T14:00"));
        let evening = event(2, "2026-12-19T18:00", None);
        let all_day = event(3, "2026-12-20", None);
        let cal = WorkCalendar::weekdays_only();
        let (from, to) = days("2026-12-01", "2026-12-31");
        let others: Vec<(Event, Vec<Occurrence>)> = [noon, evening, all_day]
            .into_iter()
            .map(|e| {
                let o = e.occurrences(from, to, &cal, 5);
                (e, o)
            })
            .collect();
        let lunch = event(9, "2026-12-19T13:00", None).occurrences(from, to, &cal, 1);
        let names: Vec<i64> = clashes(&lunch[0], &others).iter().map(|e| e.id).collect();
        assert_eq!(names, [1], "13:00 meets the noon party, not the evening");
        let breakfast = event(9, "2026-12-20T08:00", None).occurrences(from, to, &cal, 1);
        let names: Vec<i64> = clashes(&breakfast[0], &others).iter().map(|e| e.id).collect();
        assert_eq!(names, [3], "an all-day event takes the day");
    }
}
