//! Reminders in the family's words: "每週一、三 19:00（台北時間）", "every 2 weeks on Mon, Wed at 19:00",
//! "每年農曆八月十五 07:00"; the next dates of a lunar or workday rule, and what the family should
//! know about it (leap months, short months, years the working calendar does not know yet).

use jiff::Timestamp;
use jiff::tz::TimeZone;

use super::recurrence::{Freq, Schedule};
use crate::platform::i18n::Lang;
use crate::sources::calendar::lunar::{LunarMonth, day_name, month_name, month_name_en};

const ZH_DAYS: [&str; 7] = ["一", "二", "三", "四", "五", "六", "日"];
const EN_DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// A zone's name for people: 台北時間 for Asia/Taipei, else the IANA name.
pub fn zone_label(tz: &TimeZone, lang: Lang) -> String {
    match (tz.iana_name(), lang) {
        (Some("Asia/Taipei"), Lang::ZhTw) => "台北時間".into(),
        (Some("Asia/Taipei"), Lang::En) => "Taipei time".into(),
        (Some(name), _) => name.into(),
        (None, _) => "UTC".into(),
    }
}

/// An instant as local date, weekday and time: "2026-12-01（二）08:00".
pub fn local_time(t: Timestamp, tz: &TimeZone, lang: Lang) -> String {
    let z = t.to_zoned_datetime(tz.clone());
    let day = usize::from(z.weekday().to_monday_zero_offset() as u8);
    match lang {
        Lang::ZhTw => {
            format!("{}（{}）{}", z.strftime("%Y-%m-%d"), ZH_DAYS[day], z.strftime("%H:%M"))
        }
        Lang::En => format!("{} {} {}", EN_DAYS[day], z.strftime("%Y-%m-%d"), z.strftime("%H:%M")),
    }
}

/// The repetition in words, or `None` for a one-off reminder.
pub fn repetition(s: &Schedule, lang: Lang) -> Option<String> {
    let time = s.anchor.time().strftime("%H:%M").to_string();
    let n = s.rule.interval.max(1);
    let zh = lang == Lang::ZhTw;
    let every = |zh_unit: &str, en_unit: &str| {
        if zh {
            if n == 1 { format!("每{zh_unit}") } else { format!("每 {n} {zh_unit}") }
        } else if n == 1 {
            format!("every {en_unit}")
        } else {
            format!("every {n} {en_unit}s")
        }
    };
    let text = match s.rule.freq {
        Freq::Once => return None,
        Freq::Daily => format!("{} {time}", every("天", "day")),
        Freq::Weekly => {
            let mask = if s.rule.weekdays == 0 {
                1u8 << s.anchor.weekday().to_monday_zero_offset()
            } else {
                s.rule.weekdays
            };
            let days: Vec<&str> = (0..7)
                .filter(|d| mask & (1 << d) != 0)
                .map(|d| if zh { ZH_DAYS[d] } else { EN_DAYS[d] })
                .collect();
            if zh {
                let unit = if n == 1 { "每週".to_string() } else { format!("每 {n} 週的週") };
                format!("{unit}{} {time}", days.join("、"))
            } else {
                format!("{} on {} at {time}", every("week", "week"), days.join(", "))
            }
        }
        Freq::Monthly => {
            let day = s.rule.month_day.unwrap_or(s.anchor.day());
            match (zh, day) {
                (true, -1) => format!("{}最後一天 {time}", every("個月", "month")),
                (true, d) => format!("{} {d} 日 {time}", every("個月", "month")),
                (false, -1) => format!("{} on the last day at {time}", every("month", "month")),
                (false, d) => format!("{} on day {d} at {time}", every("month", "month")),
            }
        }
        Freq::LunarMonthly => {
            let days = s.lunar_day_list();
            if zh {
                let names: Vec<String> = days.iter().map(|d| day_name(*d)).collect();
                format!("每月農曆{} {time}", names.join("、"))
            } else {
                let numbers: Vec<String> = days.iter().map(u8::to_string).collect();
                format!("every lunar month on day {} at {time}", numbers.join(", "))
            }
        }
        Freq::LunarYearly => {
            let (month, day) = lunar_date(s)?;
            let before = s.rule.days_before;
            match (zh, before) {
                (true, 0) => format!("每年農曆{}{} {time}", month_name(month), day_name(day)),
                (true, n) => {
                    format!("每年農曆{}{}的前{n}天 {time}", month_name(month), day_name(day))
                }
                (false, 0) => {
                    format!("every year on lunar {} day {day} at {time}", month_name_en(month))
                }
                (false, n) => format!(
                    "every year {n} day(s) before lunar {} day {day}, at {time}",
                    month_name_en(month)
                ),
            }
        }
        Freq::Workdays => {
            if zh {
                format!("每個上班日 {time}（台灣行事曆）")
            } else {
                format!("every workday at {time} (Taiwan's official calendar)")
            }
        }
        Freq::Yearly => {
            let (m, d) = (s.anchor.month(), s.anchor.day());
            if zh {
                format!("{} {m} 月 {d} 日 {time}", every("年", "year"))
            } else {
                format!("{} on {m}/{d} at {time}", every("year", "year"))
            }
        }
    };
    let mut text = text;
    if let Some(c) = s.rule.count {
        text.push_str(&if zh { format!("，共 {c} 次") } else { format!(", {c} times") });
    }
    if let Some(u) = s.rule.until {
        let date = u.to_zoned_datetime(s.tz.clone()).strftime("%Y-%m-%d").to_string();
        text.push_str(&if zh {
            format!("，到 {date} 為止")
        } else {
            format!(", until {date}")
        });
    }
    Some(text)
}

