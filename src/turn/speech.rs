//! Spoken answers in a turn: the answer of a chat (or a member) that asked for spoken answers,
//! or of a question that came as a voice message, also goes as an audio message at the end of
//! the same reply ([`crate::features::speech`]). What it costs is added to the turn's tokens,
//! so it counts against the same daily budgets; a speech request that fails leaves the text
//! to go alone. The text answer to a tapped button (a rich menu's, a card's) is spoken the same
//! way, within the same budgets.

use crate::contract::Answer;
use crate::features::budget::Spent;
use crate::features::settings::ChatSettings;
use crate::features::speech;
use crate::line::message::{MAX_MESSAGES, Message, append_last};
use crate::line::webhook::EventSource;
use crate::llm::openai::Usage;
use crate::platform::i18n::Lang;
use crate::turn::Turns;

/// What of an answer is spoken: its text, else its first card read as text.
pub fn said_of(answer: &Answer) -> String {
    if answer.text.trim().is_empty() {
        answer.cards.first().map(|card| card.to_text()).unwrap_or_default()
    } else {
        answer.text.clone()
    }
}

impl Turns {
    /// The audio message of `said` (in `lang`) for an answer of `replies` messages in
    /// `source`'s chat, when it is wanted, there is room for it, and the speech server
    /// answered; its cost is added to `usage`. `None` otherwise (a failure is logged).
    pub(crate) async fn spoken_answer(
        &self,
        source: &EventSource,
        by_voice: bool,
        said: &str,
        lang: Lang,
        replies: usize,
        usage: &mut Usage,
    ) -> Option<Message> {
        let speech = self.speech.as_ref()?;
        if replies >= MAX_MESSAGES {
            return None;
        }
        let asked_for = self.asked_for_speech(source).await;
        if !speech::wanted(asked_for, by_voice, speech.voice_for_voice()) {
            return None;
        }
        match speech.speak(said, lang).await {
            Ok(spoken) => {
                usage.add(Usage { prompt_tokens: spoken.tokens, ..Usage::default() });
                Some(spoken.message)
            }
            Err(error) => {
                tracing::warn!(%error, "answer not spoken; the text goes alone");
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
