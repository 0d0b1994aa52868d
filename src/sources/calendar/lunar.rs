//! The Chinese lunisolar calendar (農曆) as Taiwanese families use it: which lunar day a
//! Gregorian date is, the Gregorian date of a lunar day in a given year, and lunar dates in words
//! ("閏四月初八", "lunar 8/15").
//!
//! # Design notes
//!
//! The calendar itself is ICU4X's [`ChineseTraditional`] (`icu_calendar`), not a table of ours:
//! it agrees with the Purple Mountain Observatory's published data to 2025 and the Hong Kong
//! Observatory's to 2100 (precomputed with the GB/T 33661-2017 rules), and computes later years.
//! Taiwan's 農民曆 is reckoned at UTC+8 like the mainland's, so the dates are the same. It needs
//! no locale data, so `icu_calendar` is built without default features, and it shares
//! `icu_provider`, `zerovec` and `tinystr` with the URL stack already in the build.
//!
//! Two family rules live here, as pure functions:
//! - a lunar day 30 in a month of 29 days falls on the 29th (the month's last day);
//! - a date in a leap month (閏月) falls, in a year without that leap month, on the regular
//!   month of the same number.

use icu_calendar::Date as IcuDate;
use icu_calendar::cal::ChineseTraditional;
use icu_calendar::types::Month;
use jiff::civil::Date;

/// A lunar month: its number and whether it is the leap month (閏); the store keeps it in a
/// reminder's rule, so it is defined there.
pub use crate::store::LunarMonth;

/// A day of the lunar calendar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LunarDate {
    /// The Gregorian year in which this lunar year began (the year of its 春節).
    pub year: i32,
    /// The month.
    pub month: LunarMonth,
    /// 1–30.
    pub day: u8,
    /// 29 or 30.
    pub days_in_month: u8,
}

fn to_icu(date: Date) -> Option<IcuDate<ChineseTraditional>> {
    let iso = IcuDate::try_new_iso(
        i32::from(date.year()),
        u8::try_from(date.month()).ok()?,
        u8::try_from(date.day()).ok()?,
    )
    .ok()?;
    Some(iso.to_calendar(ChineseTraditional::new()))
}

fn from_icu(date: &IcuDate<ChineseTraditional>) -> Option<Date> {
    let iso = date.to_calendar(icu_calendar::Iso);
    let year = i16::try_from(iso.year().extended_year()).ok()?;
    Date::new(
        year,
        i8::try_from(iso.month().ordinal).ok()?,
        i8::try_from(iso.day_of_month().0).ok()?,
    )
    .ok()
}

impl LunarDate {
    /// The lunar date of a Gregorian date (`None` only outside ICU4X's range, years ±9999).
    pub fn of(date: Date) -> Option<LunarDate> {
        let lunar = to_icu(date)?;
        let month = lunar.month();
        Some(LunarDate {
            year: lunar.cyclic_year().related_iso,
            month: LunarMonth { number: month.number(), leap: month.to_input().is_leap() },
            day: lunar.day_of_month().0,
            days_in_month: lunar.days_in_month(),
        })
    }
}

/// The Gregorian date of day `day` (1–30) of `month` in the lunar year that began in Gregorian
/// `year`; a day past the month's end falls on its last day. `None` when that year has no such
/// month (a leap month it lacks) or the day is not 1–30.
pub fn gregorian(year: i32, month: LunarMonth, day: u8) -> Option<Date> {
    if !(1..=30).contains(&day) || !(1..=12).contains(&month.number) {
        return None;
    }
    let m = if month.leap { Month::leap(month.number) } else { Month::new(month.number) };
    let first = IcuDate::try_new_chinese_traditional(year, m, 1).ok()?;
    let day = day.min(first.days_in_month());
    let date = IcuDate::try_new_chinese_traditional(year, m, day).ok()?;
    from_icu(&date)
}

/// The date a yearly lunar date (a lunar birthday) falls on in lunar year `year`: a leap-month
/// date falls on the leap month when the year has it, else on the regular month of that number.
pub fn yearly(year: i32, month: LunarMonth, day: u8) -> Option<Date> {
    gregorian(year, month, day).or_else(|| {
        month.leap.then(|| gregorian(year, LunarMonth { leap: false, ..month }, day)).flatten()
    })
}

