//! The limits applied to events: turning away chats not on the allow-list, checking the rates
//! and the day's budget before a turn, and counting the tokens a turn used.

use jiff::Timestamp;

use super::{RateVerdict, Refusal};
use crate::app::Hearth;
use crate::gate::addressed;
use crate::i18n::Lang;
use crate::line::message::Message;
use crate::line::webhook::{Event, EventKind, EventSource, IncomingMessage};
use crate::llm::openai::Usage;
use crate::source::Conversation;
use crate::store::Charge;

/// Daily token counts are kept this long (for the operator's curiosity; only today's matter).
const KEEP_TOKEN_COUNTS: jiff::SignedDuration = jiff::SignedDuration::from_hours(7 * 24);

impl Hearth {
    /// Handles an event that would be answered in a chat not on the allow-list: the first time
    /// such a chat calls hearth it gets one refusal (recorded, so never again, whichever process
    /// handles the next one), then silence. Returns false, doing nothing, when the chat is
    /// allowed or the event asks for no answer (an unsend, hearth being removed).
    pub(crate) async fn turned_away(
        &self,
        event: &Event,
        source: &EventSource,
        received_at: Timestamp,
    ) -> bool {
        let conversation = &source.conversation;
        if self.limits.allowed.allows(conversation) {
            return false;
        }
        let in_group = conversation.is_multi_person();
        let calls_hearth = match &event.kind {
            EventKind::Message(IncomingMessage::Text(text)) => {
                addressed(text, in_group, &self.keywords, false).is_some()
            }
            EventKind::Message(_) => !in_group,
            EventKind::Postback { .. } | EventKind::Follow | EventKind::Join => true,
            // No welcome in a chat hearth does not serve, and no refusal either.
            EventKind::MemberJoined { .. } => return true,
            _ => return false,
        };
        if !calls_hearth {
            return true;
        }
        crate::metrics::turn_refused(Refusal::NotAllowed.reason());
        tracing::info!(%conversation, "a chat not on the allow-list called hearth");
        let now = self.clock.now().as_millisecond();
        match self.store.mark_refused(&conversation.id, now).await {
            Ok(true) => {
                let text = Refusal::NotAllowed.message(Lang::ZhTw);
                self.deliver(event, conversation, vec![Message::text(text)], None, received_at)
                    .await
            }
            Ok(false) => {}
            Err(e) => tracing::warn!(error = %e, "could not record a refusal; staying silent"),
        }
        true
    }

    /// Checks the turn rates and the day's token budget before a turn in `source`'s chat (and
    /// before anything it costs: a download, a transcription, a parse). Over a limit, sends the
    /// notice when `tell` (the rate notice at most once a minute per chat) and returns false: no
    /// turn, no LLM call.
    pub(crate) async fn within_limits(
        &self,
        event: &Event,
        source: &EventSource,
        lang: Lang,
        received_at: Timestamp,
        tell: bool,
    ) -> bool {
        let conversation = &source.conversation;
        let refusal = match self.limits.rate.check(&conversation.id, source.user_id.as_deref()) {
            RateVerdict::Go => match self.budget_left(conversation).await {
                Ok(()) => return true,
                Err(exhausted) => Some(Refusal::Budget(exhausted)),
            },
            RateVerdict::Notify => Some(Refusal::RateLimited),
            RateVerdict::Quiet => None,
        };
        let Some(refusal) = refusal else {
            crate::metrics::turn_refused(Refusal::RateLimited.reason());
            return false;
        };
        crate::metrics::turn_refused(refusal.reason());
        tracing::info!(%conversation, reason = refusal.reason(), "turn refused by a limit");
        if !tell {
            return false;
        }
        let text = refusal.message(lang);
        self.deliver(event, conversation, vec![Message::text(text)], None, received_at).await;
        false
    }

    /// Whether the chat and the service have tokens left today. A store failure lets the turn
    /// go ahead (the limit is a guard, not a reason to fall silent).
    async fn budget_left(&self, conversation: &Conversation) -> Result<(), super::Exhausted> {
        let budget = self.limits.budget;
        if budget == super::TokenBudget::default() {
            return Ok(());
        }
        let day = super::budget_day(self.clock.now(), &self.tz);
        match self.store.tokens_used(&day, &conversation.id).await {
            Ok(used) => budget.check(used.chat, used.service),
            Err(e) => {
                tracing::warn!(error = %e, "token budget unavailable; turn allowed");
                Ok(())
            }
        }
    }

    /// Forgets the token counts of days more than a week old (the server calls it hourly).
    pub async fn prune_token_counts(&self) -> Result<u64, crate::store::StoreError> {
        let now = self.clock.now();
        let week_ago = now.saturating_sub(KEEP_TOKEN_COUNTS).unwrap_or(now);
        self.store.prune_tokens(&super::budget_day(week_ago, &self.tz)).await
    }

    /// Counts the tokens a turn used against today's budgets of its chat and of the service.
    pub(crate) async fn charge(&self, conversation: &Conversation, usage: Usage) {
        let tokens = usage.tokens();
        if tokens == 0 {
            return;
        }
        crate::metrics::budget_tokens(tokens);
        let charge = Charge {
            day: super::budget_day(self.clock.now(), &self.tz),
            conversation_id: conversation.id.clone(),
            tokens,
        };
        // In an inbox event's turn, counted with its done mark.
        let Some(charge) = crate::inbox::answers::keep_charge(charge) else { return };
        if let Err(e) = self.store.add_tokens(&charge.day, &charge.conversation_id, tokens).await {
            tracing::warn!(error = %e, tokens, "could not count a turn's tokens");
        }
    }
}
