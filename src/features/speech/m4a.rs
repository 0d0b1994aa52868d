//! AAC in ADTS frames (what an OpenAI-compatible `/audio/speech` answers for
//! `response_format: "aac"`) put into an M4A file (ISO base media, one `mp4a` track, the index
//! before the data), which is what LINE's audio message takes, and its duration in
//! milliseconds counted from the frames. Pure and bounded: at most [`MAX_FRAMES`] frames, one
//! codec configuration throughout; anything else is refused with a reason.
//!
//! The file is `ftyp`, then `moov` (`mvhd`, one `trak` with `tkhd` and `mdia`: `mdhd`, `hdlr`,
//! `minf` with `smhd`, `dinf` and the sample table `stbl`: `stsd` holding `mp4a`/`esds`,
//! `stts`, `stsc`, `stsz`, `stco`), then `mdat` with the raw AAC frames (their ADTS headers
//! removed) as one chunk.

/// The most ADTS frames muxed: about 12 minutes at 24 kHz (1024 samples a frame).
pub const MAX_FRAMES: usize = 16_384;
/// Samples in one AAC frame.
const SAMPLES_PER_FRAME: u32 = 1024;
/// The sampling rates an ADTS header can name, by index.
const RATES: [u32; 13] = [
    96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000,
    7_350,
];

/// Why ADTS audio could not be put into M4A.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum M4aError {
    /// No frame at all.
    #[error("no AAC frames")]
    Empty,
    /// Bytes that are not an ADTS frame where one should start, or a frame cut short.
    #[error("not ADTS at byte {0}")]
    NotAdts(usize),
    /// A frame whose codec configuration differs from the first's, or one hearth does not mux
    /// (several raw blocks in a frame, a sampling rate index out of range).
    #[error("unsupported ADTS frame at byte {0}")]
    Unsupported(usize),
    /// More than [`MAX_FRAMES`] frames.
    #[error("more than {MAX_FRAMES} AAC frames")]
    TooLong,
}

/// An M4A file and how long it plays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct M4a {
    /// The file.
    pub bytes: Vec<u8>,
    /// Its duration in milliseconds (rounded up).
    pub duration_ms: u64,
}

/// The codec configuration every frame of one stream shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Config {
    /// MPEG-4 audio object type (2: AAC LC).
    object_type: u8,
    rate_index: u8,
    channels: u8,
}

impl Config {
    fn rate(self) -> u32 {
        RATES[usize::from(self.rate_index)]
    }

    /// The two bytes of the AudioSpecificConfig.
    fn audio_specific(self) -> [u8; 2] {
        let bits = (u16::from(self.object_type) << 11)
            | (u16::from(self.rate_index) << 7)
            | (u16::from(self.channels) << 3);
        bits.to_be_bytes()
    }
}

/// The frames of `adts`: their shared configuration and each frame's raw AAC payload.
fn frames(adts: &[u8]) -> Result<(Config, Vec<&[u8]>), M4aError> {
    let mut at = 0;
    let mut config = None;
    let mut payloads = Vec::new();
    while at < adts.len() {
        let h = adts.get(at..at + 7).ok_or(M4aError::NotAdts(at))?;
        if h[0] != 0xFF || h[1] & 0xF6 != 0xF0 {
            return Err(M4aError::NotAdts(at));
        }
        let crc = h[1] & 0x01 == 0;
        let this = Config {
            object_type: (h[2] >> 6) + 1,
            rate_index: (h[2] >> 2) & 0x0F,
            channels: ((h[2] & 0x01) << 2) | (h[3] >> 6),
        };
        let length =
            (usize::from(h[3] & 0x03) << 11) | (usize::from(h[4]) << 3) | usize::from(h[5] >> 5);
        let blocks = h[6] & 0x03;
        let header = if crc { 9 } else { 7 };
        if blocks != 0 || usize::from(this.rate_index) >= RATES.len() || this.channels == 0 {
            return Err(M4aError::Unsupported(at));
        }
        if *config.get_or_insert(this) != this {
            return Err(M4aError::Unsupported(at));
        }
        if length <= header {
            return Err(M4aError::NotAdts(at));
        }
        let payload = adts.get(at + header..at + length).ok_or(M4aError::NotAdts(at))?;
        if payloads.len() == MAX_FRAMES {
            return Err(M4aError::TooLong);
        }
        payloads.push(payload);
        at += length;
    }
    Ok((config.ok_or(M4aError::Empty)?, payloads))
}

