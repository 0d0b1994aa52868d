//! Market-data imitations: open.er-api.com exchange rates and Yahoo Finance charts.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::header::{RETRY_AFTER, USER_AGENT};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::{FakeUpstreams, Mode, Params, Route};

/// Rates against USD.
const USD_RATES: &[(&str, f64)] = &[
    ("USD", 1.0),
    ("AUD", 1.53),
    ("CNY", 7.1),
    ("EUR", 0.87),
    ("GBP", 0.76),
    ("HKD", 7.78),
    ("JPY", 154.2),
    ("KRW", 1390.5),
    ("TWD", 31.9),
];

/// `GET /v6/latest/{base}`: every known rate against `base`, derived from the USD table.
pub(super) async fn fx(
    State(up): State<FakeUpstreams>,
    uri: Uri,
    Path(base): Path<String>,
) -> Response {
    if let Some(failure) = up.gate(Route::Fx, &uri).await {
        return failure;
    }
    let base = base.to_ascii_uppercase();
    let Some(&(_, base_rate)) = USD_RATES.iter().find(|(code, _)| *code == base) else {
        return Json(json!({"result": "error", "error-type": "unsupported-code"})).into_response();
    };
    let rates: Map<String, Value> = USD_RATES
        .iter()
        .map(|&(code, rate)| {
            let rate = if code == base { 1.0 } else { rate / base_rate };
            (code.to_owned(), json!(rate))
        })
        .collect();
    Json(json!({
        "result": "success",
        "provider": "https://www.exchangerate-api.com",
        "documentation": "https://www.exchangerate-api.com/docs/free",
        "terms_of_use": "https://www.exchangerate-api.com/terms",
        "time_last_update_unix": 1_764_460_801,
        "time_last_update_utc": "Sun, 30 Nov 2025 00:00:01 +0000",
        "time_next_update_unix": 1_764_547_201,
        "time_next_update_utc": "Mon, 01 Dec 2025 00:00:01 +0000",
        "time_eol_unix": 0,
        "base_code": base,
        "rates": rates,
    }))
    .into_response()
}

/// Where and when a symbol trades. Times are Unix seconds on 2025-11-30 (UTC).
struct Market {
    /// `exchangeName` and `fullExchangeName`.
    exchange: (&'static str, &'static str),
    /// Time-zone abbreviation and `exchangeTimezoneName`.
    timezone: (&'static str, &'static str),
    gmtoffset: i64,
    /// Start and end of the regular session.
    session: (i64, i64),
    /// `regularMarketTime`.
    market_time: i64,
}

const TAIWAN: Market = Market {
    exchange: ("TAI", "Taiwan"),
    timezone: ("CST", "Asia/Taipei"),
    gmtoffset: 28_800,
    session: (1_764_464_400, 1_764_480_600),
    market_time: 1_764_480_600,
};

const NASDAQ: Market = Market {
    exchange: ("NMS", "NasdaqGS"),
    timezone: ("EST", "America/New_York"),
    gmtoffset: -18_000,
    session: (1_764_513_000, 1_764_536_400),
    market_time: 1_764_536_400,
};

const CRYPTO: Market = Market {
    exchange: ("CCC", "CCC"),
    timezone: ("UTC", "UTC"),
    gmtoffset: 0,
    session: (1_764_460_800, 1_764_547_140),
    market_time: 1_764_484_200,
};

/// A symbol the fake chart endpoint knows.
struct Quote {
    symbol: &'static str,
    currency: &'static str,
    price: f64,
    previous_close: f64,
    /// `longName` and `shortName`.
    names: (&'static str, &'static str),
    instrument_type: &'static str,
    market: &'static Market,
    volume: u64,
}

