//! The group gate: in a group or room hearth answers only when called — an `isSelf` mention, a
//! trigger keyword, or a reply (quote) to one of its own messages — and the call itself is
//! removed before the LLM sees the text. In a 1:1 chat every message calls it.

use crate::line::webhook::TextMessage;

/// How a text message addressed the bot, and what the LLM should see of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Addressed {
    /// The text with the bot's mention and the trigger keyword removed.
    pub text: String,
}

/// Decides whether a text message in a group calls the bot (an `isSelf` mention, a trigger
/// keyword, or a quote of the bot's message) and strips the call from the text. In a 1:1 chat
/// every message calls the bot.
pub fn addressed(
    message: &TextMessage,
    in_group: bool,
    keywords: &[String],
    quotes_bot: bool,
) -> Option<Addressed> {
    let without_mention = strip_self_mentions(message);
    let (text, keyword_found) = strip_keyword(&without_mention, keywords);
    let called = !in_group || message.mentions_bot() || keyword_found || quotes_bot;
    if !called {
        return None;
    }
    let text = text.trim();
    let text = if text.is_empty() { message.text.trim() } else { text };
    Some(Addressed { text: text.to_string() })
}

/// Removes `@hearth` spans (UTF-16 offsets from LINE) of mentions of the bot. Any list of spans
/// works: each is clamped to the text and widened to whole characters (never half a surrogate
/// pair), and overlapping or repeated spans remove their union once.
fn strip_self_mentions(message: &TextMessage) -> String {
    let Some(mention) = &message.mention else {
        return message.text.clone();
    };
    let units: Vec<u16> = message.text.encode_utf16().collect();
    let spans = mention.mentionees.iter().filter(|m| m.is_self).map(|m| (m.index, m.length));
    String::from_utf16_lossy(&remove_spans(&units, spans))
}

/// `units` without the union of the `(index, length)` spans, clamped and widened to characters.
fn remove_spans(units: &[u16], spans: impl Iterator<Item = (usize, usize)>) -> Vec<u16> {
    let is_low = |at: usize| units.get(at).is_some_and(|u| (0xdc00..0xe000).contains(u));
    let mut spans: Vec<(usize, usize)> = spans
        .map(|(index, length)| {
            let start = index.min(units.len());
            let end = index.saturating_add(length).min(units.len());
            (start - usize::from(start > 0 && is_low(start)), end + usize::from(is_low(end)))
        })
        .filter(|&(start, end)| start < end)
        .collect();
    spans.sort_unstable();
    let mut kept = Vec::with_capacity(units.len());
    let mut at = 0;
    for (start, end) in spans {
        if start > at {
            kept.extend_from_slice(&units[at..start]);
        }
        at = at.max(end);
    }
    kept.extend_from_slice(&units[at..]);
    kept
}

