//! When a symbol's market trades, whether a quote is fresh enough to act on, and how soon a symbol
//! is looked at again. Taiwan (`.TW`, `.TWO`, `^TWII`) trades 09:00–13:30 Asia/Taipei on
//! weekdays, US tickers and indices 09:30–16:00 America/New_York on weekdays, crypto (`-USD`…)
//! and currencies (`=X`) around the clock. Taiwan's closed days (holidays, the settlement-only
//! days before Lunar New Year, make-up Saturdays) come from the working calendar
//! ([`WorkCalendar::twse_trades`]); US holidays are not known here: on one the provider's
//! timestamp stays old, and a stale quote never triggers.

use jiff::civil::{Time, Weekday};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};

use crate::sources::calendar::WorkCalendar;

/// The most days looked ahead for the next session (Lunar New Year closes TWSE for up to ~12).
const MAX_DAYS_CLOSED: i64 = 21;

/// A market's trading hours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Market {
    /// TWSE and TPEx.
    Taiwan,
    /// NYSE and Nasdaq regular session.
    Us,
    /// Crypto and currencies: always open.
    AlwaysOpen,
}

impl Market {
    /// The market of a Yahoo symbol.
    pub fn of(symbol: &str) -> Self {
        let s = symbol.to_ascii_uppercase();
        if s.ends_with(".TW") || s.ends_with(".TWO") || s == "^TWII" || s == "^TWOII" {
            Market::Taiwan
        } else if s.ends_with("=X") || crypto_pair(&s) {
            Market::AlwaysOpen
        } else if s.contains('.') {
            // Another exchange (`.HK`, `.T`): no hours known; freshness alone decides.
            Market::AlwaysOpen
        } else {
            Market::Us
        }
    }

    fn hours(self) -> Option<(&'static str, Time, Time)> {
        match self {
            Market::Taiwan => {
                Some(("Asia/Taipei", Time::constant(9, 0, 0, 0), Time::constant(13, 30, 0, 0)))
            }
            Market::Us => {
                Some(("America/New_York", Time::constant(9, 30, 0, 0), Time::constant(16, 0, 0, 0)))
            }
            Market::AlwaysOpen => None,
        }
    }

    /// Whether the regular session is open at `at` (Taiwan's trading days from `calendar`).
    pub fn is_open(self, at: Timestamp, calendar: &WorkCalendar) -> bool {
        let Some((zone, open, close)) = self.hours() else { return true };
        let Ok(tz) = TimeZone::get(zone) else { return true };
        let local = at.to_zoned_datetime(tz);
        let trades = match self {
            Market::Taiwan => calendar.twse_trades(local.date()),
            _ => !matches!(local.weekday(), Weekday::Saturday | Weekday::Sunday),
        };
        trades && local.time() >= open && local.time() < close
    }

    /// The next session opening after `at` (`at` itself when open; `None` if unknown).
    pub fn next_open(self, at: Timestamp, calendar: &WorkCalendar) -> Option<Timestamp> {
        if self.is_open(at, calendar) {
            return Some(at);
        }
        let (zone, open, _) = self.hours()?;
        let tz = TimeZone::get(zone).ok()?;
        let today = at.to_zoned_datetime(tz.clone()).date();
        (0..MAX_DAYS_CLOSED).find_map(|days| {
            let date = today.checked_add(jiff::Span::new().days(days)).ok()?;
            let start = date.to_datetime(open).to_zoned_datetime(tz.clone()).ok()?.timestamp();
            (start > at && self.is_open(start, calendar)).then_some(start)
        })
    }
}

fn crypto_pair(symbol: &str) -> bool {
    ["-USD", "-USDT", "-TWD", "-EUR", "-BTC", "-ETH"].iter().any(|q| symbol.ends_with(q))
}

/// Whether a quote set at `market_time` (Unix seconds) may trigger an alert at `now`: the market
/// is open and the provider's own timestamp is at most `max_age` old.
pub fn is_fresh(
    market: Market,
    market_time: Option<i64>,
    now: Timestamp,
    max_age: SignedDuration,
    calendar: &WorkCalendar,
) -> bool {
    let Some(set_at) = market_time.and_then(|s| Timestamp::from_second(s).ok()) else {
        return false;
    };
    market.is_open(now, calendar) && now.duration_since(set_at) <= max_age
}

