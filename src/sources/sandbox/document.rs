//! Files the family shares, read like a page: plain-text files as they are (UTF-8), PDFs by
//! their text (at most [`MAX_PDF_PAGES`] pages), cut to what the model is given. Run them in
//! [`crate::sources::sandbox`]: a hostile PDF can recurse, loop or inflate without bound. A PDF without text (a scan) is refused rather than read as
//! pictures. Which files are read is decided from the name; everything else gets a
//! polite refusal that says what works.

/// The most characters of a document given to the model.
pub const MAX_CHARS: usize = 6000;

/// The most pages of a PDF read; a longer one is refused.
pub const MAX_PDF_PAGES: usize = 30;

/// What kind of document a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocKind {
    /// Plain text (`.txt`, `.md`, `.csv`, and a calendar's `.ics`).
    Text,
    /// A PDF.
    Pdf,
}

/// The kind of document `file_name` names; `None` for files hearth does not read.
pub fn kind_of(file_name: &str) -> Option<DocKind> {
    let lower = file_name.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map(|(_, e)| e)?;
    match ext {
        "txt" | "md" | "csv" | "text" | "ics" => Some(DocKind::Text),
        "pdf" => Some(DocKind::Pdf),
        _ => None,
    }
}

/// Why a document could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DocError {
    /// Not UTF-8 text, or empty.
    #[error("the file has no readable text")]
    NoText,
    /// A PDF that does not parse.
    #[error("the PDF cannot be read: {0}")]
    Damaged(String),
    /// A PDF of more than [`MAX_PDF_PAGES`] pages.
    #[error("the PDF has {0} pages")]
    TooManyPages(usize),
}

/// The text of a PDF (see [`MAX_PDF_PAGES`]), at most [`MAX_CHARS`] characters; `NoText` for a
/// scan.
pub fn read_pdf(bytes: &[u8]) -> Result<String, DocError> {
    let parsed =
        pdf_extract::Document::load_mem(bytes).map_err(|e| DocError::Damaged(e.to_string()))?;
    let pages = parsed.get_pages().len();
    if pages > MAX_PDF_PAGES {
        return Err(DocError::TooManyPages(pages));
    }
    drop(parsed);
    let text =
        pdf_extract::extract_text_from_mem(bytes).map_err(|e| DocError::Damaged(e.to_string()))?;
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.is_empty() {
        return Err(DocError::NoText);
    }
    Ok(text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
        .chars()
        .take(MAX_CHARS)
        .collect())
}

/// The text of a plain-text file, at most [`MAX_CHARS`] characters (a byte-order mark dropped).
pub fn read_text(bytes: &[u8]) -> Result<String, DocError> {
    let text = std::str::from_utf8(bytes).map_err(|_| DocError::NoText)?;
    let text = text.trim_start_matches('\u{feff}').trim();
    if text.is_empty() {
        return Err(DocError::NoText);
    }
    Ok(text.chars().take(MAX_CHARS).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_known_by_their_extension() {
        assert_eq!(kind_of("通知.TXT"), Some(DocKind::Text));
        assert_eq!(kind_of("report.pdf"), Some(DocKind::Pdf));
        assert_eq!(kind_of("movie.mp4"), None);
        assert_eq!(kind_of("noextension"), None);
    }

    #[test]
    fn text_is_read_and_cut() {
        assert_eq!(read_text("\u{feff}家長會 12/5".as_bytes()).expect("text"), "家長會 12/5");
        assert_eq!(read_text(&vec![b'a'; 10_000]).expect("text").len(), MAX_CHARS);
        assert!(read_text(&[0xff, 0xfe, 0x00]).is_err());
        assert!(read_text(b"   ").is_err());
    }
}
