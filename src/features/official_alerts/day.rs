//! 「明天要上班上課嗎？」 answered as a pure function: the working calendar's word on the day
//! (a holiday, a weekend, a make-up workday) with the latest suspension announced for each area
//! of the place, and the warnings standing there — each with who said so and when — and the
//! latest earthquake report felt in the place's county (「剛剛是不是有地震」).

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;
use serde::Serialize;

use super::reading::{self, Kind};
use crate::features::reminders::describe::local_time;
use crate::platform::i18n::Lang;
use crate::sources::cap::areas::{self, Place};
use crate::sources::cap::{CapAlert, MsgType};

/// The working calendar's word on a day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CalendarDay {
    /// A workday by the calendar.
    pub workday: bool,
    /// The national holiday, if it is one.
    pub holiday: Option<String>,
    /// A weekend day worked to make up for a bridge holiday (補班).
    pub make_up_workday: bool,
}

/// A suspension announced for an area of the place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Announcement {
    /// The area (臺北市, 新北市烏來區).
    pub area: String,
    /// What was announced, as written.
    pub announced: String,
    /// Work is suspended.
    pub work_suspended: bool,
    /// Classes are suspended.
    pub classes_suspended: bool,
    /// Nothing is decided yet (尚未宣布).
    pub undecided: bool,
    /// What was announced, without its leading day (for the day itself).
    #[serde(skip)]
    pub on_the_day: String,
    /// Who announced it.
    pub source: String,
    /// When, local time.
    pub announced_at: String,
    /// It covers the whole place asked about (not one town of it).
    pub whole_place: bool,
}

/// The latest earthquake felt in the place's county.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Quake {
    /// What it was for the place (花蓮縣壽豐鄉規模5.5地震，臺北市最大震度3級).
    pub said: String,
    /// The highest intensity in the county, as written (3級, 5弱).
    pub intensity: String,
    /// The county.
    pub county: String,
    /// The epicentre, as the report names it.
    pub epicentre: Option<String>,
    /// Its magnitude (規模5.5).
    pub magnitude: Option<String>,
    /// When it was reported, local time.
    pub reported_at: String,
    /// Who reported it.
    pub source: String,
}

/// The answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DayAnswer {
    /// The day, `YYYY-MM-DD`.
    pub date: String,
    /// The place.
    pub place: String,
    /// The working calendar.
    pub calendar: CalendarDay,
    /// The latest announcement for each area of the place, for that day.
    pub announcements: Vec<Announcement>,
    /// Warnings standing for the place now (typhoon, heavy rain).
    pub warnings: Vec<String>,
    /// The latest earthquake report felt in the place's county (in the days looked at); null
    /// when none was.
    pub earthquake: Option<Quake>,
    /// In a word: work_and_classes_suspended, classes_suspended, work_suspended,
    /// suspended_in_some_towns, not_yet_announced (尚未宣布), normal_announced, day_off,
    /// nothing_announced.
    pub verdict: &'static str,
}

/// The answer for `date` at `place` at `now`, from the calendar and the alerts kept (oldest
/// first).
pub fn answer(
    date: Date,
    place: &Place,
    calendar: CalendarDay,
    alerts: &[CapAlert],
    now: Timestamp,
    lang: Lang,
) -> DayAnswer {
    let tz = reading::taiwan();
    let mut latest: Vec<Announcement> = Vec::new();
    let mut warnings: Vec<String> = Vec::new();
    let mut earthquake: Option<Quake> = None;
    // An alert a later one updates or cancels no longer stands.
    let superseded: std::collections::HashSet<&str> =
        alerts.iter().flat_map(|a| a.references.iter().map(String::as_str)).collect();
    for alert in alerts {
        let Some(kind) = reading::Kind::of(alert) else { continue };
        match kind {
            Kind::Suspension => {
                let Some(s) = reading::suspension(alert).filter(|s| s.day == date) else {
                    continue;
                };
                if reading::statement(alert, kind, place, 1).is_none() {
                    continue;
                }
                latest.retain(|a| a.area != s.area);
                if alert.msg_type == MsgType::Cancel {
                    continue;
                }
                let town = areas::split_area(&s.area).map(|(_, t)| t).unwrap_or_default();
                latest.push(Announcement {
                    whole_place: town.is_empty() || place.town.as_deref() == Some(town.as_str()),
                    area: s.area.clone(),
                    announced: s.announced.clone(),
                    work_suspended: s.work,
                    classes_suspended: s.classes,
                    undecided: s.undecided,
                    on_the_day: s.on_the_day(),
                    source: alert.sender_name.clone().unwrap_or_else(|| alert.sender.clone()),
                    announced_at: local_time(alert.sent, &tz, lang),
                });
            }
            Kind::Typhoon | Kind::Rain => {
                let standing = alert.msg_type != MsgType::Cancel
                    && !superseded.contains(alert.identifier.as_str())
                    && alert.expires.is_none_or(|e| e > now);
                if !standing {
                    continue;
                }
                if let Some(s) = reading::statement(alert, kind, place, 1) {
                    let source = alert.sender_name.as_deref().unwrap_or("");
                    let icon = super::render::kind_title(kind, lang).0;
                    let sent = local_time(alert.sent, &tz, lang);
                    warnings.push(format!("{icon} {}（{source} {sent}）", s.text));
                }
            }
            Kind::Earthquake => {
                if let Some(quake) = quake(alert, place, &tz, lang) {
                    earthquake = Some(quake);
                }
            }
        }
    }
    let whole: Vec<&Announcement> = latest.iter().filter(|a| a.whole_place).collect();
    let verdict =
        match (whole.iter().any(|a| a.work_suspended), whole.iter().any(|a| a.classes_suspended)) {
            (true, true) => "work_and_classes_suspended",
            (false, true) => "classes_suspended",
            (true, false) => "work_suspended",
            _ if latest.iter().any(|a| a.work_suspended || a.classes_suspended) => {
                "suspended_in_some_towns"
            }
            _ if !whole.is_empty() && whole.iter().all(|a| a.undecided) => "not_yet_announced",
            _ if !whole.is_empty() => "normal_announced",
            _ if !calendar.workday => "day_off",
            _ => "nothing_announced",
        };
    DayAnswer {
        date: date.to_string(),
        place: place.label(),
        calendar,
        announcements: latest,
        warnings,
        earthquake,
        verdict,
    }
}

