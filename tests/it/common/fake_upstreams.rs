//! One local server imitating every data source the tools call: Open-Meteo geocoding and
//! forecast, open.er-api.com exchange rates and Yahoo Finance charts.
//!
//! The answers are deterministic and shaped like the real services' JSON. Each route family can be
//! switched into a failure [`Mode`] and counts its hits, so tests can check caching and fallbacks.

mod markets;
mod meteo;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::extract::Query;
use axum::http::header::{CONTENT_TYPE, RETRY_AFTER};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::net::TcpListener;

/// Query-string parameters of a request.
type Params = Query<HashMap<String, String>>;

/// A family of routes, for [`FakeUpstreams::set_mode`], `hits` and `requests`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Route {
    /// Open-Meteo geocoding, `GET /v1/search`.
    Geocoding,
    /// Open-Meteo forecast, `GET /v1/forecast`.
    Forecast,
    /// open.er-api.com, `GET /v6/latest/{base}`.
    Fx,
    /// Yahoo Finance, `GET /v8/finance/chart/{symbol}`.
    Yahoo,
}

/// How a route family answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// The normal, deterministic answer.
    #[default]
    Normal,
    /// `500` with a plain-text body.
    ServerError,
    /// `200`, `content-type: text/html`, body `<html>maintenance</html>`.
    Garbage,
    /// `429`, `retry-after: 30`, body `Too Many Requests`.
    RateLimited,
    /// Wait this long, then answer normally.
    Stall(Duration),
}

/// Handle to the running fake; clones share the same server and state.
#[derive(Clone)]
pub struct FakeUpstreams {
    inner: Arc<Inner>,
}

struct Inner {
    port: u16,
    state: Mutex<UpstreamState>,
}

struct UpstreamState {
    modes: HashMap<Route, Mode>,
    requests: HashMap<Route, Vec<String>>,
    forecast_start: (i32, u32, u32),
    prices: HashMap<String, f64>,
    market_times: HashMap<String, i64>,
    symbol_modes: HashMap<String, Mode>,
}

impl FakeUpstreams {
    /// Binds `127.0.0.1:0` and serves the fake on a background task.
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind fake upstreams");
        let port = listener.local_addr().expect("fake upstreams local address").port();
        let state = UpstreamState {
            modes: HashMap::new(),
            requests: HashMap::new(),
            forecast_start: meteo::parse_date("2026-11-30"),
            prices: HashMap::new(),
            market_times: HashMap::new(),
            symbol_modes: HashMap::new(),
        };
        let upstreams = Self { inner: Arc::new(Inner { port, state: Mutex::new(state) }) };
        let router = Router::new()
            .route("/v1/search", get(meteo::geocoding))
            .route("/v1/forecast", get(meteo::forecast))
            .route("/v6/latest/{base}", get(markets::fx))
            .route("/v8/finance/chart/{symbol}", get(markets::yahoo))
            .with_state(upstreams.clone());
        tokio::spawn(async move {
            axum::serve(listener, router).await.expect("fake upstreams server");
        });
        upstreams
    }

    /// Base URL for every provider, e.g. `http://127.0.0.1:41234` (no trailing slash).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.inner.port)
    }

    /// Switches how `route` answers from now on.
    pub fn set_mode(&self, route: Route, mode: Mode) {
        self.lock().modes.insert(route, mode);
    }

    /// Number of requests `route` received (in any mode).
    pub fn hits(&self, route: Route) -> usize {
        self.lock().requests.get(&route).map_or(0, Vec::len)
    }

    /// Path and query string of every request `route` received, in order.
    pub fn requests(&self, route: Route) -> Vec<String> {
        self.lock().requests.get(&route).cloned().unwrap_or_default()
    }

    /// First date (`YYYY-MM-DD`) of the forecast's `daily.time`; default `2026-11-30`.
    pub fn set_forecast_start(&self, date: &str) {
        self.lock().forecast_start = meteo::parse_date(date);
    }

    /// Overrides the Yahoo `regularMarketPrice` (and close) of `symbol`. A symbol the fake does
    /// not know becomes known: a 24/7 crypto-like instrument in USD.
    pub fn set_price(&self, symbol: &str, price: f64) {
        self.lock().prices.insert(symbol.to_ascii_uppercase(), price);
    }

    /// Overrides the Yahoo `regularMarketTime` (Unix seconds) of `symbol`, so a quote looks fresh
    /// (or stale) relative to the test's clock.
    pub fn set_market_time(&self, symbol: &str, unix_seconds: i64) {
        self.lock().market_times.insert(symbol.to_ascii_uppercase(), unix_seconds);
    }

    /// Switches how the chart of `symbol` alone answers (only `Normal`, `RateLimited` and
    /// `ServerError` apply); the route's own mode still comes first.
    pub fn set_symbol_mode(&self, symbol: &str, mode: Mode) {
        self.lock().symbol_modes.insert(symbol.to_ascii_uppercase(), mode);
    }

    fn lock(&self) -> MutexGuard<'_, UpstreamState> {
        self.inner.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records the hit and applies the route's mode; `Some` is a failure answer to send as is.
    async fn gate(&self, route: Route, uri: &Uri) -> Option<Response> {
        let target = uri.path_and_query().map_or_else(|| uri.path().to_owned(), |p| p.to_string());
        let mode = {
            let mut state = self.lock();
            state.requests.entry(route).or_default().push(target);
            state.modes.get(&route).copied().unwrap_or_default()
        };
        match mode {
            Mode::Normal => None,
            Mode::Stall(delay) => {
                tokio::time::sleep(delay).await;
                None
            }
            Mode::ServerError => {
                Some((StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error").into_response())
            }
            Mode::Garbage => Some(
                (StatusCode::OK, [(CONTENT_TYPE, "text/html")], "<html>maintenance</html>")
                    .into_response(),
            ),
            Mode::RateLimited => Some(
                (StatusCode::TOO_MANY_REQUESTS, [(RETRY_AFTER, "30")], "Too Many Requests")
                    .into_response(),
            ),
        }
    }
}
