//! The events that make hearth feel native in LINE, beside the text turn of its parent: a
//! sticker (answered in kind, see [`crate::turn::sticker`]), the message a quote-reply quotes (see
//! [`crate::turn::quoted`]), and members joining a group (one welcome, see [`crate::turn::welcome`]);
//! and the entry every turn shares: what arrived logged, who wrote it, whether it quotes hearth.

use std::sync::Arc;

use jiff::Timestamp;

use super::deliver::REPLY_TOKEN_FRESH;
use super::event::Turn;
use crate::features::media::TurnMedia;
use crate::features::memory::ops::MemoryOps;
use crate::features::settings::ChatSettings;
use crate::line::webhook::{Event, EventSource, StickerMessage};
use crate::platform::conversation::Conversation;
use crate::platform::i18n::Lang;
use crate::turn::Turns;
use crate::turn::answers::Kept;
use crate::turn::quoted::Quoted;

impl Turns {
    /// A sticker: logged like a message; in a 1:1 chat (or replying to hearth in a group) it
    /// gets a short answer in kind, and maybe a sticker (see [`crate::turn::sticker`]).
    pub(super) async fn on_sticker(
        self: &Arc<Self>,
        event: &Event,
        source: &EventSource,
        sticker: &StickerMessage,
        received_at: Timestamp,
        kept: &Kept,
    ) {
        let conversation = &source.conversation;
        let log_text = crate::turn::sticker::log_text(sticker);
        let speaker = self.arrived(event, source, &sticker.id, &log_text, kept).await;
        let quoted = sticker.quoted_message_id.as_deref();
        if conversation.is_multi_person() && !self.quotes_hearth(conversation, quoted).await {
            return;
        }
        let turn = Turn {
            lang: sticker.text.as_deref().map(Lang::detect).unwrap_or_default(),
            request: crate::turn::sticker::request(sticker),
            quoted: None,
            quote_token: sticker.quote_token.as_deref(),
            sticker: crate::turn::sticker::answer_sticker(sticker)
                .map(crate::turn::sticker::message),
            media: TurnMedia::default(),
            asked_about: None,
        };
        self.turn(event, source, speaker.as_deref(), turn, received_at, kept).await;
    }

    /// Logs what arrived (`text` of message `message_id`) and answers who wrote it (their
    /// display name, when known): the entry of every turn.
    pub(super) async fn arrived(
        &self,
        event: &Event,
        source: &EventSource,
        message_id: &str,
        text: &str,
        kept: &Kept,
    ) -> Option<String> {
        let speaker = match &source.user_id {
            Some(user) => self.display_name(&source.conversation, user).await,
            None => None,
        };
        self.log_incoming(event, source, message_id, text, speaker.as_deref(), kept);
        speaker
    }

    /// True when the message quotes (`quoted`, its id) one of hearth's own in `conversation`.
    pub(super) async fn quotes_hearth(
        &self,
        conversation: &Conversation,
        quoted: Option<&str>,
    ) -> bool {
        match quoted {
            Some(quoted) => MemoryOps::from_deps(&self.deps)
                .is_hearths(&conversation.id, quoted)
                .await
                .unwrap_or(false),
            None => false,
        }
    }

    /// The message a request quotes: from the chat log, else what is known of it.
    pub(super) async fn quoted(&self, conversation: &Conversation, message_id: &str) -> Quoted {
        let log = MemoryOps::from_deps(&self.deps);
        match log.quoted(&conversation.id, message_id).await {
            Ok(Some(row)) => Quoted::Found(row),
            Ok(None) => Quoted::Unseen {
                from_bot: log.is_hearths(&conversation.id, message_id).await.unwrap_or(false),
            },
            Err(e) => {
                tracing::warn!(error = %e, "quoted message unavailable");
                Quoted::Unseen { from_bot: false }
            }
        }
    }

    /// Members joined a group: one welcome for those never welcomed there, as a reply (free);
    /// never pushed, so a join hearth handles late goes unwelcomed rather than costing quota.
    pub(super) async fn welcome(
        &self,
        event: &Event,
        source: &EventSource,
        user_ids: &[String],
        received_at: Timestamp,
        kept: &Kept,
    ) {
        let conversation = &source.conversation;
        if !conversation.is_multi_person() || user_ids.is_empty() {
            return;
        }
        let now = self.clock.now();
        let settings = ChatSettings::from_deps(&self.deps);
        let newcomers =
            match settings.newcomers(&conversation.id, user_ids, now.as_millisecond()).await {
                Ok(newcomers) if !newcomers.is_empty() => newcomers,
                Ok(_) => {
                    tracing::debug!(%conversation, "joined members were welcomed before");
                    return;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "could not record a welcome; not welcoming");
                    return;
                }
            };
        let token_left = REPLY_TOKEN_FRESH - now.duration_since(received_at);
        let fresh = token_left.is_positive();
        let Some(token) = event.reply_token.as_deref().filter(|_| fresh) else {
            tracing::info!(%conversation, "join handled too late to reply: no welcome");
            return;
        };
        let messages = vec![crate::turn::welcome::welcome(
            &newcomers,
            self.keywords.first().map(String::as_str),
        )];
        match self.line.reply(token, &messages, token_left.unsigned_abs()).await {
            Ok(sent) => self.remember_sent(conversation, &messages, &sent.ids(), false, kept),
            Err(e) => tracing::warn!(error = %e, %conversation, "welcome not delivered"),
        }
    }
}