/// The earthquake `alert` reports as felt in `place`'s county, if it was.
fn quake(alert: &CapAlert, place: &Place, tz: &TimeZone, lang: Lang) -> Option<Quake> {
    let (intensity, _) = reading::intensity_at(alert, &place.county_code)?;
    let said = reading::statement(alert, Kind::Earthquake, place, 1)?;
    let parameter = |name: &str| {
        alert.parameters.iter().find(|(n, _)| n == name).map(|(_, v)| v.replace("芮氏", ""))
    };
    Some(Quake {
        said: said.text,
        intensity,
        county: place.county.clone(),
        epicentre: parameter("EventLocationName"),
        magnitude: parameter("EventMagnitudeDescription"),
        reported_at: local_time(alert.sent, tz, lang),
        source: alert.sender_name.clone().unwrap_or_else(|| alert.sender.clone()),
    })
}

/// The alerts standing for `place` at `now` for the morning digest: today's suspensions and
/// the warnings in force, one line each.
pub fn standing_lines(
    place: &Place,
    alerts: &[CapAlert],
    now: Timestamp,
    tz: &TimeZone,
    lang: Lang,
) -> Vec<String> {
    let today = now.to_zoned_datetime(tz.clone()).date();
    let calendar = CalendarDay { workday: true, holiday: None, make_up_workday: false };
    let day = answer(today, place, calendar, alerts, now, lang);
    day.announcements
        .into_iter()
        .filter(|a| a.work_suspended || a.classes_suspended)
        .map(|a| format!("🏫 {} {}", a.area, a.on_the_day))
        .chain(day.warnings)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::cap::{Area, MsgType};
    use jiff::civil::date;

    fn dgpa(sent: &str, description: &str, area: &str, msg_type: MsgType) -> CapAlert {
        CapAlert {
            identifier: format!("dgpa-{sent}"),
            sender: "http://www.dgpa.gov.tw".into(),
            sent: sent.parse().expect("instant"),
            status: "Actual".into(),
            msg_type,
            references: vec![],
            event: "停班停課".into(),
            event_code: Some("workSchlClos".into()),
            severity: "Extreme".into(),
            effective: None,
            expires: None,
            sender_name: Some("行政院人事行政總處".into()),
            headline: Some("停班課通知".into()),
            description: description.into(),
            parameters: vec![],
            areas: vec![Area { desc: area.into(), geocodes: vec![] }],
        }
    }

    fn workday() -> CalendarDay {
        CalendarDay { workday: true, holiday: None, make_up_workday: false }
    }

    const NOW: &str = "2026-12-03T13:00:00Z";

    #[test]
    fn the_latest_announcement_for_the_place_decides_and_says_who_and_when() {
        let alerts = vec![
            dgpa(
                "2026-12-03T10:00:00Z",
                "[停班停課通知]臺北市:明天照常上班、照常上課。",
                "臺北市",
                MsgType::Alert,
            ),
            dgpa(
                "2026-12-03T12:00:00Z",
                "[停班停課通知]臺北市:明天停止上班、停止上課。",
                "臺北市",
                MsgType::Update,
            ),
            dgpa(
                "2026-12-03T12:00:00Z",
                "[停班停課通知]臺中市:明天停止上班、停止上課。",
                "臺中市",
                MsgType::Alert,
            ),
        ];
        let taipei = Place::resolve("台北").expect("place");
        let a = answer(
            date(2026, 12, 4),
            &taipei,
            workday(),
            &alerts,
            NOW.parse().expect("now"),
            Lang::ZhTw,
        );
        assert_eq!(a.verdict, "work_and_classes_suspended");
        assert_eq!(a.announcements.len(), 1);
        assert_eq!(a.announcements[0].source, "行政院人事行政總處");
        assert_eq!(a.announcements[0].announced_at, "2026-12-03（四）20:00");
        let today = answer(
            date(2026, 12, 3),
            &taipei,
            workday(),
            &alerts,
            NOW.parse().expect("now"),
            Lang::ZhTw,
        );
        assert_eq!(today.verdict, "nothing_announced", "the announcement is for tomorrow");
    }

    #[test]
    fn the_latest_earthquake_felt_in_the_county_is_answered_with_its_intensity_and_time() {
        let report = |id: &str, sent: &str, taipei: &str| {
            let mut a = dgpa(sent, "", "", MsgType::Alert);
            a.identifier = id.into();
            a.event = "地震".into();
            a.event_code = Some("earthquake".into());
            a.sender_name = Some("中央氣象署".into());
            a.areas = vec![];
            a.parameters = vec![
                ("EventLocationName".into(), "花蓮縣壽豐鄉".into()),
                ("EventMagnitudeDescription".into(), "芮氏規模5.5".into()),
                (
                    "LocalMaxIntensity".into(),
                    format!("{taipei};\"臺北市\";Taiwan_Geocode_103;63;;;\"CAP-EQ:1.0\""),
                ),
            ];
            a
        };
        let alerts = vec![
            report("eq-1", "2026-12-03T01:00:00Z", "2級"),
            report("eq-2", "2026-12-03T12:50:00Z", "3級"),
        ];
        let now = NOW.parse().expect("now");
        let taipei = Place::resolve("台北").expect("place");
        let a = answer(date(2026, 12, 4), &taipei, workday(), &alerts, now, Lang::ZhTw);
        let quake = a.earthquake.expect("felt");
        assert_eq!(quake.said, "花蓮縣壽豐鄉規模5.5地震，臺北市最大震度3級");
        assert_eq!(
            (quake.intensity.as_str(), quake.reported_at.as_str()),
            ("3級", "2026-12-03（四）20:50")
        );
        assert_eq!(quake.source, "中央氣象署");
        let kaohsiung = Place::resolve("高雄").expect("place");
        let far = answer(date(2026, 12, 4), &kaohsiung, workday(), &alerts, now, Lang::ZhTw);
        assert_eq!(far.earthquake, None, "not felt there");
    }

    #[test]
    fn another_county_s_suspension_and_a_town_s_are_told_apart() {
        let alerts = vec![
            dgpa(
                "2026-12-03T12:00:00Z",
                "[停班停課通知]臺中市:明天停止上班、停止上課。",
                "臺中市",
                MsgType::Alert,
            ),
            dgpa(
                "2026-12-03T12:00:00Z",
                "[停班停課通知]新北市烏來區:明天照常上班、停止上課。",
                "新北市烏來區",
                MsgType::Alert,
            ),
        ];
        let now = NOW.parse().expect("now");
        let day = date(2026, 12, 4);
        let taipei = Place::resolve("台北").expect("place");
        assert_eq!(
            answer(day, &taipei, workday(), &alerts, now, Lang::ZhTw).verdict,
            "nothing_announced"
        );
        let new_taipei = Place::resolve("新北").expect("place");
        assert_eq!(
            answer(day, &new_taipei, workday(), &alerts, now, Lang::ZhTw).verdict,
            "suspended_in_some_towns"
        );
        let wulai = Place::resolve("新北市烏來區").expect("place");
        assert_eq!(
            answer(day, &wulai, workday(), &alerts, now, Lang::ZhTw).verdict,
            "classes_suspended"
        );
        let holiday =
            CalendarDay {
                workday: false, holiday: Some("國慶日".into()), make_up_workday: false
            };
        assert_eq!(answer(day, &taipei, holiday, &alerts, now, Lang::ZhTw).verdict, "day_off");
        let undecided = vec![dgpa(
            "2026-12-03T12:00:00Z",
            "[停班停課通知]臺北市:明天尚未宣布消息。",
            "臺北市",
            MsgType::Alert,
        )];
        let verdict = answer(day, &taipei, workday(), &undecided, now, Lang::ZhTw).verdict;
        assert_eq!(verdict, "not_yet_announced", "尚未宣布 is not 照常");
    }
}
