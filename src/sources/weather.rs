//! Open-Meteo: geocoding (place name → coordinates and zone) and the daily forecast.
//!
//! The geocoder matches two-character names only exactly, and most Chinese place names are two
//! characters (台北, 高雄), so Taiwanese and a few common names go through an alias table first.

use std::time::Duration;

use moka::future::Cache;
use serde::{Deserialize, Serialize};

use super::{UpstreamError, join_url, send};

/// A place found by the geocoder.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Place {
    /// The place's name as the geocoder gives it.
    pub name: String,
    /// Latitude.
    pub latitude: f64,
    /// Longitude.
    pub longitude: f64,
    /// Country name, when given.
    #[serde(default)]
    pub country: Option<String>,
    /// First-level region, when given.
    #[serde(default)]
    pub admin1: Option<String>,
    /// IANA time zone of the place.
    #[serde(default)]
    pub timezone: Option<String>,
}

#[derive(Deserialize)]
struct GeocodingResponse {
    #[serde(default)]
    results: Vec<Place>,
}

/// The forecast as Open-Meteo returns it (parallel arrays, any value may be null).
#[derive(Debug, Clone, Deserialize)]
pub struct Forecast {
    /// The zone the times are in.
    #[serde(default)]
    pub timezone: Option<String>,
    /// Current conditions.
    #[serde(default)]
    pub current: Option<Current>,
    /// Daily values.
    pub daily: Daily,
}

/// Current conditions.
#[derive(Debug, Clone, Deserialize)]
pub struct Current {
    /// Local time of the observation.
    #[serde(default)]
    pub time: Option<String>,
    /// Temperature, °C.
    #[serde(default)]
    pub temperature_2m: Option<f64>,
    /// Feels-like temperature, °C.
    #[serde(default)]
    pub apparent_temperature: Option<f64>,
    /// Relative humidity, %.
    #[serde(default)]
    pub relative_humidity_2m: Option<f64>,
    /// WMO weather code.
    #[serde(default)]
    pub weather_code: Option<u16>,
    /// Wind speed, km/h.
    #[serde(default)]
    pub wind_speed_10m: Option<f64>,
}

/// Daily values, parallel to `time`.
#[derive(Debug, Clone, Deserialize)]
pub struct Daily {
    /// Local dates, `YYYY-MM-DD`.
    pub time: Vec<String>,
    /// WMO weather codes.
    #[serde(default)]
    pub weather_code: Vec<Option<u16>>,
    /// Maximum temperatures, °C.
    #[serde(default)]
    pub temperature_2m_max: Vec<Option<f64>>,
    /// Minimum temperatures, °C.
    #[serde(default)]
    pub temperature_2m_min: Vec<Option<f64>>,
    /// Maximum precipitation probability, %.
    #[serde(default)]
    pub precipitation_probability_max: Vec<Option<f64>>,
}

#[derive(Deserialize)]
struct OpenMeteoError {
    #[serde(default)]
    reason: Option<String>,
}

/// The variables requested; Open-Meteo fails the whole request on one unknown name, so the list
/// is fixed and covered by a test against the recorded shape.
const CURRENT_VARS: &str =
    "temperature_2m,relative_humidity_2m,apparent_temperature,weather_code,wind_speed_10m";
const DAILY_VARS: &str =
    "weather_code,temperature_2m_max,temperature_2m_min,precipitation_probability_max";

/// Common names the geocoder would miss, mapped to names it finds.
const ALIASES: &[(&str, &str)] = &[
    ("台北", "Taipei"),
    ("新北", "New Taipei"),
    ("桃園", "Taoyuan"),
    ("台中", "Taichung"),
    ("台南", "Tainan"),
    ("高雄", "Kaohsiung"),
    ("基隆", "Keelung"),
    ("新竹", "Hsinchu"),
    ("苗栗", "Miaoli"),
    ("彰化", "Changhua"),
    ("南投", "Nantou"),
    ("雲林", "Yunlin"),
    ("嘉義", "Chiayi"),
    ("屏東", "Pingtung"),
    ("宜蘭", "Yilan"),
    ("花蓮", "Hualien"),
    ("台東", "Taitung"),
    ("澎湖", "Magong"),
    ("金門", "Kinmen"),
    ("馬祖", "Nangan"),
    ("東京", "Tokyo"),
    ("大阪", "Osaka"),
    ("京都", "Kyoto"),
    ("首爾", "Seoul"),
    ("香港", "Hong Kong"),
    ("上海", "Shanghai"),
    ("北京", "Beijing"),
    ("紐約", "New York"),
    ("倫敦", "London"),
    ("巴黎", "Paris"),
];

/// The English name to try for `name`, if it is a known alias (臺 and 台 are the same; a
/// trailing 市 or 縣 is ignored).
pub fn alias_for(name: &str) -> Option<&'static str> {
    let normalised = name.trim().replace('臺', "台");
    let base = normalised.trim_end_matches(['市', '縣']);
    ALIASES.iter().find(|(zh, _)| *zh == base).map(|(_, en)| *en)
}

/// The Open-Meteo client.
#[derive(Clone)]
pub struct WeatherSource {
    http: reqwest::Client,
    forecast_url: String,
    geocoding_url: String,
    places: Cache<String, Place>,
}

impl WeatherSource {
    /// A client for the given base URLs.
    pub fn new(http: reqwest::Client, forecast_url: &str, geocoding_url: &str) -> Self {
        Self {
            http,
            forecast_url: forecast_url.to_string(),
            geocoding_url: geocoding_url.to_string(),
            places: Cache::builder()
                .max_capacity(10_000)
                .time_to_live(Duration::from_secs(24 * 3600))
                .build(),
        }
    }

