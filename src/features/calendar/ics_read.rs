//! Reading one event back from a calendar object of the family's calendar server (RFC 5545):
//! the first `VEVENT` that is not an exception (`RECURRENCE-ID`), its `UID`, `SUMMARY`,
//! `LOCATION`, `DESCRIPTION`, its start and end (a day, a time in a named zone, in UTC or
//! floating, each seen in the chat's zone), when it last changed, whether it is cancelled, and
//! an `RRULE` hearth can keep (weekly on some weekdays, monthly on a day, yearly; an interval,
//! an end date or a count), with its days deleted (`EXDATE`) and its times changed alone (the
//! exceptions of the same `UID`, at most [`MAX_EXCEPTIONS`]). One pass over lines already
//! bounded in size by the client ([`crate::sources::caldav::MAX_OBJECT_BYTES`]); nothing
//! recurses, and what cannot be read is `None`, never a panic.

use jiff::civil::{Date, DateTime, Weekday};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};

use super::Moment;
use crate::features::reminders::request::RepetitionRequest;
use crate::store::Freq;

/// The most characters kept of a title, a place or notes.
const MAX_TEXT: usize = 200;

/// An event as the calendar server has it.
#[derive(Debug, Clone, PartialEq)]
pub struct Remote {
    /// Its `UID`.
    pub uid: String,
    /// Its `SUMMARY`.
    pub title: String,
    /// When it starts, in the chat's zone.
    pub start: Moment,
    /// When it ends (a day event: its last day), if later than its start.
    pub end: Option<Moment>,
    /// Its `LOCATION`.
    pub place: String,
    /// Its `DESCRIPTION`.
    pub notes: String,
    /// Its `LAST-MODIFIED` (else `DTSTAMP`).
    pub modified: Option<Timestamp>,
    /// `STATUS:CANCELLED`.
    pub cancelled: bool,
    /// Its `RRULE`, as a repetition hearth keeps; `None`: once, or a rule hearth cannot keep
    /// (it then comes in once).
    pub rule: Option<RepetitionRequest>,
    /// The days of its `EXDATE`s (one time deleted on a phone), in order: the latest
    /// [`MAX_EXDATES`].
    pub skipped: Vec<Date>,
    /// Its times changed alone (exceptions with a `RECURRENCE-ID`: one time moved or cancelled
    /// on a phone), in the order of their days: the latest [`MAX_EXCEPTIONS`].
    pub changed_times: Vec<ChangedTime>,
}

/// One time of a repeating event changed alone on a phone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedTime {
    /// The day of the time it changes (its `RECURRENCE-ID`, in the chat's zone).
    pub day: Date,
    /// Where it moved to.
    pub start: Moment,
    /// Its end there, if later than its start.
    pub end: Option<Moment>,
    /// `STATUS:CANCELLED`: that time is called off.
    pub cancelled: bool,
}

/// The most days of `EXDATE`s read.
pub const MAX_EXDATES: usize = 400;
/// The most exceptions read of one event.
pub const MAX_EXCEPTIONS: usize = 100;

