//! Open-Meteo imitations: the geocoding search and the forecast, with fixed places and weather.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Query, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::{FakeUpstreams, Params, Route};

/// Open-Meteo's error envelope, with status `400`.
fn meteo_error(reason: &str) -> Response {
    (StatusCode::BAD_REQUEST, Json(json!({"error": true, "reason": reason}))).into_response()
}

/// A place the fake geocoder knows.
struct Place {
    id: u64,
    /// English and Chinese name.
    name: (&'static str, &'static str),
    /// English and Chinese name of the first-level division.
    admin1: (&'static str, &'static str),
    latitude: f64,
    longitude: f64,
    feature_code: &'static str,
    country_code: &'static str,
    timezone: &'static str,
    population: u64,
}

const PLACES: &[Place] = &[
    Place {
        id: 1_668_341,
        name: ("Taipei", "臺北"),
        admin1: ("Taipei", "臺北市"),
        latitude: 25.04776,
        longitude: 121.53185,
        feature_code: "PPLC",
        country_code: "TW",
        timezone: "Asia/Taipei",
        population: 7_871_900,
    },
    Place {
        id: 1_850_147,
        name: ("Tokyo", "東京"),
        admin1: ("Tokyo", "東京都"),
        latitude: 35.6895,
        longitude: 139.69171,
        feature_code: "PPLC",
        country_code: "JP",
        timezone: "Asia/Tokyo",
        population: 8_336_599,
    },
    Place {
        id: 1_673_820,
        name: ("Kaohsiung", "高雄"),
        admin1: ("Kaohsiung", "高雄市"),
        latitude: 22.61626,
        longitude: 120.31333,
        feature_code: "PPLA",
        country_code: "TW",
        timezone: "Asia/Taipei",
        population: 1_519_711,
    },
];

/// Id, English and Chinese name of a country.
fn country(code: &str) -> (u64, &'static str, &'static str) {
    match code {
        "JP" => (1_861_060, "Japan", "日本"),
        _ => (1_668_284, "Taiwan", "臺灣"),
    }
}

/// Like the real API: under two characters nothing matches, two characters match a whole name
/// only, longer queries match name prefixes. Case-insensitive; English and Chinese names.
fn place_matches(place: &Place, query: &str) -> bool {
    let query = query.trim().to_lowercase();
    let names = [place.name.0.to_lowercase(), place.name.1.to_owned()];
    match query.chars().count() {
        0 | 1 => false,
        2 => names.contains(&query),
        _ => names.iter().any(|name| name.starts_with(&query)),
    }
}

/// `GET /v1/search?name=…&count=…&language=…`: the places in [`PLACES`] that match `name`.
pub(super) async fn geocoding(
    State(up): State<FakeUpstreams>,
    uri: Uri,
    Query(q): Params,
) -> Response {
    if let Some(failure) = up.gate(Route::Geocoding, &uri).await {
        return failure;
    }
    let Some(name) = q.get("name") else {
        return meteo_error("Parameter 'name' is required");
    };
    let zh = q.get("language").is_some_and(|l| l.to_lowercase().starts_with("zh"));
    let count = q.get("count").and_then(|c| c.parse().ok()).unwrap_or(10);
    let results: Vec<Value> = PLACES
        .iter()
        .filter(|place| place_matches(place, name))
        .take(count)
        .map(|place| {
            let pick = |(en, zh_name): (&'static str, &'static str)| if zh { zh_name } else { en };
            let (country_id, country_en, country_zh) = country(place.country_code);
            json!({
                "id": place.id,
                "name": pick(place.name),
                "latitude": place.latitude,
                "longitude": place.longitude,
                "elevation": 9.0,
                "feature_code": place.feature_code,
                "country_code": place.country_code,
                "timezone": place.timezone,
                "population": place.population,
                "country_id": country_id,
                "country": pick((country_en, country_zh)),
                "admin1": pick(place.admin1),
            })
        })
        .collect();
    if results.is_empty() {
        Json(json!({"generationtime_ms": 0.5})).into_response()
    } else {
        Json(json!({"results": results, "generationtime_ms": 0.7})).into_response()
    }
}

/// Unit and value of a supported `current` variable.
fn current_variable(name: &str) -> Option<(&'static str, Value)> {
    Some(match name {
        "temperature_2m" => ("°C", json!(24.1)),
        "relative_humidity_2m" => ("%", json!(71)),
        "apparent_temperature" => ("°C", json!(25.0)),
        "weather_code" => ("wmo code", json!(3)),
        "wind_speed_10m" => ("km/h", json!(9.4)),
        "precipitation" => ("mm", json!(0.0)),
        _ => return None,
    })
}

/// Unit and value on day `day` of a supported `daily` variable.
fn daily_variable(name: &str, day: usize) -> Option<(&'static str, Value)> {
    let (code, max, min, probability, rain) = match day {
        0 => (3, 25.3, 19.8, Some(10), 0.0),
        1 => (61, 22.0, 18.1, Some(80), 12.4),
        2 => (2, 23.4, 18.6, None, 0.2),
        _ => (1, 24.0, 19.0, Some(20), 0.0),
    };
    Some(match name {
        "weather_code" => ("wmo code", json!(code)),
        "temperature_2m_max" => ("°C", json!(max)),
        "temperature_2m_min" => ("°C", json!(min)),
        "precipitation_probability_max" => ("%", json!(probability)),
        "precipitation_sum" => ("mm", json!(rain)),
        _ => return None,
    })
}