    /// Finds a place by name (Chinese or English); `None` when nothing matches.
    pub async fn geocode(&self, name: &str) -> Result<Option<Place>, UpstreamError> {
        let key = name.trim().to_lowercase();
        if let Some(place) = self.places.get(&key).await {
            return Ok(Some(place));
        }
        let mut candidates = Vec::new();
        if let Some(alias) = alias_for(name) {
            candidates.push(alias.to_string());
        }
        candidates.push(name.trim().to_string());
        for candidate in candidates {
            if let Some(place) = self.search(&candidate).await? {
                self.places.insert(key, place.clone()).await;
                return Ok(Some(place));
            }
        }
        Ok(None)
    }

    async fn search(&self, name: &str) -> Result<Option<Place>, UpstreamError> {
        let url = join_url(&self.geocoding_url, "/v1/search");
        let request = self.http.get(url).query(&[
            ("name", name),
            ("count", "1"),
            ("language", "zh"),
            ("format", "json"),
        ]);
        let response = send(request).await?;
        if !response.status.is_success() {
            return Err(reported(&response));
        }
        let found: GeocodingResponse = response.json()?;
        Ok(found.results.into_iter().next())
    }

    /// The forecast for `days` days (1–16) at `place`, in the place's zone (or `fallback_tz`).
    pub async fn forecast(
        &self,
        place: &Place,
        days: u8,
        fallback_tz: &str,
    ) -> Result<Forecast, UpstreamError> {
        let url = join_url(&self.forecast_url, "/v1/forecast");
        let tz = place.timezone.as_deref().unwrap_or(fallback_tz);
        let request = self.http.get(url).query(&[
            ("latitude", place.latitude.to_string()),
            ("longitude", place.longitude.to_string()),
            ("current", CURRENT_VARS.to_string()),
            ("daily", DAILY_VARS.to_string()),
            ("timezone", tz.to_string()),
            ("forecast_days", days.to_string()),
        ]);
        let response = send(request).await?;
        if !response.status.is_success() {
            return Err(reported(&response));
        }
        let forecast: Forecast = response.json()?;
        if forecast.daily.time.is_empty() {
            return Err(UpstreamError::Reported("the forecast had no days".into()));
        }
        Ok(forecast)
    }
}

fn reported(response: &super::RawResponse) -> UpstreamError {
    match response.json::<OpenMeteoError>() {
        Ok(OpenMeteoError { reason: Some(reason) }) => {
            tracing::warn!(%reason, "Open-Meteo refused the request");
            UpstreamError::Reported("the weather service refused the request".into())
        }
        _ => UpstreamError::Status(response.status),
    }
}

/// Words for a WMO weather code, with an emoji.
pub fn describe_code(code: u16, zh: bool) -> &'static str {
    let (z, e) = match code {
        0 => ("☀️ 晴", "☀️ Clear"),
        1 => ("🌤 晴時多雲", "🌤 Mainly clear"),
        2 => ("⛅ 多雲", "⛅ Partly cloudy"),
        3 => ("☁️ 陰", "☁️ Overcast"),
        45 | 48 => ("🌫 霧", "🌫 Fog"),
        51 | 53 | 55 | 56 | 57 => ("🌦 毛毛雨", "🌦 Drizzle"),
        61 | 63 => ("🌧 雨", "🌧 Rain"),
        65 => ("🌧 大雨", "🌧 Heavy rain"),
        66 | 67 => ("🌧 凍雨", "🌧 Freezing rain"),
        71 | 73 | 75 | 77 | 85 | 86 => ("🌨 雪", "🌨 Snow"),
        80..=82 => ("🌦 陣雨", "🌦 Showers"),
        95..=99 => ("⛈ 雷雨", "⛈ Thunderstorm"),
        _ => ("🌡 天氣", "🌡 Weather"),
    };
    if zh { z } else { e }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taiwanese_names_resolve_through_aliases() {
        assert_eq!(alias_for("台北"), Some("Taipei"));
        assert_eq!(alias_for("臺北市"), Some("Taipei"));
        assert_eq!(alias_for(" 高雄 "), Some("Kaohsiung"));
        assert_eq!(alias_for("Taipei"), None);
    }

    #[test]
    fn recorded_forecast_shape_parses() {
        let body = r#"{"latitude": 25.0, "longitude": 121.5, "timezone": "Asia/Taipei",
          "current": {"time": "2026-11-22T14:45", "interval": 900, "temperature_2m": 24.1,
            "relative_humidity_2m": 71, "apparent_temperature": 25.0, "weather_code": 3, "wind_speed_10m": 9.4},
          "daily": {"time": ["2026-11-22", "2026-11-23"], "weather_code": [3, 61],
            "temperature_2m_max": [25.3, 22.0], "temperature_2m_min": [19.8, 18.1],
            "precipitation_probability_max": [10, null]}}"#;
        let f: Forecast = serde_json::from_str(body).expect("parses");
        assert_eq!(f.daily.time.len(), 2);
        assert_eq!(f.daily.precipitation_probability_max[1], None);
        assert_eq!(f.current.and_then(|c| c.weather_code), Some(3));
    }

    #[test]
    fn geocoding_without_results_key_means_no_match() {
        let r: GeocodingResponse =
            serde_json::from_str(r#"{"generationtime_ms": 0.5}"#).expect("parses");
        assert!(r.results.is_empty());
    }
}