/// Whether lunar year `year` has the leap month after month `number`.
pub fn has_leap_month(year: i32, number: u8) -> bool {
    gregorian(year, LunarMonth { number, leap: true }, 1).is_some()
}

/// The first Gregorian day of each lunar month, from the month containing `date` on.
pub fn month_starts(date: Date) -> impl Iterator<Item = Date> {
    let first = LunarDate::of(date)
        .and_then(|l| date.checked_sub(jiff::Span::new().days(i64::from(l.day) - 1)).ok());
    std::iter::successors(first, |start| {
        let len = LunarDate::of(*start)?.days_in_month;
        start.checked_add(jiff::Span::new().days(i64::from(len))).ok()
    })
}

const ZH_DIGITS: [&str; 11] = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十"];

/// A lunar day's name: 初一 … 初十, 十一 … 二十, 廿一 … 廿九, 三十.
pub fn day_name(day: u8) -> String {
    let d = usize::from(day.clamp(1, 30));
    match d {
        1..=10 => format!("初{}", ZH_DIGITS[d]),
        11..=19 => format!("十{}", ZH_DIGITS[d - 10]),
        20 => "二十".into(),
        21..=29 => format!("廿{}", ZH_DIGITS[d - 20]),
        _ => "三十".into(),
    }
}

/// A lunar month's name: 正月, 二月 … 十一月, 臘月; 閏四月 for a leap month.
pub fn month_name(month: LunarMonth) -> String {
    let n = usize::from(month.number.clamp(1, 12));
    let name = match n {
        1 => "正".to_string(),
        12 => "臘".to_string(),
        11 => "十一".to_string(),
        n => ZH_DIGITS[n].to_string(),
    };
    format!("{}{name}月", if month.leap { "閏" } else { "" })
}

