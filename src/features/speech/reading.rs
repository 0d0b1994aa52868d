//! An answer as a person would read it aloud in zh-TW: 「15:00」 is 「下午三點」, 「NT$1,050」 is
//! 「一千零五十元」, 「23°C」 is 「攝氏二十三度」, 「5%」 is 「百分之五」, 「12/01」 is 「十二月一日」,
//! a stock code in brackets is read digit by digit, and emoji, arrows and Markdown marks are
//! dropped. English answers keep their words (the speech model reads English well) and lose only
//! the emoji and marks. Pure, linear in the text.

use crate::platform::i18n::Lang;

const DIGITS: [char; 10] = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// `text` as it should be spoken in `lang`.
pub fn speakable(text: &str, lang: Lang) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if lang == Lang::ZhTw && c.is_ascii_digit() {
            i = read_number(&chars, i, &mut out);
            continue;
        }
        match c {
            '▲' | '↑' if lang == Lang::ZhTw => out.push('漲'),
            '▼' | '↓' if lang == Lang::ZhTw => out.push('跌'),
            '*' | '#' | '`' | '•' | '|' | '>' => {}
            c if is_decoration(c) => {}
            c => out.push(c),
        }
        i += 1;
    }
    out.split('\n').map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n")
}

/// Emoji, their joiners and selectors, arrows and dingbats: seen, not said.
fn is_decoration(c: char) -> bool {
    matches!(u32::from(c),
        0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0x2B00..=0x2BFF | 0x2190..=0x21FF
        | 0x25A0..=0x25FF | 0xFE00..=0xFE0F | 0x200D | 0x20E3)
}

/// The digits starting at `at` (with thousands commas and a decimal part), read with what
/// surrounds them; returns where reading goes on.
fn read_number(chars: &[char], at: usize, out: &mut String) -> usize {
    let (whole, mut end) = digits(chars, at, true);
    let next = |k: usize| chars.get(k).copied();
    // 15:00 — a time of day.
    if next(end) == Some(':')
        && let (minutes, after) = digits(chars, end + 1, false)
        && minutes.len() == 2
        && let (Ok(h), Ok(m)) = (whole.parse::<u32>(), minutes.parse::<u32>())
        && whole.len() <= 2
        && h < 24
        && m < 60
    {
        out.push_str(&time_of_day(h, m, period_said(out)));
        return after;
    }
    // 2026-12-01, 2026/12/01, 12/01 — a date.
    if let Some((said, after)) = date(chars, at, &whole, end) {
        out.push_str(&said);
        return after;
    }
    let mut decimals = String::new();
    if next(end) == Some('.') && next(end + 1).is_some_and(|c| c.is_ascii_digit()) {
        let (d, after) = digits(chars, end + 1, false);
        decimals = d;
        end = after;
    }
    let before = |k: usize| at.checked_sub(k).map(|i| chars[i]);
    let after_digit = before(2).is_some_and(|c| c.is_ascii_digit());
    let negative = before(1) == Some('-') && !before(2).is_some_and(|c| c.is_ascii_alphanumeric());
    if negative || (after_digit && matches!(before(1), Some('-' | '~' | '～' | '–'))) {
        // 「-3」 is 負三; 「3-5」 and 「3~5」 are 三到五.
        out.pop();
        if !negative {
            out.push('到');
        }
    }
    let number = number_said(&whole, &decimals, negative);
    let in_brackets = matches!(out.chars().last(), Some('(' | '（'))
        && matches!(next(end), Some(')' | '）'))
        && (4..=6).contains(&whole.len())
        && decimals.is_empty();
    let trimmed = out.trim_end().len();
    let dollars = ["NT$", "US$", "$"].into_iter().find(|sign| out[..trimmed].ends_with(sign));
    if let Some(sign) = dollars {
        out.truncate(trimmed - sign.len());
        out.push_str(&number);
        out.push_str(if sign == "US$" { "美元" } else { "元" });
        return end;
    }
    let rest: String = chars[end..chars.len().min(end + 4)].iter().collect();
    let rest = rest.trim_start();
    let skip = |s: &str| end + (chars.len() - end).min(s.chars().count()) + gap(chars, end);
    if in_brackets || (whole.len() == 4 && decimals.is_empty() && rest.starts_with('年')) {
        out.extend(whole.chars().map(digit_said));
        return end;
    }
    if rest.starts_with('%') || rest.starts_with('％') {
        out.push_str("百分之");
        out.push_str(&number);
        return skip("%");
    }
    for (unit, said) in [("°C", "度"), ("℃", "度"), ("°", "度")] {
        if rest.starts_with(unit) {
            out.push_str("攝氏");
            out.push_str(&number);
            out.push_str(said);
            return skip(unit);
        }
    }
    for (unit, said) in [("TWD", "元"), ("NTD", "元"), ("USD", "美元")] {
        if rest.starts_with(unit) {
            out.push_str(&number);
            out.push_str(said);
            return skip(unit);
        }
    }
    out.push_str(&number);
    end
}

