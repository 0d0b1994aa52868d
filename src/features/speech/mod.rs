//! Answers she can hear: a chat (or one member of a group) that asked for spoken answers, and
//! anyone who asked by voice message, gets the answer as text and as a LINE audio message in the
//! same reply; care prompts to someone who asked are spoken too.
//!
//! The text is first made speakable ([`reading`]: 「15:00」 → 「下午三點」), cut to
//! [`MAX_SPOKEN_CHARS`] at a sentence's end, and sent to an OpenAI-compatible
//! `POST /audio/speech` (`{model, voice, input, response_format: "aac"}`), whose answer —
//! AAC in ADTS frames, at most [`MAX_AUDIO_BYTES`] — is put into the M4A file LINE requires,
//! its duration counted from the frames ([`m4a`]). The file is kept in the store, not in the
//! server's memory, and served from `HEARTH_PUBLIC_URL` under `/speech/{token}.m4a`, an
//! unguessable token, for a day ([`AUDIO_LIFETIME`]), by any replica and after a restart. Any
//! failure is logged and the text goes alone.
//! What speaking costs is counted with the turn's tokens against the day's budgets
//! ([`Spoken::tokens`]).

pub mod m4a;
pub mod ops;
pub mod reading;

use std::sync::Arc;
use std::time::Duration;

use jiff::SignedDuration;
use jiff::tz::TimeZone;
use reqwest::StatusCode;
use serde_json::json;

use crate::features::budget::{Spent, TokenBudget, budget_day};
use crate::line::message::Message;
use crate::llm::endpoint::Endpoint;
use crate::platform::clock::Clock;
use crate::platform::config::Config;
use crate::platform::i18n::Lang;
use crate::store::Store;

/// The most characters spoken of one answer (OpenAI's speech models take 4096): about two
/// minutes of speech; a longer answer is spoken up to a sentence's end before it.
pub const MAX_SPOKEN_CHARS: usize = 600;
/// The largest answer read from the speech server (AAC of two minutes is about 1 MB).
pub const MAX_AUDIO_BYTES: usize = 4 * 1024 * 1024;
/// How long a spoken answer is served: as long as a chart, for the same reasons.
pub const AUDIO_LIFETIME: SignedDuration = crate::contract::chart::publish::IMAGE_LIFETIME;
/// The most spoken answers served at once (a day's, for every chat): about 2 GB at the
/// longest, a few hundred MB for a busy family. Past it an answer goes as text alone; what was
/// already handed out stays served for its day.
pub const MAX_AUDIO_FILES: i64 = 2_000;
/// The path spoken answers are served under: `/speech/{token}.m4a`.
pub const PATH_PREFIX: &str = "/speech/";
/// Its content type.
pub const CONTENT_TYPE: &str = "audio/mp4";

/// Why an answer was not spoken.
#[derive(Debug, thiserror::Error)]
pub enum SpeechError {
    /// Nothing in the answer to say.
    #[error("nothing to say")]
    Nothing,
    /// Could not reach the speech server, or no answer in time.
    #[error("the speech server could not be reached: {0}")]
    Connect(String),
    /// The server answered an error.
    #[error("the speech server answered HTTP {status}: {detail}")]
    Status {
        /// The status.
        status: StatusCode,
        /// The body, shortened, for the log.
        detail: String,
    },
    /// The audio was larger than [`MAX_AUDIO_BYTES`].
    #[error("the speech server answered more than {MAX_AUDIO_BYTES} bytes")]
    TooLarge,
    /// The audio was not AAC hearth can put into M4A.
    #[error("the speech server's audio: {0}")]
    Audio(#[from] m4a::M4aError),
    /// The audio could not be kept to be served: the store is full or failed.
    #[error("the audio was not kept")]
    NotKept,
}

/// A spoken answer: the audio message, and what it cost.
#[derive(Debug, Clone)]
pub struct Spoken {
    /// The audio message pointing at the served file.
    pub message: Message,
    /// What it counts against the day's token budgets: the characters sent to be spoken.
    pub tokens: u64,
}

/// Whether an answer is spoken: when the chat (or its asker) asked for spoken answers, or the
/// question came as a voice message and the deployment answers voice with voice.
pub fn wanted(asked_for: bool, by_voice: bool, voice_for_voice: bool) -> bool {
    asked_for || (by_voice && voice_for_voice)
}

/// `text` cut to at most `max` characters at the last sentence's end (or line) before the cut;
/// at `max` when there is none.
pub fn within(text: &str, max: usize) -> &str {
    let Some((cut, _)) = text.char_indices().nth(max) else { return text };
    let head = &text[..cut];
    match head.rfind(['。', '！', '？', '\n', '.', '!', '?']) {
        Some(end) if end > 0 => {
            let end = end + head[end..].chars().next().map_or(0, char::len_utf8);
            &head[..end]
        }
        _ => head,
    }
}

/// The speech side of hearth; clones share the served files.
#[derive(Clone)]
pub struct Speech {
    inner: Arc<Inner>,
}

struct Inner {
    endpoint: Endpoint,
    model: String,
    voice: String,
    base_url: String,
    store: Store,
    voice_for_voice: bool,
    clock: Arc<dyn Clock>,
    tz: TimeZone,
    budget: TokenBudget,
}

impl Speech {
    /// From the settings: `None` when `HEARTH_TTS_MODEL` is empty or there is no
    /// `HEARTH_PUBLIC_URL` to serve the audio from; fails when the HTTP client cannot be built.
    pub fn from_config(
        config: &Config,
        clock: Arc<dyn Clock>,
        store: Store,
    ) -> Result<Option<Self>, reqwest::Error> {
        let Some(public) = config.server.public_url.as_deref().filter(|_| config.speaks()) else {
            return Ok(None);
        };
        let model = config.speech.tts_model.trim();
        let (base, key) = config.tts_endpoint();
        let timeout = Duration::from_secs(config.speech.tts_timeout_secs.max(1));
        Ok(Some(Self {
            inner: Arc::new(Inner {
                endpoint: Endpoint::new(base, "audio/speech", key.clone(), timeout)?,
                model: model.to_string(),
                voice: config.speech.tts_voice.trim().to_string(),
                base_url: public.trim_end_matches('/').to_string(),
                store,
                voice_for_voice: config.speech.tts_for_voice,
                clock,
                tz: TimeZone::get(&config.family.timezone).unwrap_or(TimeZone::UTC),
                budget: TokenBudget {
                    per_chat: config.limits.daily_tokens_per_chat,
                    total: config.limits.daily_tokens_total,
                },
            }),
        }))
    }

