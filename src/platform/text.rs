//! Text as a reader sees it: lengths and cuts in grapheme clusters (an emoji with its skin tone,
//! a letter with its accent, count once and are never cut apart), with `…` where text was cut;
//! and text from outside (an official alert's description) made plain before it is shown.

use unicode_segmentation::UnicodeSegmentation;

/// Length in grapheme clusters (what a reader counts as characters, and LINE for labels).
pub fn grapheme_len(s: &str) -> usize {
    s.graphemes(true).count()
}

/// The first `max` grapheme clusters of `s`, with `…` in place of the rest when cut.
pub fn truncate_graphemes(s: &str, max: usize) -> String {
    // No more graphemes than bytes: a short text is not counted.
    if s.len() <= max || grapheme_len(s) <= max {
        return s.to_string();
    }
    let kept: String = s.graphemes(true).take(max.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// True for the characters that reorder or hide text: the bidi embeddings and overrides
/// (U+202A–U+202E), isolates (U+2066–U+2069) and marks (U+200E, U+200F, U+061C).
fn bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Text from outside made plain to show: markup tags (`<b>`, `</p>`, `<!-- -->`, `<script …>`)
/// dropped, bidi controls and other control characters removed (line breaks kept), spaces
/// within a line collapsed, and the ends trimmed. The text between tags stays.
pub fn plain_outside_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let tag =
            after.starts_with(|c: char| c.is_ascii_alphabetic() || matches!(c, '/' | '!' | '?'));
        match after.find('>').filter(|_| tag) {
            Some(end) => rest = &after[end + 1..],
            None => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    let mut clean = String::with_capacity(out.len());
    for line in out.split('\n') {
        let line: String = line
            .chars()
            .filter(|c| !bidi_control(*c))
            .map(|c| if c.is_control() || c.is_whitespace() { ' ' } else { c })
            .collect();
        let line = line.split(' ').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ");
        if !clean.is_empty() {
            clean.push('\n');
        }
        clean.push_str(&line);
    }
    clean.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_text_loses_markup_bidi_overrides_and_control_characters() {
        assert_eq!(
            plain_outside_text("[停班停課通知]臺北市:\u{202E}明天停止上班\u{202C}。"),
            "[停班停課通知]臺北市:明天停止上班。"
        );
        assert_eq!(
            plain_outside_text(
                "<p>請<b>注意</b>強風</p><script>alert(1)</script>\u{2067}x\u{2069}"
            ),
            "請注意強風alert(1)x"
        );
        assert_eq!(plain_outside_text("a\u{0007}b\t c\r\n  d  "), "a b c\nd");
        assert_eq!(plain_outside_text("震度 < 4 級、> 3"), "震度 < 4 級、> 3", "not a tag");
        assert_eq!(plain_outside_text("👨\u{200D}👩 ok"), "👨\u{200D}👩 ok", "a joiner is kept");
    }

    #[test]
    fn a_cut_text_ends_in_an_ellipsis_and_keeps_whole_graphemes() {
        assert_eq!(truncate_graphemes("短", 5), "短");
        assert_eq!(truncate_graphemes("今天天氣很好", 4), "今天天…");
        let family = "👨‍👩‍👧👍🏽x";
        assert_eq!(grapheme_len(family), 3);
        assert_eq!(truncate_graphemes(family, 2), "👨‍👩‍👧…");
    }
}