/// The spaces between a number and its unit.
fn gap(chars: &[char], from: usize) -> usize {
    chars[from..].iter().take_while(|c| **c == ' ').count()
}

/// The ASCII digits from `at` (thousands commas dropped when `commas`), and where they end.
fn digits(chars: &[char], at: usize, commas: bool) -> (String, usize) {
    let mut s = String::new();
    let mut i = at;
    while i < chars.len() {
        if chars[i].is_ascii_digit() {
            s.push(chars[i]);
            i += 1;
        } else if commas
            && chars[i] == ','
            && !s.is_empty()
            && chars.len() >= i + 4
            && chars[i + 1..i + 4].iter().all(char::is_ascii_digit)
            && chars.get(i + 4).is_none_or(|c| !c.is_ascii_digit())
        {
            i += 1;
        } else {
            break;
        }
    }
    (s, i)
}

/// A date at `at` (`whole` read, ending at `end`): 2026-12-01, 2026/12/01 or 12/01.
fn date(chars: &[char], at: usize, whole: &str, end: usize) -> Option<(String, usize)> {
    let sep = *chars.get(end)?;
    if !matches!(sep, '-' | '/') || chars[at..end].contains(&',') {
        return None;
    }
    let (second, after_second) = digits(chars, end + 1, false);
    if whole.len() == 4 && chars.get(after_second) == Some(&sep) {
        let (third, after) = digits(chars, after_second + 1, false);
        let (month, day) = (second.parse::<u32>().ok()?, third.parse::<u32>().ok()?);
        if (1..=12).contains(&month) && (1..=31).contains(&day) && third.len() <= 2 {
            let year: String = whole.chars().map(digit_said).collect();
            return Some((
                format!("{year}年{}月{}日", integer(month.into()), integer(day.into())),
                after,
            ));
        }
        return None;
    }
    let (month, day) = (whole.parse::<u32>().ok()?, second.parse::<u32>().ok()?);
    let followed_by_digit =
        chars.get(after_second).is_some_and(|c| c.is_ascii_digit() || *c == '/');
    (sep == '/'
        && whole.len() <= 2
        && (1..=2).contains(&second.len())
        && (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && !followed_by_digit)
        .then(|| (format!("{}月{}日", integer(month.into()), integer(day.into())), after_second))
}

/// True when the words just before already say the part of the day (「晚上 8:00」).
fn period_said(before: &str) -> bool {
    let before = before.trim_end();
    ["凌晨", "早上", "上午", "中午", "下午", "傍晚", "晚上"].iter().any(|p| before.ends_with(p))
}

/// 「下午三點」, 「早上八點半」, 「晚上九點零五分」; without the part of the day when it was said.
pub fn time_of_day(hour: u32, minute: u32, period_already_said: bool) -> String {
    let (period, h12) = match hour {
        0..=4 => ("凌晨", if hour == 0 { 12 } else { hour }),
        5..=11 => ("早上", hour),
        12 => ("中午", 12),
        13..=17 => ("下午", hour - 12),
        _ => ("晚上", hour - 12),
    };
    let period = if period_already_said { "" } else { period };
    let h = if h12 == 2 { "兩".to_string() } else { integer(h12.into()) };
    let m = match minute {
        0 => String::new(),
        30 => "半".to_string(),
        1..=9 => format!("零{}分", integer(minute.into())),
        _ => format!("{}分", integer(minute.into())),
    };
    format!("{period}{h}點{m}")
}

fn digit_said(c: char) -> char {
    c.to_digit(10).map_or(c, |d| DIGITS[d as usize])
}

/// A number with its decimals (read digit by digit) and sign.
fn number_said(whole: &str, decimals: &str, negative: bool) -> String {
    let mut s = String::new();
    if negative {
        s.push('負');
    }
    match whole.trim_start_matches('0').parse::<u64>() {
        // Longer than a reading makes sense of (a phone number, a code): digit by digit.
        _ if whole.len() > 16 || (whole.len() > 1 && whole.starts_with('0')) => {
            s.extend(whole.chars().map(digit_said))
        }
        Ok(n) => s.push_str(&integer(n)),
        Err(_) => s.push('零'),
    }
    if !decimals.is_empty() {
        s.push('點');
        s.extend(decimals.chars().map(digit_said));
    }
    s
}

/// 0–9999 in one group: 「一千零五十」, 「兩百」, 「十五」 (when `lead`, a lone 1 ten is 「十」).
fn group(n: u64, lead: bool) -> String {
    let mut s = String::new();
    let mut zero = false;
    for (unit, place) in [(1000, "千"), (100, "百"), (10, "十"), (1, "")] {
        let d = (n / unit % 10) as usize;
        if d == 0 {
            zero = !s.is_empty();
            continue;
        }
        if zero {
            s.push('零');
            zero = false;
        }
        if !(unit == 10 && d == 1 && lead && s.is_empty()) {
            s.push(if d == 2 && unit >= 100 { '兩' } else { DIGITS[d] });
        }
        s.push_str(place);
    }
    s
}

/// A whole number as said: 「二十三」, 「一千零五十」, 「一萬兩千」, 「三億零五百萬」.
pub fn integer(n: u64) -> String {
    if n == 0 {
        return "零".to_string();
    }
    let mut parts: Vec<(u64, &str)> = Vec::new();
    let mut rest = n;
    for big in ["", "萬", "億", "兆", "京"] {
        parts.push((rest % 10_000, big));
        rest /= 10_000;
        if rest == 0 {
            break;
        }
    }
    let mut s = String::new();
    let mut gap = false;
    for (g, big) in parts.into_iter().rev() {
        if g == 0 {
            gap = !s.is_empty();
            continue;
        }
        if !s.is_empty() && (gap || g < 1000) {
            s.push('零');
        }
        gap = false;
        let lead = s.is_empty();
        let mut said = group(g, lead);
        if lead && g == 2 && !big.is_empty() {
            said = "兩".to_string();
        }
        s.push_str(&said);
        s.push_str(big);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zh(text: &str) -> String {
        speakable(text, Lang::ZhTw)
    }

    #[test]
    fn whole_numbers_are_said_as_a_person_says_them() {
        for (n, said) in [
            (0, "零"),
            (7, "七"),
            (10, "十"),
            (15, "十五"),
            (23, "二十三"),
            (110, "一百一十"),
            (205, "兩百零五"),
            (1050, "一千零五十"),
            (2200, "兩千兩百"),
            (10_000, "一萬"),
            (12_000, "一萬兩千"),
            (20_000, "兩萬"),
            (100_500, "十萬零五百"),
            (305_000_000, "三億零五百萬"),
            (1_000_001, "一百萬零一"),
        ] {
            assert_eq!(integer(n), said, "{n}");
        }
    }

    #[test]
    fn times_of_day_carry_the_part_of_the_day() {
        assert_eq!(zh("15:00 開會"), "下午三點 開會");
        assert_eq!(zh("08:30"), "早上八點半");
        assert_eq!(zh("21:05"), "晚上九點零五分");
        assert_eq!(zh("00:15"), "凌晨十二點十五分");
        assert_eq!(zh("12:00"), "中午十二點");
        assert_eq!(zh("14:00"), "下午兩點");
        assert_eq!(zh("晚上 20:00 吃藥"), "晚上 八點 吃藥");
    }

    #[test]
    fn prices_temperatures_and_percentages_are_read_out() {
        assert_eq!(zh("台積電 1,050元"), "台積電 一千零五十元");
        assert_eq!(zh("台積電 NT$1,050"), "台積電 一千零五十元");
        assert_eq!(zh("蘋果 US$189.5"), "蘋果 一百八十九點五美元");
        assert_eq!(zh("1,000 TWD"), "一千元");
        assert_eq!(zh("氣溫 23°C"), "氣溫 攝氏二十三度");
        assert_eq!(zh("最低 18℃"), "最低 攝氏十八度");
        assert_eq!(zh("降雨機率 30%"), "降雨機率 百分之三十");
        assert_eq!(zh("跌了 -2.5%"), "跌了 百分之負二點五");
        assert_eq!(zh("氣溫 -3°C"), "氣溫 攝氏負三度");
        assert_eq!(zh("3-5天"), "三到五天");
        assert_eq!(zh("20~25 度"), "二十到二十五 度");
    }

    #[test]
    fn dates_codes_and_years_are_said_as_dates_and_digits() {
        assert_eq!(zh("12/01 的提醒"), "十二月一日 的提醒");
        assert_eq!(zh("2026-12-01"), "二零二六年十二月一日");
        assert_eq!(zh("台積電（2330）"), "台積電（二三三零）");
        assert_eq!(zh("2026年"), "二零二六年");
        assert_eq!(zh("血壓 172/95"), "血壓 一百七十二/九十五");
        assert_eq!(zh("電話 0912345678"), "電話 零九一二三四五六七八");
    }

    #[test]
    fn emoji_arrows_and_marks_are_not_said() {
        assert_eq!(zh("**今天** ☀️ 晴 🌤"), "今天  晴");
        assert_eq!(zh("▲ 1.5"), "漲 一點五");
        assert_eq!(zh("- 第一\n\n\n- 第二"), "- 第一\n- 第二");
    }

    #[test]
    fn english_keeps_its_numbers_for_the_speech_model() {
        assert_eq!(speakable("It's 23°C at 15:00 ☀️", Lang::En), "It's 23°C at 15:00");
    }
}
