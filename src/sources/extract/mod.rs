//! The main text of a fetched page: a Readability-style extractor (`dom_smoothie`, Markdown
//! output) for HTML, with a plain tag-stripping fallback for pages it cannot grab, and plain text
//! as it is. No page may crash hearth or hold a worker past the fetch time limit, so:
//!
//! - the Readability path only gets documents no deeper than [`shape::MAX_DEPTH`] and no larger
//!   than [`shape::MAX_ELEMENTS`] (measured without recursion before and after parsing); others
//!   take the fallback, which is a few flat passes over the text;
//! - extraction runs in a child process under the operating system's limits
//!   ([`crate::sources::sandbox`]), on a thread with a large stack;
//! - the fallback's entity decoder looks a bounded distance ahead, so no input makes it
//!   quadratic, and title, site and text are cut to fixed budgets.

pub mod shape;

use super::fetch::PageKind;

/// Characters of a page title or site name kept at most.
pub const LABEL_MAX_CHARS: usize = 300;

/// A page's readable content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// The page title, when it has one (at most [`LABEL_MAX_CHARS`] characters and `…`).
    pub title: Option<String>,
    /// The site's name, when the page says (at most [`LABEL_MAX_CHARS`] characters and `…`).
    pub site: Option<String>,
    /// The main text, at most the budget (and `…`).
    pub text: String,
    /// True when the text was cut to the budget.
    pub truncated: bool,
}

/// The synchronous extraction, with the Readability extractor when `readability` (run it in
/// [`crate::sources::sandbox`]: Readability's output recurses once per level of nesting, which the
/// child's thread is sized for), else by stripping tags.
pub fn extract_blocking(
    kind: PageKind,
    body: &str,
    url: &str,
    budget_chars: usize,
    readability: bool,
) -> Extracted {
    let (title, site, text) = match kind {
        PageKind::Text => (None, None, body.to_string()),
        PageKind::Html => readability
            .then(|| readable(body, url))
            .flatten()
            .unwrap_or_else(|| (title_tag(body), None, strip_tags(&remove_blocks(body)))),
    };
    let text = tidy(&text);
    let (text, truncated) = truncate_chars(&text, budget_chars);
    let clean = |s: Option<String>| {
        s.map(|t| truncate_chars(&tidy(&t), LABEL_MAX_CHARS).0).filter(|t| !t.is_empty())
    };
    Extracted { title: clean(title), site: clean(site), text, truncated }
}

/// Readability over the HTML; `None` when it finds no article.
fn readable(html: &str, url: &str) -> Option<(Option<String>, Option<String>, String)> {
    let scanned = shape::scan(html);
    if !scanned.fits() {
        tracing::debug!(?scanned, "page too deep or too large for readability; stripping tags");
        return None;
    }
    let document = dom_query::Document::from(html);
    let parsed = shape::measure(&document);
    if !parsed.fits() {
        tracing::debug!(?parsed, "parsed page too deep or too large for readability");
        return None;
    }
    let config = dom_smoothie::Config {
        max_elements_to_parse: shape::MAX_ELEMENTS,
        text_mode: dom_smoothie::TextMode::Markdown,
        ..Default::default()
    };
    let mut readability =
        dom_smoothie::Readability::with_document(document, Some(url), Some(config)).ok()?;
    match readability.parse() {
        Ok(article) if !article.text_content.trim().is_empty() => Some((
            Some(article.title).filter(|t| !t.trim().is_empty()),
            article.site_name,
            article.text_content.to_string(),
        )),
        Ok(_) => None,
        Err(e) => {
            tracing::debug!(error = %e, "readability found no article; stripping tags");
            None
        }
    }
}

fn title_tag(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let start = lower.find("<title")?;
    let open_end = start + lower[start..].find('>')? + 1;
    let close = open_end + lower[open_end..].find("</title")?;
    Some(decode_entities(html.get(open_end..close)?.trim()))
}

/// Elements whose content is never text for a reader.
const NOT_TEXT: &[&str] =
    &["script", "style", "noscript", "nav", "header", "footer", "aside", "template"];

