//! What a day's digest says, gathered into plain data ([`DigestContent`]) so that deciding
//! whether there is anything to say and drawing the card are pure functions; and the lunar
//! festivals a Taiwanese family keeps, named from the lunar date.

use jiff::civil::Date;

use crate::platform::i18n::Lang;
use crate::sources::calendar::lunar::LunarDate;

/// A watched price moves "enough" to be in the digest from this day change, in percent.
pub const MOVED_PCT: f64 = 1.0;

/// The weather line of the digest.
#[derive(Debug, Clone, PartialEq)]
pub struct WeatherLine {
    /// The place as the family named it.
    pub place: String,
    /// The sky in words, with an emoji.
    pub sky: String,
    /// Lowest and highest temperature, °C.
    pub low_high: Option<(f64, f64)>,
    /// Chance of rain, %.
    pub rain_pct: Option<f64>,
}

/// A reminder still to come today.
#[derive(Debug, Clone, PartialEq)]
pub struct TodayReminder {
    /// Local time, `HH:MM`.
    pub at: String,
    /// Its text.
    pub text: String,
}

/// A watched instrument whose price moved today.
#[derive(Debug, Clone, PartialEq)]
pub struct MovedQuote {
    /// Its name as the family knows it (台積電 2330, AAPL).
    pub name: String,
    /// The last price.
    pub price: f64,
    /// The day's change, %.
    pub change_pct: f64,
}

/// Everything a day's digest may say.
#[derive(Debug, Clone, PartialEq)]
pub struct DigestContent {
    /// The local day.
    pub date: Date,
    /// The language.
    pub lang: Lang,
    /// The weather, when a place is set and the weather service answered.
    pub weather: Option<WeatherLine>,
    /// The place whose weather could not be had (shown as such), if any.
    pub weather_missing: Option<String>,
    /// Reminders still to come today (not birthdays).
    pub reminders: Vec<TodayReminder>,
    /// Birthday reminders of today (lunar ones included).
    pub birthdays: Vec<String>,
    /// The family calendar's events of the day, in order: 「12:00 阿公生日聚餐 @ 欣葉」, 「全天 墾丁」.
    pub events: Vec<String>,
    /// Open items over all the chat's lists, and how many lists hold them.
    pub open_items: (i64, usize),
    /// Watched prices that moved at least [`MOVED_PCT`].
    pub moved: Vec<MovedQuote>,
    /// Today's lunar date.
    pub lunar: Option<LunarDate>,
    /// Today's lunar festival, if any.
    pub festival: Option<&'static str>,
    /// Today's official day off (national holiday), if any.
    pub day_off: Option<String>,
    /// Today is a make-up workday (補班) on a weekend.
    pub make_up_workday: bool,
    /// Official alerts standing for the place today (a suspension, a typhoon or rain warning),
    /// one line each.
    pub official: Vec<String>,
}

impl DigestContent {
    /// True when the day holds anything beyond the weather and the date: a reminder, a birthday,
    /// an event, open list items, a moved price, a festival or a holiday or make-up workday.
    pub fn has_something(&self) -> bool {
        !self.reminders.is_empty()
            || !self.birthdays.is_empty()
            || !self.events.is_empty()
            || self.open_items.0 > 0
            || !self.moved.is_empty()
            || self.festival.is_some()
            || self.day_off.is_some()
            || self.make_up_workday
            || !self.official.is_empty()
    }
}

/// True for a reminder text that is a birthday (生日, 壽, birthday).
pub fn is_birthday(text: &str) -> bool {
    text.contains("生日") || text.contains('壽') || text.to_lowercase().contains("birthday")
}

