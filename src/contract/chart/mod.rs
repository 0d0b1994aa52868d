//! What a card's picture shows, as the tools describe it: a price over a stretch of time, or the
//! days of a forecast. Drawn ([`draw`]), kept ([`images`]) and published ([`publish`]) here.

pub mod draw;
pub mod images;
pub mod publish;

use serde::Serialize;

/// The stretch of time a price chart covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Period {
    /// Today's session, every five minutes, with the previous close marked.
    Day,
    /// The last month, one point a trading day.
    Month,
}

impl Period {
    /// The short name used in cache keys.
    pub fn as_str(self) -> &'static str {
        match self {
            Period::Day => "1d",
            Period::Month => "1mo",
        }
    }
}

/// One day of a forecast chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ForecastDay {
    /// The label under the day ("12/01").
    pub label: String,
    /// The high, °C.
    pub high: Option<f64>,
    /// The low, °C.
    pub low: Option<f64>,
    /// The chance of rain, %.
    pub rain_pct: Option<f64>,
}

/// One day of a care plan's weekly chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CareDay {
    /// The label under the day ("12/01").
    pub label: String,
    /// Doses confirmed.
    pub taken: u32,
    /// Doses not confirmed.
    pub missed: u32,
    /// The day's mean systolic pressure, mmHg.
    pub systolic: Option<f64>,
    /// The day's mean diastolic pressure.
    pub diastolic: Option<f64>,
    /// The day's mean glucose, mg/dL.
    pub glucose: Option<f64>,
}

/// What a card's picture shows. Tools describe it; [`publish`] fetches the data it still needs,
/// draws it and gives the card its URL.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChartSpec {
    /// A price line of `symbol` over `period`, with an alert's level drawn when there is one.
    Price {
        /// The symbol, as the quote source spells it.
        symbol: String,
        /// Day or month.
        period: Period,
        /// A price alert's level.
        level: Option<f64>,
    },
    /// The coming days' highs and lows as two lines and the chance of rain as bars.
    Forecast {
        /// The place (part of the cache key).
        place: String,
        /// The days, today first.
        days: Vec<ForecastDay>,
    },
    /// A care plan's week: doses confirmed and not as bars, the readings' daily means as lines.
    Care {
        /// The plan (part of the cache key).
        plan: i64,
        /// The days, oldest first.
        days: Vec<CareDay>,
    },
}

impl ChartSpec {
    /// The key under which a drawing of this spec is reused for a short time: per symbol and
    /// period (and level), or per place and days.
    pub fn cache_key(&self) -> String {
        match self {
            ChartSpec::Price { symbol, period, level } => match level {
                Some(level) => format!("price:{symbol}:{}:{level}", period.as_str()),
                None => format!("price:{symbol}:{}", period.as_str()),
            },
            ChartSpec::Forecast { place, days } => {
                let first = days.first().map_or("", |d| d.label.as_str());
                format!("forecast:{place}:{first}:{}", days.len())
            }
            ChartSpec::Care { plan, days } => {
                let each: Vec<String> = days
                    .iter()
                    .map(|d| {
                        let v = |x: Option<f64>| x.map_or(-1, |x| x.round() as i64);
                        format!(
                            "{}:{}:{}:{}:{}",
                            d.taken,
                            d.missed,
                            v(d.systolic),
                            v(d.diastolic),
                            v(d.glucose)
                        )
                    })
                    .collect();
                // Hashed: the key is logged when a drawing fails, and health data never is.
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                std::hash::Hash::hash(&each, &mut hasher);
                let first = days.first().map_or("", |d| d.label.as_str());
                format!("care:{plan}:{first}:{:016x}", std::hash::Hasher::finish(&hasher))
            }
        }
    }
}
