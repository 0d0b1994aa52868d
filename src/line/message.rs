//! Outgoing LINE messages, and the assembly of an answer into at most five of them: text split at
//! 5000 UTF-16 units, cards as one Flex message (a bubble or a carousel) with a text fallback,
//! chips as quick replies on the last message only. Limits are enforced here, once.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::flex::{self, Palette};
use super::text::{MAX_TEXT_UNITS, split, truncate_utf16};
use crate::contract::Answer;
use crate::contract::{Card, Chip};
use crate::line::postback::ButtonSigner;
use crate::platform::text::truncate_graphemes;

/// The most messages in one reply or push.
pub const MAX_MESSAGES: usize = 5;
/// The most quick-reply items.
pub const MAX_CHIPS: usize = 13;
/// The longest altText sent (LINE allows 1500 characters).
pub const MAX_ALT_TEXT: usize = 400;

/// A message object as LINE's Messaging API takes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Message {
    /// A text message.
    #[serde(rename_all = "camelCase")]
    Text {
        /// At most 5000 UTF-16 units.
        text: String,
        /// Shows the message with this quote token above the text (who is being answered).
        #[serde(skip_serializing_if = "Option::is_none")]
        quote_token: Option<String>,
        /// Chips, on the last message only.
        #[serde(skip_serializing_if = "Option::is_none")]
        quick_reply: Option<QuickReply>,
    },
    /// A sticker from LINE's stickers for bots (see `crate::turn::sticker`).
    #[serde(rename_all = "camelCase")]
    Sticker {
        /// The package.
        package_id: String,
        /// The sticker.
        sticker_id: String,
        /// Chips, on the last message only.
        #[serde(skip_serializing_if = "Option::is_none")]
        quick_reply: Option<QuickReply>,
    },
    /// A text message with substitutions (mentions): `{key}` in `text` is replaced.
    #[serde(rename = "textV2", rename_all = "camelCase")]
    TextV2 {
        /// At most 5000 UTF-16 units; literal braces doubled.
        text: String,
        /// What each `{key}` stands for.
        substitution: BTreeMap<String, Substitution>,
        /// Chips, on the last message only.
        #[serde(skip_serializing_if = "Option::is_none")]
        quick_reply: Option<QuickReply>,
    },
    /// An audio message: an M4A file LINE fetches over HTTPS, and how long it plays.
    #[serde(rename_all = "camelCase")]
    Audio {
        /// Where LINE fetches the file (HTTPS, at most 2000 characters).
        original_content_url: String,
        /// Its length in milliseconds.
        duration: u64,
        /// Chips, on the last message only.
        #[serde(skip_serializing_if = "Option::is_none")]
        quick_reply: Option<QuickReply>,
    },
    /// A Flex message.
    #[serde(rename_all = "camelCase")]
    Flex {
        /// What notifications and old clients show.
        alt_text: String,
        /// A bubble or a carousel.
        contents: Value,
        /// Chips, on the last message only.
        #[serde(skip_serializing_if = "Option::is_none")]
        quick_reply: Option<QuickReply>,
    },
}

impl Message {
    /// A plain text message (cut to LINE's limit).
    pub fn text(text: impl Into<String>) -> Self {
        Message::Text {
            text: truncate_utf16(&text.into(), MAX_TEXT_UNITS),
            quote_token: None,
            quick_reply: None,
        }
    }

    /// `text` after an @mention of `user_id` (a textV2 message: braces in `text` are escaped).
    pub fn mentioning(user_id: &str, text: &str) -> Self {
        let mut substitution = BTreeMap::new();
        substitution
            .insert("who".to_string(), Substitution::Mention { mentionee: Mention::user(user_id) });
        let text = format!("{{who}} {}", text.replace('{', "{{").replace('}', "}}"));
        Message::TextV2 { text, substitution, quick_reply: None }
    }

    /// One card as a Flex bubble previewed as `alt_text` (cut to 300 characters), its postback
    /// buttons signed by `signer` (dropped without one); the card's text when it cannot be a
    /// bubble.
    pub fn card(
        card: &Card,
        alt_text: &str,
        palette: Palette,
        signer: Option<&ButtonSigner>,
    ) -> Self {
        match flex::container(std::slice::from_ref(card), palette, signer) {
            Some(contents) => Message::Flex {
                alt_text: truncate_graphemes(alt_text, 300),
                contents,
                quick_reply: None,
            },
            None => Message::text(card.to_text()),
        }
    }

    fn set_quick_reply(&mut self, qr: QuickReply) {
        match self {
            Message::Text { quick_reply, .. }
            | Message::TextV2 { quick_reply, .. }
            | Message::Sticker { quick_reply, .. }
            | Message::Audio { quick_reply, .. }
            | Message::Flex { quick_reply, .. } => *quick_reply = Some(qr),
        }
    }

    fn take_quick_reply(&mut self) -> Option<QuickReply> {
        match self {
            Message::Text { quick_reply, .. }
            | Message::TextV2 { quick_reply, .. }
            | Message::Sticker { quick_reply, .. }
            | Message::Audio { quick_reply, .. }
            | Message::Flex { quick_reply, .. } => quick_reply.take(),
        }
    }