const QUOTES: &[Quote] = &[
    Quote {
        symbol: "2330.TW",
        currency: "TWD",
        price: 1450.0,
        previous_close: 1435.0,
        names: (
            "Taiwan Semiconductor Manufacturing Company Limited",
            "TAIWAN SEMICONDUCTOR MANUFACTUR",
        ),
        instrument_type: "EQUITY",
        market: &TAIWAN,
        volume: 31_234_567,
    },
    Quote {
        symbol: "8069.TWO",
        currency: "TWD",
        price: 292.5,
        previous_close: 288.0,
        names: ("E Ink Holdings Inc.", "E INK HOLDINGS INC"),
        instrument_type: "EQUITY",
        market: &TAIWAN,
        volume: 8_123_456,
    },
    Quote {
        symbol: "00878.TW",
        currency: "TWD",
        price: 21.35,
        previous_close: 21.4,
        names: (
            "Cathay MSCI Taiwan ESG Sustainability High Dividend Yield ETF",
            "CATHAY ESG HIGH DIV",
        ),
        instrument_type: "ETF",
        market: &TAIWAN,
        volume: 40_123_456,
    },
    Quote {
        symbol: "AAPL",
        currency: "USD",
        price: 230.5,
        previous_close: 233.1,
        names: ("Apple Inc.", "Apple Inc."),
        instrument_type: "EQUITY",
        market: &NASDAQ,
        volume: 45_123_456,
    },
    Quote {
        symbol: "BTC-USD",
        currency: "USD",
        price: 91_234.5,
        previous_close: 90_000.0,
        names: ("Bitcoin USD", "Bitcoin USD"),
        instrument_type: "CRYPTOCURRENCY",
        market: &CRYPTO,
        volume: 41_234_567_890,
    },
    Quote {
        symbol: "^TWII",
        currency: "TWD",
        price: 23_000.0,
        previous_close: 22_900.0,
        names: ("TSEC weighted index", "TSEC weighted index"),
        instrument_type: "INDEX",
        market: &TAIWAN,
        volume: 0,
    },
];

/// What a symbol the table does not know, but a test gave a price, looks like.
const GENERIC: Quote = Quote {
    symbol: "",
    currency: "USD",
    price: 100.0,
    previous_close: 100.0,
    names: ("", ""),
    instrument_type: "CRYPTOCURRENCY",
    market: &CRYPTO,
    volume: 1_000,
};

