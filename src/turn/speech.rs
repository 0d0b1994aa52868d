//! Spoken answers in a turn: the answer of a chat (or a member) that asked for spoken answers,
//! or of a question that came as a voice message, also goes as an audio message at the end of
//! the same reply ([`crate::features::speech`]). What it costs is added to the turn's tokens,
//! so it counts against the same daily budgets; a speech request that fails leaves the text
//! to go alone, and so does one that takes longer than the reply token can wait
//! ([`speech_window`]): the text is never pushed, and charged, for waiting on speech. The text
//! answer to a tapped button (a rich menu's, a card's) is spoken the same
//! way, within the same budgets.

use jiff::{SignedDuration, Timestamp};

use crate::contract::Answer;
use crate::features::budget::Spent;
use crate::features::settings::ChatSettings;
use crate::features::speech;
use crate::line::message::{MAX_MESSAGES, Message, append_last};
use crate::line::webhook::EventSource;
use crate::llm::openai::Usage;
use crate::platform::i18n::Lang;
use crate::turn::Turns;
use crate::turn::deliver::REPLY_TOKEN_FRESH;

/// What the reply itself needs of the token's life: the text is replied, not pushed, after the
/// speech gave up.
const REPLY_MARGIN: SignedDuration = SignedDuration::from_secs(5);

/// How long speech may still take before an answer whose reply token has `token_left` of its
/// life: none when the reply could not wait for it (the text goes alone). The speech server's
/// own deadline (`HEARTH_TTS_TIMEOUT_SECS`) bounds it too.
pub fn speech_window(token_left: SignedDuration) -> Option<std::time::Duration> {
    let window = token_left - REPLY_MARGIN;
    (window >= SignedDuration::from_secs(1)).then(|| window.unsigned_abs())
}

/// What of an answer is spoken: its text, else its first card read as text.
pub fn said_of(answer: &Answer) -> String {
    if answer.text.trim().is_empty() {
        answer.cards.first().map(|card| card.to_text()).unwrap_or_default()
    } else {
        answer.text.clone()
    }
}

impl Turns {
    /// The audio message of `said` (in `lang`) for an answer in `source`'s chat (its event
    /// received at `received_at`; the reply has room for it), when it is wanted and the speech
    /// server answered while the reply token could wait; its cost is added to `usage`. `None`
    /// otherwise (a failure is logged).
    pub(crate) async fn spoken_answer(
        &self,
        source: &EventSource,
        by_voice: bool,
        said: &str,
        lang: Lang,
        received_at: Timestamp,
        usage: &mut Usage,
    ) -> Option<Message> {
        let speech = self.speech.as_ref()?;
        let asked_for = self.asked_for_speech(source).await;
        if !speech::wanted(asked_for, by_voice, speech.voice_for_voice()) {
            return None;
        }
        let token_left = REPLY_TOKEN_FRESH - self.clock.now().duration_since(received_at);
        let Some(window) = speech_window(token_left) else {
            tracing::warn!("no time left to speak the answer; the text goes alone");
            return None;
        };
        match tokio::time::timeout(window, speech.speak(&source.conversation.id, said, lang)).await
        {
            Ok(Ok(spoken)) => {
                usage.add(Usage { prompt_tokens: spoken.tokens, ..Usage::default() });
                Some(spoken.message)
            }
            Ok(Err(error)) => {
                tracing::warn!(%error, "answer not spoken; the text goes alone");
                None
            }
            Err(_) => {
                tracing::warn!("speech outlasted the reply token; the text goes alone");
                None
            }
        }
    }

    /// Adds to `replies` the audio of a tapped button's text `answer`, when `source`'s chat (or
    /// its member) asked for spoken answers and there is room for it. A tap is not a turn: as
    /// for a spoken push, the chat's and the service's tokens left today are checked and the
    /// speech is counted against them.
    pub(crate) async fn speak_tapped(
        &self,
        source: &EventSource,
        answer: &Answer,
        replies: &mut Vec<Message>,
    ) {
        let Some(speech) = self.speech.as_ref() else { return };
        if answer.text.trim().is_empty()
            || replies.len() >= MAX_MESSAGES
            || !self.asked_for_speech(source).await
        {
            return;
        }
        let chat = &source.conversation.id;
        if let Some(audio) = speech
            .speak_for_push(&Spent::from_deps(&self.deps), chat, &answer.text, Lang::ZhTw)
            .await
        {
            append_last(replies, audio);
        }
    }

    /// Whether `source`'s chat, or its member, asked for spoken answers (a store failure: no).
    async fn asked_for_speech(&self, source: &EventSource) -> bool {
        let chat = &source.conversation.id;
        match ChatSettings::from_deps(&self.deps).spoken(chat, source.user_id.as_deref()).await {
            Ok(asked_for) => asked_for,
            Err(e) => {
                tracing::warn!(error = %e, "spoken answers setting unavailable");
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speech_may_take_what_the_reply_token_has_left_but_the_reply_s_own_margin() {
        let secs = |s: i64| SignedDuration::from_secs(s);
        assert_eq!(speech_window(secs(50)), Some(std::time::Duration::from_secs(45)));
        assert_eq!(speech_window(secs(6)), Some(std::time::Duration::from_secs(1)));
        assert_eq!(speech_window(secs(5)), None, "the reply needs its margin");
        assert_eq!(speech_window(secs(-3)), None, "a stale token waits for nothing");
    }
}