    /// The text of a text message, the altText of a Flex message, `(sticker)` for a sticker,
    /// nothing for audio (it says the text beside it).
    pub fn preview(&self) -> &str {
        match self {
            Message::Text { text, .. } | Message::TextV2 { text, .. } => text,
            Message::Flex { alt_text, .. } => alt_text,
            Message::Sticker { .. } => "(sticker)",
            Message::Audio { .. } => "",
        }
    }
}

/// Adds `audio` after `messages`, the chips moving onto it (they belong on the last message);
/// false, and nothing changes, when there is no room for one more message.
pub fn append_last(messages: &mut Vec<Message>, mut audio: Message) -> bool {
    if messages.len() >= MAX_MESSAGES {
        return false;
    }
    if let Some(qr) = messages.last_mut().and_then(Message::take_quick_reply) {
        audio.set_quick_reply(qr);
    }
    messages.push(audio);
    true
}

/// Quotes the message of `token` on the first plain text of `messages`, so a group sees whose
/// question the answer is for. Nothing changes when there is no plain text message.
pub fn quote(messages: &mut [Message], token: &str) {
    if let Some(Message::Text { quote_token, .. }) =
        messages.iter_mut().find(|m| matches!(m, Message::Text { .. }))
    {
        *quote_token = Some(token.to_string());
    }
}

/// What a `{key}` of a textV2 message stands for.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Substitution {
    /// A mention: notifies the person.
    Mention {
        /// Who.
        mentionee: Mention,
    },
}

/// Who a mention is for.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Mention {
    /// Always `user`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The user's id.
    pub user_id: String,
}

impl Mention {
    /// A mention of one user.
    pub fn user(user_id: &str) -> Self {
        Self { kind: "user", user_id: user_id.to_string() }
    }
}

/// Quick-reply chips.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuickReply {
    /// 1–13 items.
    pub items: Vec<QuickReplyItem>,
}

/// One chip.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuickReplyItem {
    /// Always `action`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// What tapping does.
    pub action: MessageAction,
}

/// A message action: tapping sends `text` as the user's message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessageAction {
    /// Always `message`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// ≤ 20 grapheme clusters.
    pub label: String,
    /// ≤ 300 grapheme clusters.
    pub text: String,
}

/// How answers look in one conversation.
#[derive(Debug, Clone)]
pub struct ReplyStyle {
    /// Colours for price changes.
    pub palette: Palette,
    /// Prefixed to chip texts in groups (the first trigger keyword), so a tap wakes the bot.
    pub chip_prefix: Option<String>,
    /// Signs the state-changing buttons of cards for this conversation.
    pub signer: Option<ButtonSigner>,
}

/// The quick reply for `chips`, or `None` when there are none.
pub fn quick_reply(chips: &[Chip], prefix: Option<&str>) -> Option<QuickReply> {
    let items: Vec<QuickReplyItem> = chips
        .iter()
        .filter(|c| !c.label.trim().is_empty() && !c.text.trim().is_empty())
        .take(MAX_CHIPS)
        .map(|chip| {
            let text = match prefix {
                Some(p) => format!("{p} {}", chip.text),
                None => chip.text.clone(),
            };
            QuickReplyItem {
                kind: "action",
                action: MessageAction {
                    kind: "message",
                    label: truncate_graphemes(&chip.label, 20),
                    text: truncate_graphemes(&text, 300),
                },
            }
        })
        .collect();
    (!items.is_empty()).then_some(QuickReply { items })
}

fn alt_text(cards: &[Card]) -> String {
    let summary: Vec<String> = cards
        .iter()
        .map(|c| match &c.headline {
            Some(h) => format!("{} {}", c.title, h.text),
            None => c.title.clone(),
        })
        .collect();
    truncate_graphemes(&summary.join(" / "), MAX_ALT_TEXT)
}