fn lunar_date(s: &Schedule) -> Option<(LunarMonth, u8)> {
    Some((s.rule.lunar_month?, *s.lunar_day_list().first()?))
}

/// How many next dates a confirmation shows.
pub const UPCOMING: usize = 3;

/// The next [`UPCOMING`] times of a lunar or workday rule, local, with weekday (empty for the
/// Gregorian rules, whose repetition in words says it all).
pub fn upcoming(s: &Schedule, lang: Lang) -> Vec<String> {
    if !matches!(s.rule.freq, Freq::LunarMonthly | Freq::LunarYearly | Freq::Workdays) {
        return Vec::new();
    }
    s.occurrences().take(UPCOMING).map(|(_, t)| local_time(t, &s.tz, lang)).collect()
}

/// What the family should know about a lunar or workday rule whose first time is `first`:
/// where a leap-month date falls in other years, where day 30 falls in a short month, and
/// whether the working calendar knows the years ahead.
pub fn calendar_notes(s: &Schedule, first: Timestamp, lang: Lang) -> Vec<String> {
    let zh = lang == Lang::ZhTw;
    let mut notes = Vec::new();
    if let (Freq::LunarYearly, Some((month, day))) = (s.rule.freq, lunar_date(s))
        && month.leap
    {
        let regular = LunarMonth { leap: false, ..month };
        let before = s.rule.days_before;
        let (before_zh, before_en) = match before {
            0 => (String::new(), "on ".to_string()),
            n => (format!("的前{n}天"), format!("{n} day(s) before ")),
        };
        notes.push(if zh {
            format!(
                "{}不是每年都有；沒有{}的年份，在農曆{}{}{before_zh}提醒。",
                month_name(month),
                month_name(month),
                month_name(regular),
                day_name(day)
            )
        } else {
            format!(
                "Leap month {n} only exists in some years; in the others the reminder comes {before_en}lunar month {n}, day {day}.",
                n = month.number
            )
        });
    }
    let lunar = matches!(s.rule.freq, Freq::LunarMonthly | Freq::LunarYearly);
    if lunar && s.lunar_day_list().contains(&30) {
        notes.push(
            lang.pick(
                "農曆小月只有 29 天，那個月在廿九提醒。",
                "Short lunar months have 29 days; then the reminder comes on day 29.",
            )
            .into(),
        );
    }
    if s.rule.freq == Freq::Workdays {
        notes.push(workday_note(s, first, lang));
    }
    notes
}

