//! What an official alert says for one place, as pure functions: which kind of alert it is
//! (a work/school suspension, a typhoon warning, a rain warning, an earthquake report; anything
//! else, or a test message, is not told), what a suspension announces (work, classes, which
//! day), how strongly an earthquake was felt in a county, and the one sentence a chat in that
//! place is told.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use serde::Serialize;

use crate::sources::cap::CapAlert;
use crate::sources::cap::areas::{self, Place};

/// The kinds of alert the family is told about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// 停班停課, from the Directorate-General of Personnel Administration.
    Suspension,
    /// A typhoon warning.
    Typhoon,
    /// A heavy-rain warning (大雨, 豪雨).
    Rain,
    /// An earthquake report.
    Earthquake,
}

impl Kind {
    /// The kind of `alert`; `None` for other events and for anything but a real alert.
    pub fn of(alert: &CapAlert) -> Option<Kind> {
        if alert.status != "Actual" {
            return None;
        }
        let by_code = match alert.event_code.as_deref() {
            Some("workSchlClos") => Some(Kind::Suspension),
            Some("typhoon") => Some(Kind::Typhoon),
            Some("rainfall") => Some(Kind::Rain),
            Some("earthquake") => Some(Kind::Earthquake),
            _ => None,
        };
        by_code.or(match alert.event.as_str() {
            "停班停課" => Some(Kind::Suspension),
            "颱風" => Some(Kind::Typhoon),
            "降雨" => Some(Kind::Rain),
            "地震" => Some(Kind::Earthquake),
            _ => None,
        })
    }

    /// Stored name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Suspension => "suspension",
            Kind::Typhoon => "typhoon",
            Kind::Rain => "rain",
            Kind::Earthquake => "earthquake",
        }
    }

    /// True for alerts that cannot wait for the morning: an earthquake, a suspension.
    pub fn urgent(self) -> bool {
        matches!(self, Kind::Suspension | Kind::Earthquake)
    }
}

/// The zone official alerts are written in.
pub fn taiwan() -> TimeZone {
    TimeZone::get("Asia/Taipei").unwrap_or(TimeZone::UTC)
}

/// One area's suspension notice: `[停班停課通知]臺北市:明天停止上班、停止上課。…`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suspension {
    /// The area (臺北市, 新北市烏來區).
    pub area: String,
    /// What was announced, as written (明天停止上班、停止上課).
    pub announced: String,
    /// Work is suspended.
    pub work: bool,
    /// Classes are suspended.
    pub classes: bool,
    /// Nothing is decided yet (尚未宣布).
    pub undecided: bool,
    /// The day it is for.
    pub day: Date,
}

impl Suspension {
    /// What was announced without its leading day (明天, 7/24): for the day itself.
    pub fn on_the_day(&self) -> String {
        let text = self.announced.as_str();
        for (word, said) in [
            ("今晚", "晚上"),
            ("明晚", "晚上"),
            ("今天", ""),
            ("明天", ""),
            ("今日", ""),
            ("明日", ""),
        ] {
            if let Some(rest) = text.strip_prefix(word) {
                return format!("{said}{rest}");
            }
        }
        match text.split_once('/') {
            Some((month, rest)) if month.chars().all(|c| c.is_ascii_digit()) => {
                rest.trim_start_matches(|c: char| c.is_ascii_digit()).to_string()
            }
            _ => text.to_string(),
        }
    }
}

/// The suspension `alert` announces (its description, read in Taiwan's calendar).
pub fn suspension(alert: &CapAlert) -> Option<Suspension> {
    let text = alert.description.trim();
    let text = text.strip_prefix("[停班停課通知]").unwrap_or(text);
    let (area, rest) = text.split_once([':', '：'])?;
    let announced = rest.split('。').next().unwrap_or(rest).trim().to_string();
    let sent_day = alert.sent.to_zoned_datetime(taiwan()).date();
    // 明天, 明日, 明晚 are the day after it was sent; 今天, 今日, 今晚 that day; else M/D.
    let day = if announced.starts_with('明') {
        sent_day.tomorrow().ok()?
    } else if announced.starts_with('今') {
        sent_day
    } else {
        month_day(&announced, sent_day).unwrap_or(sent_day)
    };
    let undecided = announced.contains("尚未");
    let not = announced.contains("未達") || undecided;
    let work = !not && announced.contains("停止上班");
    let classes = !not && (announced.contains("停止上課") || announced.contains("停止上班及上課"));
    let area = areas::official_spelling(area.trim());
    Some(Suspension { area, announced, work, classes, undecided, day })
}

