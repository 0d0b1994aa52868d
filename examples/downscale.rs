//! Measures what scaling photos down before the vision model saves: a phone-sized photo
//! (4032×3024, generated with camera-like texture and encoded as JPEG at quality 90) against the
//! same photo as hearth sends it (long side 1536, JPEG at 85). Prints bytes, the base64 payload
//! sent in the request, the time taken, and the image tokens of OpenAI's tile formula.
//!
//! `cargo run --release --example downscale`

use std::io::Cursor;
use std::time::Instant;

use image::codecs::jpeg::JpegEncoder;
use image::{Rgb, RgbImage};

fn main() {
    let (width, height) = (4032, 3024);
    // A scene with gradients and fine noise, like a photographed notice: deterministic.
    let mut seed: u32 = 0x2545_f491;
    let photo = RgbImage::from_fn(width, height, |x, y| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        let noise = (seed % 24) as u8;
        let stripe = if (y / 60) % 7 == 0 && (x / 12) % 3 != 0 { 90 } else { 0 };
        let base = |v: u32| (v % 200) as u8;
        Rgb([
            base(x / 20 + 40).saturating_sub(stripe).saturating_add(noise),
            base(y / 16 + 30).saturating_sub(stripe).saturating_add(noise),
            base((x + y) / 30 + 50).saturating_sub(stripe).saturating_add(noise),
        ])
    });
    let mut original = Vec::new();
    JpegEncoder::new_with_quality(&mut Cursor::new(&mut original), 90)
        .encode_image(&photo)
        .expect("encode");

    let started = Instant::now();
    let prepared = hearth::sources::sandbox::picture::prepare(&original).expect("prepare");
    let took = started.elapsed();

    let b64 = |n: usize| n.div_ceil(3) * 4;
    let before_tokens = hearth::sources::sandbox::picture::vision_tokens(width, height);
    let after_tokens =
        hearth::sources::sandbox::picture::vision_tokens(prepared.width, prepared.height);
    println!(
        "original: {width}x{height}, {} bytes ({} as base64)",
        original.len(),
        b64(original.len())
    );
    println!(
        "sent:     {}x{}, {} bytes ({} as base64), prepared in {:.0} ms",
        prepared.width,
        prepared.height,
        prepared.jpeg.len(),
        b64(prepared.jpeg.len()),
        took.as_secs_f64() * 1000.0
    );
    println!(
        "saving:   {:.1} % of the bytes; pixels {:.1} % fewer",
        100.0 * (1.0 - prepared.jpeg.len() as f64 / original.len() as f64),
        100.0 * (1.0 - f64::from(prepared.width * prepared.height) / f64::from(width * height))
    );
    println!("OpenAI image tokens (detail high, tile formula): {before_tokens} -> {after_tokens}");
}
