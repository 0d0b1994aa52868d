//! Reminders in the family's words: "每週一、三 19:00（台北時間）", "every 2 weeks on Mon, Wed at 19:00".

use jiff::Timestamp;
use jiff::tz::TimeZone;

use super::recurrence::{Freq, Schedule};
use crate::i18n::Lang;

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
    let n = s.interval.max(1);
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
    let text = match s.freq {
        Freq::Once => return None,
        Freq::Daily => format!("{} {time}", every("天", "day")),
        Freq::Weekly => {
            let mask = if s.weekdays == 0 {
                1u8 << s.anchor.weekday().to_monday_zero_offset()
            } else {
                s.weekdays
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
            let day = s.month_day.unwrap_or(s.anchor.day());
            match (zh, day) {
                (true, -1) => format!("{}最後一天 {time}", every("個月", "month")),
                (true, d) => format!("{} {d} 日 {time}", every("個月", "month")),
                (false, -1) => format!("{} on the last day at {time}", every("month", "month")),
                (false, d) => format!("{} on day {d} at {time}", every("month", "month")),
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
    if let Some(c) = s.count {
        text.push_str(&if zh { format!("，共 {c} 次") } else { format!(", {c} times") });
    }
    if let Some(u) = s.until {
        let date = u.to_zoned_datetime(s.tz.clone()).strftime("%Y-%m-%d").to_string();
        text.push_str(&if zh {
            format!("，到 {date} 為止")
        } else {
            format!(", until {date}")
        });
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::datetime;

    fn weekly(mask: u8, interval: u32) -> Schedule {
        Schedule {
            freq: Freq::Weekly,
            weekdays: mask,
            interval,
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
        s.freq = Freq::Monthly;
        s.month_day = Some(5);
        assert_eq!(repetition(&s, Lang::ZhTw).as_deref(), Some("每個月 5 日 19:00"));
        s.freq = Freq::Once;
        assert_eq!(repetition(&s, Lang::ZhTw), None);
    }

    #[test]
    fn local_time_shows_the_weekday() {
        let t: Timestamp = "2026-12-01T00:00:00Z".parse().expect("instant");
        let tz = TimeZone::get("Asia/Taipei").expect("zone");
        assert_eq!(local_time(t, &tz, Lang::ZhTw), "2026-12-01（二）08:00");
        assert_eq!(zone_label(&tz, Lang::ZhTw), "台北時間");
    }
}