/// The date of a leading `M/D` (7/24), in the year around `sent`.
fn month_day(text: &str, sent: Date) -> Option<Date> {
    let (month, rest) = text.split_once('/')?;
    let day: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let (month, day) = (month.trim().parse::<i8>().ok()?, day.parse::<i8>().ok()?);
    let date = Date::new(sent.year(), month, day).ok()?;
    // Announced in late December for early January.
    if date < sent.saturating_sub(jiff::Span::new().months(6)) {
        return Date::new(sent.year() + 1, month, day).ok();
    }
    Some(date)
}

/// The CWA intensity scale as an order: 1–4, 5弱, 5強, 6弱, 6強, 7 → 1–9.
fn intensity_rank(level: &str) -> Option<u8> {
    let level = level.trim();
    Some(match level {
        l if l.starts_with("5弱") => 5,
        l if l.starts_with("5強") => 6,
        l if l.starts_with("6弱") => 7,
        l if l.starts_with("6強") => 8,
        l if l.starts_with('7') => 9,
        l => l.chars().next()?.to_digit(10).filter(|d| (1..=4).contains(d))? as u8,
    })
}

/// The rank a chat's threshold (`地震 N 級以上`, 1–7) means.
pub fn threshold_rank(level: u8) -> u8 {
    match level {
        0..=5 => level.max(1),
        6 => 7,
        _ => 9,
    }
}

/// The highest intensity an earthquake report gives `county_code`, as written and ranked.
pub fn intensity_at(alert: &CapAlert, county_code: &str) -> Option<(String, u8)> {
    let from_parameters =
        alert.parameters.iter().filter(|(name, _)| name == "LocalMaxIntensity").filter_map(
            |(_, value)| {
                let fields: Vec<&str> = value.split(';').collect();
                let code = fields.get(3)?.trim();
                (areas::by_code(code)?.code == county_code)
                    .then(|| fields.first().map(|l| l.trim().to_string()))?
            },
        );
    let from_areas = alert.areas.iter().filter_map(|a| {
        let level = a.desc.strip_prefix("最大震度")?.strip_suffix("地區")?;
        a.geocodes
            .iter()
            .any(|g| areas::by_code(g).is_some_and(|c| c.code == county_code))
            .then(|| level.to_string())
    });
    from_parameters
        .chain(from_areas)
        .filter_map(|level| intensity_rank(&level).map(|rank| (level, rank)))
        .max_by_key(|(_, rank)| *rank)
}

/// The parameter `name` of `alert`.
fn parameter<'a>(alert: &'a CapAlert, name: &str) -> Option<&'a str> {
    alert.parameters.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

/// The areas of `alert` in `place`: each as its county and town (none for a whole county).
fn areas_in(alert: &CapAlert, place: &Place) -> Vec<Option<String>> {
    let mut found = Vec::new();
    for area in &alert.areas {
        let by_desc = areas::split_area(&area.desc);
        let county = by_desc
            .as_ref()
            .map(|(c, _)| c.code)
            .or_else(|| area.geocodes.iter().find_map(|g| areas::by_code(g)).map(|c| c.code));
        if county != Some(place.county_code.as_str()) {
            continue;
        }
        let town = by_desc.map(|(_, t)| t).filter(|t| !t.is_empty());
        let covers = match (&town, &place.town) {
            (None, _) | (_, None) => true,
            (Some(a), Some(p)) => a == p,
        };
        if covers && !found.contains(&town) {
            found.push(town);
        }
    }
    found
}

/// What a chat in a place is told of an alert.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Statement {
    /// The sentence (臺北市明天停止上班、停止上課).
    pub text: String,
    /// It announces something (a suspension, a warning covering the place, a strong enough
    /// earthquake), rather than that nothing changes (照常上班).
    pub notable: bool,
    /// What two statements are compared by: the sentence, with the day a suspension is for
    /// (「明天停止上班」 on two evenings is two days off), and each earthquake its own.
    pub key: String,
}

