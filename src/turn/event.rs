//! What happens to an event after the webhook acknowledged it: the message is logged, the group
//! gate ([`crate::turn::gate`]) decides whether hearth was called, the limits ([`crate::turn::limits`]) whether
//! it may answer, the agent answers, and the answer is delivered — by reply while the token is
//! fresh, else by push with a retry key.

use std::sync::Arc;

use jiff::Timestamp;

use crate::contract::Answer;
use crate::contract::{Surface, ToolCtx};
use crate::features::media::{MediaProblem, TurnMedia};
use crate::features::memory::ops::MemoryOps;
use crate::features::memory::ops::privacy;
use crate::line::client::LineError;
use crate::line::message::{MAX_MESSAGES, Message, append_last, assemble, quote};
use crate::line::webhook::{Event, EventKind, EventSource, IncomingMessage, Picked, TextMessage};
use crate::llm::openai::{ChatMessage, LlmError, Usage};
use crate::llm::prompt;
use crate::platform::conversation::Conversation;
use crate::platform::i18n::{Failure, Lang, greeting};
use crate::push::quota::notice;
use crate::turn::Turns;
use crate::turn::answers::ChatLine;
use crate::turn::answers::Kept;
use crate::turn::gate::addressed;
use crate::turn::quoted::{Quoted, with_quote};

/// Display names are looked up again after this long.
const NAME_TTL_MS: i64 = 24 * 3600 * 1000;

impl Turns {
    /// Handles one acknowledged event. Never fails: problems are logged and, where someone is
    /// waiting for an answer, turned into a friendly message.
    pub async fn handle_event(self: &Arc<Self>, event: Event, received_at: Timestamp, kept: &Kept) {
        if event.standby {
            tracing::debug!("standby event: not answered");
            return;
        }
        let Some(source) = event.source.clone() else {
            tracing::debug!(event_type = event.event_type, "event without a source: ignored");
            return;
        };
        if self.turned_away(&event, &source, received_at, kept).await {
            return;
        }
        match &event.kind {
            EventKind::Message(IncomingMessage::Text(text)) => {
                self.on_text(&event, &source, text, received_at, kept).await
            }
            EventKind::Message(IncomingMessage::Image(image)) => {
                self.on_image(&event, &source, image, received_at, kept).await
            }
            EventKind::Message(IncomingMessage::Audio(audio)) => {
                self.on_audio(&event, &source, audio, received_at, kept).await
            }
            EventKind::Message(IncomingMessage::File(file)) => {
                self.on_file(&event, &source, file, received_at, kept).await
            }
            EventKind::Message(IncomingMessage::Other { message_type, .. }) => {
                if !source.conversation.is_multi_person() {
                    tracing::debug!(message_type, "non-text message in a 1:1 chat");
                    let reply = Message::text(Failure::UnsupportedMessage.message(Lang::ZhTw));
                    self.deliver(
                        &event,
                        &source.conversation,
                        vec![reply],
                        None,
                        received_at,
                        kept,
                    )
                    .await;
                }
            }
            EventKind::Message(IncomingMessage::Sticker(sticker)) => {
                self.on_sticker(&event, &source, sticker, received_at, kept).await
            }
            EventKind::Postback { data, picked } => {
                self.on_postback(&event, &source, data, picked.as_ref(), received_at, kept).await
            }
            EventKind::MemberJoined { user_ids } => {
                if let Err(e) =
                    self.limits.door.members_back(&source.conversation.id, user_ids).await
                {
                    tracing::warn!(error = %e, "could not note members who joined");
                }
                self.welcome(&event, &source, user_ids, received_at, kept).await
            }
            EventKind::MemberLeft { user_ids } => {
                let chat = &source.conversation.id;
                match self.limits.door.members_left(chat, user_ids).await {
                    Ok(ended) => tracing::info!(
                        conversation = %source.conversation,
                        members = user_ids.len(),
                        sessions_ended = ended,
                        "members left: their family-page doors are closed"
                    ),
                    Err(e) => tracing::error!(error = %e, "could not note members who left"),
                }
                let now = self.clock.now().as_millisecond();
                let care = crate::features::care::ops::CareOps::from_deps(&self.deps);
                if let Err(e) = care.caregivers_left(chat, user_ids, now).await {
                    tracing::warn!(error = %e, "the caregivers still reached were not told who left");
                }
            }
            EventKind::Follow | EventKind::Join => {
                if let (EventKind::Follow, Some(user)) = (&event.kind, &source.user_id) {
                    self.deps.quota.note_friend(user, true).await;
                }
                let text = greeting(
                    source.conversation.is_multi_person(),
                    self.keywords.first().map(String::as_str),
                );
                self.deliver(
                    &event,
                    &source.conversation,
                    vec![Message::text(text)],
                    None,
                    received_at,
                    kept,
                )
                .await;
            }
            EventKind::Unsend { message_id } => {
                privacy::on_unsend(&self.deps.store, &source.conversation, message_id).await
            }
            EventKind::Leave | EventKind::Unfollow => {
                self.forget_names(&source.conversation).await;
                privacy::on_removed(&self.deps.store, &source.conversation).await
            }
            other => tracing::debug!(kind = ?other, "event not handled yet"),
        }
    }