/// The event of calendar object `text`, its times seen in `zone`.
pub fn read(text: &str, zone: &TimeZone) -> Option<Remote> {
    let mut found: Option<Vec<(String, String)>> = None;
    let mut exceptions: Vec<Vec<(String, String)>> = Vec::new();
    let mut current: Option<Vec<(String, String)>> = None;
    // Components inside the event (its VALARMs): their properties are not the event's.
    let mut inside = 0usize;
    for line in unfolded(text) {
        let Some((name, value)) = split(&line) else { continue };
        match (name.to_ascii_uppercase().as_str(), value) {
            ("BEGIN", v) if v.eq_ignore_ascii_case("VEVENT") => current = Some(Vec::new()),
            ("END", v) if v.eq_ignore_ascii_case("VEVENT") => {
                let event = current.take()?;
                let exception = event.iter().any(|(n, _)| property(n) == "RECURRENCE-ID");
                if exception {
                    // As many as the object holds (it is bounded in size): those of another
                    // UID are dropped below, before the count.
                    exceptions.push(event);
                } else if found.is_none() {
                    found = Some(event);
                }
                inside = 0;
            }
            ("BEGIN", _) if current.is_some() => inside += 1,
            ("END", _) if current.is_some() => inside = inside.saturating_sub(1),
            _ => {
                if let Some(event) = current.as_mut().filter(|_| inside == 0) {
                    event.push((name.to_string(), value.to_string()));
                }
            }
        }
    }
    let event = found?;
    let get = |wanted: &str| event.iter().find(|(n, _)| property(n) == wanted);
    let (start, end) = span(&event, zone)?;
    let text_of = |wanted: &str| get(wanted).map(|(_, v)| unescape(v)).unwrap_or_default();
    let uid = text_of("UID");
    let mut changed_times: Vec<ChangedTime> = exceptions
        .iter()
        .filter(|e| e.iter().any(|(n, v)| property(n) == "UID" && unescape(v) == uid))
        .filter_map(|e| changed_time(e, zone))
        .collect();
    // The latest are the ones still to come.
    changed_times.sort_by_key(|t| t.day);
    let changed_times = changed_times.split_off(changed_times.len().saturating_sub(MAX_EXCEPTIONS));
    let modified = get("LAST-MODIFIED").or(get("DTSTAMP")).and_then(|(_, v)| utc(v));
    Some(Remote {
        uid,
        title: text_of("SUMMARY"),
        start,
        end,
        place: text_of("LOCATION"),
        notes: text_of("DESCRIPTION"),
        modified,
        cancelled: get("STATUS").is_some_and(|(_, v)| v.eq_ignore_ascii_case("CANCELLED")),
        rule: get("RRULE").and_then(|(_, v)| rule(v, zone)),
        skipped: exdates(&event, zone),
        changed_times,
    })
}

/// The start of `event`'s properties and its end, if later (a day event's `DTEND` is the day
/// after its last).
fn span(event: &[(String, String)], zone: &TimeZone) -> Option<(Moment, Option<Moment>)> {
    let get = |wanted: &str| event.iter().find(|(n, _)| property(n) == wanted);
    let start = moment(get("DTSTART")?, zone)?;
    let end = get("DTEND").and_then(|p| moment(p, zone)).and_then(|end| match (start, end) {
        (Moment::Day(a), Moment::Day(b)) => {
            let last = b.checked_sub(1.day()).ok()?;
            (last > a).then_some(Moment::Day(last))
        }
        (Moment::At(a), Moment::At(b)) => (b > a).then_some(end),
        _ => None,
    });
    Some((start, end))
}

/// The time an exception (`RECURRENCE-ID`) changes, and what it became.
fn changed_time(event: &[(String, String)], zone: &TimeZone) -> Option<ChangedTime> {
    let get = |wanted: &str| event.iter().find(|(n, _)| property(n) == wanted);
    let was = moment(get("RECURRENCE-ID")?, zone)?;
    let cancelled = get("STATUS").is_some_and(|(_, v)| v.eq_ignore_ascii_case("CANCELLED"));
    // A time cancelled needs no new start.
    let (start, end) = match span(event, zone) {
        Some(span) => span,
        None if cancelled => (was, None),
        None => return None,
    };
    Some(ChangedTime { day: was.date(), start, end, cancelled })
}

/// The days of `event`'s `EXDATE`s (each may list several, comma-separated), seen in `zone`;
/// the object they come in is already bounded in size.
fn exdates(event: &[(String, String)], zone: &TimeZone) -> Vec<Date> {
    let mut days: Vec<Date> = event
        .iter()
        .filter(|(name, _)| property(name) == "EXDATE")
        .flat_map(|(name, value)| value.split(',').map(move |v| (name.clone(), v.to_string())))
        .filter_map(|p| moment(&p, zone).map(Moment::date))
        .collect();
    days.sort();
    days.dedup();
    // The latest are the ones still to come.
    days.split_off(days.len().saturating_sub(MAX_EXDATES))
}

/// The lines of `text`, folded lines joined (RFC 5545 §3.1).
fn unfolded(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for raw in text.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        match (raw.strip_prefix([' ', '\t']), lines.last_mut()) {
            (Some(more), Some(last)) => last.push_str(more),
            _ if raw.is_empty() => {}
            _ => lines.push(raw.to_string()),
        }
    }
    lines
}

/// A content line's name (with its parameters) and value: split at the first colon outside a
/// quoted parameter (`TZID="(UTC+08:00) Taipei":…`).
fn split(line: &str) -> Option<(&str, &str)> {
    let mut quoted = false;
    for (at, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ':' if !quoted => return Some((&line[..at], &line[at + 1..])),
            _ => {}
        }
    }
    None
}

