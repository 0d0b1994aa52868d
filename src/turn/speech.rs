//! Spoken answers in a turn: the answer of a chat (or a member) that asked for spoken answers,
//! or of a question that came as a voice message, also goes as an audio message at the end of
//! the same reply ([`crate::features::speech`]). What it costs is added to the turn's tokens,
//! so it counts against the same daily budgets; a speech request that fails leaves the text
//! to go alone.

use crate::contract::Answer;
use crate::features::speech;
use crate::line::message::{MAX_MESSAGES, Message};
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
        let chat = &source.conversation.id;
        let asked_for = match self.store.spoken(chat, source.user_id.as_deref()).await {
            Ok(asked_for) => asked_for,
            Err(e) => {
                tracing::warn!(error = %e, "spoken answers setting unavailable");
                false
            }
        };
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
}