fn workday_note(s: &Schedule, first: Timestamp, lang: Lang) -> String {
    let date = first.to_zoned_datetime(s.tz.clone()).date();
    let cal = &s.work_calendar;
    match (cal.knows(date), cal.last_known_year(), lang) {
        (true, Some(last), Lang::ZhTw) => format!(
            "依台灣官方行事曆：國定假日不提醒，補班日照常提醒。行事曆目前到 {last} 年，之後先以週一到週五計算。"
        ),
        (true, Some(last), Lang::En) => format!(
            "Follows Taiwan's official calendar: no reminder on national holidays, one on make-up workdays. The calendar is known through {last}; after that, Monday to Friday are used."
        ),
        (_, _, Lang::ZhTw) => format!(
            "{} 年的官方行事曆還沒有資料，先以週一到週五計算（國定假日和補班日還沒算進去）。",
            date.year()
        ),
        (_, _, Lang::En) => format!(
            "Taiwan's official calendar for {} is not known yet, so Monday to Friday are used (holidays and make-up workdays not included).",
            date.year()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{LunarMonth, Recurrence};
    use jiff::civil::datetime;

    fn weekly(mask: u8, interval: u32) -> Schedule {
        Schedule {
            rule: Recurrence { freq: Freq::Weekly, weekdays: mask, interval, ..Recurrence::once() },
            ..Schedule::once(
                TimeZone::get("Asia/Taipei").expect("zone"),
                datetime(2026, 12, 2, 19, 0, 0, 0),
            )
        }
    }

    #[test]
    fn weekly_reminders_are_described_in_chinese_and_english() {
        assert_eq!(repetition(&weekly(0b100, 1), Lang::ZhTw).as_deref(), Some("每週三 19:00"));
        assert_eq!(
            repetition(&weekly(0b101, 2), Lang::ZhTw).as_deref(),
            Some("每 2 週的週一、三 19:00")
        );
        assert_eq!(
            repetition(&weekly(0b101, 2), Lang::En).as_deref(),
            Some("every 2 weeks on Mon, Wed at 19:00")
        );
    }

    #[test]
    fn monthly_and_one_off_descriptions() {
        let mut s = weekly(0, 1);
        s.rule.freq = Freq::Monthly;
        s.rule.month_day = Some(5);
        assert_eq!(repetition(&s, Lang::ZhTw).as_deref(), Some("每個月 5 日 19:00"));
        s.rule.freq = Freq::Once;
        assert_eq!(repetition(&s, Lang::ZhTw), None);
    }

    #[test]
    fn local_time_shows_the_weekday() {
        let t: Timestamp = "2026-12-01T00:00:00Z".parse().expect("instant");
        let tz = TimeZone::get("Asia/Taipei").expect("zone");
        assert_eq!(local_time(t, &tz, Lang::ZhTw), "2026-12-01（二）08:00");
        assert_eq!(zone_label(&tz, Lang::ZhTw), "台北時間");
    }

    fn lunar(freq: Freq, days: u32, month: Option<LunarMonth>) -> Schedule {
        Schedule {
            rule: Recurrence { freq, lunar_days: days, lunar_month: month, ..Recurrence::once() },
            ..Schedule::once(
                TimeZone::get("Asia/Taipei").expect("zone"),
                datetime(2026, 12, 1, 7, 0, 0, 0),
            )
        }
    }

    #[test]
    fn lunar_rules_are_described_by_their_lunar_names() {
        let offerings = lunar(Freq::LunarMonthly, 1 | 1 << 14, None);
        assert_eq!(repetition(&offerings, Lang::ZhTw).as_deref(), Some("每月農曆初一、十五 07:00"));
        assert_eq!(
            repetition(&offerings, Lang::En).as_deref(),
            Some("every lunar month on day 1, 15 at 07:00")
        );
        let leap_fourth = LunarMonth { number: 4, leap: true };
        let birthday = lunar(Freq::LunarYearly, 1 << 7, Some(leap_fourth));
        assert_eq!(repetition(&birthday, Lang::ZhTw).as_deref(), Some("每年農曆閏四月初八 07:00"));
        let t: Timestamp = "2027-01-01T00:00:00Z".parse().expect("instant");
        assert_eq!(
            calendar_notes(&birthday, t, Lang::ZhTw),
            ["閏四月不是每年都有；沒有閏四月的年份，在農曆四月初八提醒。"]
        );
        let thirtieth = lunar(Freq::LunarMonthly, 1 << 29, None);
        assert_eq!(
            calendar_notes(&thirtieth, t, Lang::ZhTw),
            ["農曆小月只有 29 天，那個月在廿九提醒。"]
        );
        assert!(calendar_notes(&offerings, t, Lang::ZhTw).is_empty());
        assert!(upcoming(&weekly(0b1, 1), Lang::ZhTw).is_empty(), "only calendar rules list dates");
    }
}
