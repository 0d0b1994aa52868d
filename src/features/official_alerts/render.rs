//! The push an official alert becomes: one card with what it says for the chat's place (the
//! notification's preview says it too), the day a suspension is for, who issued it and when,
//! and until when it holds; an update or a cancellation says so in its title, and a
//! cancellation names the place and what was lifted (「臺北市 停班停課 已取消」, 「颱風警報解除」).

use jiff::Timestamp;
use jiff::tz::TimeZone;

use super::reading::{self, Kind, Statement};
use super::tell::Tell;
use crate::contract::{Card, CardRow, Styled};
use crate::features::reminders::describe::local_time;
use crate::line::flex::Palette;
use crate::line::message::Message;
use crate::platform::format::short_date;
use crate::platform::i18n::Lang;
use crate::sources::cap::CapAlert;
use crate::sources::cap::areas::{self, Place};

/// The icon and name of a kind of alert.
pub fn kind_title(kind: Kind, lang: Lang) -> (&'static str, &'static str) {
    match kind {
        Kind::Suspension => ("🏫", lang.pick("停班停課", "Work/school suspension")),
        Kind::Typhoon => ("🌀", lang.pick("颱風警報", "Typhoon warning")),
        Kind::Rain => ("🌧️", lang.pick("豪大雨特報", "Heavy-rain warning")),
        Kind::Earthquake => ("⚠️", lang.pick("地震", "Earthquake")),
    }
}

/// What a cancellation tells a chat in `place`: where, and what was lifted — a suspension's
/// area (臺北市 停班停課 已取消), a warning by its name (颱風警報解除).
pub fn lifted(alert: &CapAlert, kind: Kind, place: &Place, lang: Lang) -> String {
    let (_, name) = kind_title(kind, lang);
    let zh = lang == Lang::ZhTw;
    match kind {
        Kind::Suspension => {
            let area = reading::suspension(alert)
                .map(|s| s.area)
                .filter(|a| areas::split_area(a).is_some_and(|(c, _)| c.code == place.county_code))
                .unwrap_or_else(|| place.label());
            if zh {
                format!("{area} {name} 已取消")
            } else {
                format!("{area}: {name} cancelled")
            }
        }
        Kind::Earthquake if zh => format!("{name}報告已撤回"),
        Kind::Earthquake => "Earthquake report withdrawn".to_string(),
        Kind::Typhoon | Kind::Rain if zh => format!("{name}解除"),
        Kind::Typhoon | Kind::Rain => format!("{name} lifted"),
    }
}

/// The card of `alert` for a chat in `place` told `tell` with `said` (the sentence for it).
pub fn card(
    alert: &CapAlert,
    kind: Kind,
    tell: Tell,
    said: Option<&Statement>,
    place: &Place,
    lang: Lang,
    tz: &TimeZone,
) -> Card {
    let (icon, name) = kind_title(kind, lang);
    let title = match tell {
        Tell::Updated => format!("{icon} {}{name}", lang.pick("更新：", "Update: ")),
        Tell::Cancelled | Tell::NoLonger => {
            format!("{icon} {}{name}", lang.pick("解除：", "Lifted: "))
        }
        _ => format!("{icon} {name}"),
    };
    let mut card = Card::new(title);
    let headline = match (tell, said) {
        (Tell::Cancelled, _) => lifted(alert, kind, place, lang),
        (_, Some(s)) => s.text.clone(),
        (_, None) => {
            format!("{} {}", place.label(), lang.pick("已不在範圍內", "is no longer covered"))
        }
    };
    card.headline = Some(Styled { text: headline, tone: None });
    if kind == Kind::Suspension
        && let Some(s) = reading::suspension(alert)
    {
        card.rows.push(CardRow::new(lang.pick("日期", "Day"), short_date(s.day, lang)));
    }
    if let Some(source) = &alert.sender_name {
        card.rows.push(CardRow::new(lang.pick("發布", "Issued by"), source.clone()));
    }
    card.rows.push(CardRow::new(lang.pick("時間", "Sent"), local_time(alert.sent, tz, lang)));
    if matches!(kind, Kind::Typhoon | Kind::Rain)
        && let Some(expires) = alert.expires
    {
        card.rows.push(CardRow::new(lang.pick("有效至", "Until"), local_time(expires, tz, lang)));
    }
    card.footnote =
        Some(lang.pick("資料：國家災害防救科技中心", "Source: NCDR alert platform").into());
    card
}

/// The messages pushed for the card: a Flex bubble whose preview is the headline.
pub fn messages(card: &Card, palette: Palette) -> Vec<Message> {
    let icon = card.title.split(' ').next().unwrap_or("");
    let alt_text = format!(
        "{icon} {}",
        card.headline.as_ref().map_or(card.title.as_str(), |h| h.text.as_str())
    );
    vec![Message::card(card, &alt_text, palette, None)]
}

/// When an alert stops holding: a suspension at the end of the day it is for (its CAP expiry
/// is the end of the day it was announced); a warning at its expiry, else a day after it was
/// sent.
pub fn holds_until(alert: &CapAlert, kind: Kind) -> Timestamp {
    let a_day_later =
        alert.sent.saturating_add(jiff::SignedDuration::from_hours(24)).unwrap_or(alert.sent);
    let expires = alert.expires.unwrap_or(a_day_later);
    if kind != Kind::Suspension {
        return expires;
    }
    let end_of_day = reading::suspension(alert)
        .and_then(|s| s.day.tomorrow().ok())
        .and_then(|d| d.to_zoned_datetime(reading::taiwan()).ok())
        .map(|z| z.timestamp());
    end_of_day.map_or(expires, |end| end.max(expires))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::cap::MsgType;

    fn cancel(event_code: &str, description: &str) -> CapAlert {
        CapAlert {
            identifier: "x".into(),
            sender: "s".into(),
            sent: "2026-12-03T12:00:00Z".parse().expect("instant"),
            status: "Actual".into(),
            msg_type: MsgType::Cancel,
            references: vec!["w".into()],
            event: String::new(),
            event_code: Some(event_code.into()),
            severity: "Minor".into(),
            effective: None,
            expires: None,
            sender_name: None,
            headline: Some("解除".into()),
            description: description.into(),
            parameters: vec![],
            areas: vec![],
        }
    }

    #[test]
    fn a_cancellation_names_the_place_and_what_was_lifted() {
        let taipei = Place::resolve("台北市信義區").expect("place");
        let dgpa = cancel("workSchlClos", "[停班停課通知]臺北市:明天停止上班、停止上課。");
        assert_eq!(lifted(&dgpa, Kind::Suspension, &taipei, Lang::ZhTw), "臺北市 停班停課 已取消");
        let unread = cancel("workSchlClos", "");
        assert_eq!(
            lifted(&unread, Kind::Suspension, &taipei, Lang::ZhTw),
            "臺北市信義區 停班停課 已取消",
            "the chat's place when the cancel names none"
        );
        let typhoon = cancel("typhoon", "");
        assert_eq!(lifted(&typhoon, Kind::Typhoon, &taipei, Lang::ZhTw), "颱風警報解除");
        assert_eq!(lifted(&typhoon, Kind::Typhoon, &taipei, Lang::En), "Typhoon warning lifted");
        assert_eq!(
            lifted(&dgpa, Kind::Suspension, &taipei, Lang::En),
            "臺北市: Work/school suspension cancelled"
        );
    }
}
