//! Alerts in words, for cards and tool results: the condition ("漲到 1,500"), the frequency and
//! the time of a price, in the family's language.

use jiff::Timestamp;
use jiff::tz::TimeZone;

use serde::Serialize;

use super::crossing::{Direction, Frequency};
use crate::platform::format::money;
use crate::platform::i18n::Lang;
use crate::sources::securities::{Securities, TaiwanName};
use crate::store::AlertRow;

/// What a price alert watches for, as the tools report it (a new alert, a shown or cancelled one).
#[derive(Debug, Clone, Serialize)]
pub struct AlertTerms {
    /// The symbol.
    pub symbol: String,
    /// The instrument's name.
    pub name: Option<String>,
    /// A Taiwan security's Chinese short name and market.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taiwan: Option<TaiwanName>,
    /// `up` or `down`.
    pub direction: Direction,
    /// The level.
    pub level: f64,
    /// `once` or `every_time`.
    pub frequency: Frequency,
}

/// One alert as the `price_alerts` tool reports it (show and cancel).
#[derive(Debug, Clone, Serialize)]
pub struct AlertItem {
    /// Its id (for `price_alerts` cancel).
    pub id: i64,
    /// What it watches for.
    #[serde(flatten)]
    pub terms: AlertTerms,
    /// Muted (by its 🔕 button) until this local time.
    pub muted_until: Option<String>,
}

impl AlertItem {
    /// The list entry of a stored alert, a Taiwan security named from `securities`. A mute is
    /// shown only while it lasts at `now`, in local time of `tz`.
    pub fn from_row(
        row: &AlertRow,
        securities: &Securities,
        now: Timestamp,
        tz: &TimeZone,
    ) -> Self {
        let muted_until = row
            .muted_until
            .filter(|until| *until > now.as_millisecond())
            .and_then(|ms| Timestamp::from_millisecond(ms).ok())
            .map(|t| t.to_zoned_datetime(tz.clone()).strftime("%Y-%m-%d %H:%M").to_string());
        Self {
            id: row.id,
            terms: AlertTerms {
                symbol: row.symbol.clone(),
                name: row.name.clone(),
                taiwan: securities.taiwan_name(&row.symbol),
                direction: row.direction,
                level: row.level,
                frequency: row.frequency,
            },
            muted_until,
        }
    }
}

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
