//! LINE's ways of counting text, and splitting a long answer into messages.
//!
//! Message text is limited in UTF-16 code units (🍎 counts 2); labels and action texts in
//! grapheme clusters ([`crate::platform::text`]). Splitting never cuts a grapheme cluster (so never a surrogate pair) and
//! prefers paragraph, line, sentence and word boundaries, in that order.

use unicode_segmentation::UnicodeSegmentation;

pub use crate::platform::text::{grapheme_len, truncate_graphemes};

/// The most UTF-16 units in one text message.
pub const MAX_TEXT_UNITS: usize = 5000;

/// Length in UTF-16 code units, as LINE counts message text.
pub fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// The first `max` UTF-16 units of `s` on a grapheme boundary, with `…` when cut.
pub fn truncate_utf16(s: &str, max: usize) -> String {
    // No more UTF-16 units than bytes: a short text is not counted.
    if s.len() <= max || utf16_len(s) <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for g in s.graphemes(true) {
        let n = utf16_len(g);
        if used + n + 1 > max {
            break;
        }
        out.push_str(g);
        used += n;
    }
    out.push('…');
    out
}

/// Splits `text` into chunks of at most `max_units` UTF-16 units. Nothing is lost: the chunks
/// concatenate back to `text`. Empty text gives no chunks.
pub fn split(text: &str, max_units: usize) -> Vec<String> {
    let mut chunks = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        if utf16_len(rest) <= max_units {
            chunks.push(rest.to_string());
            break;
        }
        let cut = best_cut(rest, max_units);
        chunks.push(rest[..cut].to_string());
        rest = &rest[cut..];
    }
    chunks
}

/// The byte offset where the first chunk of `text` should end.
fn best_cut(text: &str, max_units: usize) -> usize {
    // The grapheme boundaries that fit, with the grapheme just before each.
    let mut fits = Vec::new();
    let mut used = 0;
    for (offset, g) in text.grapheme_indices(true) {
        let n = utf16_len(g);
        if used + n > max_units {
            break;
        }
        used += n;
        fits.push((offset + g.len(), g));
    }
    let Some(&(last, _)) = fits.last() else {
        // A single grapheme longer than the limit: cut it at a char boundary rather than loop.
        return hard_cut(text, max_units);
    };
    // Prefer a boundary in the second half of the chunk, so chunks are not tiny.
    let floor = last / 2;
    let preferences: [fn(&str) -> bool; 4] = [
        |g| g == "\n\n",
        |g| g == "\n" || g == "\r\n",
        |g| matches!(g, "。" | "！" | "？" | "." | "!" | "?" | "；"),
        |g| g.chars().all(char::is_whitespace) || matches!(g, "，" | "、" | ","),
    ];
    for is_break in preferences {
        if let Some(&(end, _)) = fits
            .iter()
            .rev()
            .find(|(end, g)| *end > floor && (is_break(g) || ends_paragraph(text, *end)))
        {
            return end;
        }
    }
    last
}

fn ends_paragraph(text: &str, end: usize) -> bool {
    text[..end].ends_with("\n\n")
}

fn hard_cut(text: &str, max_units: usize) -> usize {
    let mut used = 0;
    for (offset, c) in text.char_indices() {
        used += c.len_utf16();
        if used > max_units {
            // Never an empty chunk: a first char over the limit goes whole.
            return if offset == 0 { c.len_utf8() } else { offset };
        }
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_grapheme_longer_than_the_limit_is_cut_between_chars() {
        // `l` with a tag character (one grapheme, 3 units) split at 2 units: after the `l`.
        let text = "l\u{e0070}x";
        assert_eq!(split(text, 2), vec!["l", "\u{e0070}", "x"]);
    }

    #[test]
    fn short_text_is_one_chunk() {
        assert_eq!(split("你好", 5000), vec!["你好"]);
        assert!(split("", 5000).is_empty());
    }

    #[test]
    fn splits_prefer_paragraphs_then_lines() {
        let text = format!("{}\n\n{}", "a".repeat(30), "b".repeat(30));
        assert_eq!(split(&text, 40), vec![format!("{}\n\n", "a".repeat(30)), "b".repeat(30)]);
        let text = format!("{}\n{}", "a".repeat(30), "b".repeat(30));
        assert_eq!(split(&text, 40)[0], format!("{}\n", "a".repeat(30)));
    }

    #[test]
    fn emoji_count_two_units_and_are_not_cut() {
        assert_eq!(utf16_len("🍎"), 2);
        let chunks = split(&"🍎".repeat(3), 3);
        assert_eq!(chunks, vec!["🍎", "🍎", "🍎"]);
    }

    #[test]
    fn truncation_marks_the_cut() {
        assert_eq!(
            truncate_graphemes("換算台幣換算台幣換算台幣換算台幣換算台幣換算", 20).chars().count(),
            20
        );
        assert_eq!(truncate_graphemes("short", 20), "short");
        assert!(utf16_len(&truncate_utf16(&"🍎".repeat(10), 7)) <= 7);
    }

    fn texty() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "a",
            "台",
            "北",
            "🍎",
            "👨‍👩‍👧",
            "e\u{301}",
            "🇹🇼",
            " ",
            "\n",
            "\n\n",
            "。",
            ".",
            "，",
            "\r\n",
        ]);
        prop::collection::vec(pieces, 0..400).prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn chunks_fit_lose_nothing_and_keep_graphemes(text in texty(), max in 8usize..120) {
            let chunks = split(&text, max);
            prop_assert_eq!(chunks.concat(), text.clone());
            let whole: Vec<&str> = text.graphemes(true).collect();
            let mut rejoined: Vec<&str> = Vec::new();
            for chunk in &chunks {
                prop_assert!(utf16_len(chunk) <= max, "chunk over the limit");
                prop_assert!(!chunk.is_empty());
                rejoined.extend(chunk.graphemes(true));
            }
            prop_assert_eq!(rejoined, whole, "a grapheme cluster was cut");
        }

        #[test]
        fn chunks_never_split_surrogate_pairs(text in texty()) {
            for chunk in split(&text, 5) {
                prop_assert!(String::from_utf16(&chunk.encode_utf16().collect::<Vec<_>>()).is_ok());
            }
        }
    }
}
