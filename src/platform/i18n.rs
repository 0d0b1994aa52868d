//! The family's language: detection from what they wrote, and the few fixed sentences hearth
//! says itself (failures, greetings). Everything else is written by the LLM in the user's language.

use serde::{Deserialize, Serialize};

/// The languages hearth speaks in its own fixed sentences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Lang {
    /// Traditional Chinese as used in Taiwan: the default.
    #[default]
    #[serde(rename = "zh-TW")]
    ZhTw,
    /// English.
    #[serde(rename = "en")]
    En,
}

impl Lang {
    /// Guesses the language of `text`: any CJK character means Chinese; Latin letters without
    /// CJK mean English; anything else (emoji, digits, a bare link) keeps the default. Links are
    /// not words: a pasted URL alone says nothing about the family's language.
    pub fn detect(text: &str) -> Self {
        let mut latin = 0usize;
        let words = text.split_whitespace().filter(|w| {
            let w = w.to_ascii_lowercase();
            !(w.starts_with("http://") || w.starts_with("https://") || w.starts_with("www."))
        });
        for c in words.flat_map(str::chars) {
            if is_cjk(c) {
                return Lang::ZhTw;
            }
            if c.is_ascii_alphabetic() {
                latin += 1;
            }
        }
        if latin >= 2 { Lang::En } else { Lang::ZhTw }
    }

    /// The language's code, as stored (`price_alerts.lang`, `held_calls.lang`) and sent to
    /// search providers: `zh-TW` or `en`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::ZhTw => "zh-TW",
            Lang::En => "en",
        }
    }

    /// The language of a code [`Lang::code`] gives; `None` for any other string.
    pub fn from_code(code: &str) -> Option<Self> {
        [Lang::ZhTw, Lang::En].into_iter().find(|lang| lang.code() == code)
    }

    /// Picks the sentence for this language.
    pub fn pick<'a>(self, zh: &'a str, en: &'a str) -> &'a str {
        match self {
            Lang::ZhTw => zh,
            Lang::En => en,
        }
    }
}

fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30ff}'   // kana
        | '\u{3400}'..='\u{4dbf}' // CJK extension A
        | '\u{4e00}'..='\u{9fff}' // CJK unified ideographs
        | '\u{f900}'..='\u{faff}' // compatibility ideographs
        | '\u{ac00}'..='\u{d7af}' // hangul
        | '\u{3000}'..='\u{303f}' // CJK punctuation
        | '\u{ff00}'..='\u{ffef}') // full-width forms
}

/// Why a turn could not be answered; each has a short, friendly sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The LLM provider is rate-limiting or out of credit.
    Busy,
    /// The LLM provider is down, slow or answered nonsense.
    Unavailable,
    /// Anything else that went wrong inside hearth.
    Internal,
    /// The user sent something hearth cannot read (a sticker, an image) in a 1:1 chat.
    UnsupportedMessage,
    /// Handling a message failed twice (it crashed hearth): it was set aside.
    SetAside,
}

impl Failure {
    /// The sentence the family sees.
    pub fn message(self, lang: Lang) -> &'static str {
        match self {
            Failure::Busy => lang.pick(
                "抱歉，我現在有點忙不過來，請過一兩分鐘再問我一次 🙏",
                "Sorry, I'm a bit overloaded right now. Please ask me again in a minute or two 🙏",
            ),
            Failure::Unavailable => lang.pick(
                "抱歉，我的大腦暫時連不上，請稍後再試一次 🙏",
                "Sorry, I can't reach my brain right now. Please try again shortly 🙏",
            ),
            Failure::Internal => lang.pick(
                "抱歉，我這邊出了點問題，請再試一次 🙏",
                "Sorry, something went wrong on my side. Please try again 🙏",
            ),
            Failure::SetAside => lang.pick(
                "抱歉，剛剛那則訊息我試了兩次都處理不了，只好先跳過 🙏 可以換個方式再說一次嗎？",
                "Sorry, I tried twice and couldn't handle that message, so I've set it aside 🙏 Could you say it another way?",
            ),
            Failure::UnsupportedMessage => lang.pick(
                "我目前只看得懂文字訊息喔，請用打字問我 😊",
                "I can only read text messages for now. Please type your question 😊",
            ),
        }
    }
}

/// The greeting sent when someone adds hearth as a friend or invites it into a group.
pub fn greeting(in_group: bool, keyword: Option<&str>) -> String {
    if in_group {
        let how = match keyword {
            Some(k) => format!("在訊息裡 @我，或用「{k}」開頭"),
            None => "在訊息裡 @我".to_string(),
        };
        format!(
            "大家好，我是家庭小幫手 hearth 👋\n需要我的時候，{how}，或直接回覆我的訊息。\n我可以查天氣、匯率、股價和加密貨幣。"
        )
    } else {
        "你好，我是家庭小幫手 hearth 👋\n可以問我天氣、匯率、股價和加密貨幣，例如「台北明天會下雨嗎？」或「100 美金多少台幣」。\nHi! Ask me in English too."
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_language_round_trips_through_its_stored_code() {
        for (lang, code) in [(Lang::ZhTw, "zh-TW"), (Lang::En, "en")] {
            assert_eq!(lang.code(), code);
            assert_eq!(Lang::from_code(code), Some(lang));
            assert_eq!(serde_json::to_value(lang).ok(), Some(serde_json::json!(code)));
        }
    }

    #[test]
    fn an_unknown_language_code_is_refused_not_guessed() {
        assert_eq!(Lang::from_code("fr"), None);
        assert_eq!(Lang::from_code("EN"), None);
        assert_eq!(Lang::from_code(""), None);
    }

    #[test]
    fn chinese_text_is_detected_as_zh_tw() {
        assert_eq!(Lang::detect("台北明天會下雨嗎？"), Lang::ZhTw);
        assert_eq!(Lang::detect("AAPL 多少"), Lang::ZhTw);
    }

    #[test]
    fn latin_text_is_detected_as_english() {
        assert_eq!(Lang::detect("AAPL price"), Lang::En);
        assert_eq!(Lang::detect("will it rain in Taipei tomorrow?"), Lang::En);
    }

    #[test]
    fn text_without_letters_keeps_the_default() {
        assert_eq!(Lang::detect("👍 123"), Lang::ZhTw);
    }

    #[test]
    fn a_bare_link_keeps_the_default_and_words_around_it_decide() {
        assert_eq!(Lang::detect("https://example.com/news/typhoon-update"), Lang::ZhTw);
        assert_eq!(Lang::detect("what does this say https://example.com/a"), Lang::En);
        assert_eq!(Lang::detect("https://example.com/a 這篇在講什麼"), Lang::ZhTw);
    }
}
