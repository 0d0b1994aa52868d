//! Quotes from Yahoo Finance's chart endpoint (stocks incl. `2330.TW` / `6488.TWO`, US tickers,
//! indices, crypto like `BTC-USD`), behind a short-lived cache shared by everything that asks.

use std::sync::Arc;
use std::time::Duration;

use moka::future::Cache;
use reqwest::StatusCode;
use serde::Deserialize;

use super::{UpstreamError, join_url, send};
use crate::platform::clock::{Clock, SystemClock};

/// A quote as the bot uses it.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    /// The symbol, as Yahoo spells it.
    pub symbol: String,
    /// The long (or short) name.
    pub name: Option<String>,
    /// The last price.
    pub price: f64,
    /// The previous close, for the day's change.
    pub previous_close: Option<f64>,
    /// The currency of the price.
    pub currency: Option<String>,
    /// The exchange name.
    pub exchange: Option<String>,
    /// The instrument type (`EQUITY`, `ETF`, `INDEX`, `CRYPTOCURRENCY`).
    pub instrument_type: Option<String>,
    /// The day's high and low.
    pub day_range: Option<(f64, f64)>,
    /// When the price was set (Unix seconds).
    pub market_time: Option<i64>,
    /// The regular session of the current trading day (Unix seconds).
    pub session: Option<(i64, i64)>,
}

#[derive(Deserialize)]
struct ChartEnvelope {
    chart: Chart,
}

#[derive(Deserialize)]
struct Chart {
    #[serde(default)]
    result: Option<Vec<ChartResult>>,
    #[serde(default)]
    error: Option<ChartError>,
}

#[derive(Deserialize)]
struct ChartError {
    #[serde(default)]
    description: Option<String>,
}

#[derive(Deserialize)]
struct ChartResult {
    meta: Meta,
    #[serde(default)]
    timestamp: Option<Vec<i64>>,
    #[serde(default)]
    indicators: Option<Indicators>,
}

#[derive(Deserialize)]
struct Indicators {
    #[serde(default)]
    quote: Vec<Bars>,
}

#[derive(Deserialize)]
struct Bars {
    /// Closes; a bar without trades is `null`.
    #[serde(default)]
    close: Vec<Option<f64>>,
}

/// The most points of a series kept (a day at one-minute bars is under 1,440).
pub const MAX_SERIES_POINTS: usize = 2_000;

/// The stretch of a price series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    /// Today, every five minutes.
    Intraday,
    /// The last month, one point a trading day.
    Month,
}

impl Span {
    fn query(self) -> [(&'static str, &'static str); 2] {
        match self {
            Span::Intraday => [("interval", "5m"), ("range", "1d")],
            Span::Month => [("interval", "1d"), ("range", "1mo")],
        }
    }
}

/// A price series: closes in time order, bars without trades left out.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// (Unix seconds, close).
    pub points: Vec<(i64, f64)>,
    /// The previous session's close, what the day's change is measured from.
    pub previous_close: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta {
    symbol: String,
    regular_market_price: f64,
    #[serde(default)]
    currency: Option<String>,
    #[serde(default)]
    long_name: Option<String>,
    #[serde(default)]
    short_name: Option<String>,
    #[serde(default)]
    full_exchange_name: Option<String>,
    #[serde(default)]
    instrument_type: Option<String>,
    #[serde(default)]
    previous_close: Option<f64>,
    #[serde(default)]
    chart_previous_close: Option<f64>,
    #[serde(default)]
    regular_market_day_high: Option<f64>,
    #[serde(default)]
    regular_market_day_low: Option<f64>,
    #[serde(default)]
    regular_market_time: Option<i64>,
    #[serde(default)]
    current_trading_period: Option<TradingPeriods>,
}

#[derive(Deserialize)]
struct TradingPeriods {
    #[serde(default)]
    regular: Option<Period>,
}

#[derive(Deserialize)]
struct Period {
    start: i64,
    end: i64,
}

/// Why no quote was returned.
#[derive(Debug, thiserror::Error)]
pub enum QuoteError {
    /// The source does not know the symbol.
    #[error("no data found for {0}")]
    UnknownSymbol(String),
    /// The source failed.
    #[error(transparent)]
    Upstream(#[from] UpstreamError),
}

/// The quote client with its cache. One instance (cheap clones share the cache) serves both
/// `get_quote` and the price-alert poller, so a symbol both ask about is fetched once.
#[derive(Clone)]
pub struct QuoteSource {
    http: reqwest::Client,
    base_url: String,
    ttl: Duration,
    clock: Arc<dyn Clock>,
    /// Quotes with the instant (by `clock`, Unix ms) they were fetched.
    cache: Cache<String, (i64, Arc<Quote>)>,
}

impl QuoteSource {
    /// A client for the given base URL; quotes are cached for `ttl`.
    pub fn new(http: reqwest::Client, base_url: &str, ttl: Duration) -> Self {
        Self {
            http,
            base_url: base_url.to_string(),
            ttl,
            clock: Arc::new(SystemClock),
            cache: Cache::builder().max_capacity(10_000).time_to_live(ttl).build(),
        }
    }