/// How long until a symbol is fetched again, from the smallest relative distance between its
/// price and any level watched on it: about 30 s within 0.5 %, 2 min within 2 %, else 10 min.
pub fn cadence(distance: Option<f64>) -> SignedDuration {
    match distance {
        Some(d) if d <= 0.005 => SignedDuration::from_secs(30),
        Some(d) if d <= 0.02 => SignedDuration::from_mins(2),
        _ => SignedDuration::from_mins(10),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        s.parse().expect("instant")
    }

    fn cal() -> WorkCalendar {
        WorkCalendar::builtin().expect("calendar")
    }

    #[test]
    fn symbols_map_to_their_markets() {
        assert_eq!(Market::of("2330.TW"), Market::Taiwan);
        assert_eq!(Market::of("6488.TWO"), Market::Taiwan);
        assert_eq!(Market::of("^TWII"), Market::Taiwan);
        assert_eq!(Market::of("AAPL"), Market::Us);
        assert_eq!(Market::of("^GSPC"), Market::Us);
        assert_eq!(Market::of("BTC-USD"), Market::AlwaysOpen);
        assert_eq!(Market::of("USDTWD=X"), Market::AlwaysOpen);
    }

    #[test]
    fn taiwan_trades_on_weekday_mornings_in_taipei() {
        // Monday 2026-11-30: 09:00–13:30 Taipei = 01:00–05:30 UTC.
        assert!(!Market::Taiwan.is_open(at("2026-11-30T00:59:00Z"), &cal()));
        assert!(Market::Taiwan.is_open(at("2026-11-30T01:00:00Z"), &cal()));
        assert!(!Market::Taiwan.is_open(at("2026-11-30T05:30:00Z"), &cal()));
        assert!(!Market::Taiwan.is_open(at("2026-12-05T02:00:00Z"), &cal()), "Saturday");
        assert_eq!(
            Market::Taiwan.next_open(at("2026-11-30T12:00:00Z"), &cal()),
            Some(at("2026-12-01T01:00:00Z"))
        );
        assert_eq!(
            Market::Taiwan.next_open(at("2026-12-04T12:00:00Z"), &cal()),
            Some(at("2026-12-07T01:00:00Z")),
            "Friday evening → Monday"
        );
    }

    #[test]
    fn taiwan_is_closed_on_its_holidays_and_reopens_after_lunar_new_year() {
        // 2026-09-25 (Friday) is 中秋 and Monday 09-28 孔子誕辰: Thursday afternoon → Tuesday.
        assert!(!Market::Taiwan.is_open(at("2026-09-25T02:00:00Z"), &cal()));
        assert_eq!(
            Market::Taiwan.next_open(at("2026-09-24T06:00:00Z"), &cal()),
            Some(at("2026-09-29T01:00:00Z"))
        );
        // After Wednesday 2026-02-11: settlement-only days, then 春節 → Monday 02-23.
        assert_eq!(
            Market::Taiwan.next_open(at("2026-02-11T06:00:00Z"), &cal()),
            Some(at("2026-02-23T01:00:00Z"))
        );
        let weekdays_only = WorkCalendar::weekdays_only();
        assert!(Market::Taiwan.is_open(at("2026-09-25T02:00:00Z"), &weekdays_only));
    }

    #[test]
    fn us_regular_session_follows_new_york_time_across_dst() {
        // Winter (EST): 09:30 New York = 14:30 UTC; summer (EDT): 13:30 UTC.
        assert!(!Market::Us.is_open(at("2026-11-30T12:00:00Z"), &cal()), "07:00 in New York");
        assert!(Market::Us.is_open(at("2026-11-30T14:30:00Z"), &cal()));
        assert!(Market::Us.is_open(at("2026-07-01T13:30:00Z"), &cal()));
        assert!(!Market::Us.is_open(at("2026-11-30T21:00:00Z"), &cal()), "16:00 in New York");
        assert!(Market::AlwaysOpen.is_open(at("2026-12-05T03:00:00Z"), &cal()));
    }

    #[test]
    fn quotes_are_fresh_only_when_recent_and_the_market_is_open() {
        let now = at("2026-11-30T12:00:00Z");
        let age = SignedDuration::from_mins(5);
        let secs = now.as_second();
        assert!(is_fresh(Market::AlwaysOpen, Some(secs - 60), now, age, &cal()));
        assert!(!is_fresh(Market::AlwaysOpen, Some(secs - 3600), now, age, &cal()));
        assert!(!is_fresh(Market::AlwaysOpen, None, now, age, &cal()));
        assert!(!is_fresh(Market::Taiwan, Some(secs), now, age, &cal()), "closed at 20:00 Taipei");
    }

    #[test]
    fn closer_levels_are_polled_more_often() {
        assert_eq!(cadence(Some(0.001)), SignedDuration::from_secs(30));
        assert_eq!(cadence(Some(0.01)), SignedDuration::from_mins(2));
        assert_eq!(cadence(Some(0.5)), SignedDuration::from_mins(10));
        assert_eq!(cadence(None), SignedDuration::from_mins(10));
    }
}
