//! Drawing a chart: a pure function of its series, into an RGB buffer with plotters' bitmap
//! backend, labels in the bundled font (a DejaVu Sans subset: digits, Latin letters and the
//! signs of prices and temperatures), encoded as PNG. Sized for a phone and within LINE's image
//! limit (1024×1024 pixels).

use std::sync::OnceLock;

use jiff::Timestamp;
use jiff::tz::TimeZone;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::FontStyle;

use super::{CareDay, ForecastDay, Period};
use crate::platform::config::PriceColors;

/// The width of every chart, in pixels.
pub const WIDTH: u32 = 1024;
/// The height of every chart, in pixels (the hero's 2:1 aspect ratio).
pub const HEIGHT: u32 = 512;

/// The font labels are drawn in (see `assets/fonts/LICENSE-DejaVu.txt`).
const FONT: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans-subset.ttf");
const FAMILY: &str = "sans-serif";

const RED: RGBColor = RGBColor(0xD3, 0x2F, 0x2F);
const GREEN: RGBColor = RGBColor(0x2E, 0x7D, 0x32);
const AMBER: RGBColor = RGBColor(0xE6, 0x51, 0x00);
const GREY: RGBColor = RGBColor(0x88, 0x88, 0x88);
const GRID: RGBColor = RGBColor(0xEE, 0xEE, 0xEE);
const HIGH_TEMP: RGBColor = RGBColor(0xE6, 0x51, 0x00);
const LOW_TEMP: RGBColor = RGBColor(0x15, 0x65, 0xC0);
const RAIN: RGBColor = RGBColor(0xBB, 0xDE, 0xFB);