/// A lunar month in English: "month 8", "leap month 4".
pub fn month_name_en(month: LunarMonth) -> String {
    if month.leap {
        format!("leap month {}", month.number)
    } else {
        format!("month {}", month.number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    const REGULAR: fn(u8) -> LunarMonth = |number| LunarMonth { number, leap: false };

    /// 春節 (正月初一) and 中秋 (八月十五), 2024–2035, as published: the Hong Kong Observatory's
    /// Gregorian–lunar tables, and the Python `holidays` package 0.109's Taiwan calendar (its own
    /// table, not ICU4X) lists the same dates.
    const PUBLISHED: [(i32, Date, Date); 12] = [
        (2024, date(2024, 2, 10), date(2024, 9, 17)),
        (2025, date(2025, 1, 29), date(2025, 10, 6)),
        (2026, date(2026, 2, 17), date(2026, 9, 25)),
        (2027, date(2027, 2, 6), date(2027, 9, 15)),
        (2028, date(2028, 1, 26), date(2028, 10, 3)),
        (2029, date(2029, 2, 13), date(2029, 9, 22)),
        (2030, date(2030, 2, 3), date(2030, 9, 12)),
        (2031, date(2031, 1, 23), date(2031, 10, 1)),
        (2032, date(2032, 2, 11), date(2032, 9, 19)),
        (2033, date(2033, 1, 31), date(2033, 9, 8)),
        (2034, date(2034, 2, 19), date(2034, 9, 27)),
        (2035, date(2035, 2, 8), date(2035, 9, 16)),
    ];

    #[test]
    fn lunar_new_year_and_mid_autumn_2024_to_2035_match_the_published_dates() {
        for (year, new_year, mid_autumn) in PUBLISHED {
            assert_eq!(gregorian(year, REGULAR(1), 1), Some(new_year), "春節 {year}");
            assert_eq!(gregorian(year, REGULAR(8), 15), Some(mid_autumn), "中秋 {year}");
            let back = LunarDate::of(mid_autumn).expect("lunar");
            assert_eq!((back.year, back.month, back.day), (year, REGULAR(8), 15));
        }
    }

    /// 端午 (五月初五) and 重陽 (九月初九), 2024–2035, from the `holidays` package 0.109's own
    /// Chinese-calendar tables (its `_ChineseLunisolar`), an implementation independent of ICU4X.
    const DRAGON_BOAT_AND_DOUBLE_NINTH: [(i32, Date, Date); 12] = [
        (2024, date(2024, 6, 10), date(2024, 10, 11)),
        (2025, date(2025, 5, 31), date(2025, 10, 29)),
        (2026, date(2026, 6, 19), date(2026, 10, 18)),
        (2027, date(2027, 6, 9), date(2027, 10, 8)),
        (2028, date(2028, 5, 28), date(2028, 10, 26)),
        (2029, date(2029, 6, 16), date(2029, 10, 16)),
        (2030, date(2030, 6, 5), date(2030, 10, 5)),
        (2031, date(2031, 6, 24), date(2031, 10, 24)),
        (2032, date(2032, 6, 12), date(2032, 10, 12)),
        (2033, date(2033, 6, 1), date(2033, 10, 1)),
        (2034, date(2034, 6, 20), date(2034, 10, 20)),
        (2035, date(2035, 6, 10), date(2035, 10, 9)),
    ];

    #[test]
    fn dragon_boat_and_double_ninth_2024_to_2035_match_an_independent_table() {
        for (year, dragon_boat, double_ninth) in DRAGON_BOAT_AND_DOUBLE_NINTH {
            assert_eq!(gregorian(year, REGULAR(5), 5), Some(dragon_boat), "端午 {year}");
            assert_eq!(gregorian(year, REGULAR(9), 9), Some(double_ninth), "重陽 {year}");
        }
    }

    #[test]
    fn the_leap_sixth_month_of_2025_is_known_and_a_leap_birthday_falls_back_in_other_years() {
        // 2025 has 閏六月: 2025-07-25 is 閏六月初一; 2023 had 閏二月 (2023-03-22 閏二月初一).
        let leap6 = LunarMonth { number: 6, leap: true };
        assert_eq!(gregorian(2025, leap6, 1), Some(date(2025, 7, 25)));
        assert_eq!(gregorian(2025, REGULAR(6), 1), Some(date(2025, 6, 25)));
        assert_eq!(
            gregorian(2023, LunarMonth { number: 2, leap: true }, 1),
            Some(date(2023, 3, 22))
        );
        assert!(has_leap_month(2025, 6) && !has_leap_month(2026, 6));
        let of = LunarDate::of(date(2025, 8, 1)).expect("lunar");
        assert_eq!((of.month, of.day), (leap6, 8));
        // A birthday on 閏六月初八: in 2025 on the leap month, in 2026 (no leap month) on 六月初八.
        assert_eq!(yearly(2025, leap6, 8), Some(date(2025, 8, 1)));
        assert_eq!(yearly(2026, leap6, 8), gregorian(2026, REGULAR(6), 8));
        assert_eq!(gregorian(2026, leap6, 8), None);
    }

    #[test]
    fn the_thirtieth_of_a_short_month_falls_on_its_last_day() {
        // 2026 臘月 has 29 days (除夕 is 2026-02-16, 臘月廿九).
        let last = gregorian(2025, REGULAR(12), 30).expect("date");
        assert_eq!(last, date(2026, 2, 16));
        assert_eq!(LunarDate::of(last).expect("lunar").days_in_month, 29);
        assert_eq!(gregorian(2025, REGULAR(12), 31), None);
        assert_eq!(gregorian(2025, REGULAR(13), 1), None);
    }

    #[test]
    fn month_starts_walk_lunar_months_including_the_leap_one() {
        let starts: Vec<Date> = month_starts(date(2025, 7, 1)).take(3).collect();
        assert_eq!(starts, [date(2025, 6, 25), date(2025, 7, 25), date(2025, 8, 23)]);
    }

    #[test]
    fn lunar_days_and_months_have_their_chinese_names() {
        let names: Vec<String> = [1, 10, 15, 20, 21, 30].into_iter().map(day_name).collect();
        assert_eq!(names, ["初一", "初十", "十五", "二十", "廿一", "三十"]);
        assert_eq!(month_name(REGULAR(1)), "正月");
        assert_eq!(month_name(REGULAR(8)), "八月");
        assert_eq!(month_name(REGULAR(12)), "臘月");
        assert_eq!(month_name(LunarMonth { number: 4, leap: true }), "閏四月");
        assert_eq!(month_name_en(LunarMonth { number: 4, leap: true }), "leap month 4");
    }
}