/// `GET /v8/finance/chart/{symbol}`: one day of chart data; needs a browser-like `User-Agent`.
pub(super) async fn yahoo(
    State(up): State<FakeUpstreams>,
    uri: Uri,
    headers: HeaderMap,
    Path(symbol): Path<String>,
    Query(q): Params,
) -> Response {
    if let Some(failure) = up.gate(Route::Yahoo, &uri).await {
        return failure;
    }
    let browser = headers
        .get(USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ua| ua.contains("Mozilla"));
    if !browser {
        return (StatusCode::TOO_MANY_REQUESTS, "Too Many Requests").into_response();
    }
    let symbol = symbol.to_ascii_uppercase();
    let (symbol_mode, set_price, set_time) = {
        let state = up.lock();
        (
            state.symbol_modes.get(&symbol).copied().unwrap_or_default(),
            state.prices.get(&symbol).copied(),
            state.market_times.get(&symbol).copied(),
        )
    };
    match symbol_mode {
        Mode::RateLimited => {
            return (StatusCode::TOO_MANY_REQUESTS, [(RETRY_AFTER, "30")], "Too Many Requests")
                .into_response();
        }
        Mode::ServerError => {
            return (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error").into_response();
        }
        _ => {}
    }
    let known = QUOTES.iter().find(|quote| quote.symbol == symbol);
    let Some(quote) = known.or(set_price.map(|_| &GENERIC)) else {
        let error =
            json!({"code": "Not Found", "description": "No data found, symbol may be delisted"});
        let body = json!({"chart": {"result": null, "error": error}});
        return (StatusCode::NOT_FOUND, Json(body)).into_response();
    };
    let market = quote.market;
    let previous = quote.previous_close;
    let price = set_price.unwrap_or(quote.price);
    let names =
        if quote.names.0.is_empty() { (symbol.as_str(), symbol.as_str()) } else { quote.names };
    let round = |x: f64| (x * 100.0).round() / 100.0;
    let (high, low) = (round(price.max(previous) * 1.005), round(price.min(previous) * 0.995));
    let (start, end) = market.session;
    let period = |from: i64, to: i64| trading_period(market, from, to);
    let meta = json!({
        "currency": quote.currency,
        "symbol": symbol,
        "exchangeName": market.exchange.0,
        "fullExchangeName": market.exchange.1,
        "instrumentType": quote.instrument_type,
        "firstTradeDate": 946_947_600,
        "regularMarketTime": set_time.unwrap_or(market.market_time),
        "gmtoffset": market.gmtoffset,
        "timezone": market.timezone.0,
        "exchangeTimezoneName": market.timezone.1,
        "regularMarketPrice": price,
        "chartPreviousClose": previous,
        "previousClose": previous,
        "regularMarketDayHigh": high,
        "regularMarketDayLow": low,
        "regularMarketVolume": quote.volume,
        "fiftyTwoWeekHigh": round(price * 1.2),
        "fiftyTwoWeekLow": round(price * 0.6),
        "longName": names.0,
        "shortName": names.1,
        "hasPrePostMarketData": false,
        "priceHint": 2,
        "currentTradingPeriod": {
            "pre": period(start, start),
            "regular": period(start, end),
            "post": period(end, end),
        },
        "dataGranularity": q.get("interval").map_or("1d", String::as_str),
        "range": q.get("range").map_or("1d", String::as_str),
        "validRanges": ["1d", "5d", "1mo", "3mo", "6mo", "1y", "2y", "5y", "10y", "ytd", "max"],
    });
    let interval = q.get("interval").map_or("1d", String::as_str);
    let range = q.get("range").map_or("1d", String::as_str);
    let generic = quote.names.0.is_empty();
    let result = match (interval, range) {
        // A symbol a test made up has no history: one bar, whatever is asked.
        _ if generic => one_bar(meta, start, (previous, high, low, price), quote.volume),
        ("5m", _) => bars(meta, intraday(start, end.min(set_time.unwrap_or(end)), previous, price)),
        (_, "1mo") => bars(meta, month(start, price)),
        _ => one_bar(meta, start, (previous, high, low, price), quote.volume),
    };
    Json(json!({"chart": {"result": [result], "error": null}})).into_response()
}

/// One entry of `currentTradingPeriod`.
fn trading_period(market: &Market, start: i64, end: i64) -> Value {
    let (tz, gmtoffset) = (market.timezone.0, market.gmtoffset);
    json!({"timezone": tz, "start": start, "end": end, "gmtoffset": gmtoffset})
}

/// The answer for one daily bar (open, high, low, close), as for `interval=1d&range=1d`.
fn one_bar(
    meta: Value,
    start: i64,
    (open, high, low, close): (f64, f64, f64, f64),
    volume: u64,
) -> Value {
    json!({
        "meta": meta,
        "timestamp": [start],
        "indicators": {
            "quote": [{
                "open": [open],
                "high": [high],
                "low": [low],
                "close": [close],
                "volume": [volume],
            }],
            "adjclose": [{"adjclose": [close]}],
        },
    })
}

/// The answer for a series of (time, close) bars; a `None` close is a bar without trades
/// (Yahoo sends `null` in every array for it).
fn bars(meta: Value, series: Vec<(i64, Option<f64>)>) -> Value {
    let times: Vec<i64> = series.iter().map(|b| b.0).collect();
    let closes: Vec<Option<f64>> = series.iter().map(|b| b.1).collect();
    let volumes: Vec<Option<u64>> = series.iter().map(|b| b.1.map(|_| 120_000)).collect();
    json!({
        "meta": meta,
        "timestamp": times,
        "indicators": {"quote": [{
            "open": closes, "high": closes, "low": closes, "close": closes, "volume": volumes,
        }]},
    })
}

/// Five-minute bars from `start` to `until`, from the previous close to `price` with a dip; the
/// fourth bar had no trades.
fn intraday(start: i64, until: i64, previous: f64, price: f64) -> Vec<(i64, Option<f64>)> {
    let n = ((until - start) / 300).max(1) + 1;
    (0..n)
        .map(|i| {
            let t = i as f64 / (n - 1).max(1) as f64;
            let dip = (t * std::f64::consts::PI * 2.0).sin() * (price - previous).abs() * 0.4;
            let close = ((previous + (price - previous) * t - dip) * 100.0).round() / 100.0;
            (start + i * 300, (i != 3).then_some(close))
        })
        .collect()
}

/// Twenty-two daily bars ending at `start`, rising to `price`.
fn month(start: i64, price: f64) -> Vec<(i64, Option<f64>)> {
    (0..22)
        .map(|i| {
            let close = (price * (0.94 + 0.06 * f64::from(i) / 21.0) * 100.0).round() / 100.0;
            (start - i64::from(21 - i) * 86_400, Some(close))
        })
        .collect()
}