/// The comma-separated variable names of query parameter `key`.
fn variables<'a>(q: &'a HashMap<String, String>, key: &str) -> Vec<&'a str> {
    q.get(key)
        .map(|list| list.split(',').map(str::trim).filter(|v| !v.is_empty()).collect())
        .unwrap_or_default()
}

/// `GET /v1/forecast?latitude=…&longitude=…&current=…&daily=…&timezone=…&forecast_days=…`:
/// fixed weather for any coordinates, with only the requested variables.
pub(super) async fn forecast(
    State(up): State<FakeUpstreams>,
    uri: Uri,
    Query(q): Params,
) -> Response {
    if let Some(failure) = up.gate(Route::Forecast, &uri).await {
        return failure;
    }
    let (current, daily) = (variables(&q, "current"), variables(&q, "daily"));
    let hourly = variables(&q, "hourly");
    let bad_current = current.iter().chain(&hourly).find(|v| current_variable(v).is_none());
    if let Some(bad) = bad_current {
        return meteo_error(&format!(
            "Cannot initialize ForecastVariable from invalid String value {bad}."
        ));
    }
    if let Some(bad) = daily.iter().find(|v| daily_variable(v, 0).is_none()) {
        return meteo_error(&format!(
            "Cannot initialize ForecastVariableDaily from invalid String value {bad}."
        ));
    }
    let coordinate = |key: &str| q.get(key).and_then(|v| v.parse::<f64>().ok());
    let (Some(latitude), Some(longitude)) = (coordinate("latitude"), coordinate("longitude"))
    else {
        return meteo_error("Parameter 'latitude' and 'longitude' are required");
    };
    let timezone = q.get("timezone").map(String::as_str);
    if !daily.is_empty() && timezone.is_none() {
        return meteo_error("Timezone is required");
    }
    let days = match q.get("forecast_days").map(|d| d.parse::<usize>()) {
        None => 3,
        Some(Ok(days)) if days <= 16 => days,
        Some(_) => return meteo_error("Forecast days is invalid. Allowed range 0 to 16."),
    };
    let timezone = match timezone {
        None | Some("GMT" | "UTC") => "GMT",
        Some("auto") => "Asia/Taipei",
        Some(tz) => tz,
    };
    let (offset, abbreviation) = match timezone {
        "Asia/Taipei" | "Asia/Shanghai" | "Asia/Hong_Kong" => (28_800, "GMT+8"),
        "Asia/Tokyo" | "Asia/Seoul" => (32_400, "GMT+9"),
        _ => (0, "GMT"),
    };
    let start = up.lock().forecast_start;
    let dates = consecutive_dates(start, days);
    let mut body = Map::new();
    body.insert("latitude".into(), json!(latitude));
    body.insert("longitude".into(), json!(longitude));
    body.insert("generationtime_ms".into(), json!(0.05));
    body.insert("utc_offset_seconds".into(), json!(offset));
    body.insert("timezone".into(), json!(timezone));
    body.insert("timezone_abbreviation".into(), json!(abbreviation));
    body.insert("elevation".into(), json!(9.0));
    if !current.is_empty() {
        let mut units = Map::from_iter([
            ("time".into(), json!("iso8601")),
            ("interval".into(), json!("seconds")),
        ]);
        let now = format!("{}T14:45", format_date(start));
        let mut values =
            Map::from_iter([("time".into(), json!(now)), ("interval".into(), json!(900))]);
        for name in &current {
            let (unit, value) = current_variable(name).expect("validated above");
            units.insert((*name).into(), json!(unit));
            values.insert((*name).into(), value);
        }
        body.insert("current_units".into(), Value::Object(units));
        body.insert("current".into(), Value::Object(values));
    }
    if !daily.is_empty() {
        let mut units = Map::from_iter([("time".into(), json!("iso8601"))]);
        let mut series = Map::from_iter([("time".into(), json!(dates))]);
        for name in &daily {
            let (unit, _) = daily_variable(name, 0).expect("validated above");
            let column: Vec<Value> = (0..days)
                .map(|day| daily_variable(name, day).expect("validated above").1)
                .collect();
            units.insert((*name).into(), json!(unit));
            series.insert((*name).into(), Value::Array(column));
        }
        body.insert("daily_units".into(), Value::Object(units));
        body.insert("daily".into(), Value::Object(series));
    }
    Json(Value::Object(body)).into_response()
}

/// Parses `YYYY-MM-DD`; panics on anything else (a test-setup mistake).
pub(super) fn parse_date(date: &str) -> (i32, u32, u32) {
    let parts: Vec<&str> = date.split('-').collect();
    let parsed = match parts.as_slice() {
        [y, m, d] => y.parse().ok().zip(m.parse().ok()).zip(d.parse().ok()),
        _ => None,
    };
    match parsed {
        Some(((y, m), d)) if (1..=12).contains(&m) && (1..=days_in_month(y, m)).contains(&d) => {
            (y, m, d)
        }
        _ => panic!("forecast start must be a YYYY-MM-DD date, got {date:?}"),
    }
}

fn days_in_month(year: i32, month: u32) -> u32 {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn format_date((y, m, d): (i32, u32, u32)) -> String {
    format!("{y:04}-{m:02}-{d:02}")
}

/// `count` consecutive `YYYY-MM-DD` dates starting at `start`.
fn consecutive_dates(start: (i32, u32, u32), count: usize) -> Vec<String> {
    let (mut y, mut m, mut d) = start;
    let mut dates = Vec::with_capacity(count);
    for _ in 0..count {
        dates.push(format_date((y, m, d)));
        d += 1;
        if d > days_in_month(y, m) {
            d = 1;
            m += 1;
            if m > 12 {
                m = 1;
                y += 1;
            }
        }
    }
    dates
}