/// The lunar festival of `lunar`, in `lang`: 春節, 元宵, 端午, 七夕, 中元, 中秋, 重陽, 尾牙, 除夕;
/// else 初一 or 十五 (the days of offerings). Leap months hold no festival.
pub fn festival(lunar: &LunarDate, lang: Lang) -> Option<&'static str> {
    if lunar.month.leap {
        return None;
    }
    let last_day_of_year = lunar.month.number == 12 && lunar.day == lunar.days_in_month;
    let (zh, en) = match (lunar.month.number, lunar.day) {
        _ if last_day_of_year => ("除夕", "Lunar New Year's Eve"),
        (1, 1) => ("春節", "Lunar New Year"),
        (1, 15) => ("元宵節", "Lantern Festival"),
        (5, 5) => ("端午節", "Dragon Boat Festival"),
        (7, 7) => ("七夕", "Qixi"),
        (7, 15) => ("中元節", "Ghost Festival (中元)"),
        (8, 15) => ("中秋節", "Mid-Autumn Festival"),
        (9, 9) => ("重陽節", "Double Ninth Festival"),
        (12, 16) => ("尾牙", "Weiya (year-end feast)"),
        (_, 1) => ("初一", "1st of the lunar month (初一)"),
        (_, 15) => ("十五", "15th of the lunar month (十五)"),
        _ => return None,
    };
    Some(lang.pick(zh, en))
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    fn lunar(d: Date) -> LunarDate {
        LunarDate::of(d).expect("lunar date")
    }

    #[test]
    fn festivals_fall_on_their_published_dates() {
        // 中秋 2026-09-25 and 2027-09-15, 春節 2027-02-06 (the Python holidays package's Taiwan
        // calendar, as in the working calendar's data).
        assert_eq!(festival(&lunar(date(2026, 9, 25)), Lang::ZhTw), Some("中秋節"));
        assert_eq!(festival(&lunar(date(2027, 9, 15)), Lang::ZhTw), Some("中秋節"));
        assert_eq!(festival(&lunar(date(2027, 2, 6)), Lang::En), Some("Lunar New Year"));
        assert_eq!(festival(&lunar(date(2027, 2, 5)), Lang::ZhTw), Some("除夕"));
        assert_eq!(festival(&lunar(date(2026, 9, 26)), Lang::ZhTw), None);
    }

    #[test]
    fn the_first_and_fifteenth_are_named_for_offerings() {
        let first = lunar(date(2026, 12, 9));
        assert_eq!(first.day, 1, "2026-12-09 is a 初一");
        assert_eq!(festival(&first, Lang::ZhTw), Some("初一"));
        let fifteenth = lunar(date(2026, 12, 23));
        assert_eq!(fifteenth.day, 15);
        assert_eq!(festival(&fifteenth, Lang::ZhTw), Some("十五"));
    }

    #[test]
    fn birthdays_are_recognised_in_both_languages() {
        assert!(is_birthday("阿嬤農曆生日"));
        assert!(is_birthday("外公八十大壽"));
        assert!(is_birthday("Mom's Birthday"));
        assert!(!is_birthday("倒垃圾"));
    }

    fn quiet_day() -> DigestContent {
        DigestContent {
            date: date(2026, 12, 1),
            lang: Lang::ZhTw,
            weather: Some(WeatherLine {
                place: "台北".into(),
                sky: "☀️ 晴".into(),
                low_high: Some((18.0, 24.0)),
                rain_pct: Some(10.0),
            }),
            weather_missing: None,
            reminders: vec![],
            birthdays: vec![],
            events: vec![],
            open_items: (0, 0),
            moved: vec![],
            lunar: LunarDate::of(date(2026, 12, 1)),
            festival: None,
            day_off: None,
            make_up_workday: false,
            official: vec![],
        }
    }

    #[test]
    fn weather_and_the_date_alone_are_nothing_to_say() {
        assert!(!quiet_day().has_something());
    }

    #[test]
    fn each_item_of_the_day_is_something_to_say() {
        let mut d = quiet_day();
        d.reminders.push(TodayReminder { at: "08:00".into(), text: "倒垃圾".into() });
        assert!(d.has_something());
        let mut d = quiet_day();
        d.open_items = (2, 1);
        assert!(d.has_something());
        let mut d = quiet_day();
        d.festival = Some("初一");
        assert!(d.has_something());
        let mut d = quiet_day();
        d.moved.push(MovedQuote { name: "2330".into(), price: 1000.0, change_pct: -2.0 });
        assert!(d.has_something());
        let mut d = quiet_day();
        d.birthdays.push("阿嬤生日".into());
        assert!(d.has_something());
        let mut d = quiet_day();
        d.day_off = Some("國慶日".into());
        assert!(d.has_something());
        let mut d = quiet_day();
        d.official.push("🏫 臺北市 停止上班、停止上課".into());
        assert!(d.has_something());
        let mut d = quiet_day();
        d.events.push("12:00 阿公生日聚餐 @ 欣葉".into());
        assert!(d.has_something());
    }
}
