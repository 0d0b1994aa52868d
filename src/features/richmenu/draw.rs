//! Drawing a menu's image: a pure function of the menu, into an RGB buffer with plotters'
//! bitmap backend, encoded as PNG. Six tiles in dark colours, each with a white icon of simple
//! shapes and its label in large white text (at least 7:1 contrast), in the bundled menu font: a
//! subset of Noto Sans CJK TC Bold holding only the menus' characters (see `assets/fonts/`), so
//! it draws anywhere with no font installed. Within LINE's limits: [`super::WIDTH`] ×
//! [`super::HEIGHT`] pixels, under 1 MB.

use std::sync::OnceLock;

use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::layout::{Button, Icon, Menu};
use super::{HEIGHT, WIDTH, bounds};
use crate::line::richmenu::limits::MAX_BYTES;

/// The version of the drawing: raise it when a change here changes the images, so installed
/// menus read as out of date.
pub const VERSION: u32 = 1;

/// The menu font (see `assets/fonts/LICENSE-NotoSansCJK.txt`).
pub const FONT: &[u8] = include_bytes!("../../../assets/fonts/NotoSansCJKtc-Bold-menu.otf");
const FAMILY: &str = "hearth-menu";
/// The white line between tiles, on each side of a tile.
const GUTTER: i32 = 10;
/// The largest label, in pixels.
const LABEL_SIZE: u32 = 190;
/// The icon's radius, in pixels.
const ICON: i32 = 150;
/// The width of an icon's lines.
const STROKE: i32 = 26;

/// Why an image was not drawn.
#[derive(Debug, thiserror::Error)]
pub enum DrawError {
    /// The bundled font did not load.
    #[error("the menu font did not load")]
    Font,
    /// Drawing failed.
    #[error("drawing failed: {0}")]
    Plot(String),
    /// PNG encoding failed.
    #[error("PNG encoding failed")]
    Encode(#[from] png::EncodingError),
    /// The PNG is larger than LINE takes.
    #[error("the image is {0} bytes, more than LINE takes")]
    TooLarge(usize),
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

fn plot<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> DrawError {
    DrawError::Plot(e.to_string())
}

fn font() -> Result<(), DrawError> {
    static LOADED: OnceLock<bool> = OnceLock::new();
    let ok = *LOADED
        .get_or_init(|| plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_ok());
    if ok { Ok(()) } else { Err(DrawError::Font) }
}

/// The relative luminance of a colour (WCAG 2).
pub fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
    let channel = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.03928 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
}

/// The contrast ratio of white on `colour` (WCAG 2: 1 to 21).
pub fn contrast_with_white(colour: (u8, u8, u8)) -> f64 {
    1.05 / (luminance(colour) + 0.05)
}

/// Draws `menu`: PNG bytes of [`WIDTH`]×[`HEIGHT`].
pub fn menu(menu: &Menu) -> Result<Vec<u8>, DrawError> {
    font()?;
    let mut rgb = vec![255u8; usize::try_from(WIDTH * HEIGHT * 3).unwrap_or(0)];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(plot)?;
        for (index, button) in menu.buttons.iter().enumerate() {
            tile(&root, index, button)?;
        }
        root.present().map_err(plot)?;
    }
    let png = encode(&rgb)?;
    if png.len() > MAX_BYTES {
        return Err(DrawError::TooLarge(png.len()));
    }
    Ok(png)
}

fn px(v: u32) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// One button's tile: its colour, its icon, its label.
fn tile(root: &Area<'_>, index: usize, button: &Button) -> Result<(), DrawError> {
    let b = bounds(index);
    let (x, y, w, h) = (px(b.x), px(b.y), px(b.width), px(b.height));
    let (r, g, bl) = button.tile;
    let colour = RGBColor(r, g, bl);
    root.draw(&Rectangle::new(
        [(x + GUTTER, y + GUTTER), (x + w - GUTTER, y + h - GUTTER)],
        colour.filled(),
    ))
    .map_err(plot)?;
    let centre = (x + w / 2, y + h * 37 / 100);
    icon(root, button.icon, centre, colour)?;
    let mut size = LABEL_SIZE;
    let style = loop {
        let style = TextStyle::from((FAMILY, f64::from(size)).into_font())
            .color(&WHITE)
            .pos(Pos::new(HPos::Center, VPos::Center));
        let (width, _) = root.estimate_text_size(button.label, &style).map_err(plot)?;
        if px(width) <= w - 120 || size <= 60 {
            break style;
        }
        size -= 10;
    };
    root.draw(&Text::new(button.label, (x + w / 2, y + h * 79 / 100), style)).map_err(plot)
}

/// A filled circle.
fn dot(root: &Area<'_>, at: (i32, i32), radius: i32, colour: RGBColor) -> Result<(), DrawError> {
    let radius = u32::try_from(radius.max(1)).unwrap_or(1);
    root.draw(&Circle::new(at, radius, colour.filled())).map_err(plot)
}

/// A ring of width [`STROKE`] on a tile of colour `tile`.
fn ring(root: &Area<'_>, at: (i32, i32), radius: i32, tile: RGBColor) -> Result<(), DrawError> {
    dot(root, at, radius, WHITE)?;
    dot(root, at, radius - STROKE, tile)
}