/// Removes the first trigger keyword found (ASCII case-insensitive) and the separator after it.
fn strip_keyword(text: &str, keywords: &[String]) -> (String, bool) {
    let lower = text.to_ascii_lowercase();
    for keyword in keywords {
        let needle = keyword.to_ascii_lowercase();
        if let Some(at) = lower.find(&needle) {
            let before = &text[..at];
            let after = text[at + needle.len()..]
                .trim_start_matches([' ', ',', '，', ':', '：', '、', '!', '！', '\u{3000}']);
            return (format!("{before}{after}"), true);
        }
    }
    (text.to_string(), false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line::text::utf16_len;
    use crate::line::webhook::{Mention, Mentionee};
    use proptest::prelude::*;

    fn text(t: &str) -> TextMessage {
        TextMessage {
            id: "1".into(),
            text: t.into(),
            mention: None,
            quoted_message_id: None,
            quote_token: None,
        }
    }

    fn keywords() -> Vec<String> {
        vec!["小幫手".into(), "hearth".into()]
    }

    #[test]
    fn every_message_in_a_one_to_one_chat_calls_the_bot() {
        assert_eq!(
            addressed(&text("台北天氣"), false, &keywords(), false).map(|a| a.text),
            Some("台北天氣".into())
        );
    }

    #[test]
    fn group_message_without_a_call_is_ignored() {
        assert_eq!(addressed(&text("晚餐吃什麼"), true, &keywords(), false), None);
    }

    #[test]
    fn keyword_wakes_the_bot_and_is_stripped() {
        let a = addressed(&text("小幫手，台北明天會下雨嗎"), true, &keywords(), false);
        assert_eq!(a.map(|a| a.text), Some("台北明天會下雨嗎".into()));
        let a = addressed(&text("Hearth: AAPL price"), true, &keywords(), false);
        assert_eq!(a.map(|a| a.text), Some("AAPL price".into()));
    }

    #[test]
    fn self_mention_wakes_the_bot_and_is_stripped_by_utf16_offsets() {
        let mut m = text("🍎@hearth 明天台北會下雨嗎");
        m.mention =
            Some(Mention { mentionees: vec![Mentionee { index: 2, length: 7, is_self: true }] });
        assert_eq!(
            addressed(&m, true, &[], false).map(|a| a.text),
            Some("🍎 明天台北會下雨嗎".into())
        );
    }

    #[test]
    fn mention_of_someone_else_does_not_wake_the_bot() {
        let mut m = text("@媽媽 晚餐吃什麼");
        m.mention =
            Some(Mention { mentionees: vec![Mentionee { index: 0, length: 3, is_self: false }] });
        assert_eq!(addressed(&m, true, &[], false), None);
    }

    fn mentioned(t: &str, spans: &[(usize, usize, bool)]) -> TextMessage {
        let mut m = text(t);
        let mentionees = spans
            .iter()
            .map(|&(index, length, is_self)| Mentionee { index, length, is_self })
            .collect();
        m.mention = Some(Mention { mentionees });
        m
    }

    #[test]
    fn identical_or_overlapping_self_mentions_are_stripped_once() {
        for spans in [
            vec![(0, 7, true), (0, 7, true)],
            vec![(0, 7, true), (2, 5, true), (0, 7, true)],
            vec![(0, 7, true), (0, 70, true)],
        ] {
            let m = mentioned("@hearth 明天天氣", &spans);
            let text = addressed(&m, true, &[], false).map(|a| a.text);
            let expect = if spans[1].1 == 70 { "@hearth 明天天氣" } else { "明天天氣" };
            assert_eq!(text.as_deref(), Some(expect), "{spans:?}");
        }
    }

    #[test]
    fn a_span_splitting_an_emoji_removes_the_whole_emoji() {
        let m = mentioned("🍎@hearth 好", &[(1, 8, true)]);
        assert_eq!(strip_self_mentions(&m), " 好");
    }

    fn any_text() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec!["@hearth", " ", "🍎", "台", "a", "👨‍👩‍👧", "\n"]);
        prop_oneof![prop::collection::vec(pieces, 0..12).prop_map(|v| v.concat()), ".{0,40}"]
    }

    fn any_spans() -> impl Strategy<Value = Vec<(usize, usize, bool)>> {
        let at = prop_oneof![0usize..48, any::<usize>()];
        let len = prop_oneof![0usize..48, any::<usize>()];
        prop::collection::vec((at, len, any::<bool>()), 0..8).prop_map(|mut spans| {
            // Repeat some spans as LINE has been seen to.
            let repeats: Vec<_> = spans.iter().step_by(2).copied().collect();
            spans.extend(repeats);
            spans
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn any_mention_spans_strip_without_panicking(t in any_text(), spans in any_spans()) {
            let m = mentioned(&t, &spans);
            let stripped = strip_self_mentions(&m);
            prop_assert!(utf16_len(&stripped) <= utf16_len(&t));
            let mut rest = t.chars();
            prop_assert!(stripped.chars().all(|c| rest.any(|o| o == c)), "only removes");
            if !spans.iter().any(|s| s.2) {
                prop_assert_eq!(&stripped, &t);
            }
            let doubled: Vec<_> = spans.iter().chain(&spans).copied().collect();
            prop_assert_eq!(strip_self_mentions(&mentioned(&t, &doubled)), stripped);
            let called = addressed(&m, true, &[], false);
            prop_assert_eq!(called.is_some(), spans.iter().any(|s| s.2));
        }
    }

    #[test]
    fn quoting_the_bot_wakes_it() {
        assert!(addressed(&text("那後天呢"), true, &keywords(), true).is_some());
    }
}