    /// The same source judging the age of cached quotes by `clock` (the application's clock, so
    /// a simulated clock ages them too).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The price series of `symbol` over `span` (not cached here: its drawing is).
    pub async fn series(&self, symbol: &str, span: Span) -> Result<Series, QuoteError> {
        let result = self.chart(symbol, &span.query()).await?;
        let closes = result
            .indicators
            .and_then(|i| i.quote.into_iter().next())
            .map(|b| b.close)
            .unwrap_or_default();
        let points = result
            .timestamp
            .unwrap_or_default()
            .into_iter()
            .zip(closes)
            .filter_map(|(t, c)| c.filter(|c| c.is_finite()).map(|c| (t, c)))
            .take(MAX_SERIES_POINTS)
            .collect();
        let previous_close = result.meta.previous_close.or(result.meta.chart_previous_close);
        Ok(Series { points, previous_close })
    }

    /// One answer of the chart endpoint for `symbol` with `query`.
    async fn chart(&self, symbol: &str, query: &[(&str, &str)]) -> Result<ChartResult, QuoteError> {
        let path = format!("/v8/finance/chart/{}", urlencode_symbol(symbol));
        let request = self.http.get(join_url(&self.base_url, &path)).query(query);
        let response = send(request).await?;
        if response.status == StatusCode::NOT_FOUND {
            return Err(QuoteError::UnknownSymbol(symbol.to_string()));
        }
        if !response.status.is_success() {
            return Err(UpstreamError::Status(response.status).into());
        }
        let envelope: ChartEnvelope = response.json()?;
        match envelope.chart.result.and_then(|r| r.into_iter().next()) {
            Some(result) => Ok(result),
            None => {
                let why = envelope.chart.error.and_then(|e| e.description);
                tracing::info!(symbol, why, "quote source has no data");
                Err(QuoteError::UnknownSymbol(symbol.to_string()))
            }
        }
    }

    /// The quote for `symbol` (already normalised: `2330.TW`, `AAPL`, `BTC-USD`, `^TWII`).
    pub async fn quote(&self, symbol: &str) -> Result<Arc<Quote>, QuoteError> {
        let now = self.clock.now().as_millisecond();
        let ttl = i64::try_from(self.ttl.as_millis()).unwrap_or(i64::MAX);
        if let Some((at, q)) = self.cache.get(symbol).await
            && (0..ttl).contains(&now.saturating_sub(at))
        {
            return Ok(q);
        }
        let meta = self.chart(symbol, &[("interval", "1d"), ("range", "1d")]).await?.meta;
        if !meta.regular_market_price.is_finite() {
            return Err(UpstreamError::Reported("the quote had no price".into()).into());
        }
        let quote = Arc::new(Quote {
            symbol: meta.symbol,
            name: meta.long_name.or(meta.short_name),
            price: meta.regular_market_price,
            previous_close: meta.previous_close.or(meta.chart_previous_close),
            currency: meta.currency,
            exchange: meta.full_exchange_name,
            instrument_type: meta.instrument_type,
            day_range: meta.regular_market_day_low.zip(meta.regular_market_day_high),
            market_time: meta.regular_market_time,
            session: meta.current_trading_period.and_then(|p| p.regular).map(|p| (p.start, p.end)),
        });
        self.cache.insert(symbol.to_string(), (now, quote.clone())).await;
        Ok(quote)
    }
}

/// Percent-encodes the characters of a symbol that cannot stand in a path (`^`, `=`).
fn urlencode_symbol(symbol: &str) -> String {
    symbol.replace('^', "%5E").replace('=', "%3D")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_symbols_are_path_safe() {
        assert_eq!(urlencode_symbol("^TWII"), "%5ETWII");
        assert_eq!(urlencode_symbol("USDTWD=X"), "USDTWD%3DX");
    }

    #[test]
    fn a_series_keeps_the_closes_in_order_and_leaves_out_bars_without_trades() {
        let body = r#"{"chart": {"result": [{"meta": {"symbol": "2330.TW", "regularMarketPrice": 1450.0},
            "timestamp": [1, 2, 3], "indicators": {"quote": [{"close": [1440.0, null, 1450.0]}]}}], "error": null}}"#;
        let env: ChartEnvelope = serde_json::from_str(body).expect("parses");
        let result = env.chart.result.and_then(|r| r.into_iter().next()).expect("result");
        let closes = result.indicators.expect("indicators").quote.remove(0).close;
        assert_eq!(closes, vec![Some(1440.0), None, Some(1450.0)]);
    }

    #[test]
    fn not_found_envelope_parses() {
        let body = r#"{"chart": {"result": null, "error": {"code": "Not Found", "description": "No data found, symbol may be delisted"}}}"#;
        let env: ChartEnvelope = serde_json::from_str(body).expect("parses");
        assert!(env.chart.result.is_none());
    }
}