/// A thick line through `points`, with round joints and ends.
fn stroke(
    root: &Area<'_>,
    points: &[(i32, i32)],
    width: i32,
    colour: RGBColor,
) -> Result<(), DrawError> {
    let half = f64::from(width) / 2.0;
    for pair in points.windows(2) {
        let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
        let (dx, dy) = (f64::from(x1 - x0), f64::from(y1 - y0));
        let length = dx.hypot(dy).max(1.0);
        let (nx, ny) = (-dy / length * half, dx / length * half);
        let offset = |x: i32, y: i32, sign: f64| {
            // Pixel coordinates: rounding keeps them in range.
            #[allow(clippy::cast_possible_truncation)]
            let p = (
                (f64::from(x) + sign * nx).round() as i32,
                (f64::from(y) + sign * ny).round() as i32,
            );
            p
        };
        let quad = vec![
            offset(x0, y0, 1.0),
            offset(x1, y1, 1.0),
            offset(x1, y1, -1.0),
            offset(x0, y0, -1.0),
        ];
        root.draw(&Polygon::new(quad, colour.filled())).map_err(plot)?;
    }
    for &point in points {
        dot(root, point, width / 2, colour)?;
    }
    Ok(())
}

/// The icon's white shapes around `(cx, cy)`, on a tile of colour `tile`.
fn icon(
    root: &Area<'_>,
    icon: Icon,
    (cx, cy): (i32, i32),
    tile: RGBColor,
) -> Result<(), DrawError> {
    let r = ICON;
    let at = |fx: i32, fy: i32| (cx + r * fx / 100, cy + r * fy / 100);
    match icon {
        Icon::Sun => {
            dot(root, (cx, cy), r * 45 / 100, WHITE)?;
            for (dx, dy) in [
                (100, 0),
                (71, 71),
                (0, 100),
                (-71, 71),
                (-100, 0),
                (-71, -71),
                (0, -100),
                (71, -71),
            ] {
                stroke(
                    root,
                    &[at(dx * 68 / 100, dy * 68 / 100), at(dx * 97 / 100, dy * 97 / 100)],
                    STROKE,
                    WHITE,
                )?;
            }
        }
        Icon::Clock => {
            ring(root, (cx, cy), r * 95 / 100, tile)?;
            stroke(root, &[at(0, -55), (cx, cy), at(42, 0)], STROKE, WHITE)?;
        }
        Icon::List => {
            for fy in [-60, 0, 60] {
                dot(root, at(-75, fy), STROKE * 3 / 4, WHITE)?;
                stroke(root, &[at(-35, fy), at(90, fy)], STROKE, WHITE)?;
            }
        }
        Icon::Chart => {
            stroke(root, &[at(-95, 65), at(-35, 5), at(5, 40), at(80, -45)], STROKE, WHITE)?;
            root.draw(&Polygon::new(vec![at(100, -75), at(40, -65), at(90, -15)], WHITE.filled()))
                .map_err(plot)?;
            stroke(root, &[at(-100, 95), at(100, 95)], STROKE / 2, WHITE)?;
        }
        Icon::House => {
            root.draw(&Polygon::new(vec![at(-100, -5), at(0, -100), at(100, -5)], WHITE.filled()))
                .map_err(plot)?;
            root.draw(&Rectangle::new([at(-70, -10), at(70, 90)], WHITE.filled())).map_err(plot)?;
            root.draw(&Rectangle::new([at(-20, 30), at(20, 90)], tile.filled())).map_err(plot)?;
        }
        Icon::Question => {
            ring(root, (cx, cy), r * 95 / 100, tile)?;
            let style = TextStyle::from((FAMILY, f64::from(r * 2)).into_font())
                .color(&WHITE)
                .pos(Pos::new(HPos::Center, VPos::Center));
            root.draw(&Text::new("?", (cx, cy), style)).map_err(plot)?;
        }
        Icon::Check => {
            ring(root, (cx, cy), r * 95 / 100, tile)?;
            stroke(root, &[at(-48, 2), at(-12, 40), at(50, -35)], STROKE * 3 / 2, WHITE)?;
        }
        Icon::Phone => {
            root.draw(&Rectangle::new([at(-50, -95), at(50, 95)], WHITE.filled())).map_err(plot)?;
            root.draw(&Rectangle::new([at(-34, -70), at(34, 55)], tile.filled())).map_err(plot)?;
            dot(root, at(0, 76), STROKE / 2, tile)?;
        }
        Icon::Heart => {
            dot(root, at(-45, -30), r * 52 / 100, WHITE)?;
            dot(root, at(45, -30), r * 52 / 100, WHITE)?;
            root.draw(&Polygon::new(vec![at(-94, -12), at(94, -12), at(0, 92)], WHITE.filled()))
                .map_err(plot)?;
            let pulse =
                [at(-70, -10), at(-30, -10), at(-15, -45), at(8, 25), at(25, -10), at(70, -10)];
            stroke(root, &pulse, STROKE * 2 / 3, tile)?;
        }
    }
    Ok(())
}

fn encode(rgb: &[u8]) -> Result<Vec<u8>, DrawError> {
    Ok(crate::contract::chart::draw::png_of_rgb(rgb, WIDTH, HEIGHT)?)
}

#[cfg(test)]
#[path = "draw_tests.rs"]
mod tests;