/// The M4A file of the ADTS stream `adts`, with its duration.
pub fn from_adts(adts: &[u8]) -> Result<M4a, M4aError> {
    let (config, payloads) = frames(adts)?;
    let samples = u64::from(SAMPLES_PER_FRAME) * payloads.len() as u64;
    let rate = u64::from(config.rate());
    let duration_ms = (samples * 1000).div_ceil(rate);
    let ftyp = boxed(b"ftyp", &[b"M4A ".as_slice(), &0u32.to_be_bytes(), b"M4A mp42isom"].concat());
    let data_len: usize = payloads.iter().map(|p| p.len()).sum();
    // The index's size does not depend on where the data starts: measure it, then write it.
    let index_len = moov(config, &payloads, samples, duration_ms, 0).len();
    let data_at = ftyp.len() + index_len + 8;
    let mut bytes = Vec::with_capacity(data_at + data_len);
    bytes.extend_from_slice(&ftyp);
    bytes.extend_from_slice(&moov(config, &payloads, samples, duration_ms, data_at as u32));
    bytes.extend_from_slice(&((data_len + 8) as u32).to_be_bytes());
    bytes.extend_from_slice(b"mdat");
    for payload in &payloads {
        bytes.extend_from_slice(payload);
    }
    Ok(M4a { bytes, duration_ms })
}