/// Why a chart was not drawn.
#[derive(Debug, thiserror::Error)]
pub enum DrawError {
    /// Fewer than two points with a value: nothing to draw a line through.
    #[error("not enough data to draw")]
    NotEnoughData,
    /// The bundled font did not load.
    #[error("the chart font did not load")]
    Font,
    /// Plotting failed.
    #[error("plotting failed: {0}")]
    Plot(String),
    /// PNG encoding failed.
    #[error("PNG encoding failed")]
    Encode(#[from] png::EncodingError),
}

fn plot<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> DrawError {
    DrawError::Plot(e.to_string())
}

/// A price line to draw.
#[derive(Debug, Clone)]
pub struct PriceChart {
    /// (Unix seconds, price), in time order.
    pub points: Vec<(i64, f64)>,
    /// The previous close (marked on a day chart; what the day's change is measured from).
    pub previous_close: Option<f64>,
    /// A price alert's level, drawn as a dashed line.
    pub level: Option<f64>,
    /// Day or month: how times are labelled and what the change is measured from.
    pub period: Period,
    /// The zone times are labelled in.
    pub tz: TimeZone,
    /// Which colour is up.
    pub colors: PriceColors,
}

impl PriceChart {
    /// The colour of the line: up or down over the period, in the family's convention.
    pub fn line_color(&self) -> RGBColor {
        let first = self.points.first().map(|p| p.1);
        let base = match self.period {
            Period::Day => self.previous_close.or(first),
            Period::Month => first,
        };
        let last = self.points.last().map(|p| p.1);
        let (up, down) = match self.colors {
            PriceColors::Tw => (RED, GREEN),
            PriceColors::Us => (GREEN, RED),
        };
        match (base, last) {
            (Some(b), Some(l)) if l > b => up,
            (Some(b), Some(l)) if l < b => down,
            _ => GREY,
        }
    }
}

fn font() -> Result<(), DrawError> {
    static LOADED: OnceLock<bool> = OnceLock::new();
    let ok = *LOADED
        .get_or_init(|| plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_ok());
    if ok { Ok(()) } else { Err(DrawError::Font) }
}

/// A price as a label: thousands separated, decimals only where the price has them.
fn price_label(p: f64) -> String {
    let decimals = if p.abs() >= 1000.0 {
        0
    } else if p.abs() >= 10.0 {
        1
    } else {
        2
    };
    crate::platform::format::money(round_to(p, decimals))
}

fn round_to(p: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (p * f).round() / f
}

/// The range `lo..hi` widened by a margin (and to a span, when flat).
fn padded(lo: f64, hi: f64) -> (f64, f64) {
    let span = (hi - lo).max(hi.abs() * 0.002).max(1e-6);
    (lo - span * 0.12, hi + span * 0.12)
}

/// Draws a price line: its high and low labelled, the previous close (day) and an alert's level
/// dashed. Returns PNG bytes of [`WIDTH`]×[`HEIGHT`].
pub fn price(chart: &PriceChart) -> Result<Vec<u8>, DrawError> {
    let points: Vec<(i64, f64)> =
        chart.points.iter().copied().filter(|(_, p)| p.is_finite()).collect();
    if points.len() < 2 {
        return Err(DrawError::NotEnoughData);
    }
    font()?;
    let (x0, x1) = (points[0].0, points[points.len() - 1].0.max(points[0].0 + 1));
    let (mut lo, mut hi) =
        points.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &(_, p)| (lo.min(p), hi.max(p)));
    let (low_at, high_at) = extremes(&points);
    let reference = (chart.period == Period::Day).then_some(chart.previous_close).flatten();
    for extra in [reference, chart.level].into_iter().flatten().filter(|v| v.is_finite()) {
        lo = lo.min(extra);
        hi = hi.max(extra);
    }
    let (ylo, yhi) = padded(lo, hi);
    let color = chart.line_color();
    let tz = chart.tz.clone();
    let period = chart.period;
    let time_label = move |x: &i64| -> String {
        let Ok(ts) = Timestamp::from_second(*x) else { return String::new() };
        let local = ts.to_zoned_datetime(tz.clone());
        match period {
            Period::Day => local.strftime("%H:%M").to_string(),
            Period::Month => local.strftime("%m/%d").to_string(),
        }
    };
    let mut buf = vec![0u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(plot)?;
        let mut plot_area = ChartBuilder::on(&root)
            .margin(20)
            .margin_right(36)
            .x_label_area_size(44)
            .y_label_area_size(120)
            .build_cartesian_2d(x0..x1, ylo..yhi)
            .map_err(plot)?;
        plot_area
            .configure_mesh()
            .disable_x_mesh()
            .bold_line_style(GRID)
            .light_line_style(TRANSPARENT)
            .axis_style(GREY)
            .x_labels(5)
            .y_labels(5)
            .x_label_formatter(&time_label)
            .y_label_formatter(&|y| price_label(*y))
            .label_style((FAMILY, 24).into_font().color(&GREY))
            .draw()
            .map_err(plot)?;
        let dashed = |value: f64, color: RGBColor| {
            DashedLineSeries::new(vec![(x0, value), (x1, value)], 12, 8, color.stroke_width(3))
        };
        if let Some(prev) = reference {
            plot_area.draw_series(dashed(prev, GREY)).map_err(plot)?;
        }
        if let Some(level) = chart.level.filter(|l| l.is_finite()) {
            plot_area.draw_series(dashed(level, AMBER)).map_err(plot)?;
            let style = (FAMILY, 24).into_font().color(&AMBER);
            plot_area
                .draw_series(std::iter::once(Text::new(price_label(level), (x0, level), style)))
                .map_err(plot)?;
        }
        plot_area
            .draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(4)))
            .map_err(plot)?;
        let label = (FAMILY, 26).into_font().color(&BLACK);
        for (at, offset) in [(high_at, -34), (low_at, 8)] {
            let (x, y) = points[at];
            let text = price_label(y);
            // Keep the label inside the plot: right-aligned near the right edge.
            let shift = if at * 3 > points.len() * 2 { -(text.len() as i32) * 15 } else { 6 };
            plot_area
                .draw_series(std::iter::once(
                    EmptyElement::at((x, y))
                        + Circle::new((0, 0), 6, color.filled())
                        + Text::new(text, (shift, offset), label.clone()),
                ))
                .map_err(plot)?;
        }
        root.present().map_err(plot)?;
    }
    encode(&buf)
}

/// The indices of the lowest and the highest point (the first of equals).
fn extremes(points: &[(i64, f64)]) -> (usize, usize) {
    let (mut low, mut high) = (0, 0);
    for (i, &(_, p)) in points.iter().enumerate() {
        if p < points[low].1 {
            low = i;
        }
        if p > points[high].1 {
            high = i;
        }
    }
    (low, high)
}

