//! Files a hostile family member could send, made by the tests (nothing large is committed):
//! PDFs that recurse, loop or inflate without bound, and a photo whose pixels do not fit in
//! memory. Each is small on the wire; the zero-filled streams are written as raw DEFLATE
//! (one literal, then back-references of 258 bytes, 13 bits each), so making a gigabyte of
//! zeros costs the test a few megabytes and milliseconds.

use std::io::Write;

/// A PDF of `objects` (numbered from 1, the first the catalog) with a correct cross-reference
/// table.
pub fn pdf_of(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

fn object(text: &str) -> Vec<u8> {
    text.as_bytes().to_vec()
}

fn stream(dictionary: &str, data: &[u8]) -> Vec<u8> {
    let mut body = format!("<< {dictionary} /Length {} >>\nstream\n", data.len()).into_bytes();
    body.extend_from_slice(data);
    body.extend_from_slice(b"\nendstream");
    body
}

/// A one-page PDF whose page draws a Form XObject that draws itself (about 1 KB).
pub fn self_drawing_form_pdf() -> Vec<u8> {
    pdf_of(&[
        object("<< /Type /Catalog /Pages 2 0 R >>"),
        object("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
        object(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /X1 4 0 R >> >> /Contents 5 0 R >>",
        ),
        stream(
            "/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /X1 4 0 R >> >>",
            b"/X1 Do",
        ),
        stream("", b"/X1 Do"),
    ])
}

/// A one-page PDF whose page is its own parent (and inherits everything from it).
pub fn own_parent_pdf() -> Vec<u8> {
    pdf_of(&[
        object("<< /Type /Catalog /Pages 2 0 R >>"),
        object("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
        object("<< /Type /Page /Parent 3 0 R /Contents 4 0 R >>"),
        stream("", b"BT /F1 12 Tf 72 712 Td (hello) Tj ET"),
    ])
}

/// A PDF with an object stream that inflates, through two levels of zlib, to `zeros` bytes.
pub fn zlib_bomb_pdf(zeros: u64) -> Vec<u8> {
    let inner = zlib_zeros(zeros);
    let mut outer = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    outer.write_all(&inner).expect("compress");
    let outer = outer.finish().expect("compress");
    pdf_of(&[
        object("<< /Type /Catalog /Pages 2 0 R >>"),
        object("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
        object("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"),
        stream("/Type /ObjStm /N 1 /First 4 /Filter [/FlateDecode /FlateDecode]", &outer),
    ])
}

/// An RGB PNG of `width` × `height` black pixels.
pub fn black_png(width: u32, height: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::new();
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    header.extend_from_slice(&[8, 2, 0, 0, 0]); // 8 bits, RGB, deflate, no filter, no interlace
    chunk(&mut png, b"IHDR", &header);
    let row = 1 + 3 * u64::from(width); // each row: its filter byte, then the pixels
    chunk(&mut png, b"IDAT", &zlib_zeros(row * u64::from(height)));
    chunk(&mut png, b"IEND", &[]);
    png
}

fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend_from_slice(&u32::try_from(data.len()).expect("chunk").to_be_bytes());
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let mut crc = flate2::Crc::new();
    crc.update(kind);
    crc.update(data);
    png.extend_from_slice(&crc.sum().to_be_bytes());
}

/// A zlib stream of `n` zero bytes: one fixed-Huffman block of a literal 0 and back-references
/// of distance 1.
pub fn zlib_zeros(n: u64) -> Vec<u8> {
    let mut bits = BitWriter::default();
    bits.put(1, 1); // the last block
    bits.put(1, 2); // fixed Huffman codes
    if n > 0 {
        bits.put_code(0b0011_0000, 8); // literal 0
    }
    let mut left = n.saturating_sub(1);
    while left >= 3 {
        let len = left.min(258);
        let len = if left - len > 0 && left - len < 3 { len - 3 } else { len };
        put_length(&mut bits, len);
        bits.put_code(0, 5); // distance code 0: distance 1
        left -= len;
    }
    for _ in 0..left {
        bits.put_code(0b0011_0000, 8);
    }
    bits.put_code(0, 7); // end of block (code 256)
    let mut out = vec![0x78, 0x01];
    out.extend_from_slice(&bits.finish());
    let adler = ((n % 65521) << 16) | 1; // a stays 1 over zeros; b adds it once per byte
    out.extend_from_slice(&(adler as u32).to_be_bytes());
    out
}

/// A length of 3..=258 in the fixed code (RFC 1951 3.2.5–3.2.6).
fn put_length(bits: &mut BitWriter, len: u64) {
    const BASE: [u64; 29] = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115,
        131, 163, 195, 227, 258,
    ];
    const EXTRA: [u32; 29] =
        [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
    let i = BASE.iter().rposition(|b| *b <= len).expect("length");
    let code = 257 + i as u32;
    if code <= 279 {
        bits.put_code(code - 256, 7);
    } else {
        bits.put_code(0b1100_0000 + (code - 280), 8);
    }
    bits.put((len - BASE[i]) as u32, EXTRA[i]);
}

#[derive(Default)]
struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    used: u32,
}

impl BitWriter {
    /// `count` bits of `value`, least significant first (extra bits, header fields).
    fn put(&mut self, value: u32, count: u32) {
        self.acc |= u64::from(value) << self.used;
        self.used += count;
        while self.used >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.used -= 8;
        }
    }

    /// A Huffman code of `count` bits, most significant first.
    fn put_code(&mut self, code: u32, count: u32) {
        let reversed = code.reverse_bits() >> (32 - count);
        self.put(reversed, count);
    }

    fn finish(mut self) -> Vec<u8> {
        if self.used > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}
