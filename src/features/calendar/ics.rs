//! A chat's events as an iCalendar feed (RFC 5545), for a phone's calendar to subscribe to:
//! each event a `VEVENT` with its stable `UID` and its `SEQUENCE` (bumped at every change), its
//! times in its zone (`TZID`, with a `VTIMEZONE` built from the zone's own transitions), and
//! `STATUS:CANCELLED` for an event cancelled lately, so phones remove it.
//!
//! A repeating event is written as the days hearth itself gives it: `DTSTART` its first
//! occurrence in the feed's window and an `RDATE` for each of the others. Lunar dates and
//! Taiwan's workdays have no `RRULE`, and a rule's edges (the 31st of a short month) differ
//! between RFC 5545 and hearth, so no `RRULE` is written: what a phone shows is what the agenda
//! says. The window runs from [`PAST_DAYS`] ago to [`AHEAD_DAYS`] ahead; a phone reads the feed
//! again every hour ([`REFRESH`]), so the window moves with it.
//!
//! Pure: the caller passes the events, the time and the working calendar.

use std::fmt::Write;

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};

use super::{Event, Moment, Occurrence};
use crate::sources::calendar::WorkCalendar;
use crate::store::Freq;

/// The feed's window reaches this many days back…
pub const PAST_DAYS: i64 = 31;
/// …and this many ahead.
pub const AHEAD_DAYS: i64 = 400;
/// The most dates one repeating event lists.
pub const MAX_DATES: usize = 400;
/// The most dates the whole feed lists (a chat's 500 events each on every workday would be
/// 200,000 lines): past it, a repeating event lists its first date alone.
pub const MAX_FEED_DATES: usize = 8_000;
/// How often a phone is asked to read the feed again.
pub const REFRESH: &str = "PT1H";
/// Its media type.
pub const CONTENT_TYPE: &str = "text/calendar; charset=utf-8";

/// The feed of `events` (cancelled ones included: they are written cancelled), named `name`, of
/// a chat in `zone`, as of `now`. The chat's zone is always described, so a feed without events
/// is still a calendar (RFC 5545 wants one component at least).
pub fn feed(
    name: &str,
    zone: &TimeZone,
    events: &[Event],
    now: Timestamp,
    work_calendar: &WorkCalendar,
) -> String {
    calendar(Some(name), zone, events, now, work_calendar)
}

/// `event` as one object of a CalDAV calendar (RFC 4791 §4.1: one event and its zones, without
/// the feed's `METHOD` and names), as of `now`.
pub fn object(event: &Event, now: Timestamp, work_calendar: &WorkCalendar) -> String {
    calendar(None, &event.tz, std::slice::from_ref(event), now, work_calendar)
}

/// A `VCALENDAR` of `events`: a published feed named `name`, or (`None`) a CalDAV object.
fn calendar(
    name: Option<&str>,
    zone: &TimeZone,
    events: &[Event],
    now: Timestamp,
    work_calendar: &WorkCalendar,
) -> String {
    let mut out = Lines::default();
    out.line("BEGIN:VCALENDAR");
    out.line("VERSION:2.0");
    out.line("PRODID:-//hearth//family calendar//EN");
    out.line("CALSCALE:GREGORIAN");
    if let Some(name) = name {
        out.line("METHOD:PUBLISH");
        out.property("X-WR-CALNAME", &text(name));
        out.line(&format!("REFRESH-INTERVAL;VALUE=DURATION:{REFRESH}"));
        out.line(&format!("X-PUBLISHED-TTL:{REFRESH}"));
    }
    let mut zones: Vec<&TimeZone> = vec![zone];
    for event in events {
        if !zones.iter().any(|z| z.iana_name() == event.tz.iana_name()) {
            zones.push(&event.tz);
        }
    }
    if let Some(zone) = zones.first().and_then(|z| z.iana_name()).filter(|_| name.is_some()) {
        out.property("X-WR-TIMEZONE", zone);
    }
    // From the earliest moment written to the latest: a one-off event may be outside the window.
    let instant = |tz: &TimeZone, m: Moment| {
        let local = match m {
            Moment::Day(day) => day.to_datetime(jiff::civil::Time::midnight()),
            Moment::At(at) => at,
        };
        tz.to_timestamp(local).ok()
    };
    let moments = events.iter().flat_map(|e| {
        [Some(e.start), e.end].into_iter().flatten().filter_map(|m| instant(&e.tz, m))
    });
    let (earliest, latest) = moments.fold((now, now), |(a, b), t| (a.min(t), b.max(t)));
    for zone in zones {
        vtimezone(&mut out, zone, earliest, latest);
    }
    let mut left = MAX_FEED_DATES;
    for event in events {
        left -= vevent(&mut out, event, now, work_calendar, left);
    }
    out.line("END:VCALENDAR");
    out.text
}

