//! Delivering an answer: by reply while the token is fresh and unused, else by push with a
//! retry key, counted in the month's quota like every push ([`crate::push::delivery::Pusher::push_answer`]);
//! a reply whose fate is unknown is never repeated; messages LINE rejects are sent again as
//! plain text. What was sent is kept for the chat log with the event's done mark.

use jiff::{SignedDuration, Timestamp};
use uuid::Uuid;

use crate::contract::Answer;
use crate::line::client::LineError;
use crate::line::message::{Message, ReplyStyle, assemble};
use crate::line::webhook::Event;
use crate::platform::conversation::Conversation;
use crate::turn::Turns;
use crate::turn::answers::{Kept, SentAnswer};

/// A reply token is used only this soon after the webhook arrived (LINE guarantees one minute).
pub(crate) const REPLY_TOKEN_FRESH: SignedDuration = SignedDuration::from_secs(50);
/// LINE refuses reply tokens of events older than this, even on redelivery.
const EVENT_REPLYABLE: SignedDuration = SignedDuration::from_mins(20);
/// Namespace of the deterministic push retry keys.
const RETRY_NAMESPACE: Uuid = Uuid::from_u128(0x6865_6172_7468_2d6c_696e_652d_7265_7479);

impl Turns {
    /// Sends `messages` for `event`: reply while the token is fresh; push when LINE says the
    /// token is invalid or there is none; never repeat a reply whose outcome is unknown. If LINE
    /// rejects the messages themselves, the answer is sent again with its cards as text.
    pub(crate) async fn deliver(
        &self,
        event: &Event,
        conversation: &Conversation,
        mut messages: Vec<Message>,
        answer: Option<(&Answer, &ReplyStyle)>,
        received_at: Timestamp,
        kept: &Kept,
    ) {
        let now = self.clock.now();
        let token_left = REPLY_TOKEN_FRESH - now.duration_since(received_at);
        let fresh = token_left.is_positive()
            && now.duration_since(Timestamp::from_millisecond(event.timestamp_ms).unwrap_or(now))
                < EVENT_REPLYABLE;
        let mut token = event.reply_token.as_deref().filter(|_| fresh);
        let token_left = token_left.unsigned_abs();
        let mut plain_retry_left = answer.is_some();
        loop {
            let result = match token {
                Some(t) => self.line.reply(t, &messages, token_left).await,
                None => {
                    let key = Uuid::new_v5(&RETRY_NAMESPACE, event.webhook_event_id.as_bytes());
                    self.deps.pusher.push_answer(&conversation.id, &messages, key).await
                }
            };
            match result {
                Ok(sent) => {
                    let tainted = answer.is_some_and(|(answer, _)| answer.tainted);
                    self.remember_sent(conversation, &messages, &sent.ids(), tainted, kept);
                    return;
                }
                Err(LineError::InvalidReplyToken) => {
                    tracing::info!("reply token refused; pushing");
                    token = None;
                }
                // Nothing was delivered, and the token cannot wait as long as LINE asks.
                Err(LineError::RateLimited { .. }) if token.is_some() => {
                    tracing::warn!("reply rate limited beyond the token's life; pushing");
                    token = None;
                }
                Err(LineError::Rejected { status, message }) if plain_retry_left => {
                    tracing::error!(%status, message, "LINE rejected the answer; resending as text");
                    plain_retry_left = false;
                    if let Some((answer, style)) = answer {
                        let plain = Answer { cards: Vec::new(), ..answer.clone() };
                        let mut text = plain.text.clone();
                        for card in &answer.cards {
                            text.push_str(&format!("\n\n{}", card.to_text()));
                        }
                        messages = assemble(&Answer { text, ..plain }, style);
                    }
                }
                Err(e) => {
                    tracing::error!(error = %e, unknown_outcome = e.outcome_unknown(), "answer not delivered");
                    return;
                }
            }
        }
    }

    pub(crate) fn remember_sent(
        &self,
        conversation: &Conversation,
        messages: &[Message],
        ids: &[String],
        tainted: bool,
        kept: &Kept,
    ) {
        let text: Vec<&str> =
            messages.iter().map(Message::preview).filter(|t| !t.is_empty()).collect();
        let answer = SentAnswer {
            conversation_id: conversation.id.clone(),
            message_ids: ids.to_vec(),
            text: text.join("\n"),
            at_ms: self.clock.now().as_millisecond(),
            tainted,
        };
        // Recorded with the event's done mark.
        kept.answer(answer);
    }
}