    async fn on_text(
        self: &Arc<Self>,
        event: &Event,
        source: &EventSource,
        message: &TextMessage,
        received_at: Timestamp,
        kept: &Kept,
    ) {
        self.on_words(event, source, message, TurnMedia::default(), received_at, kept).await
    }

    /// A text turn, with whatever a photo, voice message or file adds to it (`media`).
    pub(crate) async fn on_words(
        self: &Arc<Self>,
        event: &Event,
        source: &EventSource,
        message: &TextMessage,
        media: TurnMedia,
        received_at: Timestamp,
        kept: &Kept,
    ) {
        let conversation = &source.conversation;
        let speaker = self.arrived(event, source, &message.id, &message.text, kept).await;
        let quotes_bot = conversation.is_multi_person()
            && self.quotes_hearth(conversation, message.quoted_message_id.as_deref()).await;
        let in_group = conversation.is_multi_person();
        let Some(request) = addressed(message, in_group, &self.keywords, quotes_bot) else {
            return;
        };
        let quoted = match &message.quoted_message_id {
            Some(id) => Some(self.quoted(conversation, id).await),
            None => None,
        };
        let turn = Turn {
            lang: media.lang.unwrap_or_else(|| Lang::detect(&request.text)),
            request: media.prompt.clone().unwrap_or(request.text),
            quoted,
            quote_token: message.quote_token.as_deref(),
            sticker: None,
            media,
            asked_about: Some(message),
        };
        self.turn(event, source, speaker.as_deref(), turn, received_at, kept).await;
    }

    /// Answers one request: the limits, the agent, and the delivery of its answer (quoting the
    /// asker's message in a group, so it is clear whom it answers).
    pub(crate) async fn turn(
        self: &Arc<Self>,
        event: &Event,
        source: &EventSource,
        speaker: Option<&str>,
        turn: Turn<'_>,
        received_at: Timestamp,
        kept: &Kept,
    ) {
        let conversation = &source.conversation;
        let in_group = conversation.is_multi_person();
        let lang = turn.lang;
        if !turn.media.admitted
            && !self.within_limits(event, source, lang, received_at, true, kept).await
        {
            return;
        }
        if !in_group && let Err(e) = self.line.show_loading(&conversation.id, 20).await {
            tracing::debug!(error = %e, "loading animation not shown");
        }
        let ctx = self.tool_ctx(source, speaker.map(str::to_string), lang, Surface::Chat);
        let request = match &turn.quoted {
            Some(quoted) => with_quote(&turn.request, quoted),
            None => turn.request.clone(),
        };
        let (mut messages, tainted) = self.prompt(&ctx, speaker, &request, in_group).await;
        let mut tainted = tainted || turn.quoted.as_ref().is_some_and(Quoted::taints);
        let shared = match turn.asked_about {
            Some(message) => {
                match self.attach_media(source, message, &turn.media, &mut messages).await {
                    Ok(shared) => shared,
                    Err(problem) => {
                        let reply = Message::text(problem.message(lang));
                        self.deliver(event, conversation, vec![reply], None, received_at, kept)
                            .await;
                        return;
                    }
                }
            }
            None => false,
        };
        tainted |= shared;
        let started = std::time::Instant::now();
        let mut usage = Usage::default();
        let answer = match self.agent.answer_counted(&ctx, messages, tainted, &mut usage).await {
            Ok(answer) => answer,
            Err(e) if shared && crate::features::media::vision_refused(&e) => {
                tracing::warn!(error = %e, "the model refused a turn with a photo or file; set HEARTH_VISION_MODEL to a model that reads images");
                Answer {
                    text: MediaProblem::NoVision.message(lang).to_string(),
                    ..Answer::default()
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "turn failed");
                Answer { text: failure_for(&e).message(lang).to_string(), ..Answer::default() }
            }
        };
        let said = crate::turn::speech::said_of(&answer);
        let by_voice = turn.media.heard.is_some();
        let mut answer = crate::features::media::dress(answer, turn.media, lang);
        if shared {
            answer.cards = crate::features::held_calls::combined::combine(
                std::mem::take(&mut answer.cards),
                lang,
            );
        }
        let mut answer = self.with_quota_notice(conversation, answer, lang).await;
        match &self.charts {
            Some(charts) => charts.illustrate(&mut answer.cards, &self.tz).await,
            // Charts and the family page are both served at HEARTH_PUBLIC_URL.
            None => crate::features::family_page::without_open_buttons(&mut answer.cards),
        }
        let style = self.reply_style(conversation);
        let mut replies = assemble(&answer, &style);
        if in_group && let Some(token) = turn.quote_token {
            quote(&mut replies, token);
        }
        if let Some(sticker) = turn.sticker
            && replies.len() < MAX_MESSAGES
        {
            // The sticker goes first: the chips stay on the last message.
            replies.insert(0, sticker);
        }
        if replies.len() < MAX_MESSAGES
            && let Some(audio) =
                self.spoken_answer(source, by_voice, &said, lang, received_at, &mut usage).await
        {
            append_last(&mut replies, audio);
        }
        self.charge(conversation, usage, kept);
        self.deliver(event, conversation, replies, Some((&answer, &style)), received_at, kept)
            .await;
        crate::platform::metrics::turn(started.elapsed());
    }