/// The window's first and last local dates in `tz` at `now`.
fn window(tz: &TimeZone, now: Timestamp) -> (Date, Date) {
    let today = tz.to_datetime(now).date();
    let from = today.checked_sub(PAST_DAYS.days()).unwrap_or(today);
    let to = today.checked_add(AHEAD_DAYS.days()).unwrap_or(today);
    (from, to)
}

/// Writes `event` with at most `left` dates; how many it wrote.
fn vevent(
    out: &mut Lines,
    event: &Event,
    now: Timestamp,
    work_calendar: &WorkCalendar,
    left: usize,
) -> usize {
    let (from, to) = window(&event.tz, now);
    let repeats = event.rule.freq != Freq::Once;
    let mut occurrences: Vec<Occurrence> = if repeats {
        event.occurrences(from, to, work_calendar, MAX_DATES)
    } else {
        vec![Occurrence { start: event.start, end: event.end, id: event.id }]
    };
    // Past the feed's budget, the dates from today on are the ones kept (the next one at least).
    let room = left.max(1);
    if occurrences.len() > room {
        let today = event.tz.to_datetime(now).date();
        let upcoming = occurrences
            .iter()
            .position(|o| o.end.unwrap_or(o.start).date() >= today)
            .unwrap_or(occurrences.len() - 1);
        occurrences = occurrences.into_iter().skip(upcoming).take(room).collect();
    }
    let Some(first) = occurrences.first() else { return 0 };
    out.line("BEGIN:VEVENT");
    out.property("UID", &text(&event.uid));
    out.line(&format!("DTSTAMP:{}", utc(event.updated)));
    out.line(&format!("LAST-MODIFIED:{}", utc(event.updated)));
    out.line(&format!("SEQUENCE:{}", event.sequence.max(0)));
    out.property("SUMMARY", &text(&event.title));
    let zone = event.tz.iana_name().unwrap_or("UTC");
    out.line(&moment("DTSTART", first.start, zone));
    match (first.start, first.end) {
        // An all-day event ends the day after its last (RFC 5545: DTEND is not included).
        (Moment::Day(_), Some(Moment::Day(last))) => {
            out.line(&moment("DTEND", Moment::Day(last.tomorrow().unwrap_or(last)), zone));
        }
        (Moment::At(_), Some(end @ Moment::At(_))) => out.line(&moment("DTEND", end, zone)),
        _ => {}
    }
    for later in occurrences.iter().skip(1) {
        out.line(&moment("RDATE", later.start, zone));
    }
    if !event.place.is_empty() {
        out.property("LOCATION", &text(&event.place));
    }
    let description: Vec<&str> = [event.people.as_str(), event.notes.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect();
    if !description.is_empty() {
        out.property("DESCRIPTION", &text(&description.join("\n")));
    }
    let status = if event.cancelled.is_some() { "CANCELLED" } else { "CONFIRMED" };
    out.line(&format!("STATUS:{status}"));
    out.line("END:VEVENT");
    occurrences.len().min(left)
}

/// `name` of a moment: `;VALUE=DATE:YYYYMMDD` for a day, `;TZID=zone:YYYYMMDDTHHMMSS` for a
/// local time.
fn moment(name: &str, at: Moment, zone: &str) -> String {
    match at {
        Moment::Day(date) => format!("{name};VALUE=DATE:{}", date.strftime("%Y%m%d")),
        Moment::At(local) => format!("{name};TZID={zone}:{}", local.strftime("%Y%m%dT%H%M%S")),
    }
}

fn utc(at: Timestamp) -> String {
    at.strftime("%Y%m%dT%H%M%SZ").to_string()
}

/// `tz` as a `VTIMEZONE`: the offset in force a year before the window (or `earliest`), then
/// each transition until the window's end (or `latest`).
fn vtimezone(out: &mut Lines, tz: &TimeZone, earliest: Timestamp, latest: Timestamp) {
    let Some(name) = tz.iana_name() else { return };
    let year = jiff::SignedDuration::from_hours(24 * 366);
    let start = earliest
        .checked_sub(jiff::SignedDuration::from_hours(24 * PAST_DAYS) + year)
        .unwrap_or(earliest);
    let end = latest
        .checked_add(jiff::SignedDuration::from_hours(24 * (AHEAD_DAYS + 1)))
        .unwrap_or(latest);
    out.line("BEGIN:VTIMEZONE");
    out.property("TZID", name);
    let first = tz.to_offset_info(start);
    let mut before = first.offset();
    let kind = |dst: bool| if dst { "DAYLIGHT" } else { "STANDARD" };
    let component = |out: &mut Lines,
                     dst: bool,
                     local: DateTime,
                     from: jiff::tz::Offset,
                     to: jiff::tz::Offset,
                     abbreviation: &str| {
        out.line(&format!("BEGIN:{}", kind(dst)));
        out.line(&format!("DTSTART:{}", local.strftime("%Y%m%dT%H%M%S")));
        out.line(&format!("TZOFFSETFROM:{}", offset(from)));
        out.line(&format!("TZOFFSETTO:{}", offset(to)));
        if !abbreviation.is_empty() {
            out.property("TZNAME", &text(abbreviation));
        }
        out.line(&format!("END:{}", kind(dst)));
    };
    component(
        out,
        first.dst().is_dst(),
        DateTime::constant(1970, 1, 1, 0, 0, 0, 0),
        before,
        before,
        first.abbreviation(),
    );
    for transition in tz.following(start).take_while(|t| t.timestamp() <= end).take(64) {
        let local = before.to_datetime(transition.timestamp());
        component(
            out,
            transition.dst().is_dst(),
            local,
            before,
            transition.offset(),
            transition.abbreviation(),
        );
        before = transition.offset();
    }
    out.line("END:VTIMEZONE");
}

/// `+hhmm` or `-hhmm`.
fn offset(offset: jiff::tz::Offset) -> String {
    let seconds = offset.seconds();
    let sign = if seconds < 0 { '-' } else { '+' };
    let minutes = seconds.unsigned_abs() / 60;
    format!("{sign}{:02}{:02}", minutes / 60, minutes % 60)
}

/// `value` as an iCalendar TEXT: backslashes, semicolons, commas and line breaks escaped.
fn text(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => escaped.push_str("\\\\"),
            ';' => escaped.push_str("\\;"),
            ',' => escaped.push_str("\\,"),
            '\n' => escaped.push_str("\\n"),
            '\r' => {}
            c if c.is_control() => {}
            c => escaped.push(c),
        }
    }
    escaped
}

