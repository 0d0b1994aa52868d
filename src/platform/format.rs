//! Formatting shared by tools, cards and pushes: amounts of money, short dates.

/// An amount with thousands separators and two decimals at most.
pub fn money(value: f64) -> String {
    let rounded = format!("{value:.2}");
    let (int, frac) = rounded.split_once('.').unwrap_or((&rounded, "00"));
    let (sign, digits) = int.strip_prefix('-').map_or(("", int), |d| ("-", d));
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() { format!("{sign}{grouped}") } else { format!("{sign}{grouped}.{frac}") }
}

/// A date with its weekday, short: `12/4（五）`, or `Fri 12/4` in English.
pub fn short_date(date: jiff::civil::Date, lang: crate::platform::i18n::Lang) -> String {
    const ZH: [&str; 7] = ["一", "二", "三", "四", "五", "六", "日"];
    const EN: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    let day = usize::from(date.weekday().to_monday_zero_offset() as u8);
    match lang {
        crate::platform::i18n::Lang::ZhTw => {
            format!("{}/{}（{}）", date.month(), date.day(), ZH[day])
        }
        crate::platform::i18n::Lang::En => format!("{} {}/{}", EN[day], date.month(), date.day()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_date_names_its_weekday() {
        let d = jiff::civil::date(2026, 12, 4);
        assert_eq!(short_date(d, crate::platform::i18n::Lang::ZhTw), "12/4（五）");
        assert_eq!(short_date(d, crate::platform::i18n::Lang::En), "Fri 12/4");
    }

    #[test]
    fn money_groups_thousands_and_trims_zeros() {
        assert_eq!(money(3190.0), "3,190");
        assert_eq!(money(1234567.891), "1,234,567.89");
        assert_eq!(money(0.5), "0.5");
        assert_eq!(money(-1000.0), "-1,000");
    }
}