/// Removes [`NOT_TEXT`] elements with their content, in one pass (ASCII lower-casing keeps byte
/// offsets, so the lower-case copy indexes the original).
fn remove_blocks(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut out = String::with_capacity(html.len());
    let mut copied = 0;
    let mut at = 0;
    while let Some(found) = lower[at..].find('<') {
        let open = at + found;
        let rest = &lower[open + 1..];
        let tag = NOT_TEXT.iter().find(|t| {
            rest.starts_with(**t)
                && !rest.as_bytes().get(t.len()).is_some_and(|b| b.is_ascii_alphanumeric())
        });
        let Some(tag) = tag else {
            at = open + 1;
            continue;
        };
        out.push_str(&html[copied..open]);
        out.push(' ');
        let close = format!("</{tag}>");
        copied = match lower[open..].find(&close) {
            Some(end) => open + end + close.len(),
            None => html.len(),
        };
        at = copied;
    }
    out.push_str(&html[copied.min(html.len())..]);
    out
}

/// Removes tags and decodes the common entities (search snippets, the fallback extractor).
pub fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match (c, in_tag) {
            ('<', _) => in_tag = true,
            ('>', true) => {
                in_tag = false;
                out.push(' ');
            }
            (_, true) => {}
            (c, false) => out.push(c),
        }
    }
    let decoded = decode_entities(&out);
    decoded.split(' ').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Strips tags inline (no spaces added), for short snippets with `<strong>` highlights.
pub fn strip_inline_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    decode_entities(&out).trim().to_string()
}

fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        // An entity is short: looking further ahead would make `&&&&…` quadratic.
        let Some(end) = rest.bytes().take(11).position(|b| b == b';') else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..end];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some(' '),
            _ => entity
                .strip_prefix("#x")
                .or_else(|| entity.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Trims lines and collapses runs of blank lines.
fn tidy(text: &str) -> String {
    let mut out = String::new();
    let mut blank = 0;
    for line in text.lines().map(str::trim_end) {
        if line.trim().is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line);
    }
    out.trim().to_string()
}

/// At most `max` characters, cut at a char boundary.
pub fn truncate_chars(text: &str, max: usize) -> (String, bool) {
    match text.char_indices().nth(max) {
        Some((at, _)) => (format!("{}…", &text[..at]), true),
        None => (text.to_string(), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_entities_are_stripped() {
        assert_eq!(strip_inline_tags("<strong>台北</strong> 天氣 &amp; 雨"), "台北 天氣 & 雨");
        assert_eq!(strip_tags("<p>a</p><p>b&#39;s &#x4e2d;</p>"), "a b's 中");
        assert_eq!(decode_entities("a & b &bogus; &"), "a & b &bogus; &");
    }

    #[test]
    fn the_fallback_drops_scripts_and_navigation() {
        let html = "<html><head><title>T &amp; U</title><script>var x=1;</script></head><body><nav>Home | News</nav><p>Body text.</p></body></html>";
        let out = extract_blocking(PageKind::Html, html, "https://example.com/", 1000, true);
        assert!(out.text.contains("Body text."), "{out:?}");
        assert!(!out.text.contains("var x") && !out.text.contains("Home |"), "{out:?}");
        assert_eq!(out.title.as_deref(), Some("T & U"));
    }

    #[test]
    fn a_run_of_ampersands_is_decoded_in_linear_time() {
        let started = std::time::Instant::now();
        assert_eq!(decode_entities(&"&".repeat(2_000_000)).len(), 2_000_000);
        assert_eq!(decode_entities("&amp;&lt;&#x4e2d;&#20013;"), "&<中中");
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
    }

    #[test]
    fn titles_are_cut_to_a_label_budget() {
        let html = format!("<title>{}</title><p>text</p>", "長".repeat(10_000));
        let out = extract_blocking(PageKind::Html, &html, "https://example.com/", 100, true);
        assert_eq!(out.title.map(|t| t.chars().count()), Some(LABEL_MAX_CHARS + 1));
    }

    #[test]
    fn plain_text_is_kept_and_cut_to_the_budget() {
        let out = extract_blocking(
            PageKind::Text,
            "第一行\n\n\n\n第二行",
            "https://e.com/a.txt",
            5,
            true,
        );
        assert_eq!(out.text, "第一行\n\n…");
        assert!(out.truncated);
    }
}