    /// Keeps the incoming message for the chat log (for recap and history), written at the
    /// turn's end with its answers ([`crate::turn::answers`]); the turn's history is everything
    /// logged before it.
    pub(crate) fn log_incoming(
        &self,
        event: &Event,
        source: &EventSource,
        message_id: &str,
        text: &str,
        speaker: Option<&str>,
        kept: &Kept,
    ) {
        let speaker = speaker.map(str::to_string);
        kept.incoming(ChatLine::said(source, message_id, text, speaker, event.timestamp_ms));
    }

    /// The messages sent to the LLM for `request` ([`prompt::messages`]): the instructions, the
    /// chat's part with its memories, the history (the message
    /// being answered is kept for the turn's end, so it is not in it yet), and the request (with its speaker in a group); and whether that history
    /// holds untrusted content.
    async fn prompt(
        &self,
        ctx: &ToolCtx,
        speaker: Option<&str>,
        request: &str,
        in_group: bool,
    ) -> (Vec<ChatMessage>, bool) {
        let (history, memories) = MemoryOps::from_deps(&self.deps)
            .history_and_memories(ctx, self.history_messages, self.history_chars)
            .await
            .unwrap_or_else(|e| {
                tracing::warn!(error = %e, "history and memories unavailable");
                Default::default()
            });
        let chat = crate::features::memory::chat_part(ctx, &memories, request);
        let messages = prompt::messages(
            ctx,
            &self.prompt_setting(),
            chat,
            prompt::history(&history, in_group),
            prompt::request(speaker, request, in_group),
        );
        (messages, prompt::history_tainted(&history))
    }

    /// Prefixes the answer with what LINE's monthly quota means for this chat: the items that
    /// were due while the month was out ("你錯過的提醒：…", delivered here for free), and once a
    /// month, in a chat with pushes scheduled, a short notice that 80 % is used.
    async fn with_quota_notice(
        &self,
        conversation: &Conversation,
        mut answer: Answer,
        lang: Lang,
    ) -> Answer {
        let mut notes = Vec::new();
        // Items are rarely held: the quota's read says whether to take any (when it fails,
        // they are taken anyway, as before the read told).
        let held = match self.deps.quota.standing_and_held(&conversation.id).await {
            Ok((standing, held)) => {
                if let Some(standing) =
                    self.deps.quota.warning_due(&conversation.id, standing).await
                {
                    notes.push(notice::warning(standing.used, standing.limit.unwrap_or(0), lang));
                }
                held
            }
            Err(e) => {
                tracing::warn!(error = %e, "the month's quota unavailable");
                true
            }
        };
        let taken =
            if held { self.deps.quota.take_held(&conversation.id).await } else { Ok(Vec::new()) };
        match taken {
            Ok(held) => {
                let items: Vec<(String, Timestamp)> = held
                    .into_iter()
                    .filter_map(|h| Some((h.summary, Timestamp::from_millisecond(h.held_at).ok()?)))
                    .collect();
                notes.extend(notice::missed(&items, &self.tz, lang));
            }
            Err(e) => tracing::warn!(error = %e, "held items unavailable"),
        }
        if !notes.is_empty() {
            notes.push(std::mem::take(&mut answer.text));
            answer.text = notes.join("\n\n");
        }
        answer
    }

    /// A tapped button: verified against this conversation, then handed to its feature.
    async fn on_postback(
        self: &Arc<Self>,
        event: &Event,
        source: &EventSource,
        data: &str,
        picked: Option<&Picked>,
        received_at: Timestamp,
        kept: &Kept,
    ) {
        let conversation = &source.conversation;
        let answer = match self.postback_key.verify_in(conversation, data) {
            Ok((postback, surface)) => {
                let speaker = match &source.user_id {
                    Some(user) => self.display_name(conversation, user).await,
                    None => None,
                };
                let ctx = self.tool_ctx(source, speaker, Lang::ZhTw, surface);
                self.actions.dispatch_picked(&self.deps, &ctx, &postback, picked).await
            }
            Err(e) => {
                tracing::warn!(error = %e, conversation = %conversation, "postback refused");
                Answer {
                    text: crate::buttons::refusal(Lang::ZhTw).to_string(),
                    ..Answer::default()
                }
            }
        };
        let style = self.reply_style(conversation);
        let mut replies = assemble(&answer, &style);
        self.speak_tapped(source, &answer, &mut replies).await;
        self.deliver(event, conversation, replies, Some((&answer, &style)), received_at, kept)
            .await;
    }

