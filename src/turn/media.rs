//! How photos, voice messages and files become turns. A photo is noted (by reference) and, in a
//! 1:1 chat, answered once its whole set has arrived; in a group it only waits to be asked
//! about — by its sender calling hearth within minutes, or by anyone quote-replying it while
//! calling hearth ([`Turns::attach_media`]). A photo from an external content provider is fetched from
//! its URL and answered at once in a 1:1 chat; it is not noted (only LINE's content can be
//! fetched again by message id), so it cannot be asked about later or in a group. A voice
//! message is transcribed and then handled exactly like the same words typed (in groups only
//! with `HEARTH_GROUP_VOICE`, and the trigger keyword must be in it). A PDF or plain-text file
//! in a 1:1 chat is read like a shared page; other files get a polite refusal. In a group a
//! file is only logged, and read when its sender calls hearth within minutes (if it is what
//! they sent last) or someone quote-replies it while calling hearth. Nothing from a group
//! reaches a model unless hearth was called.

use std::sync::Arc;

use jiff::Timestamp;

use crate::features::media::content::ContentRef;
use crate::features::media::ops::{RecentMedia, RecentSent, SentMedia};
use crate::features::media::pick::{self, FileRef, PhotoRef, QUOTE_WINDOW_MS, Shared};
use crate::features::media::{MediaProblem, TurnMedia};
use crate::line::message::Message;
use crate::line::webhook::{
    AudioMessage, ContentProvider, Event, EventSource, FileMessage, ImageMessage, TextMessage,
};
use crate::llm::openai::ChatMessage;
use crate::platform::i18n::Lang;
use crate::sources::sandbox::document::{self, DocKind};
use crate::turn::Turns;
use crate::turn::answers::Kept;

/// What the chat log records for a photo.
const PHOTO_LOG: &str = "[photo]";
/// What the model reads for a photo sent without words (also `hearth chat`'s `/image`).
pub const PHOTO_ALONE: &str = "[The family sent the attached photo(s) without a question. Say briefly what it shows and the dates, amounts or instructions on it, in Traditional Chinese unless the photo is in English.]";

impl Turns {
    /// A photo: noted by reference; answered in a 1:1 chat when its set is complete (an external
    /// one at once).
    pub(crate) async fn on_image(
        self: &Arc<Self>,
        event: &Event,
        source: &EventSource,
        image: &ImageMessage,
        received_at: Timestamp,
        kept: &Kept,
    ) {
        let conversation = &source.conversation;
        let now = self.clock.now().as_millisecond();
        let set = image.image_set.as_ref();
        let photo = PhotoRef {
            message_id: image.id.clone(),
            user_id: source.user_id.clone(),
            set_id: set.map(|s| s.id.clone()),
            set_index: set.map_or(0, |s| s.index),
            set_total: set.map_or(0, |s| s.total),
            at_ms: event.timestamp_ms,
        };
        let on_line = image.content_provider.is_line();
        if on_line
            && let Err(e) = RecentSent::from_deps(&self.deps)
                .note(&conversation.id, SentMedia::Photo(&photo), now - QUOTE_WINDOW_MS)
                .await
        {
            tracing::warn!(error = %e, "could not note a photo");
        }
        let Some(logged) = TextMessage::spoken(&image.id, PHOTO_LOG) else {
            return;
        };
        // The chat's recent photos, read once: whether this one's set is complete, and which
        // photos go to the model with it.
        let recent = if on_line {
            RecentSent::from_deps(&self.deps)
                .since(&conversation.id, now - QUOTE_WINDOW_MS)
                .await
                .ok()
        } else {
            None
        };
        let complete = recent.as_ref().is_none_or(|r| pick::set_complete(&r.photos, &photo));
        if conversation.is_multi_person() || !complete {
            self.log_only(event, source, &logged, kept).await;
            return;
        }
        let Some(at) = content_at(&image.id, &image.content_provider) else {
            tracing::info!("an external photo without originalContentUrl");
            self.log_only(event, source, &logged, kept).await;
            self.tell(event, source, MediaProblem::External, received_at, kept).await;
            return;
        };
        let photos: Vec<ContentRef> = recent
            .map(|r| pick::photos_for(&r.photos, None, Some(&image.id), now))
            .unwrap_or_default()
            .into_iter()
            .map(ContentRef::Line)
            .collect();
        let photos = if photos.is_empty() { vec![at] } else { photos };
        let media = TurnMedia {
            lang: Some(Lang::ZhTw),
            prompt: Some(PHOTO_ALONE.to_string()),
            photos: Some(photos),
            chips: crate::features::media::photo_chips(Lang::ZhTw),
            ..TurnMedia::default()
        };
        self.on_words(event, source, &logged, media, received_at, kept).await;
    }

