//! Photos made ready for a vision model: decoded with limits (dimensions and memory), scaled so
//! the long side is at most [`LONG_SIDE`] pixels — about what vision models work at, so larger
//! photos only cost upload time and tokens — and encoded as JPEG for a `data:` URL. Also the
//! image-token estimate of OpenAI's tile formula, for the measurements in BENCHMARKS.md.

use std::io::Cursor;

use base64::Engine;
use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::{DynamicImage, ImageReader, Limits};

/// The long side of a photo sent to the model, in pixels.
pub const LONG_SIDE: u32 = 1536;
/// JPEG quality of the re-encoded photo.
const QUALITY: u8 = 85;
/// The largest photo decoded (either side), in pixels.
const MAX_SIDE: u32 = 12_000;
/// The most memory decoding may take.
const MAX_ALLOC: u64 = 400 << 20;

/// A photo ready for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// The JPEG bytes.
    pub jpeg: Vec<u8>,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
}

impl Prepared {
    /// The photo as a `data:image/jpeg;base64,…` URL (an `image_url` content part).
    pub fn data_url(&self) -> String {
        format!(
            "data:image/jpeg;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&self.jpeg)
        )
    }
}

/// Why a photo could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    /// Not a PNG or JPEG, damaged, or beyond the limits.
    #[error("the picture cannot be read: {0}")]
    Unreadable(String),
}

/// Decodes a PNG or JPEG, scales it down to [`LONG_SIDE`] when larger, and encodes it as JPEG.
/// CPU-bound: run it on a blocking thread.
pub fn prepare(bytes: &[u8]) -> Result<Prepared, PictureError> {
    let unreadable = |e: image::ImageError| PictureError::Unreadable(e.to_string());
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| PictureError::Unreadable(e.to_string()))?;
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    reader.limits(limits);
    let decoded = reader.decode().map_err(unreadable)?;
    let scaled = scale_down(decoded);
    let rgb = scaled.to_rgb8();
    let mut jpeg = Vec::new();
    JpegEncoder::new_with_quality(&mut jpeg, QUALITY).encode_image(&rgb).map_err(unreadable)?;
    Ok(Prepared { jpeg, width: rgb.width(), height: rgb.height() })
}

/// The image itself when its long side fits, else scaled (aspect kept) so it does.
fn scale_down(image: DynamicImage) -> DynamicImage {
    if image.width().max(image.height()) <= LONG_SIDE {
        return image;
    }
    image.resize(LONG_SIDE, LONG_SIDE, FilterType::Triangle)
}

/// The image tokens a `detail: high` picture of `width`×`height` costs on OpenAI's GPT-4o-class
/// models: fitted into 2048×2048, scaled so the short side is at most 768, then 170 tokens per
/// 512-pixel tile plus 85.
pub fn vision_tokens(width: u32, height: u32) -> u64 {
    let (mut w, mut h) = (f64::from(width.max(1)), f64::from(height.max(1)));
    let fit = (2048.0 / w.max(h)).min(1.0);
    w *= fit;
    h *= fit;
    let short = (768.0 / w.min(h)).min(1.0);
    w *= short;
    h *= short;
    let tiles = (w / 512.0).ceil() * (h / 512.0).ceil();
    170 * tiles as u64 + 85
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageFormat, RgbImage};

    fn png(width: u32, height: u32) -> Vec<u8> {
        let image = RgbImage::from_fn(width, height, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, ((x + y) % 256) as u8])
        });
        let mut bytes = Vec::new();
        image.write_to(&mut Cursor::new(&mut bytes), ImageFormat::Png).expect("encode");
        bytes
    }

    #[test]
    fn a_phone_sized_photo_is_scaled_to_the_long_side_keeping_its_aspect() {
        let prepared = prepare(&png(4032, 3024)).expect("prepared");
        assert_eq!((prepared.width, prepared.height), (1536, 1152));
        assert_eq!(&prepared.jpeg[..2], &[0xFF, 0xD8], "JPEG");
    }

    #[test]
    fn a_small_photo_keeps_its_size() {
        let prepared = prepare(&png(640, 480)).expect("prepared");
        assert_eq!((prepared.width, prepared.height), (640, 480));
        assert!(prepared.data_url().starts_with("data:image/jpeg;base64,/9j/"));
    }

    #[test]
    fn bytes_that_are_no_picture_are_refused() {
        assert!(prepare(b"%PDF-1.4 not a picture").is_err());
        assert!(prepare(&[]).is_err());
    }

    #[test]
    fn tokens_follow_the_tile_formula() {
        assert_eq!(vision_tokens(4032, 3024), 765, "768x1024 after scaling: 2x2 tiles");
        assert_eq!(vision_tokens(1536, 1152), 765);
        assert_eq!(vision_tokens(512, 512), 255);
        assert_eq!(vision_tokens(1024, 1024), 765);
    }
}
