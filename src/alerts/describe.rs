//! Alerts in words, for cards and tool results: the condition ("漲到 1,500"), the frequency and
//! the time of a price, in the family's language.

use jiff::Timestamp;
use jiff::tz::TimeZone;

use super::crossing::{Direction, Frequency};
use crate::i18n::Lang;
use crate::tools::fx::money;

/// "漲到 1,500" / "rises to 1,500".
pub fn condition(direction: Direction, level: f64, lang: Lang) -> String {
    let verb = match direction {
        Direction::Up => lang.pick("漲到", "rises to"),
        Direction::Down => lang.pick("跌到", "falls to"),
    };
    format!("{verb} {}", money(level))
}

/// "一次" / "每次（冷卻 1 小時）".
pub fn frequency(frequency: Frequency, cooldown_s: i64, lang: Lang) -> String {
    match frequency {
        Frequency::Once => lang.pick("一次", "Once").into(),
        Frequency::EveryTime => {
            let hours = cooldown_s as f64 / 3600.0;
            let hours = money(hours);
            match lang {
                Lang::ZhTw => format!("每次穿越（間隔至少 {hours} 小時）"),
                Lang::En => format!("Every cross (at most once per {hours} h)"),
            }
        }
    }
}

/// A provider timestamp (Unix seconds) as local `YYYY-MM-DD HH:MM` in `tz`.
pub fn price_time(market_time: Option<i64>, tz: &TimeZone) -> Option<String> {
    let at = Timestamp::from_second(market_time?).ok()?;
    Some(at.to_zoned_datetime(tz.clone()).strftime("%Y-%m-%d %H:%M").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_read_naturally() {
        assert_eq!(condition(Direction::Up, 1500.0, Lang::ZhTw), "漲到 1,500");
        assert_eq!(condition(Direction::Down, 80000.5, Lang::En), "falls to 80,000.5");
        assert_eq!(
            frequency(Frequency::EveryTime, 3600, Lang::En),
            "Every cross (at most once per 1 h)"
        );
    }
}
