//! Relative dates in a fact to remember, resolved to dates: "明天要回診" said on 2026-12-01 is
//! kept as "2026-12-02（週三）要回診", so it is still right when read the next day. A pure
//! function of the text and the chat's local date; words it does not know are left as written.

use jiff::ToSpan;
use jiff::civil::{Date, Weekday};

/// Chinese day words and their offset from today, longest first.
const ZH_DAYS: &[(&str, i64, &str)] = &[
    ("大後天", 3, ""),
    ("大前天", -3, ""),
    ("後天", 2, ""),
    ("前天", -2, ""),
    ("明天", 1, ""),
    ("明日", 1, ""),
    ("明早", 1, "早上"),
    ("明晚", 1, "晚上"),
    ("今天", 0, ""),
    ("今日", 0, ""),
    ("今早", 0, "早上"),
    ("今晚", 0, "晚上"),
    ("昨天", -1, ""),
    ("昨日", -1, ""),
    ("昨晚", -1, "晚上"),
];

/// Chinese ways to say "next week" and "this week" before a weekday.
const ZH_WEEKS: &[(&str, i64)] = &[
    ("下星期", 1),
    ("下禮拜", 1),
    ("下礼拜", 1),
    ("下週", 1),
    ("下周", 1),
    ("這星期", 0),
    ("這禮拜", 0),
    ("這週", 0),
    ("这周", 0),
    ("本週", 0),
    ("本周", 0),
];

/// English day words and their offset from today, longest first.
const EN_DAYS: &[(&str, i64, &str)] = &[
    ("the day after tomorrow", 2, ""),
    ("the day before yesterday", -2, ""),
    ("tomorrow night", 1, "the evening of "),
    ("tomorrow", 1, ""),
    ("tonight", 0, "the evening of "),
    ("today", 0, ""),
    ("yesterday", -1, ""),
];

/// Words after which an English date needs no "on".
const EN_PREPOSITIONS: &[&str] =
    &["on", "by", "until", "till", "before", "after", "from", "since", "of", "for"];

const EN_WEEKDAYS: [&str; 7] =
    ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/// `text` with its relative dates ("明天", "下週五", "tomorrow", "next Friday") replaced by the
