//! Drawing: valid PNGs of the stated size and budget, coloured by the family's convention.

use super::*;

/// A day of five-minute closes from `from` to `to` in `n` steps.
pub(crate) fn day_series(from: f64, to: f64, n: usize) -> Vec<(i64, f64)> {
    let start = 1_764_464_400;
    (0..n)
        .map(|i| {
            let t = i as f64 / (n - 1) as f64;
            let wiggle = ((i as f64) * 0.7).sin() * (to - from).abs() * 0.3;
            (start + i as i64 * 300, from + (to - from) * t + wiggle)
        })
        .collect()
}

fn chart(points: Vec<(i64, f64)>, previous_close: f64, colors: PriceColors) -> PriceChart {
    PriceChart {
        points,
        previous_close: Some(previous_close),
        level: None,
        period: Period::Day,
        tz: TimeZone::get("Asia/Taipei").expect("zone"),
        colors,
    }
}

/// Width, height and the RGB pixels of a PNG.
fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut pixels).expect("a PNG frame");
    (info.width, info.height, pixels)
}

fn count_of(pixels: &[u8], color: RGBColor) -> usize {
    pixels.chunks(3).filter(|p| p == &[color.0, color.1, color.2]).count()
}

#[test]
fn a_price_chart_is_a_valid_png_of_the_stated_size_under_200_kb() {
    let started = std::time::Instant::now();
    let png_bytes =
        price(&chart(day_series(1435.0, 1450.0, 55), 1435.0, PriceColors::Tw)).expect("drawn");
    let took = started.elapsed();
    let (w, h, _) = decode(&png_bytes);
    assert_eq!((w, h), (WIDTH, HEIGHT));
    assert!(png_bytes.len() < 200 * 1024, "{} bytes", png_bytes.len());
    eprintln!("price chart: {} bytes in {took:?}", png_bytes.len());
}

#[test]
fn a_day_that_went_up_is_red_in_taiwan_and_green_in_the_us() {
    let up = chart(day_series(1435.0, 1450.0, 55), 1435.0, PriceColors::Tw);
    assert_eq!(up.line_color(), RED);
    let (_, _, pixels) = decode(&price(&up).expect("drawn"));
    assert!(count_of(&pixels, RED) > 500, "a red line");
    assert_eq!(count_of(&pixels, GREEN), 0, "no green");
    let us = chart(day_series(1435.0, 1450.0, 55), 1435.0, PriceColors::Us);
    assert_eq!(us.line_color(), GREEN);
}

#[test]
fn a_day_that_went_down_is_green_in_taiwan() {
    let down = chart(day_series(1450.0, 1430.0, 55), 1450.0, PriceColors::Tw);
    assert_eq!(down.line_color(), GREEN);
    let (_, _, pixels) = decode(&price(&down).expect("drawn"));
    assert!(count_of(&pixels, GREEN) > 500, "a green line");
}

#[test]
fn an_alerts_level_is_drawn_in_amber() {
    let mut with_level = chart(day_series(1435.0, 1450.0, 55), 1435.0, PriceColors::Tw);
    with_level.level = Some(1500.0);
    let (_, _, pixels) = decode(&price(&with_level).expect("drawn"));
    assert!(count_of(&pixels, AMBER) > 200, "a dashed amber line");
}

#[test]
fn a_month_is_measured_from_its_first_day_not_the_previous_close() {
    let mut month = chart(day_series(1300.0, 1450.0, 22), 1500.0, PriceColors::Tw);
    month.period = Period::Month;
    assert_eq!(month.line_color(), RED);
    assert!(price(&month).is_ok());
}

#[test]
fn fewer_than_two_prices_are_not_drawn() {
    let one = chart(vec![(1, 10.0), (2, f64::NAN)], 10.0, PriceColors::Tw);
    assert!(matches!(price(&one), Err(DrawError::NotEnoughData)));
}

#[test]
fn a_forecast_is_a_valid_png_with_both_lines_and_rain_bars() {
    let days: Vec<ForecastDay> = (0..7)
        .map(|i| ForecastDay {
            label: format!("12/{:02}", i + 1),
            high: Some(24.0 + i as f64 * 0.5),
            low: Some(18.0 - i as f64 * 0.3),
            rain_pct: Some(f64::from(i * 15)),
        })
        .collect();
    let started = std::time::Instant::now();
    let png_bytes = forecast(&days).expect("drawn");
    eprintln!("forecast chart: {} bytes in {:?}", png_bytes.len(), started.elapsed());
    let (w, h, pixels) = decode(&png_bytes);
    assert_eq!((w, h), (WIDTH, HEIGHT));
    assert!(png_bytes.len() < 200 * 1024);
    assert!(count_of(&pixels, HIGH_TEMP) > 300 && count_of(&pixels, LOW_TEMP) > 300);
    assert!(count_of(&pixels, RAIN) > 1000, "rain bars");
}

#[test]
fn a_forecast_without_temperatures_is_not_drawn() {
    let days =
        vec![ForecastDay { label: "a".into(), high: None, low: None, rain_pct: Some(10.0) }; 3];
    assert!(matches!(forecast(&days), Err(DrawError::NotEnoughData)));
}

#[test]
fn a_care_week_shows_confirmed_and_missed_doses_as_bars_and_the_pressure_as_lines() {
    let days: Vec<CareDay> = (0..7)
        .map(|i| CareDay {
            label: format!("12/{:02}", i + 1),
            taken: 2 - u32::from(i == 3),
            missed: u32::from(i == 3),
            systolic: Some(130.0 + f64::from(i) * 3.0),
            diastolic: Some(82.0),
            glucose: None,
        })
        .collect();
    let png_bytes = care(&days).expect("drawn");
    let (w, h, pixels) = decode(&png_bytes);
    assert_eq!((w, h), (WIDTH, HEIGHT));
    assert!(count_of(&pixels, GREEN) > 1000 && count_of(&pixels, RED) > 300, "the dose bars");
    assert!(count_of(&pixels, HIGH_TEMP) > 300 && count_of(&pixels, LOW_TEMP) > 300, "the lines");
}

#[test]
fn a_care_week_with_nothing_in_it_is_not_drawn() {
    let empty = CareDay {
        label: "12/01".into(),
        taken: 0,
        missed: 0,
        systolic: None,
        diastolic: None,
        glucose: None,
    };
    assert!(matches!(care(&vec![empty; 7]), Err(DrawError::NotEnoughData)));
}
