//! Writes the README's chart pictures from fixed series, with hearth's own drawing code:
//! `cargo run --example chart_png -- docs` writes `docs/chart-quote.png` (a day of 2330.TW, up
//! from its previous close, red in Taiwan) and `docs/chart-weather.png` (a week's forecast).

use hearth::contract::chart::draw::{PriceChart, forecast, price};
use hearth::contract::chart::{ForecastDay, Period};
use hearth::platform::config::PriceColors;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "docs".into());
    // 09:00–13:30 Taipei on 2025-11-30, every five minutes: a dip in the morning, a close higher.
    let start = 1_764_464_400;
    let points: Vec<(i64, f64)> = (0..55)
        .map(|i| {
            let t = f64::from(i) / 54.0;
            let p = 1435.0 - 12.0 * (t * std::f64::consts::PI * 2.0).sin() * (1.0 - t) + 18.0 * t;
            (start + i64::from(i) * 300, (p * 2.0).round() / 2.0)
        })
        .collect();
    let day = PriceChart {
        points,
        previous_close: Some(1435.0),
        level: None,
        period: Period::Day,
        tz: jiff::tz::TimeZone::get("Asia/Taipei")?,
        colors: PriceColors::Tw,
    };
    std::fs::write(format!("{dir}/chart-quote.png"), price(&day)?)?;
    let week = [
        (25.3, 19.8, 10.0),
        (22.0, 18.1, 80.0),
        (23.4, 18.6, 40.0),
        (24.8, 19.0, 20.0),
        (26.1, 20.2, 10.0),
        (21.5, 17.4, 90.0),
        (20.9, 16.8, 60.0),
    ];
    let days: Vec<ForecastDay> = week
        .iter()
        .enumerate()
        .map(|(i, &(high, low, rain))| ForecastDay {
            label: format!("12/{:02}", i + 1),
            high: Some(high),
            low: Some(low),
            rain_pct: Some(rain),
        })
        .collect();
    std::fs::write(format!("{dir}/chart-weather.png"), forecast(&days)?)?;
    Ok(())
}