/// Content lines: CRLF-ended, folded at 75 octets without splitting a character.
#[derive(Default)]
struct Lines {
    text: String,
}

impl Lines {
    fn property(&mut self, name: &str, value: &str) {
        self.line(&format!("{name}:{value}"));
    }

    fn line(&mut self, line: &str) {
        let mut width = 0;
        for c in line.chars() {
            let bytes = c.len_utf8();
            if width + bytes > 75 {
                self.text.push_str("\r\n ");
                width = 1;
            }
            self.text.push(c);
            width += bytes;
        }
        let _ = write!(self.text, "\r\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Recurrence;

    fn party() -> Event {
        Event {
            id: 1,
            uid: "b0c1d2@hearth".into(),
            title: "阿公生日聚餐, 欣葉; 記得帶蛋糕".into(),
            tz: TimeZone::get("Asia/Taipei").expect("zone"),
            start: Moment::parse("2026-12-19T12:00").expect("start"),
            end: Moment::parse("2026-12-19T14:00"),
            place: "欣葉 台菜".into(),
            people: "全家".into(),
            notes: String::new(),
            rule: Recurrence::once(),
            sequence: 2,
            updated: "2026-12-07T03:00:00Z".parse().expect("instant"),
            cancelled: None,
            skipped: Vec::new(),
        }
    }

    fn taipei() -> TimeZone {
        TimeZone::get("Asia/Taipei").expect("zone")
    }

    fn now() -> Timestamp {
        "2026-12-07T04:00:00Z".parse().expect("now")
    }

    #[test]
    fn an_event_is_written_in_its_zone_with_its_uid_and_sequence() {
        let ics =
            feed("全家的行事曆", &taipei(), &[party()], now(), &WorkCalendar::weekdays_only());
        assert!(ics.starts_with("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"), "{ics}");
        for line in [
            "UID:b0c1d2@hearth",
            "SEQUENCE:2",
            "DTSTART;TZID=Asia/Taipei:20261219T120000",
            "DTEND;TZID=Asia/Taipei:20261219T140000",
            "SUMMARY:阿公生日聚餐\\, 欣葉\\; 記得帶蛋糕",
            "TZID:Asia/Taipei",
            "TZOFFSETTO:+0800",
            "STATUS:CONFIRMED",
        ] {
            assert!(ics.contains(&format!("{line}\r\n")), "{line} in:\n{ics}");
        }
        assert!(ics.ends_with("END:VCALENDAR\r\n"));
    }

    #[test]
    fn long_lines_are_folded_at_75_octets_between_characters() {
        let mut long = party();
        long.notes = "很長的備註".repeat(20);
        let ics = feed("x", &taipei(), &[long], now(), &WorkCalendar::weekdays_only());
        for line in ics.split("\r\n") {
            assert!(line.len() <= 75, "{} octets: {line}", line.len());
        }
        let unfolded = ics.replace("\r\n ", "");
        assert!(unfolded.contains(&"很長的備註".repeat(20)));
    }

    #[test]
    fn a_cancelled_event_stays_in_the_feed_cancelled_and_a_day_event_ends_the_next_day() {
        let mut trip = party();
        trip.start = Moment::Day(jiff::civil::date(2026, 12, 24));
        trip.end = Some(Moment::Day(jiff::civil::date(2026, 12, 26)));
        trip.cancelled = Some(now());
        let ics = feed("x", &taipei(), &[trip], now(), &WorkCalendar::weekdays_only());
        assert!(ics.contains("DTSTART;VALUE=DATE:20261224\r\n"), "{ics}");
        assert!(ics.contains("DTEND;VALUE=DATE:20261227\r\n"), "{ics}");
        assert!(ics.contains("STATUS:CANCELLED\r\n"));
    }

    #[test]
    fn a_feed_of_many_repeating_events_stays_within_its_dates() {
        let mut daily = party();
        daily.rule = Recurrence { freq: Freq::Daily, ..Recurrence::once() };
        let many: Vec<Event> = (0..60).map(|i| Event { id: i, ..daily.clone() }).collect();
        let ics = feed("x", &taipei(), &many, now(), &WorkCalendar::weekdays_only());
        let dates = ics.matches("\r\nRDATE;").count() + ics.matches("\r\nDTSTART;").count();
        assert!(dates <= MAX_FEED_DATES + many.len(), "{dates} dates");
        assert_eq!(ics.matches("BEGIN:VEVENT").count(), 60, "every event is still there");
    }

    #[test]
    fn a_feed_without_events_still_describes_its_zone() {
        let ics = feed("x", &taipei(), &[], now(), &WorkCalendar::weekdays_only());
        assert!(ics.contains("BEGIN:VTIMEZONE\r\nTZID:Asia/Taipei\r\n"), "{ics}");
    }

    #[test]
    fn past_the_budget_a_repeating_event_keeps_its_dates_from_today() {
        let mut daily = party();
        daily.start = Moment::parse("2026-12-08T07:30").expect("start");
        daily.end = None;
        daily.rule = Recurrence { freq: Freq::Daily, ..Recurrence::once() };
        let many: Vec<Event> = (0..30).map(|i| Event { id: i, ..daily.clone() }).collect();
        let ics = feed("x", &taipei(), &many, now(), &WorkCalendar::weekdays_only());
        let last = ics.rsplit("BEGIN:VEVENT").next().expect("the last event");
        assert!(last.contains("DTSTART;TZID=Asia/Taipei:20261208T073000"), "{last}");
    }

    #[test]
    fn a_far_away_event_in_a_summer_time_zone_has_its_transitions() {
        let mut wedding = party();
        wedding.tz = TimeZone::get("America/New_York").expect("zone");
        wedding.start = Moment::parse("2028-07-01T15:00").expect("start");
        wedding.end = None;
        let ics = feed("x", &wedding.tz.clone(), &[wedding], now(), &WorkCalendar::weekdays_only());
        assert!(ics.contains("DTSTART:20280312T020000"), "the spring of 2028: {ics}");
    }

    #[test]
    fn a_zone_with_summer_time_gets_its_transitions() {
        let mut meeting = party();
        meeting.tz = TimeZone::get("America/New_York").expect("zone");
        let ics = feed("x", &taipei(), &[meeting], now(), &WorkCalendar::weekdays_only());
        assert!(
            ics.contains("BEGIN:DAYLIGHT\r\n") && ics.contains("TZOFFSETTO:-0400\r\n"),
            "{ics}"
        );
    }
}
