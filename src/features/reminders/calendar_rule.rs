//! The parts of a lunar or workday reminder the family gives, checked: which lunar days and
//! month, and where the search for the first date starts. Pure functions of their inputs.

use jiff::civil::DateTime;
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};

use super::recurrence::Freq;
use crate::sources::calendar::lunar::LunarMonth;

/// Why a lunar rule was refused (the message is what the LLM reads).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// Lunar fields on a rule that is not lunar.
    #[error("lunar_days, lunar_month and leap_month only apply to lunar_monthly and lunar_yearly")]
    NotLunar,
    /// A month on a monthly rule.
    #[error("lunar_month and leap_month only apply to lunar_yearly")]
    MonthOnMonthly,
    /// No days.
    #[error("say which lunar days (lunar_days, 1-30; e.g. [1, 15])")]
    NoDays,
    /// A day outside 1–30.
    #[error("lunar day {0} does not exist; lunar days are 1-30")]
    NoSuchDay(u8),
    /// A yearly rule with several days.
    #[error("a yearly lunar date has exactly one day in lunar_days")]
    SeveralDays,
    /// A yearly rule without its month.
    #[error("say which lunar month (lunar_month, 1-12)")]
    NoMonth,
    /// A month outside 1–12.
    #[error("lunar month {0} does not exist; lunar months are 1-12")]
    NoSuchMonth(u8),
}

/// A lunar rule: the days (bit 0 = 初一 … bit 29 = 三十) and, yearly, the month.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LunarRule {
    /// The lunar days mask.
    pub days: u32,
    /// Lunar yearly: the month.
    pub month: Option<LunarMonth>,
}

/// Whether `freq` looks for its dates on a calendar (lunar, or Taiwan's workdays).
pub fn is_calendar_rule(freq: Freq) -> bool {
    matches!(freq, Freq::LunarMonthly | Freq::LunarYearly | Freq::Workdays)
}

/// The lunar rule of `freq` from the days, month and leap flag given (all empty for a rule that
/// is not lunar).
pub fn lunar_rule(
    freq: Freq,
    days: &[u8],
    month: Option<u8>,
    leap: bool,
) -> Result<LunarRule, RuleError> {
    match freq {
        Freq::LunarMonthly | Freq::LunarYearly => {}
        _ if !days.is_empty() || month.is_some() || leap => return Err(RuleError::NotLunar),
        _ => return Ok(LunarRule::default()),
    }
    if days.is_empty() {
        return Err(RuleError::NoDays);
    }
    if let Some(d) = days.iter().find(|d| !(1..=30).contains(*d)) {
        return Err(RuleError::NoSuchDay(*d));
    }
    let mask = days.iter().fold(0u32, |mask, d| mask | (1 << (d - 1)));
    if freq == Freq::LunarMonthly {
        if month.is_some() || leap {
            return Err(RuleError::MonthOnMonthly);
        }
        return Ok(LunarRule { days: mask, month: None });
    }
    if mask.count_ones() != 1 {
        return Err(RuleError::SeveralDays);
    }
    match month {
        Some(number @ 1..=12) => {
            Ok(LunarRule { days: mask, month: Some(LunarMonth { number, leap }) })
        }
        Some(m) => Err(RuleError::NoSuchMonth(m)),
        None => Err(RuleError::NoMonth),
    }
}

/// A calendar rule's anchor (its first candidate) moved, if needed, to the first time of day at
/// or after `now`: "每個上班日早上七點" said at 09:00 starts tomorrow, not in the past.
pub fn start_not_before(anchor: DateTime, now: Timestamp, tz: &TimeZone) -> DateTime {
    let today = now.to_zoned_datetime(tz.clone()).date();
    let start = anchor.date().max(today).to_datetime(anchor.time());
    let passed = start.to_zoned_datetime(tz.clone()).is_ok_and(|z| z.timestamp() <= now);
    if passed { start.checked_add(1.days()).unwrap_or(start) } else { start }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::datetime;

    #[test]
    fn first_and_fifteenth_make_a_monthly_mask_and_a_birthday_needs_one_day_and_a_month() {
        assert_eq!(
            lunar_rule(Freq::LunarMonthly, &[1, 15], None, false),
            Ok(LunarRule { days: 1 | 1 << 14, month: None })
        );
        assert_eq!(
            lunar_rule(Freq::LunarYearly, &[8], Some(4), true),
            Ok(LunarRule { days: 1 << 7, month: Some(LunarMonth { number: 4, leap: true }) })
        );
        assert_eq!(lunar_rule(Freq::Daily, &[], None, false), Ok(LunarRule::default()));
    }

    #[test]
    fn impossible_lunar_rules_say_what_is_wrong() {
        let cases = [
            (Freq::Daily, &[1u8][..], None, false, RuleError::NotLunar),
            (Freq::Workdays, &[], Some(8), false, RuleError::NotLunar),
            (Freq::LunarMonthly, &[], None, false, RuleError::NoDays),
            (Freq::LunarMonthly, &[31], None, false, RuleError::NoSuchDay(31)),
            (Freq::LunarMonthly, &[0], None, false, RuleError::NoSuchDay(0)),
            (Freq::LunarMonthly, &[1], Some(8), false, RuleError::MonthOnMonthly),
            (Freq::LunarMonthly, &[1], None, true, RuleError::MonthOnMonthly),
            (Freq::LunarYearly, &[1, 15], Some(8), false, RuleError::SeveralDays),
            (Freq::LunarYearly, &[15], None, false, RuleError::NoMonth),
            (Freq::LunarYearly, &[15], Some(13), false, RuleError::NoSuchMonth(13)),
        ];
        for (freq, days, month, leap, expected) in cases {
            assert_eq!(lunar_rule(freq, days, month, leap), Err(expected.clone()), "{expected}");
        }
    }

    #[test]
    fn a_calendar_rule_starts_today_if_its_time_is_ahead_else_tomorrow() {
        let tz = TimeZone::get("Asia/Taipei").expect("zone");
        let now: Timestamp = "2026-11-30T12:00:00Z".parse().expect("instant"); // 20:00 Taipei
        let at = |h| datetime(2026, 11, 30, h, 0, 0, 0);
        assert_eq!(start_not_before(at(21), now, &tz), at(21), "later today");
        assert_eq!(start_not_before(at(7), now, &tz), datetime(2026, 12, 1, 7, 0, 0, 0));
        let yesterday = datetime(2026, 11, 29, 21, 0, 0, 0);
        assert_eq!(start_not_before(yesterday, now, &tz), at(21), "never before today");
        let later = datetime(2027, 1, 4, 7, 0, 0, 0);
        assert_eq!(start_not_before(later, now, &tz), later, "a future start is kept");
    }
}
