//! Text as a reader sees it: lengths and cuts in grapheme clusters (an emoji with its skin tone,
//! a letter with its accent, count once and are never cut apart), with `…` where text was cut.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_text_ends_in_an_ellipsis_and_keeps_whole_graphemes() {
        assert_eq!(truncate_graphemes("短", 5), "短");
        assert_eq!(truncate_graphemes("今天天氣很好", 4), "今天天…");
        let family = "👨‍👩‍👧👍🏽x";
        assert_eq!(grapheme_len(family), 3);
        assert_eq!(truncate_graphemes(family, 2), "👨‍👩‍👧…");
    }
}
