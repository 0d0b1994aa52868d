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

/// Removes `@hearth` spans (UTF-16 offsets from LINE) of mentions of the bot.
fn strip_self_mentions(message: &TextMessage) -> String {
    let Some(mention) = &message.mention else {
        return message.text.clone();
    };
    let mut units: Vec<u16> = message.text.encode_utf16().collect();
    let mut spans: Vec<(usize, usize)> = mention
        .mentionees
        .iter()
        .filter(|m| m.is_self)
        .map(|m| (m.index, m.index.saturating_add(m.length)))
        .filter(|&(start, end)| start < end && end <= units.len())
        .collect();
    spans.sort_unstable_by(|a, b| b.cmp(a));
    for (start, end) in spans {
        units.drain(start..end);
    }
    String::from_utf16(&units).unwrap_or_else(|_| message.text.clone())
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
    use crate::line::webhook::{Mention, Mentionee};

    fn text(t: &str) -> TextMessage {
        TextMessage { id: "1".into(), text: t.into(), mention: None, quoted_message_id: None }
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

    #[test]
    fn quoting_the_bot_wakes_it() {
        assert!(addressed(&text("那後天呢"), true, &keywords(), true).is_some());
    }
}
