//! The digest card: one Flex bubble with the day's date (Gregorian and lunar, with its festival
//! or holiday), the weather, birthdays, reminders still to come, open list items and the watched
//! prices that moved. Pure: the card is a function of [`DigestContent`]; long parts are cut to a
//! few rows with a count of the rest, so the card stays within LINE's limits.

use crate::contract::{Card, CardButton, CardRow, Styled, Tone};
use crate::line::flex::Palette;
use crate::line::message::Message;
use crate::line::postback::ButtonSigner;
use crate::platform::i18n::Lang;
use crate::sources::calendar::lunar::{day_name, month_name, month_name_en};

use super::content::DigestContent;

/// Reminders (and birthdays, and prices) shown before "and N more".
pub const MAX_ROWS_PER_PART: usize = 5;
/// The longest text of a row value, in characters.
const MAX_VALUE_CHARS: usize = 60;

const ZH_DAYS: [&str; 7] = ["一", "二", "三", "四", "五", "六", "日"];
const EN_DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// The day's title line: `12/1（二）` or `Tue 12/1`.
fn day_title(c: &DigestContent) -> String {
    let wd = usize::from(c.date.weekday().to_monday_zero_offset() as u8);
    match c.lang {
        Lang::ZhTw => format!("☀️ 今日摘要 {}/{}（{}）", c.date.month(), c.date.day(), ZH_DAYS[wd]),
        Lang::En => format!("☀️ Today, {} {}/{}", EN_DAYS[wd], c.date.month(), c.date.day()),
    }
}

/// The lunar date with its festival and the official day off: `農曆十月十二・初一`.
fn lunar_line(c: &DigestContent) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(l) = &c.lunar {
        parts.push(match c.lang {
            Lang::ZhTw => format!("農曆{}{}", month_name(l.month), day_name(l.day)),
            Lang::En => format!("Lunar {} day {}", month_name_en(l.month), l.day),
        });
    }
    parts.extend(c.festival.map(str::to_string));
    parts.extend(c.day_off.clone());
    if c.make_up_workday {
        parts.push(c.lang.pick("補班日", "make-up workday").to_string());
    }
    (!parts.is_empty()).then(|| parts.join("・"))
}

fn clip(text: &str) -> String {
    crate::platform::text::truncate_graphemes(text, MAX_VALUE_CHARS)
}

/// Rows for `items`, at most [`MAX_ROWS_PER_PART`], the last saying how many more there are.
fn capped_rows(label: &str, items: Vec<String>, lang: Lang) -> Vec<CardRow> {
    let more = items.len().saturating_sub(MAX_ROWS_PER_PART);
    let mut rows: Vec<CardRow> = items
        .into_iter()
        .take(MAX_ROWS_PER_PART)
        .enumerate()
        .map(|(i, v)| CardRow::new(if i == 0 { label } else { "" }, clip(&v)))
        .collect();
    if more > 0 {
        let text = match lang {
            Lang::ZhTw => format!("還有 {more} 項"),
            Lang::En => format!("and {more} more"),
        };
        rows.push(CardRow::new("", text));
    }
    rows
}

/// The digest card.
pub fn card(c: &DigestContent) -> Card {
    let lang = c.lang;
    let mut card = Card::new(day_title(c));
    card.subtitle = lunar_line(c);
    if let Some(w) = &c.weather {
        let mut text = format!("{} {}", w.place, w.sky);
        if let Some((low, high)) = w.low_high {
            text.push_str(&format!(" {low:.0}–{high:.0}°C"));
        }
        card.headline = Some(Styled { text: clip(&text), tone: None });
        if let Some(rain) = w.rain_pct.filter(|r| *r >= 50.0) {
            let label = lang.pick("☔ 降雨", "☔ Rain");
            let value = match lang {
                Lang::ZhTw => format!("{rain:.0}%，記得帶傘"),
                Lang::En => format!("{rain:.0}%, take an umbrella"),
            };
            card.rows.push(CardRow::new(label, value).toned(Some(Tone::Warning)));
        }
    } else if let Some(place) = &c.weather_missing {
        let text = match lang {
            Lang::ZhTw => format!("{place} 天氣暫時查不到"),
            Lang::En => format!("No weather for {place} right now"),
        };
        card.headline = Some(Styled { text: clip(&text), tone: None });
    }
    let official = c.official.clone();
    for row in capped_rows(lang.pick("官方通報", "Official"), official, lang) {
        card.rows.push(row.toned(Some(Tone::Warning)));
    }
    let birthdays = c.birthdays.iter().map(|b| format!("🎂 {b}")).collect();
    card.rows.extend(capped_rows(lang.pick("生日", "Birthdays"), birthdays, lang));
    card.rows.extend(capped_rows(lang.pick("📅 行程", "📅 Events"), c.events.clone(), lang));
    let reminders = c.reminders.iter().map(|r| format!("{} {}", r.at, r.text)).collect();
    card.rows.extend(capped_rows(lang.pick("⏰ 提醒", "⏰ Reminders"), reminders, lang));
    if c.open_items.0 > 0 {
        let (items, lists) = c.open_items;
        let text = match lang {
            Lang::ZhTw => format!("{lists} 個清單共 {items} 項待辦"),
            Lang::En => {
                format!("{items} open on {lists} list{}", if lists == 1 { "" } else { "s" })
            }
        };
        card.rows.push(CardRow::new(lang.pick("🛒 清單", "🛒 Lists"), text));
    }
    let prices = capped_rows(
        lang.pick("📈 股價", "📈 Prices"),
        c.moved
            .iter()
            .map(|q| {
                format!(
                    "{} {} ({:+.1}%)",
                    q.name,
                    crate::platform::format::money(q.price),
                    q.change_pct
                )
            })
            .collect(),
        lang,
    );
    for (row, q) in prices.into_iter().zip(c.moved.iter().map(Some).chain(std::iter::repeat(None)))
    {
        let tone = q.map(|q| if q.change_pct >= 0.0 { Tone::Up } else { Tone::Down });
        card.rows.push(row.toned(tone));
    }
    if !c.has_something() {
        card.footnote =
            Some(lang.pick("今天沒有其他事，祝順心 🙂", "Nothing else today 🙂").into());
    }
    card
}