/// The messages for `answer`: at most five, chips on the last.
pub fn assemble(answer: &Answer, style: &ReplyStyle) -> Vec<Message> {
    let flex = flex::container(&answer.cards, style.palette, style.signer.as_ref());
    let mut text = answer.text.trim().to_string();
    if flex.is_none() && !answer.cards.is_empty() {
        // Too large for Flex: the cards travel as text instead.
        for card in &answer.cards {
            text.push_str("\n\n");
            text.push_str(&card.to_text());
        }
    }
    let text_slots = MAX_MESSAGES - usize::from(flex.is_some());
    let mut chunks = split(text.trim(), MAX_TEXT_UNITS);
    if chunks.len() > text_slots {
        let rest = chunks.split_off(text_slots - 1).concat();
        chunks.push(truncate_utf16(&rest, MAX_TEXT_UNITS));
    }
    let mut messages: Vec<Message> = chunks
        .into_iter()
        .map(|text| Message::Text { text, quote_token: None, quick_reply: None })
        .collect();
    if let Some(contents) = flex {
        messages.push(Message::Flex {
            alt_text: alt_text(&answer.cards),
            contents,
            quick_reply: None,
        });
    }
    if messages.is_empty() {
        messages.push(Message::text("👌"));
    }
    if let Some(qr) = quick_reply(&answer.chips, style.chip_prefix.as_deref())
        && let Some(last) = messages.last_mut()
    {
        last.set_quick_reply(qr);
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::line::text::utf16_len;
    use crate::platform::config::PriceColors;

    fn audio() -> Message {
        Message::Audio {
            original_content_url: "https://h.example/speech/t.m4a".into(),
            duration: 1500,
            quick_reply: None,
        }
    }

    #[test]
    fn audio_goes_last_and_takes_the_chips_with_it() {
        let chips = [Chip::new("再問", "再問一次")];
        let mut messages = vec![Message::text("答案")];
        messages[0].set_quick_reply(quick_reply(&chips, None).expect("chips"));
        assert!(append_last(&mut messages, audio()));
        let json = serde_json::to_value(&messages).expect("json");
        assert!(json[0].get("quickReply").is_none(), "{json}");
        assert_eq!(json[1]["type"], "audio");
        assert_eq!(json[1]["originalContentUrl"], "https://h.example/speech/t.m4a");
        assert_eq!(json[1]["duration"], 1500);
        assert!(json[1]["quickReply"]["items"].is_array(), "{json}");
    }

    #[test]
    fn a_full_reply_takes_no_audio() {
        let mut messages = vec![Message::text("x"); MAX_MESSAGES];
        assert!(!append_last(&mut messages, audio()));
        assert_eq!(messages.len(), MAX_MESSAGES);
    }

    #[test]
    fn a_mention_comes_first_and_braces_in_the_text_are_escaped() {
        let Message::TextV2 { text, substitution, .. } = Message::mentioning("U1", "a{b}c") else {
            panic!("a textV2 message");
        };
        assert_eq!(text, "{who} a{{b}}c");
        assert!(matches!(&substitution["who"], Substitution::Mention { .. }));
    }

    fn style(prefix: Option<&str>) -> ReplyStyle {
        ReplyStyle {
            palette: Palette::new(PriceColors::Tw),
            chip_prefix: prefix.map(str::to_string),
            signer: None,
        }
    }

    #[test]
    fn chips_go_on_the_last_message_only() {
        let answer = Answer {
            text: "明天會下雨".into(),
            cards: vec![Card::new("台北 天氣")],
            chips: vec![Chip::new("後天呢？", "台北後天天氣如何？")],
            tainted: false,
        };
        let messages = assemble(&answer, &style(None));
        assert_eq!(messages.len(), 2);
        assert!(matches!(&messages[0], Message::Text { quick_reply: None, .. }));
        assert!(matches!(&messages[1], Message::Flex { quick_reply: Some(_), .. }));
    }

    #[test]
    fn group_chips_carry_the_trigger_keyword() {
        let qr =
            quick_reply(&[Chip::new("換算台幣", "230.5 USD 換算台幣是多少？")], Some("小幫手"))
                .expect("one chip");
        assert_eq!(qr.items[0].action.text, "小幫手 230.5 USD 換算台幣是多少？");
    }

    #[test]
    fn chip_limits_are_enforced() {
        let chips: Vec<Chip> = (0..20)
            .map(|i| Chip::new("一二三四五六七八九十一二三四五六七八九十一", format!("q{i}")))
            .collect();
        let qr = quick_reply(&chips, None).expect("chips");
        assert_eq!(qr.items.len(), MAX_CHIPS);
        assert!(qr.items.iter().all(|i| i.action.label.chars().count() <= 20));
    }

    #[test]
    fn very_long_answers_fit_in_five_messages() {
        let answer =
            Answer { text: "字".repeat(40_000), cards: vec![Card::new("c")], ..Answer::default() };
        let messages = assemble(&answer, &style(None));
        assert_eq!(messages.len(), MAX_MESSAGES);
        for m in &messages {
            if let Message::Text { text, .. } = m {
                assert!(utf16_len(text) <= MAX_TEXT_UNITS);
            }
        }
    }

    #[test]
    fn a_quote_token_goes_on_the_first_text_only() {
        let answer =
            Answer { text: "好".into(), cards: vec![Card::new("c")], ..Answer::default() };
        let mut messages = assemble(&answer, &style(None));
        quote(&mut messages, "q-1");
        let v = serde_json::to_value(&messages).expect("serialises");
        assert_eq!(v[0]["quoteToken"], "q-1");
        assert!(v[1].get("quoteToken").is_none());
        let plain = serde_json::to_value(Message::text("x")).expect("serialises");
        assert!(plain.get("quoteToken").is_none(), "no null key when not quoting");
    }

    #[test]
    fn serialises_in_line_shape() {
        let m = Message::Flex {
            alt_text: "a".into(),
            contents: serde_json::json!({"type": "bubble"}),
            quick_reply: quick_reply(&[Chip::new("x", "y")], None),
        };
        let v = serde_json::to_value(&m).expect("serialises");
        assert_eq!(v["type"], "flex");
        assert_eq!(v["altText"], "a");
        assert_eq!(v["quickReply"]["items"][0]["action"]["type"], "message");
    }
}