/// dates they mean when said on `today`.
pub fn resolve(text: &str, today: Date) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if let Some((len, replacement)) = zh_at(rest, today).or_else(|| en_at(&out, rest, today)) {
            out.push_str(&replacement);
            rest = &rest[len..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// A Chinese relative date at the start of `rest`: its length in bytes and its replacement.
fn zh_at(rest: &str, today: Date) -> Option<(usize, String)> {
    for (word, offset, part) in ZH_DAYS {
        if rest.starts_with(word) {
            return Some((word.len(), format!("{}{part}", zh_date(add_days(today, *offset)?))));
        }
    }
    for (word, weeks) in ZH_WEEKS {
        let Some(after) = rest.strip_prefix(word) else { continue };
        let day = after.chars().next().and_then(zh_weekday)?;
        let date = in_week(today, *weeks, day)?;
        return Some((word.len() + after.chars().next()?.len_utf8(), zh_date(date)));
    }
    None
}

/// An English relative date at the start of `rest` (at a word boundary after `before`).
fn en_at(before: &str, rest: &str, today: Date) -> Option<(usize, String)> {
    if before.chars().next_back().is_some_and(char::is_alphanumeric) {
        return None;
    }
    let lower = rest.to_lowercase();
    if lower.len() != rest.len() {
        return None;
    }
    let ends_word = |len: usize| !lower[len..].starts_with(|c: char| c.is_alphanumeric());
    let on = || match last_word(before) {
        Some(w) if EN_PREPOSITIONS.contains(&w.as_str()) => "",
        _ => "on ",
    };
    for (word, offset, part) in EN_DAYS {
        if lower.starts_with(word) && ends_word(word.len()) {
            let date = en_date(add_days(today, *offset)?);
            return Some((word.len(), format!("{}{part}{date}", on())));
        }
    }
    for (word, weeks) in [("next ", 1), ("this ", 0)] {
        let Some(after) = lower.strip_prefix(word) else { continue };
        for (i, name) in EN_WEEKDAYS.iter().enumerate() {
            if after.starts_with(name) && ends_word(word.len() + name.len()) {
                let date = in_week(today, weeks, weekday(i))?;
                return Some((word.len() + name.len(), format!("{}{}", on(), en_date(date))));
            }
        }
    }
    None
}

fn last_word(text: &str) -> Option<String> {
    text.split_whitespace().next_back().map(str::to_lowercase)
}

fn add_days(date: Date, days: i64) -> Option<Date> {
    date.checked_add(days.days()).ok()
}

/// The `day` of the week `weeks` after today's (weeks start on Monday).
fn in_week(today: Date, weeks: i64, day: Weekday) -> Option<Date> {
    let monday = add_days(today, -i64::from(today.weekday().to_monday_zero_offset()))?;
    add_days(monday, weeks * 7 + i64::from(day.to_monday_zero_offset()))
}

fn weekday(monday_zero: usize) -> Weekday {
    Weekday::Monday.wrapping_add(monday_zero as i64)
}

fn zh_weekday(c: char) -> Option<Weekday> {
    let i = "一二三四五六日".chars().position(|d| d == c).or((c == '天').then_some(6))?;
    Some(weekday(i))
}

fn zh_date(date: Date) -> String {
    let day =
        "一二三四五六日".chars().nth(usize::from(date.weekday().to_monday_zero_offset() as u8));
    format!("{}（週{}）", date.strftime("%Y-%m-%d"), day.unwrap_or('?'))
}

fn en_date(date: Date) -> String {
    date.strftime("%a %Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tuesday 2026-12-01.
    fn today() -> Date {
        jiff::civil::date(2026, 12, 1)
    }

    #[test]
    fn chinese_day_words_become_dates() {
        assert_eq!(resolve("明天要回診", today()), "2026-12-02（週三）要回診");
        assert_eq!(resolve("後天爸爸出差", today()), "2026-12-03（週四）爸爸出差");
        assert_eq!(resolve("大後天交報告", today()), "2026-12-04（週五）交報告");
        assert_eq!(resolve("今晚吃火鍋", today()), "2026-12-01（週二）晚上吃火鍋");
        assert_eq!(resolve("昨天打了流感疫苗", today()), "2026-11-30（週一）打了流感疫苗");
    }

    #[test]
    fn next_and_this_week_weekdays_become_dates() {
        assert_eq!(resolve("下週五要繳學費", today()), "2026-12-11（週五）要繳學費");
        assert_eq!(resolve("下禮拜天家庭聚餐", today()), "2026-12-13（週日）家庭聚餐");
        assert_eq!(resolve("這週六大掃除", today()), "2026-12-05（週六）大掃除");
        assert_eq!(resolve("下週要考試", today()), "下週要考試", "no day: left as written");
    }

    #[test]
    fn english_relative_dates_become_dates_with_on_where_needed() {
        assert_eq!(
            resolve("Dad flies to Tokyo tomorrow", today()),
            "Dad flies to Tokyo on Wed 2026-12-02"
        );
        assert_eq!(
            resolve("the rent is due by next Friday", today()),
            "the rent is due by Fri 2026-12-11"
        );
        assert_eq!(resolve("Tonight: pizza", today()), "on the evening of Tue 2026-12-01: pizza");
        assert_eq!(resolve("todayish and yesterdays", today()), "todayish and yesterdays");
    }

    #[test]
    fn text_without_relative_dates_is_unchanged() {
        for text in ["奶奶對花生過敏", "12月25日聖誕節", "Grandma is allergic to peanuts", ""]
        {
            assert_eq!(resolve(text, today()), text);
        }
    }

    #[test]
    fn the_year_turns_over() {
        let eve = jiff::civil::date(2026, 12, 31);
        assert_eq!(resolve("明天放假", eve), "2027-01-01（週五）放假");
    }
}