/// The messages of a day's digest: the card as Flex (its text when it cannot be drawn), with
/// `button` (the family page's 🏠, when it is served) signed for the chat by `signer`.
pub fn messages(
    c: &DigestContent,
    palette: Palette,
    button: Option<CardButton>,
    signer: &ButtonSigner,
) -> Vec<Message> {
    let mut card = card(c);
    card.buttons.extend(button);
    vec![Message::card(&card, &card.title, palette, Some(signer))]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::digest::content::{MovedQuote, TodayReminder, WeatherLine};
    use crate::sources::calendar::lunar::LunarDate;
    use jiff::civil::date;

    fn day(lang: Lang) -> DigestContent {
        DigestContent {
            date: date(2026, 12, 9),
            lang,
            weather: Some(WeatherLine {
                place: "台北".into(),
                sky: "🌧️ 雨".into(),
                low_high: Some((17.4, 21.6)),
                rain_pct: Some(80.0),
            }),
            weather_missing: None,
            reminders: (0..8)
                .map(|i| TodayReminder {
                    at: format!("{:02}:00", 8 + i),
                    text: format!("事情 {i}"),
                })
                .collect(),
            birthdays: vec!["阿嬤生日".into()],
            events: vec!["12:00 阿公生日聚餐 @ 欣葉".into()],
            open_items: (3, 2),
            moved: vec![MovedQuote {
                name: "台積電 2330".into(), price: 1085.0, change_pct: -2.3
            }],
            lunar: LunarDate::of(date(2026, 12, 9)),
            festival: Some("初一"),
            day_off: None,
            make_up_workday: false,
            official: vec!["🏫 臺北市 停止上班、停止上課".into()],
        }
    }

    #[test]
    fn the_card_has_the_date_lunar_day_weather_and_every_part() {
        let card = card(&day(Lang::ZhTw));
        assert_eq!(card.title, "☀️ 今日摘要 12/9（三）");
        assert_eq!(card.subtitle.as_deref(), Some("農曆十一月初一・初一"));
        assert_eq!(card.headline.as_ref().map(|h| h.text.as_str()), Some("台北 🌧️ 雨 17–22°C"));
        let text = card.to_text();
        for part in [
            "記得帶傘",
            "🎂 阿嬤生日",
            "08:00 事情 0",
            "2 個清單共 3 項待辦",
            "台積電 2330",
            "臺北市 停止上班",
        ] {
            assert!(text.contains(part), "{part} in {text}");
        }
        assert!(card.footnote.is_none());
    }

    #[test]
    fn long_parts_are_cut_with_a_count_of_the_rest() {
        let text = card(&day(Lang::ZhTw)).to_text();
        assert!(text.contains("12:00 事情 4"));
        assert!(!text.contains("事情 5"));
        assert!(text.contains("還有 3 項"));
    }

    #[test]
    fn the_card_speaks_english_to_english_speakers() {
        let text = card(&day(Lang::En)).to_text();
        assert!(text.contains("Today, Wed 12/9"), "{text}");
        assert!(text.contains("3 open on 2 lists"), "{text}");
        assert!(text.contains("take an umbrella"), "{text}");
    }

    #[test]
    fn a_quiet_day_says_so() {
        let mut d = day(Lang::ZhTw);
        d.reminders.clear();
        d.birthdays.clear();
        d.events.clear();
        d.open_items = (0, 0);
        d.moved.clear();
        d.festival = None;
        d.official.clear();
        assert!(card(&d).footnote.is_some());
    }

    fn signer() -> ButtonSigner {
        use crate::line::postback::PostbackKey;
        use crate::platform::config::Secret;
        ButtonSigner::new(PostbackKey::new(&Secret::default(), &Secret::from("s")), "Cfamily")
    }

    #[test]
    fn the_rendered_card_is_one_flex_bubble_within_limits() {
        let palette = Palette::new(Default::default());
        let messages = messages(&day(Lang::ZhTw), palette, None, &signer());
        assert_eq!(messages.len(), 1);
        let json = serde_json::to_value(&messages[0]).expect("json");
        assert_eq!(json["type"], "flex");
        assert_eq!(json["contents"]["type"], "bubble");
        assert!(json["contents"].to_string().len() <= crate::line::flex::MAX_BUBBLE_BYTES);
        assert!(!json.to_string().contains("open_page"), "no page, no 🏠");
    }

    #[test]
    fn a_button_given_is_on_the_card_signed_for_its_chat() {
        let palette = Palette::new(Default::default());
        let open = crate::features::family_page::open_button(Lang::ZhTw);
        let messages = messages(&day(Lang::ZhTw), palette, Some(open), &signer());
        let json = serde_json::to_string(&messages[0]).expect("json");
        assert!(json.contains("🏠 在網頁上打開") && json.contains("open_page"), "{json}");
    }
}
