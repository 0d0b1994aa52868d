//! Photos made ready for a vision model: decoded with limits (dimensions and memory), scaled so
//! the long side is at most [`LONG_SIDE`] pixels — about what vision models work at, so larger
//! photos only cost upload time and tokens — by averaging (no buffer larger than the result),
//! then turned upright by their EXIF orientation (a phone stores a portrait photo as landscape
//! pixels plus a tag; the tag is lost in the re-encoded JPEG, so it is applied to the pixels;
//! turning the scaled photo costs a fraction of turning the original), and encoded as JPEG for a
//! `data:` URL. Run it in [`crate::sources::sandbox`]: a decoder's own limits are no bound on memory. Also
//! the image-token estimate of OpenAI's tile formula, for the measurements in BENCHMARKS.md.

use std::io::Cursor;

use base64::Engine;
use image::codecs::jpeg::JpegEncoder;
use image::{DynamicImage, ImageDecoder, ImageReader, Limits};

/// The long side of a photo sent to the model, in pixels.
pub const LONG_SIDE: u32 = 1536;
/// JPEG quality of the re-encoded photo.
const QUALITY: u8 = 85;
/// The largest photo decoded (either side), in pixels.
const MAX_SIDE: u32 = 12_000;
/// The most memory decoding may take (a 48-megapixel photo is 144 MB of pixels).
const MAX_ALLOC: u64 = 200 << 20;

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

/// Decodes a PNG or JPEG, scales it down to [`LONG_SIDE`] when larger, turns it upright by its
/// EXIF orientation and encodes it as JPEG.
pub fn prepare(bytes: &[u8]) -> Result<Prepared, PictureError> {
    let unreadable = |e: image::ImageError| PictureError::Unreadable(e.to_string());
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| PictureError::Unreadable(e.to_string()))?;
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    reader.limits(limits.clone());
    let mut decoder = reader.into_decoder().map_err(unreadable)?;
    limits.reserve(decoder.total_bytes()).map_err(unreadable)?;
    // A damaged EXIF block only loses the rotation, not the photo.
    let orientation = decoder.orientation().unwrap_or(image::metadata::Orientation::NoTransforms);
    let decoded = DynamicImage::from_decoder(decoder).map_err(unreadable)?;
    let mut scaled = scale_down(decoded);
    scaled.apply_orientation(orientation);
    let rgb = scaled.into_rgb8();
    let mut jpeg = Vec::new();
    JpegEncoder::new_with_quality(&mut jpeg, QUALITY).encode_image(&rgb).map_err(unreadable)?;
    Ok(Prepared { jpeg, width: rgb.width(), height: rgb.height() })
}

/// The image itself when its long side fits, else scaled (aspect kept) so it does, each pixel
/// the average of those it covers.
fn scale_down(image: DynamicImage) -> DynamicImage {
    if image.width().max(image.height()) <= LONG_SIDE {
        return image;
    }
    image.thumbnail(LONG_SIDE, LONG_SIDE)
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

    /// A JPEG of `width`×`height`, red on its left half and blue on its right, with an EXIF
    /// block (APP1, big-endian TIFF, one IFD entry) saying it is stored at `orientation`.
    fn jpeg_with_orientation(width: u32, height: u32, orientation: u16) -> Vec<u8> {
        let image = RgbImage::from_fn(width, height, |x, _| {
            if x < width / 2 { image::Rgb([255, 0, 0]) } else { image::Rgb([0, 0, 255]) }
        });
        let mut plain = Vec::new();
        image.write_to(&mut Cursor::new(&mut plain), ImageFormat::Jpeg).expect("encode");
        let mut tiff = b"MM\0\x2a".to_vec();
        tiff.extend_from_slice(&8u32.to_be_bytes()); // the first IFD follows the header
        tiff.extend_from_slice(&1u16.to_be_bytes()); // one entry
        tiff.extend_from_slice(&0x0112u16.to_be_bytes()); // Orientation
        tiff.extend_from_slice(&3u16.to_be_bytes()); // SHORT
        tiff.extend_from_slice(&1u32.to_be_bytes()); // one value
        tiff.extend_from_slice(&orientation.to_be_bytes());
        tiff.extend_from_slice(&[0, 0]); // the value field's padding
        tiff.extend_from_slice(&0u32.to_be_bytes()); // no next IFD
        let mut app1 = vec![0xFF, 0xE1];
        let length = u16::try_from(2 + 6 + tiff.len()).expect("short");
        app1.extend_from_slice(&length.to_be_bytes());
        app1.extend_from_slice(b"Exif\0\0");
        app1.extend_from_slice(&tiff);
        let mut jpeg = plain[..2].to_vec(); // SOI
        jpeg.extend_from_slice(&app1);
        jpeg.extend_from_slice(&plain[2..]);
        jpeg
    }

    #[test]
    fn a_photo_stored_sideways_is_sent_upright() {
        let prepared = prepare(&jpeg_with_orientation(2000, 1000, 6)).expect("prepared");
        assert_eq!((prepared.width, prepared.height), (768, 1536), "rotated, then scaled");
        let sent = image::load_from_memory(&prepared.jpeg).expect("a picture").to_rgb8();
        let top = sent.get_pixel(384, 100);
        let bottom = sent.get_pixel(384, 1436);
        assert!(top[0] > 200 && top[2] < 60, "the left (red) half is on top: {top:?}");
        assert!(bottom[2] > 200 && bottom[0] < 60, "the right (blue) half below: {bottom:?}");
    }

    #[test]
    fn an_upright_tag_changes_nothing() {
        let prepared = prepare(&jpeg_with_orientation(400, 200, 1)).expect("prepared");
        assert_eq!((prepared.width, prepared.height), (400, 200));
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