    /// Whether a voice message is answered with speech too (`HEARTH_TTS_FOR_VOICE`).
    pub fn voice_for_voice(&self) -> bool {
        self.inner.voice_for_voice
    }

    /// `text` (in `lang`) spoken for `chat`, served, as an audio message.
    pub async fn speak(&self, chat: &str, text: &str, lang: Lang) -> Result<Spoken, SpeechError> {
        let said = reading::speakable(text, lang);
        let said = within(&said, MAX_SPOKEN_CHARS).trim();
        if said.is_empty() {
            return Err(SpeechError::Nothing);
        }
        let body = json!({
            "model": self.inner.model,
            "voice": self.inner.voice,
            "input": said,
            "response_format": "aac",
        });
        let (status, audio) = self
            .inner
            .endpoint
            .post_capped(|request| request.json(&body), MAX_AUDIO_BYTES)
            .await
            .map_err(|e| SpeechError::Connect(e.to_string()))?;
        let audio = audio.ok_or(SpeechError::TooLarge)?;
        if !status.is_success() {
            let detail = String::from_utf8_lossy(&audio).chars().take(200).collect();
            return Err(SpeechError::Status { status, detail });
        }
        let m4a = m4a::from_adts(&audio)?;
        drop(audio);
        let token = ops::keep(&self.inner.store, chat, &m4a.bytes, self.inner.clock.now()).await?;
        crate::platform::metrics::spoken(said.chars().count());
        Ok(Spoken {
            message: Message::Audio {
                original_content_url: format!("{}{PATH_PREFIX}{token}.m4a", self.inner.base_url),
                duration: m4a.duration_ms,
                quick_reply: None,
            },
            tokens: said.chars().count() as u64,
        })
    }

    /// `text` spoken for a push to `chat` (no turn paid for it): only while the chat and the
    /// service have tokens left today, and counted against them. `None` (logged) when it is
    /// not spoken.
    pub async fn speak_for_push(
        &self,
        spent: &Spent,
        chat: &str,
        text: &str,
        lang: Lang,
    ) -> Option<Message> {
        let day = budget_day(self.inner.clock.now(), &self.inner.tz);
        match spent.on(&day, chat).await {
            Ok(used) if self.inner.budget.check(used.chat, used.service).is_err() => {
                tracing::info!(chat, "the day's token budget is spent: the push is not spoken");
                return None;
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "token budget unavailable; speaking anyway"),
        }
        match self.speak(chat, text, lang).await {
            Ok(spoken) => {
                if let Err(e) = spent.add(&day, chat, spoken.tokens).await {
                    tracing::warn!(error = %e, "the spoken push's tokens were not counted");
                }
                Some(spoken.message)
            }
            Err(error) => {
                tracing::warn!(%error, "push not spoken; it goes as text");
                None
            }
        }
    }

    /// The audio under `token`, while it is served.
    pub async fn audio(&self, token: &str) -> Option<Vec<u8>> {
        ops::audio(&self.inner.store, token, self.inner.clock.now()).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_voice_question_or_a_chat_that_asked_is_answered_aloud() {
        assert!(wanted(true, false, false));
        assert!(wanted(false, true, true));
        assert!(!wanted(false, true, false), "the deployment does not answer voice with voice");
        assert!(!wanted(false, false, true));
    }

    #[test]
    fn a_long_answer_is_spoken_up_to_a_sentences_end() {
        assert_eq!(within("短的。", 10), "短的。");
        assert_eq!(within("第一句。第二句很長很長很長", 8), "第一句。");
        assert_eq!(within("沒有句點的一段很長的話", 4), "沒有句點");
    }
}
