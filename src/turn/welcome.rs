//! The welcome for members who join a group hearth is in: one short message, sent as the reply
//! to the join event (so it costs none of the month's pushes), that @mentions the newcomers and
//! says how to call hearth and what it can do. Each member is welcomed once per group, ever:
//! who was welcomed is kept in the store (and forgotten with the rest of the chat when it
//! removes hearth); a member who leaves and comes back is not welcomed again.

use std::collections::BTreeMap;

use crate::line::message::{Mention, Message, Substitution};

/// The most newcomers mentioned in one welcome (LINE allows 20 mentions per message).
pub const MAX_MENTIONS: usize = 20;

/// The welcome for `newcomers` (user ids, not empty): a textV2 message mentioning each, in
/// Traditional Chinese with an English line; `keyword` is the first trigger keyword.
pub fn welcome(newcomers: &[String], keyword: Option<&str>) -> Message {
    let mentioned = &newcomers[..newcomers.len().min(MAX_MENTIONS)];
    let keys: Vec<String> = (0..mentioned.len()).map(|i| format!("m{i}")).collect();
    let who: String = keys.iter().map(|k| format!("{{{k}}}")).collect::<Vec<_>>().join(" ");
    let how = match keyword {
        Some(k) => format!("在訊息裡 @我，或用「{}」開頭", escape(k)),
        None => "在訊息裡 @我".to_string(),
    };
    let example = keyword.map_or("@hearth".to_string(), escape);
    let text = format!(
        "{who} 歡迎加入！我是家庭小幫手 hearth 👋\n需要我的時候，{how}，例如「{example} 明天台北會下雨嗎？」。\n我可以查天氣、匯率和股價，設提醒、記住家裡的事、整理大家聊了什麼。\n(English works too.)"
    );
    let substitution: BTreeMap<String, Substitution> = keys
        .into_iter()
        .zip(mentioned)
        .map(|(k, user)| (k, Substitution::Mention { mentionee: Mention::user(user) }))
        .collect();
    Message::TextV2 { text, substitution, quick_reply: None }
}

/// textV2 reads `{key}` as a substitution: literal braces are doubled.
fn escape(s: &str) -> String {
    s.replace('{', "{{").replace('}', "}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_welcome_mentions_each_newcomer_and_says_how_to_call_hearth() {
        let m = welcome(&["U1".into(), "U2".into()], Some("小幫手"));
        let v = serde_json::to_value(&m).expect("serialises");
        assert_eq!(v["type"], "textV2");
        let text = v["text"].as_str().expect("text");
        assert!(text.starts_with("{m0} {m1} 歡迎加入"), "{text}");
        assert!(text.contains("「小幫手」開頭") && text.contains("提醒"));
        assert_eq!(v["substitution"]["m1"]["mentionee"]["userId"], "U2");
    }

    #[test]
    fn at_most_twenty_are_mentioned_and_braces_in_a_keyword_are_literal() {
        let many: Vec<String> = (0..25).map(|i| format!("U{i}")).collect();
        let Message::TextV2 { substitution, text, .. } = welcome(&many, Some("{bot}")) else {
            panic!("textV2")
        };
        assert_eq!(substitution.len(), MAX_MENTIONS);
        assert!(text.contains("「{{bot}}」"));
    }
}