    /// A voice message: transcribed, then a turn like the same words typed.
    pub(crate) async fn on_audio(
        self: &Arc<Self>,
        event: &Event,
        source: &EventSource,
        audio: &AudioMessage,
        received_at: Timestamp,
        kept: &Kept,
    ) {
        let in_group = source.conversation.is_multi_person();
        if in_group && !self.media.group_voice {
            tracing::debug!("voice message in a group: not transcribed (HEARTH_GROUP_VOICE)");
            return;
        }
        // Transcription is paid for: the limits come first. In a group the message may not be
        // for hearth at all, so a refusal there is silent.
        if self.media.transcriber.is_some()
            && !self.within_limits(event, source, Lang::ZhTw, received_at, !in_group, kept).await
        {
            return;
        }
        match self.transcript(&source.conversation.id, audio).await {
            Ok(text) => {
                let Some(message) = TextMessage::spoken(&audio.id, &text) else {
                    return;
                };
                let media = TurnMedia { heard: Some(text), admitted: true, ..TurnMedia::default() };
                self.on_words(event, source, &message, media, received_at, kept).await;
            }
            Err(problem) if !in_group => self.tell(event, source, problem, received_at, kept).await,
            Err(_) => {}
        }
    }

    /// The words of a voice message sent in `chat`, downloaded once it has a place in line.
    async fn transcript(&self, chat: &str, audio: &AudioMessage) -> Result<String, MediaProblem> {
        let Some(transcriber) = &self.media.transcriber else {
            return Err(MediaProblem::VoiceOff);
        };
        let at = content_at(&audio.id, &audio.content_provider).ok_or(MediaProblem::External)?;
        if audio.duration.is_some_and(|ms| ms > self.media.voice_max_ms) {
            return Err(MediaProblem::VoiceTooLong);
        }
        let deadline = tokio::time::Instant::now() + crate::sources::sandbox::QUEUE_WAIT;
        let _place = self.media.voice_places.take(chat, deadline).await.map_err(|_| {
            tracing::warn!(chat, "no place free for a voice message");
            MediaProblem::Unavailable
        })?;
        let content = self
            .media
            .content
            .fetch(&at, &["audio/", "video/mp4", "application/octet-stream"])
            .await?;
        transcriber.transcribe(content.bytes, "voice.m4a", "audio/mp4").await.map_err(|e| {
            tracing::warn!(error = %e, "voice message not transcribed");
            MediaProblem::NotHeard
        })
    }

    /// A file: a PDF or plain-text file in a 1:1 chat is read like a shared page; others are
    /// refused. In a group it is logged, to be read when asked about.
    pub(crate) async fn on_file(
        self: &Arc<Self>,
        event: &Event,
        source: &EventSource,
        file: &FileMessage,
        received_at: Timestamp,
        kept: &Kept,
    ) {
        let Some(message) = TextMessage::spoken(&file.id, &pick::file_log(&file.file_name)) else {
            return;
        };
        if source.conversation.is_multi_person() {
            let shared = FileRef {
                message_id: file.id.clone(),
                user_id: source.user_id.clone(),
                file_name: file.file_name.clone(),
                at_ms: event.timestamp_ms,
            };
            let prune_before = self.clock.now().as_millisecond() - QUOTE_WINDOW_MS;
            let noted = RecentSent::from_deps(&self.deps)
                .note(&source.conversation.id, SentMedia::File(&shared), prune_before)
                .await;
            if let Err(e) = noted {
                tracing::warn!(error = %e, "could not note a shared file");
            }
            self.log_only(event, source, &message, kept).await;
            return;
        }
        if document::kind_of(&file.file_name).is_some()
            && !self.within_limits(event, source, Lang::ZhTw, received_at, true, kept).await
        {
            self.log_only(event, source, &message, kept).await;
            return;
        }
        let chat = &source.conversation.id;
        match self.document(chat, &file.id, &file.file_name, Some(file.file_size)).await {
            Ok(text) => {
                let media = TurnMedia {
                    lang: Some(Lang::ZhTw),
                    prompt: Some(format!(
                        "[The family shared the file \"{}\", below. Summarize it briefly: what it is about, and the dates, amounts and instructions in it.]",
                        file.file_name
                    )),
                    document: Some(text),
                    admitted: true,
                    ..TurnMedia::default()
                };
                self.on_words(event, source, &message, media, received_at, kept).await;
            }
            Err(problem) => {
                self.log_only(event, source, &message, kept).await;
                self.tell(event, source, problem, received_at, kept).await
            }
        }
    }

    /// The text of file `message_id` named `file_name` (of `size` bytes, when known) shared in
    /// `chat`, if hearth reads it (in a child process: [`crate::sources::sandbox`]).
    async fn document(
        &self,
        chat: &str,
        message_id: &str,
        file_name: &str,
        size: Option<u64>,
    ) -> Result<String, MediaProblem> {
        let kind = document::kind_of(file_name).ok_or(MediaProblem::FileKind)?;
        if size.is_some_and(|size| size > self.media.max_bytes as u64) {
            return Err(MediaProblem::TooLarge);
        }
        let at = ContentRef::Line(message_id.to_string());
        let sandbox = &self.media.sandbox;
        // A place in line first: a file waiting for a parser is not held in memory.
        let place = sandbox.place(chat).await.map_err(MediaProblem::from)?;
        let content = self.media.content.fetch(&at, &[""]).await?;
        let read = match kind {
            DocKind::Text => sandbox.file_text(place, content.bytes).await.map_err(|e| match e {
                crate::sources::sandbox::SandboxError::Refused(_) => MediaProblem::FileKind,
                other => MediaProblem::from(other),
            }),
            DocKind::Pdf => {
                sandbox.pdf_text(place, content.bytes).await.map_err(MediaProblem::from)
            }
        };
        read.map_err(MediaProblem::of_file)
    }

