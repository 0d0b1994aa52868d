use ab_glyph::Font;

use super::*;
use crate::features::richmenu::layout::MENUS;
use crate::line::richmenu::limits;

/// Reads the PNG header and pixels back: (width, height, RGB bytes).
fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut pixels).expect("a frame");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

#[test]
fn each_menu_is_a_png_within_line_s_size_aspect_and_byte_limits() {
    for menu in MENUS {
        let png_bytes = super::menu(menu).expect("drawn");
        assert!(png_bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "PNG signature");
        let (width, height, _) = decode(&png_bytes);
        assert_eq!((width, height), (WIDTH, HEIGHT), "{}", menu.alias);
        assert!((limits::MIN_WIDTH..=limits::MAX_WIDTH).contains(&width));
        assert!(height >= limits::MIN_HEIGHT);
        assert!(f64::from(width) / f64::from(height) >= limits::MIN_ASPECT);
        assert!(png_bytes.len() <= limits::MAX_BYTES, "{} bytes", png_bytes.len());
        // Flat tiles compress well: far below the limit.
        assert!(png_bytes.len() < 400 * 1024, "{}: {} bytes", menu.alias, png_bytes.len());
    }
}

#[test]
fn each_tile_is_its_colour_with_white_text_and_a_white_gutter_between() {
    // The English menu's longer labels too.
    for menu in MENUS {
        let png_bytes = super::menu(menu).expect("drawn");
        let (_, _, pixels) = decode(&png_bytes);
        let at = |x: u32, y: u32| {
            let i = usize::try_from((y * WIDTH + x) * 3).expect("index");
            (pixels[i], pixels[i + 1], pixels[i + 2])
        };
        for (index, button) in menu.buttons.iter().enumerate() {
            let b = bounds(index);
            assert_eq!(at(b.x + 40, b.y + 40), button.tile, "{} tile corner", button.label);
            assert_eq!(at(b.x + 2, b.y + 2), (255, 255, 255), "{} gutter", button.label);
            let label_row = b.y + b.height * 79 / 100;
            let white =
                (b.x..b.x + b.width).filter(|&x| at(x, label_row) == (255, 255, 255)).count();
            assert!(white > 40, "{}: its label is drawn ({white} white pixels)", button.label);
        }
    }
}

#[test]
fn every_tile_is_dark_enough_for_white_text_to_read_at_seven_to_one() {
    for menu in MENUS {
        for button in &menu.buttons {
            let ratio = contrast_with_white(button.tile);
            assert!(ratio >= 7.0, "{}: {ratio:.1}:1", button.label);
        }
    }
    assert!((contrast_with_white((0, 0, 0)) - 21.0).abs() < 0.01);
    assert!((contrast_with_white((255, 255, 255)) - 1.0).abs() < 0.01);
}

#[test]
fn the_bundled_font_has_every_character_the_menus_draw() {
    let font = ab_glyph::FontRef::try_from_slice(FONT).expect("the menu font parses");
    for menu in MENUS {
        for button in &menu.buttons {
            for c in button.label.chars().chain(['?']) {
                assert_ne!(font.glyph_id(c).0, 0, "{c:?} of {} is not in the font", button.label);
            }
        }
    }
    assert!(FONT.len() < 64 * 1024, "a subset, not the whole font: {} bytes", FONT.len());
}