/// What `alert` says for `place`; `None` when it does not concern the place (or an earthquake
/// there was felt below `min_rank`).
pub fn statement(alert: &CapAlert, kind: Kind, place: &Place, min_rank: u8) -> Option<Statement> {
    match kind {
        Kind::Suspension => {
            let s = suspension(alert)?;
            let (county, town) = areas::split_area(&s.area)?;
            let town = Some(town).filter(|t| !t.is_empty());
            let covers = county.code == place.county_code
                && match (&town, &place.town) {
                    (Some(a), Some(p)) => a == p,
                    _ => true,
                };
            let text = format!("{}{}", s.area, s.announced);
            covers.then(|| Statement {
                key: format!("{} {text}", s.day),
                text,
                notable: s.work || s.classes,
            })
        }
        Kind::Earthquake => {
            let (level, rank) = intensity_at(alert, &place.county_code)?;
            let at = parameter(alert, "EventLocationName").unwrap_or("");
            let magnitude = parameter(alert, "EventMagnitudeDescription")
                .map(|m| m.replace("芮氏", ""))
                .unwrap_or_default();
            // 「4級」, but 「5弱」 as written.
            let level = if level.ends_with(|c: char| c.is_ascii_digit()) {
                format!("{level}級")
            } else {
                level
            };
            let text = format!("{at}{magnitude}地震，{}最大震度{level}", place.county);
            Some(Statement { key: format!("{} {text}", alert.identifier), text, notable: true })
                .filter(|_| rank >= min_rank)
        }
        Kind::Typhoon | Kind::Rain => {
            let found = areas_in(alert, place);
            if found.is_empty() {
                return None;
            }
            let headline = alert.headline.clone().unwrap_or_else(|| alert.event.clone());
            let towns: Vec<&str> = found.iter().flatten().map(String::as_str).collect();
            let where_ = if towns.len() < found.len() || towns.is_empty() {
                place.county.clone()
            } else if towns.len() > 5 {
                format!("{}{}等{}個鄉鎮市區", place.county, towns[..5].join("、"), towns.len())
            } else {
                format!("{}{}", place.county, towns.join("、"))
            };
            let text = format!("{headline}：{where_}");
            Some(Statement { key: text.clone(), text, notable: true })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::cap::{Area, MsgType};
    use jiff::civil::date;

    fn alert(event_code: &str, description: &str, areas: Vec<Area>) -> CapAlert {
        CapAlert {
            identifier: "x".into(),
            sender: "s".into(),
            sent: "2026-12-03T12:00:00Z".parse().expect("instant"), // 20:00 in Taipei
            status: "Actual".into(),
            msg_type: MsgType::Alert,
            references: vec![],
            event: String::new(),
            event_code: Some(event_code.into()),
            severity: "Extreme".into(),
            effective: None,
            expires: None,
            sender_name: None,
            headline: Some("陸上颱風警報".into()),
            description: description.into(),
            parameters: vec![],
            areas,
        }
    }

    fn area(desc: &str, code: &str) -> Area {
        Area { desc: desc.into(), geocodes: vec![code.into()] }
    }

    fn place(p: &str) -> Place {
        Place::resolve(p).expect("place")
    }

    #[test]
    fn a_suspension_says_work_classes_and_its_day() {
        let s = suspension(&alert(
            "workSchlClos",
            "[停班停課通知]臺北市:明天停止上班、停止上課。行政院人事行政總處。",
            vec![],
        ))
        .expect("read");
        assert_eq!(
            (s.area.as_str(), s.work, s.classes, s.day),
            ("臺北市", true, true, date(2026, 12, 4))
        );
        let s = suspension(&alert(
            "workSchlClos",
            "[停班停課通知]新竹縣尖石鄉:明天照常上班、停止上課。",
            vec![],
        ))
        .expect("read");
        assert!(!s.work && s.classes);
        let s = suspension(&alert(
            "workSchlClos",
            "[停班停課通知]花蓮縣:12/3未達停止上班及上課標準。",
            vec![],
        ))
        .expect("read");
        assert!(!s.work && !s.classes && s.day == date(2026, 12, 3));
        let s = suspension(&alert(
            "workSchlClos",
            "[停班停課通知]高雄市:12/5已達停止上班及上課標準。",
            vec![],
        ))
        .expect("read");
        assert!(s.work && s.classes && s.day == date(2026, 12, 5));
        let s = suspension(&alert(
            "workSchlClos",
            "[停班停課通知]澎湖縣:1/2停止上班、停止上課。",
            vec![],
        ))
        .expect("read");
        assert_eq!(s.day, date(2027, 1, 2), "announced in December for January");
        assert_eq!(s.on_the_day(), "停止上班、停止上課");
        let read = |text: &str| suspension(&alert("workSchlClos", text, vec![])).expect("read");
        let s = read("[停班停課通知]臺北市:明晚6:00起停止上班、停止上課。");
        assert_eq!(
            (s.day, s.on_the_day()),
            (date(2026, 12, 4), "晚上6:00起停止上班、停止上課".to_string())
        );
        let s = read("[停班停課通知]臺中市:明天照常上班及上課。");
        assert!(!s.work && !s.classes && !s.undecided);
        let s = read("[停班停課通知]臺中市和平區:尚未宣布消息。");
        assert!(s.undecided && !s.work && !s.classes);
    }

    #[test]
    fn a_suspension_in_one_town_is_told_there_and_in_its_county_not_in_the_next_town() {
        let a = alert(
            "workSchlClos",
            "[停班停課通知]新北市烏來區:明天照常上班、停止上課。",
            vec![area("新北市烏來區", "6502900")],
        );
        let told = |p: &str| statement(&a, Kind::Suspension, &place(p), 4).map(|s| s.text);
        assert_eq!(told("新北市烏來區").as_deref(), Some("新北市烏來區明天照常上班、停止上課"));
        assert!(told("新北").is_some(), "a chat that names only the county hears of its towns");
        assert_eq!(told("新北市板橋區"), None);
        assert_eq!(told("台北"), None);
    }

    #[test]
    fn an_earthquake_is_told_where_it_was_felt_at_the_threshold() {
        let mut a = alert("earthquake", "", vec![area("最大震度3級地區", "66")]);
        a.parameters = vec![
            ("EventLocationName".into(), "花蓮縣壽豐鄉".into()),
            ("EventMagnitudeDescription".into(), "芮氏規模5.5".into()),
            (
                "LocalMaxIntensity".into(),
                "4級;\"花蓮縣\";Taiwan_Geocode_103;10015;;;\"CAP-EQ:1.0\"".into(),
            ),
            (
                "LocalMaxIntensity".into(),
                "5弱;\"臺北市\";Taiwan_Geocode_103;63;;;\"CAP-EQ:1.0\"".into(),
            ),
        ];
        let hualien =
            statement(&a, Kind::Earthquake, &place("花蓮"), threshold_rank(4)).expect("felt");
        assert_eq!(hualien.text, "花蓮縣壽豐鄉規模5.5地震，花蓮縣最大震度4級");
        let taipei = statement(&a, Kind::Earthquake, &place("台北"), 1).expect("felt");
        assert!(taipei.text.ends_with("臺北市最大震度5弱"), "{}", taipei.text);
        assert!(statement(&a, Kind::Earthquake, &place("花蓮"), threshold_rank(5)).is_none());
        assert!(
            statement(&a, Kind::Earthquake, &place("台北"), threshold_rank(5)).is_some(),
            "5弱 ≥ 5"
        );
        assert!(
            statement(&a, Kind::Earthquake, &place("台中"), threshold_rank(4)).is_none(),
            "3級"
        );
        assert!(statement(&a, Kind::Earthquake, &place("高雄"), 1).is_none(), "not felt");
    }

    #[test]
    fn a_warning_names_the_towns_of_the_place_it_covers() {
        let a = alert(
            "rainfall",
            "",
            vec![
                area("新北市烏來區", "6502900"),
                area("新北市新店區", "6500600"),
                area("南投縣信義鄉", "1000812"),
            ],
        );
        let mut a = a;
        a.headline = Some("大雨特報".into());
        assert_eq!(
            statement(&a, Kind::Rain, &place("新北"), 4).map(|s| s.text).as_deref(),
            Some("大雨特報：新北市烏來區、新店區")
        );
        assert_eq!(
            statement(&a, Kind::Rain, &place("新北市新店區"), 4).map(|s| s.text).as_deref(),
            Some("大雨特報：新北市新店區")
        );
        assert!(statement(&a, Kind::Rain, &place("新北市板橋區"), 4).is_none());
        let t = alert("typhoon", "", vec![Area { desc: "臺北市".into(), geocodes: vec![] }]);
        assert_eq!(
            statement(&t, Kind::Typhoon, &place("台北市信義區"), 4).map(|s| s.text).as_deref(),
            Some("陸上颱風警報：臺北市")
        );
        let sea =
            alert("typhoon", "", vec![Area { desc: "臺灣東南部海面".into(), geocodes: vec![] }]);
        assert!(statement(&sea, Kind::Typhoon, &place("台北"), 4).is_none());
    }

    #[test]
    fn test_messages_and_other_events_are_not_told() {
        let mut a = alert("workSchlClos", "", vec![]);
        assert_eq!(Kind::of(&a), Some(Kind::Suspension));
        a.status = "Test".into();
        assert_eq!(Kind::of(&a), None);
        assert_eq!(Kind::of(&alert("thunderstorm", "", vec![])), None);
    }
}