/// A property's name without its parameters.
fn property(name: &str) -> String {
    name.split(';').next().unwrap_or(name).to_ascii_uppercase()
}

/// The value of parameter `wanted` of a property's `name` (`DTSTART;TZID=Asia/Taipei`).
fn parameter<'a>(name: &'a str, wanted: &str) -> Option<&'a str> {
    name.split(';').skip(1).find_map(|p| {
        let (key, value) = p.split_once('=')?;
        key.eq_ignore_ascii_case(wanted).then(|| value.trim_matches('"'))
    })
}

/// A `DTSTART` or `DTEND` in `zone`: a day, or a time (named zone, UTC or floating).
fn moment((name, value): &(String, String), zone: &TimeZone) -> Option<Moment> {
    let value = value.trim();
    if value.len() == 8 {
        return Date::strptime("%Y%m%d", value).ok().map(Moment::Day);
    }
    if let Some(at) = utc(value).filter(|_| value.ends_with('Z')) {
        return Some(Moment::At(zone.to_datetime(at)));
    }
    let local = DateTime::strptime("%Y%m%dT%H%M%S", value).ok()?;
    let at = match parameter(name, "TZID").and_then(zone_named) {
        Some(theirs) => zone.to_datetime(theirs.to_ambiguous_timestamp(local).compatible().ok()?),
        None => local,
    };
    // hearth keeps minutes.
    Some(Moment::At(at.with().second(0).build().ok()?))
}

/// Windows' names of the zones a family in Taiwan meets most (Outlook and Exchange write them as
/// `TZID`s), with their IANA names: the CLDR `windowsZones` mapping's first entry of each.
const WINDOWS_ZONES: &[(&str, &str)] = &[
    ("Taipei Standard Time", "Asia/Taipei"),
    ("China Standard Time", "Asia/Shanghai"),
    ("Tokyo Standard Time", "Asia/Tokyo"),
    ("Korea Standard Time", "Asia/Seoul"),
    ("Singapore Standard Time", "Asia/Singapore"),
    ("SE Asia Standard Time", "Asia/Bangkok"),
    ("India Standard Time", "Asia/Calcutta"),
    ("AUS Eastern Standard Time", "Australia/Sydney"),
    ("New Zealand Standard Time", "Pacific/Auckland"),
    ("GMT Standard Time", "Europe/London"),
    ("W. Europe Standard Time", "Europe/Berlin"),
    ("Romance Standard Time", "Europe/Paris"),
    ("Eastern Standard Time", "America/New_York"),
    ("Central Standard Time", "America/Chicago"),
    ("Mountain Standard Time", "America/Denver"),
    ("Pacific Standard Time", "America/Los_Angeles"),
    ("Hawaiian Standard Time", "Pacific/Honolulu"),
    ("UTC", "UTC"),
];

/// The zone a `TZID` names: an IANA name, or one of [`WINDOWS_ZONES`]; `None` for a name
/// hearth does not know (the time is then read in the chat's zone).
fn zone_named(id: &str) -> Option<TimeZone> {
    TimeZone::get(id).ok().or_else(|| {
        let (_, iana) =
            WINDOWS_ZONES.iter().find(|(windows, _)| windows.eq_ignore_ascii_case(id))?;
        TimeZone::get(iana).ok()
    })
}

/// A UTC date-time (`20261205T040000Z`).
fn utc(value: &str) -> Option<Timestamp> {
    let local = DateTime::strptime("%Y%m%dT%H%M%SZ", value.trim()).ok()?;
    TimeZone::UTC.to_timestamp(local).ok()
}

/// Text with RFC 5545's escapes undone, within [`MAX_TEXT`] characters.
fn unescape(value: &str) -> String {
    let mut out = String::new();
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match (c, out.chars().count() < MAX_TEXT) {
            (_, false) => break,
            ('\\', true) => match chars.next() {
                Some('n' | 'N') => out.push('\n'),
                Some(other) => out.push(other),
                None => {}
            },
            (c, true) => out.push(c),
        }
    }
    out.trim().to_string()
}

