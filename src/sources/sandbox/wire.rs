//! What passes between hearth and a parsing child, both ways: one JSON line, then raw bytes of
//! the length it names. The request is a [`Job`] and the bytes to parse; the answer is an
//! [`Answer`] and, for a picture, the JPEG. Either side reads no more than the limits here, so
//! neither a confused child nor a confused parent can make the other allocate without bound.

use std::io::{BufRead, Read};

use serde::{Deserialize, Serialize};

/// The longest JSON line either side reads.
pub const MAX_LINE: usize = 1 << 20;
/// The most bytes a request may carry to the child.
pub const MAX_INPUT: u64 = 64 << 20;
/// The most bytes of an answer's payload (a JPEG of 1536 pixels is well under a megabyte).
pub const MAX_PAYLOAD: u64 = 8 << 20;

/// What the child is asked to do with the bytes that follow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Job {
    /// The text of a PDF.
    Pdf,
    /// The text of a plain-text file.
    TextFile,
    /// A photo decoded, turned upright, scaled down and encoded as JPEG.
    Picture,
    /// The main text of a fetched page (its body, UTF-8).
    Page {
        /// HTML (else plain text).
        html: bool,
        /// The page's address (for relative links and the site name).
        url: String,
        /// Characters of text kept at most.
        budget_chars: usize,
        /// Whether the Readability extractor may be used (else tags are stripped).
        readability: bool,
    },
}

/// The first line of a request.
#[derive(Debug, Serialize, Deserialize)]
pub struct Request {
    /// The job.
    pub job: Job,
    /// How many bytes follow.
    pub len: u64,
}

/// What the child found; the first line of its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Answer {
    /// The text of a document.
    Text(String),
    /// A prepared picture; `len` bytes of JPEG follow.
    Picture {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// Bytes of JPEG that follow.
        len: u64,
    },
    /// A page's readable content.
    Page {
        /// Its title.
        title: Option<String>,
        /// Its site's name.
        site: Option<String>,
        /// Its main text.
        text: String,
        /// True when the text was cut to the budget.
        truncated: bool,
    },
    /// The content itself cannot be used (said by the parser, not a crash).
    Refused(Refusal),
}

/// Why the parser refused content: a property of the content, not of the child.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum Refusal {
    /// A document without text (empty, not UTF-8, a scanned PDF).
    #[error("the file has no readable text")]
    NoText,
    /// A PDF with more pages than hearth reads.
    #[error("the PDF has {0} pages")]
    TooManyPages(usize),
    /// Damaged, or not the kind of content it claims to be.
    #[error("the content cannot be read: {0}")]
    Unreadable(String),
}

/// Why a frame could not be read.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// Reading failed.
    #[error("reading failed: {0}")]
    Io(#[from] std::io::Error),
    /// The JSON line is missing, too long or not what was expected.
    #[error("malformed frame: {0}")]
    Malformed(String),
    /// The payload is longer than allowed.
    #[error("the payload of {0} bytes is over the limit")]
    TooLong(u64),
}

/// Reads one JSON line of at most [`MAX_LINE`] bytes.
pub fn read_line<T: for<'de> Deserialize<'de>>(input: &mut impl BufRead) -> Result<T, WireError> {
    let mut line = Vec::new();
    input.take(MAX_LINE as u64 + 1).read_until(b'\n', &mut line)?;
    if line.last() != Some(&b'\n') {
        return Err(WireError::Malformed("no complete first line".into()));
    }
    serde_json::from_slice(&line).map_err(|e| WireError::Malformed(e.to_string()))
}

/// Reads exactly `len` bytes, refusing more than `max`.
pub fn read_payload(input: &mut impl Read, len: u64, max: u64) -> Result<Vec<u8>, WireError> {
    if len > max {
        return Err(WireError::TooLong(len));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    input.take(len).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != len {
        return Err(WireError::Malformed(format!("{} of {len} bytes", bytes.len())));
    }
    Ok(bytes)
}

/// A frame: `head` as one JSON line, then `payload`.
pub fn frame(head: &impl Serialize, payload: &[u8]) -> Vec<u8> {
    let mut out = serde_json::to_vec(head).unwrap_or_default();
    out.push(b'\n');
    out.extend_from_slice(payload);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_travels_as_a_line_and_its_bytes() {
        let sent = frame(&Request { job: Job::Pdf, len: 3 }, b"%PD");
        let mut input = std::io::Cursor::new(sent);
        let request: Request = read_line(&mut input).expect("line");
        assert_eq!(request.job, Job::Pdf);
        assert_eq!(read_payload(&mut input, request.len, MAX_INPUT).expect("bytes"), b"%PD");
    }

    #[test]
    fn a_short_payload_or_an_endless_line_is_malformed() {
        let sent = frame(&Request { job: Job::TextFile, len: 10 }, b"abc");
        let mut input = std::io::Cursor::new(sent);
        let request: Request = read_line(&mut input).expect("line");
        assert!(read_payload(&mut input, request.len, MAX_INPUT).is_err());
        let endless = vec![b'{'; MAX_LINE + 10];
        assert!(read_line::<Request>(&mut std::io::Cursor::new(endless)).is_err());
        assert!(matches!(
            read_payload(&mut std::io::Cursor::new(Vec::new()), MAX_INPUT + 1, MAX_INPUT),
            Err(WireError::TooLong(_))
        ));
    }
}
