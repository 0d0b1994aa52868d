//! Publishing charts at `HEARTH_PUBLIC_URL`: for a card that describes a chart, the data it
//! still needs is fetched (a price series from the quote source), the chart is drawn off the
//! async runtime within a time bound, kept in the bounded image store under a random token, and
//! the card gets its URL. A drawing of the same symbol and period is reused for a short time, and
//! concurrent requests for it wait for one drawing. Any failure is logged and the card goes
//! without its picture.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use jiff::SignedDuration;
use jiff::tz::TimeZone;
use moka::future::Cache;

use super::draw::{self, DrawError, PriceChart};
use super::images::{Bounds, Shelf};
use super::{ChartSpec, Period};
use crate::contract::Card;
use crate::platform::clock::Clock;
use crate::platform::config::PriceColors;
use crate::sources::quotes::{QuoteError, QuoteSource, Span};

/// How long a drawn image is served. LINE's servers fetch a hero when the message is shown, not
/// when it is sent: a day covers a family reading the chat that evening, and a push retried
/// later the same day.
pub const IMAGE_LIFETIME: SignedDuration = SignedDuration::from_hours(24);
/// How long a drawing is reused for the same symbol and period (or place and days).
pub const REDRAW_AFTER: Duration = Duration::from_secs(120);
/// The longest a drawing may take; past it the card goes without.
pub const DRAW_TIMEOUT: Duration = Duration::from_secs(3);
/// What the image store holds at most (a chart is 20–60 KB).
pub const IMAGE_BOUNDS: Bounds = Bounds { max_images: 512, max_bytes: 32 * 1024 * 1024 };
/// The path images are served under: `/charts/{token}.png`.
pub const PATH_PREFIX: &str = "/charts/";

/// Why a chart was not published.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// Its data could not be fetched.
    #[error("no data for the chart")]
    Data(#[from] QuoteError),
    /// Drawing failed.
    #[error(transparent)]
    Draw(#[from] DrawError),
    /// Drawing took longer than [`DRAW_TIMEOUT`].
    #[error("drawing timed out")]
    TimedOut,
    /// The drawing task panicked.
    #[error("drawing panicked")]
    Panicked,
    /// The image store refused it (larger than its bound).
    #[error("the image was not kept")]
    NotKept,
}

/// The chart publisher; clones share the store.
#[derive(Clone)]
pub struct Charts {
    inner: Arc<Inner>,
}

struct Inner {
    base_url: String,
    quotes: QuoteSource,
    colors: PriceColors,
    images: Shelf,
    /// The token of a recent drawing, by what it shows.
    recent: Cache<String, String>,
    drawings: AtomicU64,
}

impl Charts {
    /// A publisher serving under `base_url` (`HEARTH_PUBLIC_URL`), fetching series from `quotes`,
    /// colouring prices by `colors`, timing images by `clock`.
    pub fn new(
        base_url: &str,
        quotes: QuoteSource,
        colors: PriceColors,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                base_url: base_url.trim_end_matches('/').to_string(),
                quotes,
                colors,
                images: Shelf::new(IMAGE_BOUNDS, clock),
                recent: Cache::builder().max_capacity(1_000).time_to_live(REDRAW_AFTER).build(),
                drawings: AtomicU64::new(0),
            }),
        }
    }

    /// Gives every card that describes a chart its picture, where one can be drawn.
    pub async fn illustrate(&self, cards: &mut [Card], tz: &TimeZone) {
        for card in cards.iter_mut() {
            if let Some(spec) = &card.chart {
                card.image_url = self.url(spec, tz).await;
            }
        }
    }

    /// The URL of a drawing of `spec` (times labelled in `tz`): a recent one, or a new one.
    /// `None` (logged) when it cannot be drawn.
    pub async fn url(&self, spec: &ChartSpec, tz: &TimeZone) -> Option<String> {
        let key = format!("{}@{}", spec.cache_key(), tz.iana_name().unwrap_or("UTC"));
        if let Some(token) = self.inner.recent.get(&key).await {
            if self.image(&token).is_some() {
                return Some(self.url_of(&token));
            }
            self.inner.recent.invalidate(&key).await;
        }
        match self.inner.recent.try_get_with(key.clone(), self.draw_and_keep(spec, tz)).await {
            Ok(token) => Some(self.url_of(&token)),
            Err(error) => {
                tracing::warn!(%error, chart = key, "chart not drawn; the card goes without it");
                None
            }
        }
    }

    /// The image under `token`, while it is served.
    pub fn image(&self, token: &str) -> Option<Bytes> {
        self.inner.images.get(token)
    }

    /// How many charts were drawn since start.
    pub fn drawings(&self) -> u64 {
        self.inner.drawings.load(Ordering::Relaxed)
    }

    fn url_of(&self, token: &str) -> String {
        format!("{}{PATH_PREFIX}{token}.png", self.inner.base_url)
    }

    async fn draw_and_keep(&self, spec: &ChartSpec, tz: &TimeZone) -> Result<String, ChartError> {
        let job: Box<dyn FnOnce() -> Result<Vec<u8>, DrawError> + Send> = match spec {
            ChartSpec::Price { symbol, period, level } => {
                let span = match period {
                    Period::Day => Span::Intraday,
                    Period::Month => Span::Month,
                };
                let series = self.inner.quotes.series(symbol, span).await?;
                let chart = PriceChart {
                    points: series.points,
                    previous_close: series.previous_close,
                    level: *level,
                    period: *period,
                    tz: tz.clone(),
                    colors: self.inner.colors,
                };
                Box::new(move || draw::price(&chart))
            }
            ChartSpec::Forecast { days, .. } => {
                let days = days.clone();
                Box::new(move || draw::forecast(&days))
            }
            ChartSpec::Care { days, .. } => {
                let days = days.clone();
                Box::new(move || draw::care(&days))
            }
        };
        let drawn = tokio::time::timeout(DRAW_TIMEOUT, tokio::task::spawn_blocking(job))
            .await
            .map_err(|_| ChartError::TimedOut)?
            .map_err(|_| ChartError::Panicked)??;
        self.inner.drawings.fetch_add(1, Ordering::Relaxed);
        self.inner.images.keep(Bytes::from(drawn), IMAGE_LIFETIME).ok_or(ChartError::NotKept)
    }
}