/// An `RRULE` hearth can keep: weekly (on the `BYDAY` weekdays, without ordinals), monthly
/// (on one `BYMONTHDAY`, −1 the last) or yearly, every `INTERVAL`, until an `UNTIL` (its date in
/// `zone`) or for a `COUNT`. Anything more (`BYSETPOS`, `BYDAY=2SU`, several month days, daily
/// rules) is `None`: the event comes in once, as it does from a phone that writes one.
fn rule(value: &str, zone: &TimeZone) -> Option<RepetitionRequest> {
    let mut rule = RepetitionRequest::default();
    let mut freq = None;
    for part in value.split(';') {
        let (key, v) = part.split_once('=')?;
        match key.to_ascii_uppercase().as_str() {
            "FREQ" => {
                freq = Some(match v.to_ascii_uppercase().as_str() {
                    "WEEKLY" => Freq::Weekly,
                    "MONTHLY" => Freq::Monthly,
                    "YEARLY" => Freq::Yearly,
                    _ => return None,
                })
            }
            "INTERVAL" => rule.interval = Some(v.parse().ok().filter(|n| (1..=52).contains(n))?),
            "BYDAY" => {
                let days: Option<Vec<Weekday>> = v.split(',').map(weekday).collect();
                rule.weekdays = Some(days?);
            }
            "BYMONTHDAY" => {
                let day: i32 = v.parse().ok()?;
                rule.day_of_month = Some(day).filter(|d| *d == -1 || (1..=31).contains(d));
                rule.day_of_month?;
            }
            "UNTIL" => rule.until = Some(last_date(v, zone)?.to_string()),
            "COUNT" => rule.count = Some(v.parse().ok().filter(|n| (1..=1000).contains(n))?),
            "WKST" => {}
            _ => return None,
        }
    }
    rule.freq = freq?;
    let fits = (rule.weekdays.is_none() || rule.freq == Freq::Weekly)
        && (rule.day_of_month.is_none() || rule.freq == Freq::Monthly)
        && (rule.until.is_none() || rule.count.is_none());
    fits.then_some(rule)
}

/// A `BYDAY` weekday without an ordinal (`MO`, not `2MO`).
fn weekday(day: &str) -> Option<Weekday> {
    Some(match day.trim().to_ascii_uppercase().as_str() {
        "MO" => Weekday::Monday,
        "TU" => Weekday::Tuesday,
        "WE" => Weekday::Wednesday,
        "TH" => Weekday::Thursday,
        "FR" => Weekday::Friday,
        "SA" => Weekday::Saturday,
        "SU" => Weekday::Sunday,
        _ => return None,
    })
}