/// The plot area of a chart over days: a slot per day along the bottom, no value axis.
type DayArea<'a, 'b> =
    ChartContext<'a, BitMapBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A chart over days labelled `labels`, values from `ylo` to `yhi`, drawn by `draw`; PNG bytes
/// of [`WIDTH`]×[`HEIGHT`].
fn over_days(
    labels: &[String],
    (ylo, yhi): (f64, f64),
    draw: impl FnOnce(&mut DayArea<'_, '_>) -> Result<(), DrawError>,
) -> Result<Vec<u8>, DrawError> {
    font()?;
    let n = labels.len();
    let mut buf = vec![0u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(plot)?;
        let mut area = ChartBuilder::on(&root)
            .margin(20)
            .x_label_area_size(44)
            .y_label_area_size(0)
            .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), ylo..yhi)
            .map_err(plot)?;
        area.configure_mesh()
            .disable_mesh()
            .disable_y_axis()
            .axis_style(GREY)
            .x_labels(n)
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() > 1e-6 || i < 0.0 {
                    return String::new();
                }
                labels.get(i as usize).cloned().unwrap_or_default()
            })
            .label_style((FAMILY, 24).into_font().color(&GREY))
            .draw()
            .map_err(plot)?;
        draw(&mut area)?;
        root.present().map_err(plot)?;
    }
    encode(&buf)
}

/// A line through `points` (day, value) in `color`, each point marked with its value and
/// `unit`, the label `offset` pixels above (negative) or below.
fn labelled_line(
    area: &mut DayArea<'_, '_>,
    points: &[(f64, f64)],
    color: RGBColor,
    offset: i32,
    unit: &str,
) -> Result<(), DrawError> {
    area.draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(4)))
        .map_err(plot)?;
    let style = (FAMILY, 26).into_font().color(&color);
    area.draw_series(points.iter().map(|&(x, v)| {
        EmptyElement::at((x, v))
            + Circle::new((0, 0), 6, color.filled())
            + Text::new(format!("{v:.0}{unit}"), (-18, offset), style.clone())
    }))
    .map_err(plot)?;
    Ok(())
}

/// Draws a forecast: highs and lows as two lines with their values, the chance of rain as bars
/// along the bottom. Returns PNG bytes of [`WIDTH`]×[`HEIGHT`].
pub fn forecast(days: &[ForecastDay]) -> Result<Vec<u8>, DrawError> {
    let temps: Vec<f64> =
        days.iter().flat_map(|d| [d.high, d.low]).flatten().filter(|t| t.is_finite()).collect();
    if days.len() < 2 || temps.len() < 2 {
        return Err(DrawError::NotEnoughData);
    }
    let lo = temps.iter().copied().fold(f64::MAX, f64::min);
    let hi = temps.iter().copied().fold(f64::MIN, f64::max);
    // Room below the lines for the rain bars: the lower third of the plot.
    let span = (hi - lo).max(4.0);
    let (ylo, yhi) = (lo - span * 0.9, hi + span * 0.25);
    let labels: Vec<String> = days.iter().map(|d| d.label.clone()).collect();
    over_days(&labels, (ylo, yhi), |area| {
        let bar_room = span * 0.6;
        let rain_label = (FAMILY, 22).into_font().color(&LOW_TEMP);
        for (i, day) in days.iter().enumerate() {
            let Some(pct) = day.rain_pct.filter(|p| p.is_finite()) else { continue };
            let x = i as f64;
            let top = ylo + bar_room * pct.clamp(0.0, 100.0) / 100.0;
            area.draw_series(std::iter::once(Rectangle::new(
                [(x - 0.3, ylo), (x + 0.3, top)],
                RAIN.filled(),
            )))
            .map_err(plot)?;
            area.draw_series(std::iter::once(
                EmptyElement::at((x, top))
                    + Text::new(format!("{pct:.0}%"), (-22, -26), rain_label.clone()),
            ))
            .map_err(plot)?;
        }
        for (pick, color, offset) in [
            (ForecastDay::high as fn(&ForecastDay) -> Option<f64>, HIGH_TEMP, -36),
            (ForecastDay::low as fn(&ForecastDay) -> Option<f64>, LOW_TEMP, 12),
        ] {
            let line: Vec<(f64, f64)> = days
                .iter()
                .enumerate()
                .filter_map(|(i, d)| pick(d).filter(|t| t.is_finite()).map(|t| (i as f64, t)))
                .collect();
            labelled_line(area, &line, color, offset, "°")?;
        }
        Ok(())
    })
}