    /// The context tools and buttons act in.
    pub(crate) fn tool_ctx(
        &self,
        source: &EventSource,
        speaker: Option<String>,
        lang: Lang,
        surface: Surface,
    ) -> ToolCtx {
        ToolCtx {
            conversation: source.conversation.clone(),
            user_id: source.user_id.clone(),
            display_name: speaker,
            tz: self.tz.clone(),
            lang,
            clock: self.clock.clone(),
            surface,
        }
    }

    /// Drops the cached display names of `conversation` (hearth was removed from it).
    async fn forget_names(&self, conversation: &Conversation) {
        let cached: Vec<(String, String)> = self
            .names
            .iter()
            .filter(|(key, _)| key.0 == conversation.id)
            .map(|(key, _)| (*key).clone())
            .collect();
        for key in cached {
            self.names.invalidate(&key).await;
        }
    }

    /// The display name of `user_id`: from memory, from the store if recent, else from LINE.
    pub(crate) async fn display_name(
        &self,
        conversation: &Conversation,
        user_id: &str,
    ) -> Option<String> {
        let key = (conversation.id.clone(), user_id.to_string());
        if let Some(name) = self.names.get(&key).await {
            return Some(name);
        }
        let name = self.lookup_display_name(conversation, user_id).await?;
        self.names.insert(key, name.clone()).await;
        Some(name)
    }

    async fn lookup_display_name(
        &self,
        conversation: &Conversation,
        user_id: &str,
    ) -> Option<String> {
        let now = self.clock.now().as_millisecond();
        let members = MemoryOps::from_deps(&self.deps);
        if let Ok(Some((name, at))) = members.member_name(&conversation.id, user_id).await
            && now - at < NAME_TTL_MS
        {
            return Some(name);
        }
        let in_group = conversation.is_multi_person();
        let member = [user_id.to_string()];
        match self.line.profile(conversation, user_id).await {
            Ok(profile) => {
                if let Some(language) = profile.language.as_deref().filter(|_| !in_group) {
                    self.menu_for_language(user_id, language, now).await;
                }
                let name = profile.display_name;
                if let Err(e) =
                    members.keep_member_name(&conversation.id, user_id, &name, now).await
                {
                    tracing::warn!(error = %e, "could not cache a display name");
                }
                // LINE knows them in the group: present (again).
                if in_group
                    && let Err(e) = self.limits.door.members_back(&conversation.id, &member).await
                {
                    tracing::warn!(error = %e, "could not note a member present");
                }
                Some(name)
            }
            Err(LineError::Rejected { status, .. })
                if in_group && status == reqwest::StatusCode::NOT_FOUND =>
            {
                // LINE no longer knows them in the group: they left it (the door closes the
                // group's page to them, as a `memberLeft` would).
                tracing::info!(%conversation, "a member is no longer in the group");
                if let Err(e) = self.limits.door.members_left(&conversation.id, &member).await {
                    tracing::warn!(error = %e, "could not note a member who left");
                }
                None
            }
            Err(e) => {
                tracing::debug!(error = %e, "display name unavailable");
                None
            }
        }
    }
}

/// One request to answer, and how to answer it.
pub(crate) struct Turn<'a> {
    /// The language of the request.
    pub(crate) lang: Lang,
    /// What the model reads as the request (the call to hearth removed).
    pub(crate) request: String,
    /// The message the request quotes, if any.
    pub(crate) quoted: Option<Quoted>,
    /// The asker's message, quoted by the answer in a group.
    pub(crate) quote_token: Option<&'a str>,
    /// A sticker to send with the answer.
    pub(crate) sticker: Option<Message>,
    /// What a photo, voice message or file adds to the request.
    pub(crate) media: TurnMedia,
    /// The text message whose photos the request may be about (none for a sticker).
    pub(crate) asked_about: Option<&'a TextMessage>,
}

fn failure_for(error: &LlmError) -> Failure {
    match error {
        LlmError::RateLimited => Failure::Busy,
        LlmError::Timeout | LlmError::Connect(_) | LlmError::Garbage | LlmError::Status { .. } => {
            Failure::Unavailable
        }
        LlmError::Unauthorized(_) => Failure::Internal,
    }
}
