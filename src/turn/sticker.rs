//! Stickers. In a 1:1 chat a sticker gets a short, warm answer in kind: the model reads what
//! LINE says the sticker means (its `keywords`, and the text on a message sticker) and writes one
//! line, and hearth may add a sticker of its own. In a group a sticker is logged like any
//! message and answered only when it calls hearth (it replies to one of hearth's messages).
//!
//! Bots can send only the stickers on LINE's list for the Messaging API
//! (<https://developers.line.biz/en/docs/messaging-api/sticker-list/>). hearth's sticker is
//! chosen by [`answer_sticker`], a pure function over two small tables:
//! - a sticker from one of those packages is answered with the same sticker (sending the same
//!   one back is the way a LINE chat answers in kind);
//! - otherwise a greeting gets the waving Cony and Sally (11537/52002738, the sticker LINE's
//!   own announcement of `keywords` shows with "hi", "Hello", "wave", "greetings"); other moods
//!   get the text answer alone, since a sticker whose meaning is not known for certain could
//!   say the wrong thing.

use crate::line::message::Message;
use crate::line::webhook::StickerMessage;

/// Packages of LINE's sticker list for bots, with their first and last sticker ids.
const SENDABLE: [(u32, u32, u32); 6] = [
    (446, 1988, 2027),
    (789, 10855, 10894),
    (1070, 17839, 17878),
    (11537, 52002734, 52002773),
    (11538, 51626494, 51626533),
    (11539, 52114110, 52114149),
];

/// Words in LINE's keywords (English, lower-cased) or a sticker's text that mean a greeting.
const GREETING_WORDS: [&str; 12] = [
    "hi",
    "hello",
    "hey",
    "howdy",
    "greetings",
    "wave",
    "yo",
    "good morning",
    "早安",
    "你好",
    "哈囉",
    "嗨",
];

/// The waving sticker for greetings (package, sticker).
const GREETING: (u32, u32) = (11537, 52002738);

/// True when bots may send this sticker (it is on LINE's list).
pub fn sendable(package_id: &str, sticker_id: &str) -> bool {
    let (Ok(package), Ok(sticker)) = (package_id.parse::<u32>(), sticker_id.parse::<u32>()) else {
        return false;
    };
    SENDABLE.iter().any(|&(p, first, last)| p == package && (first..=last).contains(&sticker))
}

/// True when the sticker says hello, by LINE's keywords or its text.
pub fn is_greeting(sticker: &StickerMessage) -> bool {
    let words = sticker.keywords.iter().map(String::as_str).chain(sticker.text.as_deref());
    words.map(str::to_lowercase).any(|w| GREETING_WORDS.iter().any(|g| w.trim() == *g))
}

/// hearth's sticker in answer to `sticker`, if one fits (see the module doc).
pub fn answer_sticker(sticker: &StickerMessage) -> Option<(String, String)> {
    if sendable(&sticker.package_id, &sticker.sticker_id) {
        return Some((sticker.package_id.clone(), sticker.sticker_id.clone()));
    }
    is_greeting(sticker).then(|| (GREETING.0.to_string(), GREETING.1.to_string()))
}

/// The sticker message for `answer_sticker`'s choice.
pub fn message((package_id, sticker_id): (String, String)) -> Message {
    Message::Sticker { package_id, sticker_id, quick_reply: None }
}

/// What the model reads for a sticker: what LINE says it means, and how to answer.
pub fn request(sticker: &StickerMessage) -> String {
    let keywords: Vec<&str> =
        sticker.keywords.iter().map(|k| k.trim()).filter(|k| !k.is_empty()).take(15).collect();
    let meaning = if keywords.is_empty() {
        "LINE gave no keywords for it".to_string()
    } else {
        format!("LINE describes it with these keywords: {}", keywords.join(", "))
    };
    let text = match sticker.text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) => {
            format!(" The text on it says: \"{}\".", t.chars().take(100).collect::<String>())
        }
        None => String::new(),
    };
    format!(
        "(The member sent a LINE sticker instead of text; {meaning}.{text} Answer in kind: one short, warm line that fits its mood, like a friend in a chat. No tools, no lists, and do not describe the sticker or ask what it means.)"
    )
}

/// The line the chat log keeps for a sticker (recaps and history read it).
pub fn log_text(sticker: &StickerMessage) -> String {
    let mut words: Vec<&str> = sticker.keywords.iter().map(String::as_str).take(5).collect();
    if let Some(t) = sticker.text.as_deref().filter(|t| !t.trim().is_empty()) {
        words.insert(0, t);
    }
    if words.is_empty() {
        "[貼圖]".to_string()
    } else {
        format!("[貼圖：{}]", words.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sticker(package: &str, id: &str, keywords: &[&str]) -> StickerMessage {
        StickerMessage {
            id: "1".into(),
            package_id: package.into(),
            sticker_id: id.into(),
            keywords: keywords.iter().map(|k| k.to_string()).collect(),
            text: None,
            quoted_message_id: None,
            quote_token: None,
        }
    }

    #[test]
    fn a_sticker_bots_may_send_is_answered_with_the_same_sticker() {
        let s = sticker("11538", "51626500", &["love"]);
        assert_eq!(answer_sticker(&s), Some(("11538".into(), "51626500".into())));
        assert!(sendable("446", "1988") && sendable("11539", "52114149"));
        assert!(!sendable("11539", "52114150") && !sendable("1", "1") && !sendable("x", "1"));
    }

    #[test]
    fn a_greeting_from_any_package_gets_the_waving_sticker_and_other_moods_none() {
        let hello = sticker("8888", "1234", &["cony", "HEY", "Hello"]);
        assert_eq!(answer_sticker(&hello), Some(("11537".into(), "52002738".into())));
        let mut typed = sticker("8888", "1234", &[]);
        typed.text = Some("早安".into());
        assert!(is_greeting(&typed));
        assert_eq!(answer_sticker(&sticker("8888", "1234", &["sad", "cry"])), None);
        assert_eq!(answer_sticker(&sticker("8888", "1234", &["highway"])), None, "whole words");
    }

    #[test]
    fn the_model_reads_the_keywords_and_the_text() {
        let mut s = sticker("8888", "1234", &["thanks", "bow"]);
        s.text = Some("謝謝阿嬤".into());
        let r = request(&s);
        assert!(r.contains("thanks, bow") && r.contains("謝謝阿嬤") && r.contains("No tools"));
        assert!(request(&sticker("1", "1", &[])).contains("no keywords"));
        assert_eq!(log_text(&s), "[貼圖：謝謝阿嬤, thanks, bow]");
    }
}