    /// Puts the photos a question is about, or a shared document, beside its words (the last
    /// message); true when anything was added (the turn then carries untrusted content). Photos
    /// the turn was built for (`media.photos`) must load; photos merely referred to are left
    /// out when LINE no longer has them. In a group the question may be about a file instead
    /// ([`pick::shared_for`]): a quoted file that cannot be read is explained to the family, the
    /// asker's own recent file is left out.
    pub(crate) async fn attach_media(
        &self,
        source: &EventSource,
        message: &TextMessage,
        media: &TurnMedia,
        messages: &mut [ChatMessage],
    ) -> Result<bool, MediaProblem> {
        let (ids, file) = match &media.photos {
            Some(ids) => (ids.clone(), None),
            None => match self.shared_asked_about(source, message).await {
                Shared::Nothing => (Vec::new(), None),
                Shared::Photos(ids) => (ids.into_iter().map(ContentRef::Line).collect(), None),
                Shared::File(file) => (Vec::new(), Some(file)),
            },
        };
        let referred = match &file {
            Some(file) => self.referred_document(&source.conversation.id, file, message).await?,
            None => None,
        };
        let document = media.document.as_deref().or(referred.as_deref());
        let images = if ids.is_empty() {
            Vec::new()
        } else {
            match self.media.photo_urls(&source.conversation.id, &ids).await {
                Ok(urls) => urls,
                Err(problem) if media.photos.is_some() => return Err(problem),
                Err(problem) => {
                    tracing::info!(?problem, "the photo asked about is not available");
                    Vec::new()
                }
            }
        };
        if images.is_empty() && document.is_none() {
            return Ok(false);
        }
        let Some(last) = messages.last_mut() else {
            return Ok(false);
        };
        let ChatMessage::User { content } = last else {
            return Ok(false);
        };
        let words = std::mem::take(content);
        *last = crate::features::media::with_parts(words, images, document);
        Ok(true)
    }

    /// The text of a file a question refers to, headed by its name; a quoted file that cannot
    /// be read is a problem to tell, the asker's own recent one is left out (`None`).
    async fn referred_document(
        &self,
        chat: &str,
        file: &FileRef,
        message: &TextMessage,
    ) -> Result<Option<String>, MediaProblem> {
        match self.document(chat, &file.message_id, &file.file_name, None).await {
            Ok(text) => Ok(Some(format!("{}\n\n{text}", pick::file_log(&file.file_name)))),
            Err(problem)
                if message.quoted_message_id.as_deref() == Some(file.message_id.as_str()) =>
            {
                Err(problem)
            }
            Err(problem) => {
                tracing::info!(?problem, "the file asked about is not readable");
                Ok(None)
            }
        }
    }

    /// The photos or, in a group, the file `message` refers to (see [`pick::shared_for`]).
    async fn shared_asked_about(&self, source: &EventSource, message: &TextMessage) -> Shared {
        let conversation = &source.conversation;
        let now = self.clock.now().as_millisecond();
        let since = now - QUOTE_WINDOW_MS;
        let recent = RecentSent::from_deps(&self.deps)
            .since(&conversation.id, since)
            .await
            .unwrap_or_else(|e| {
                tracing::warn!(error = %e, "recent photos and files unavailable");
                RecentMedia::default()
            });
        let photos = recent.photos;
        // In a 1:1 chat a file is read when it arrives; only a group asks about one later.
        let mut files = if conversation.is_multi_person() { recent.files } else { Vec::new() };
        files.retain(|f| document::kind_of(&f.file_name).is_some());
        pick::shared_for(
            &photos,
            &files,
            source.user_id.as_deref(),
            message.quoted_message_id.as_deref(),
            now,
        )
    }

    /// Logs a media message (for recap) without a turn.
    async fn log_only(
        &self,
        event: &Event,
        source: &EventSource,
        message: &TextMessage,
        kept: &Kept,
    ) {
        let speaker = match &source.user_id {
            Some(user) => self.display_name(&source.conversation, user).await,
            None => None,
        };
        self.log_incoming(event, source, &message.id, &message.text, speaker.as_deref(), kept);
    }

    /// Tells the family, politely, why a media message cannot be used.
    async fn tell(
        &self,
        event: &Event,
        source: &EventSource,
        problem: MediaProblem,
        received_at: Timestamp,
        kept: &Kept,
    ) {
        let reply = Message::text(problem.message(Lang::ZhTw));
        self.deliver(event, &source.conversation, vec![reply], None, received_at, kept).await;
    }
}

/// Where the content of message `message_id` from `provider` is (see [`ContentRef::of`]).
fn content_at(message_id: &str, provider: &ContentProvider) -> Option<ContentRef> {
    ContentRef::of(message_id, provider.is_line(), provider.original_content_url.as_deref())
}