/// A box: its size, its type, `body`.
fn boxed(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 8);
    out.extend_from_slice(&((body.len() + 8) as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(body);
    out
}

/// A full box: version 0, `flags`.
fn full(kind: &[u8; 4], flags: u32, body: &[u8]) -> Vec<u8> {
    boxed(kind, &[&flags.to_be_bytes()[..], body].concat())
}

/// The identity matrix of `mvhd` and `tkhd`.
fn matrix() -> Vec<u8> {
    [0x0001_0000u32, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect()
}

fn be32(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_be_bytes()).collect()
}

/// The 16.16 sample rate of `mp4a` (0 for rates it cannot hold; `esds` names the rate).
fn sample_rate_field(rate: u32) -> u32 {
    if rate <= 0xFFFF { rate << 16 } else { 0 }
}

/// An MPEG-4 descriptor: tag, one-byte size (every descriptor here is short), body.
fn descriptor(tag: u8, body: &[u8]) -> Vec<u8> {
    [&[tag, body.len() as u8][..], body].concat()
}

fn moov(
    config: Config,
    payloads: &[&[u8]],
    samples: u64,
    duration_ms: u64,
    data_at: u32,
) -> Vec<u8> {
    let duration_ms = u32::try_from(duration_ms).unwrap_or(u32::MAX);
    let samples = u32::try_from(samples).unwrap_or(u32::MAX);
    let count = payloads.len() as u32;
    let mvhd = full(
        b"mvhd",
        0,
        &[
            be32(&[0, 0, 1000, duration_ms, 0x0001_0000]),
            vec![0x01, 0x00, 0, 0],
            vec![0; 8],
            matrix(),
            vec![0; 24],
            be32(&[2]),
        ]
        .concat(),
    );
    let tkhd = full(
        b"tkhd",
        0x03,
        &[
            be32(&[0, 0, 1, 0, duration_ms, 0, 0]),
            vec![0, 0, 0, 0, 0x01, 0x00, 0, 0],
            matrix(),
            be32(&[0, 0]),
        ]
        .concat(),
    );
    let mdhd =
        full(b"mdhd", 0, &[be32(&[0, 0, config.rate(), samples]), vec![0x55, 0xC4, 0, 0]].concat());
    let hdlr = full(
        b"hdlr",
        0,
        &[be32(&[0]), b"soun".to_vec(), vec![0; 12], b"SoundHandler\0".to_vec()].concat(),
    );
    let largest = payloads.iter().map(|p| p.len()).max().unwrap_or(0) as u32;
    let seconds = (samples / config.rate()).max(1);
    let average =
        (payloads.iter().map(|p| p.len()).sum::<usize>() as u32).saturating_mul(8) / seconds;
    let decoder = descriptor(
        0x04,
        &[
            vec![0x40, 0x15],
            largest.to_be_bytes()[1..].to_vec(),
            be32(&[average, average]),
            descriptor(0x05, &config.audio_specific()),
        ]
        .concat(),
    );
    let es = descriptor(0x03, &[vec![0, 1, 0], decoder, descriptor(0x06, &[0x02])].concat());
    let mp4a = boxed(
        b"mp4a",
        &[
            vec![0; 6],
            vec![0, 1],
            vec![0; 8],
            vec![0, config.channels, 0, 16, 0, 0, 0, 0],
            sample_rate_field(config.rate()).to_be_bytes().to_vec(),
            full(b"esds", 0, &es),
        ]
        .concat(),
    );
    let stbl = boxed(
        b"stbl",
        &[
            full(b"stsd", 0, &[be32(&[1]), mp4a].concat()),
            full(b"stts", 0, &be32(&[1, count, SAMPLES_PER_FRAME])),
            full(b"stsc", 0, &be32(&[1, 1, count, 1])),
            full(
                b"stsz",
                0,
                &[
                    be32(&[0, count]),
                    payloads.iter().flat_map(|p| (p.len() as u32).to_be_bytes()).collect(),
                ]
                .concat(),
            ),
            full(b"stco", 0, &be32(&[1, data_at])),
        ]
        .concat(),
    );
    let dinf = boxed(b"dinf", &full(b"dref", 0, &[be32(&[1]), full(b"url ", 1, &[])].concat()));
    let minf = boxed(b"minf", &[full(b"smhd", 0, &[0; 4]), dinf, stbl].concat());
    let mdia = boxed(b"mdia", &[mdhd, hdlr, minf].concat());
    let trak = boxed(b"trak", &[tkhd, mdia].concat());
    boxed(b"moov", &[mvhd, trak].concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ADTS frame of AAC LC at `rate_index` with `payload` bytes (no CRC).
    fn frame(rate_index: u8, channels: u8, payload: &[u8]) -> Vec<u8> {
        let length = payload.len() + 7;
        let mut h = vec![
            0xFF,
            0xF1,
            (1 << 6) | (rate_index << 2) | (channels >> 2),
            ((channels & 0x03) << 6) | ((length >> 11) as u8 & 0x03),
            (length >> 3) as u8,
            (((length & 0x07) as u8) << 5) | 0x1F,
            0xFC,
        ];
        h.extend_from_slice(payload);
        h
    }

    fn stream(frames: usize) -> Vec<u8> {
        (0..frames).flat_map(|i| frame(6, 1, &[i as u8; 20])).collect()
    }

    /// The boxes at the top of `file`: type and size.
    fn top(file: &[u8]) -> Vec<(String, usize)> {
        let mut at = 0;
        let mut boxes = Vec::new();
        while at + 8 <= file.len() {
            let size = u32::from_be_bytes(file[at..at + 4].try_into().expect("4")) as usize;
            boxes.push((String::from_utf8_lossy(&file[at + 4..at + 8]).into_owned(), size));
            at += size.max(8);
        }
        boxes
    }

    #[test]
    fn the_duration_is_counted_from_the_frames_and_the_rate() {
        // 24 kHz: 1024 samples a frame; 47 frames are 2005.33 ms, rounded up.
        let m4a = from_adts(&stream(47)).expect("m4a");
        assert_eq!(m4a.duration_ms, 2006);
    }

    #[test]
    fn the_file_is_ftyp_moov_mdat_and_the_boxes_fill_it_exactly() {
        let m4a = from_adts(&stream(10)).expect("m4a");
        let boxes = top(&m4a.bytes);
        let kinds: Vec<&str> = boxes.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(kinds, ["ftyp", "moov", "mdat"]);
        assert_eq!(boxes.iter().map(|(_, s)| s).sum::<usize>(), m4a.bytes.len());
        assert_eq!(boxes[2].1, 8 + 10 * 20, "the raw frames without their ADTS headers");
    }

    #[test]
    fn the_chunk_offset_points_at_the_first_frame() {
        let m4a = from_adts(&stream(3)).expect("m4a");
        let stco = m4a.bytes.windows(4).position(|w| w == b"stco").expect("stco");
        let offset =
            u32::from_be_bytes(m4a.bytes[stco + 12..stco + 16].try_into().expect("4")) as usize;
        assert_eq!(&m4a.bytes[offset..offset + 20], &[0u8; 20]);
        assert_eq!(&m4a.bytes[offset + 20..offset + 40], &[1u8; 20]);
    }

    #[test]
    fn the_decoder_config_names_aac_lc_at_the_streams_rate_and_channels() {
        let m4a = from_adts(&frame(4, 2, &[9; 30])).expect("m4a");
        // AAC LC (2), 44.1 kHz (index 4), stereo: 00010 0100 0010 000.
        let asc = [0x05, 0x02, 0x12, 0x10];
        assert!(m4a.bytes.windows(4).any(|w| w == asc), "AudioSpecificConfig");
    }

    #[test]
    fn what_is_not_adts_is_refused_and_nothing_is_made() {
        assert_eq!(from_adts(b""), Err(M4aError::Empty));
        assert_eq!(from_adts(b"ID3\x04 not aac at all"), Err(M4aError::NotAdts(0)));
        let mut cut = stream(2);
        cut.truncate(cut.len() - 3);
        assert_eq!(from_adts(&cut), Err(M4aError::NotAdts(27)));
        let mut mixed = frame(6, 1, &[1; 10]);
        mixed.extend(frame(3, 1, &[1; 10]));
        assert_eq!(from_adts(&mixed), Err(M4aError::Unsupported(17)));
    }

    #[test]
    fn a_speech_servers_aac_keeps_its_frames_and_length() {
        // 1.5 s of AAC LC at 24 kHz from ffmpeg (scripts/speech_fixture.sh): 37 frames.
        let adts = include_bytes!("../../../tests/fixtures/speech.aac");
        let m4a = from_adts(adts).expect("m4a");
        assert_eq!(m4a.duration_ms, 1579);
        assert!(m4a.bytes.len() < adts.len() + 1024, "the index is small");
    }

    #[test]
    fn a_stream_longer_than_the_bound_is_refused() {
        let long: Vec<u8> = (0..=MAX_FRAMES).flat_map(|_| frame(6, 1, &[0; 1])).collect();
        assert_eq!(from_adts(&long), Err(M4aError::TooLong));
    }
}