/// One of a care day's values.
type Pick = fn(&CareDay) -> Option<f64>;

/// Draws a care plan's week: doses confirmed (green) and not (red) as stacked bars along the
/// bottom with their counts, and the daily means of the readings (systolic, diastolic,
/// glucose) as lines with their values above. Returns PNG bytes of [`WIDTH`]×[`HEIGHT`].
pub fn care(days: &[CareDay]) -> Result<Vec<u8>, DrawError> {
    let doses: Vec<u32> = days.iter().map(|d| d.taken + d.missed).collect();
    let values: Vec<f64> = days
        .iter()
        .flat_map(|d| [d.systolic, d.diastolic, d.glucose])
        .flatten()
        .filter(|v| v.is_finite())
        .collect();
    if days.is_empty() || (values.is_empty() && doses.iter().all(|n| *n == 0)) {
        return Err(DrawError::NotEnoughData);
    }
    let (lo, hi) = match values.is_empty() {
        true => (0.0, 1.0),
        false => (
            values.iter().copied().fold(f64::MAX, f64::min),
            values.iter().copied().fold(f64::MIN, f64::max),
        ),
    };
    let span = (hi - lo).max(20.0);
    let (ylo, yhi) = (lo - span * 0.9, hi + span * 0.25);
    let most = doses.iter().copied().max().unwrap_or(1).max(1) as f64;
    let labels: Vec<String> = days.iter().map(|d| d.label.clone()).collect();
    over_days(&labels, (ylo, yhi), |area| {
        let bar_room = span * 0.6;
        let count_label = (FAMILY, 22).into_font().color(&GREY);
        for (i, day) in days.iter().enumerate() {
            let x = i as f64;
            let taken_top = ylo + bar_room * f64::from(day.taken) / most;
            let missed_top = taken_top + bar_room * f64::from(day.missed) / most;
            area.draw_series([
                Rectangle::new([(x - 0.3, ylo), (x + 0.3, taken_top)], GREEN.filled()),
                Rectangle::new([(x - 0.3, taken_top), (x + 0.3, missed_top)], RED.filled()),
            ])
            .map_err(plot)?;
            let count = format!("{}/{}", day.taken, day.taken + day.missed);
            area.draw_series(std::iter::once(
                EmptyElement::at((x, missed_top))
                    + Text::new(count, (-20, -26), count_label.clone()),
            ))
            .map_err(plot)?;
        }
        let lines: [(Pick, RGBColor, i32); 3] = [
            (|d| d.systolic, HIGH_TEMP, -36),
            (|d| d.diastolic, LOW_TEMP, 12),
            (|d| d.glucose, AMBER, -36),
        ];
        for (pick, color, offset) in lines {
            let line: Vec<(f64, f64)> = days
                .iter()
                .enumerate()
                .filter_map(|(i, d)| pick(d).filter(|v| v.is_finite()).map(|v| (i as f64, v)))
                .collect();
            if !line.is_empty() {
                labelled_line(area, &line, color, offset, "")?;
            }
        }
        Ok(())
    })
}

impl ForecastDay {
    fn high(&self) -> Option<f64> {
        self.high
    }

    fn low(&self) -> Option<f64> {
        self.low
    }
}

/// Encodes an RGB buffer of [`WIDTH`]×[`HEIGHT`] as PNG.
fn encode(rgb: &[u8]) -> Result<Vec<u8>, DrawError> {
    Ok(png_of_rgb(rgb, WIDTH, HEIGHT)?)
}

/// Encodes an RGB buffer of `width`×`height` as PNG, compressed hard (what hearth draws is
/// served to LINE, which limits the bytes).
pub fn png_of_rgb(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::High);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(out)
}

#[cfg(test)]
#[path = "draw_tests.rs"]
mod tests;