/// An `UNTIL`'s last date in `zone`: a date, a UTC time, or a floating time.
fn last_date(value: &str, zone: &TimeZone) -> Option<Date> {
    let value = value.trim();
    if value.len() == 8 {
        return Date::strptime("%Y%m%d", value).ok();
    }
    if let Some(at) = utc(value).filter(|_| value.ends_with('Z')) {
        return Some(zone.to_datetime(at).date());
    }
    DateTime::strptime("%Y%m%dT%H%M%S", value).ok().map(|t| t.date())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taipei() -> TimeZone {
        TimeZone::get("Asia/Taipei").expect("zone")
    }

    fn at(text: &str) -> Moment {
        Moment::parse(text).expect("moment")
    }

    #[test]
    fn a_time_moved_or_cancelled_on_a_phone_is_an_exception_of_the_same_uid() {
        let ics = "BEGIN:VEVENT\nUID:r\nDTSTART;TZID=Asia/Taipei:20261209T160000\nRRULE:FREQ=WEEKLY\nSUMMARY:鋼琴課\nEND:VEVENT\n\
            BEGIN:VEVENT\nUID:r\nRECURRENCE-ID;TZID=Asia/Taipei:20261216T160000\nDTSTART;TZID=Asia/Taipei:20261217T170000\nDTEND;TZID=Asia/Taipei:20261217T180000\nSUMMARY:鋼琴課\nEND:VEVENT\n\
            BEGIN:VEVENT\nUID:r\nRECURRENCE-ID:20261223T080000Z\nSTATUS:CANCELLED\nEND:VEVENT\n\
            BEGIN:VEVENT\nUID:other\nRECURRENCE-ID:20261230T080000Z\nDTSTART:20261231T080000Z\nEND:VEVENT\n";
        let lessons = read(ics, &taipei()).expect("an event");
        let changed: Vec<(String, String, bool)> = lessons
            .changed_times
            .iter()
            .map(|c| (c.day.to_string(), c.start.stored(), c.cancelled))
            .collect();
        assert_eq!(
            changed,
            [
                ("2026-12-16".into(), "2026-12-17T17:00".into(), false),
                ("2026-12-23".into(), "2026-12-23T16:00".into(), true),
            ],
            "a cancelled time needs no start; another UID's exception is not this event's"
        );
        assert_eq!(
            lessons.changed_times[0].end.map(Moment::stored).as_deref(),
            Some("2026-12-17T18:00")
        );
    }

    #[test]
    fn a_time_deleted_on_a_phone_is_an_exdate_day_in_the_chats_zone() {
        let ics = "BEGIN:VEVENT\nUID:r\nDTSTART;TZID=Asia/Taipei:20261209T160000\nRRULE:FREQ=WEEKLY\nEXDATE;TZID=Asia/Taipei:20261223T160000,20261216T160000\nEXDATE:20261230T080000Z\nSUMMARY:鋼琴課\nEND:VEVENT\n";
        let lessons = read(ics, &taipei()).expect("an event");
        let days: Vec<String> = lessons.skipped.iter().map(Date::to_string).collect();
        assert_eq!(days, ["2026-12-16", "2026-12-23", "2026-12-30"]);
        let plain = "BEGIN:VEVENT\nUID:r\nDTSTART;VALUE=DATE:20261209\nSUMMARY:x\nEND:VEVENT\n";
        assert!(read(plain, &taipei()).expect("an event").skipped.is_empty());
    }

    #[test]
    fn a_phones_event_is_read_in_the_chats_zone_whatever_zone_it_was_written_in() {
        let ics = "BEGIN:VCALENDAR\r\nBEGIN:VTIMEZONE\r\nTZID:America/New_York\r\nEND:VTIMEZONE\r\nBEGIN:VEVENT\r\nUID:abc@phone\r\nDTSTAMP:20261201T010203Z\r\n\
DTSTART;TZID=America/New_York:20261204T230000\r\nDTEND;TZID=America/New_York:20261205T003000\r\nSUMMARY:牙醫\\, 小明\r\nLOCATION:仁愛路\r\n  一段\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        let event = read(ics, &taipei()).expect("an event");
        assert_eq!((event.uid.as_str(), event.title.as_str()), ("abc@phone", "牙醫, 小明"));
        assert_eq!(event.place, "仁愛路 一段", "a folded line is joined");
        assert_eq!(
            (event.start, event.end),
            (at("2026-12-05T12:00"), Some(at("2026-12-05T13:30")))
        );
        assert_eq!(event.modified.map(|t| t.to_string()).as_deref(), Some("2026-12-01T01:02:03Z"));
        assert_eq!(event.rule, None);
    }

    #[test]
    fn a_day_events_end_is_its_last_day_and_utc_times_are_seen_locally() {
        let days = "BEGIN:VEVENT\nUID:t\nDTSTART;VALUE=DATE:20261225\nDTEND;VALUE=DATE:20261228\nSUMMARY:墾丁\nEND:VEVENT\n";
        let trip = read(days, &taipei()).expect("trip");
        assert_eq!((trip.start, trip.end), (at("2026-12-25"), Some(at("2026-12-27"))));
        let one = "BEGIN:VEVENT\nUID:o\nDTSTART;VALUE=DATE:20261225\nDTEND;VALUE=DATE:20261226\nSUMMARY:聖誕\nEND:VEVENT\n";
        assert_eq!(read(one, &taipei()).expect("one").end, None, "one day has no end");
        let utc = "BEGIN:VEVENT\nUID:u\nDTSTART:20261205T040000Z\nSUMMARY:x\nSTATUS:CANCELLED\nRRULE:FREQ=WEEKLY;INTERVAL=2\nEND:VEVENT\n";
        let event = read(utc, &taipei()).expect("utc");
        assert_eq!(event.start, at("2026-12-05T12:00"));
        assert!(event.cancelled);
        assert_eq!(event.rule.map(|r| (r.freq, r.interval)), Some((Freq::Weekly, Some(2))));
    }

    #[test]
    fn a_windows_zone_name_is_read_as_its_zone() {
        let outlook = "BEGIN:VEVENT\nUID:w\nDTSTART;TZID=Pacific Standard Time:20261204T190000\nSUMMARY:視訊\nEND:VEVENT\n";
        let event = read(outlook, &taipei()).expect("an event");
        assert_eq!(event.start, at("2026-12-05T11:00"), "19:00 in Los Angeles is 11:00 here");
        let taipei_name = "BEGIN:VEVENT\nUID:t\nDTSTART;TZID=\"Taipei Standard Time\":20261205T090000\nSUMMARY:x\nEND:VEVENT\n";
        assert_eq!(read(taipei_name, &taipei()).expect("an event").start, at("2026-12-05T09:00"));
        for (windows, iana) in WINDOWS_ZONES {
            assert!(zone_named(windows).is_some() && TimeZone::get(iana).is_ok(), "{windows}");
        }
        assert!(zone_named("Mars Standard Time").is_none());
    }

    #[test]
    fn a_phones_weekdays_month_day_end_date_and_count_are_kept() {
        let rule_of = |rrule: &str| rule(rrule, &taipei());
        let lessons =
            rule_of("FREQ=WEEKLY;WKST=SU;BYDAY=MO,WE;UNTIL=20270131T155959Z").expect("kept");
        assert_eq!(lessons.weekdays, Some(vec![Weekday::Monday, Weekday::Wednesday]));
        assert_eq!(lessons.until.as_deref(), Some("2027-01-31"), "23:59:59 in Taipei");
        let late = rule_of("FREQ=WEEKLY;BYDAY=FR;UNTIL=20270131T170000Z").expect("kept");
        assert_eq!(late.until.as_deref(), Some("2027-02-01"), "01:00 the next day in Taipei");
        let rent = rule_of("FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=12").expect("kept");
        assert_eq!((rent.freq, rent.day_of_month, rent.count), (Freq::Monthly, Some(-1), Some(12)));
        let dated = rule_of("FREQ=YEARLY;UNTIL=20301231").expect("kept");
        assert_eq!(dated.until.as_deref(), Some("2030-12-31"));
        for not_kept in [
            "FREQ=MONTHLY;BYDAY=2SU",
            "FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1",
            "FREQ=MONTHLY;BYMONTHDAY=1,15",
            "FREQ=YEARLY;BYMONTHDAY=5",
            "FREQ=DAILY",
            "FREQ=WEEKLY;COUNT=3;UNTIL=20270101",
            "FREQ=WEEKLY;COUNT=0",
            "FREQ=WEEKLY;BYDAY=XX",
            "FREQ=WEEKLY;UNTIL=soon",
        ] {
            assert_eq!(rule_of(not_kept), None, "{not_kept}");
        }
    }

    #[test]
    fn an_exception_a_rule_hearth_cannot_keep_or_garbage_is_not_taken_for_the_event() {
        let ics = "BEGIN:VEVENT\nUID:r\nRECURRENCE-ID:20261212T090000\nDTSTART:20261212T100000\nSUMMARY:moved one\nEND:VEVENT\n\
BEGIN:VEVENT\nUID:r\nDTSTART:20261205T090000\nSUMMARY:master\nRRULE:FREQ=MONTHLY;BYDAY=2SA\nEND:VEVENT\n";
        let event = read(ics, &taipei()).expect("the master");
        assert_eq!((event.title.as_str(), event.rule), ("master", None));
        let alarm = "BEGIN:VEVENT\nUID:a\nDTSTART;TZID=\"Asia/Taipei\":20261205T090000\nSUMMARY:看診\nBEGIN:VALARM\nACTION:DISPLAY\nDESCRIPTION:Reminder\nEND:VALARM\nEND:VEVENT\n";
        let event = read(alarm, &taipei()).expect("an event with an alarm");
        assert_eq!(
            (event.notes.as_str(), event.start),
            ("", at("2026-12-05T09:00")),
            "the alarm's text is not the event's"
        );
        let outlook = "BEGIN:VEVENT\nUID:o\nDTSTART;TZID=\"(UTC+08:00) Taipei\":20261205T090000\nSUMMARY:x\nEND:VEVENT\n";
        assert!(read(outlook, &taipei()).is_some(), "a quoted parameter with a colon");
        assert_eq!(read("BEGIN:VEVENT\nSUMMARY:no start\nEND:VEVENT\n", &taipei()), None);
        assert_eq!(read("not a calendar", &taipei()), None);
        assert_eq!(read("BEGIN:VEVENT\nDTSTART:2026\nEND:VEVENT", &taipei()), None);
        let long = format!(
            "BEGIN:VEVENT\nDTSTART:20261205T090000\nSUMMARY:{}\nEND:VEVENT\n",
            "長".repeat(5000)
        );
        assert_eq!(read(&long, &taipei()).expect("long").title.chars().count(), MAX_TEXT);
    }
}
