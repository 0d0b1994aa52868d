//! The limits applied to events: turning away chats that wait for approval (and approving
//! them: pairing codes, listed chats, approved members), checking the rates and the day's
//! budget before a turn, and counting the tokens a turn used.

use jiff::Timestamp;

use super::access::{self, code_hash, pairing_code_in};
use super::pairing::{self, Guess};
use super::{RateVerdict, Refusal};
use crate::door::{self, Standing};
use crate::features::budget::Spent;
use crate::line::message::Message;
use crate::line::webhook::{Event, EventKind, EventSource, IncomingMessage};
use crate::llm::openai::Usage;
use crate::platform::conversation::Conversation;
use crate::platform::i18n::Lang;
use crate::store::Charge;
use crate::turn::Turns;
use crate::turn::answers::Kept;
use crate::turn::gate::addressed;

/// Daily token counts are kept this long: only today's matter to the budgets, and `hearth usage`
/// shows a month as far back as the same month last year.
const KEEP_TOKEN_COUNTS: jiff::SignedDuration = jiff::SignedDuration::from_hours(400 * 24);

impl Turns {
    /// Handles an event from a chat that is not approved (see [`super::access`]); returns
    /// false, doing nothing, when the chat is served (it may become so here: a pairing code, a
    /// listed chat, an approved member speaking in a group) or the event asks for no answer (an
    /// unsend, hearth being removed). Otherwise nothing of the event is downloaded, parsed,
    /// logged or sent to a model; a chat that called hearth is told once how to get approved.
    pub(crate) async fn turned_away(
        &self,
        event: &Event,
        source: &EventSource,
        received_at: Timestamp,
        kept: &Kept,
    ) -> bool {
        let conversation = &source.conversation;
        let door = &self.limits.door;
        if door.known_served(conversation) {
            return false;
        }
        // What closes doors or takes something back is always handled.
        if matches!(
            event.kind,
            EventKind::Unsend { .. }
                | EventKind::Leave
                | EventKind::Unfollow
                | EventKind::MemberLeft { .. }
        ) {
            return false;
        }
        let in_group = conversation.is_multi_person();
        let text = match &event.kind {
            EventKind::Message(IncomingMessage::Text(text)) => Some(text),
            _ => None,
        };
        let called = match &event.kind {
            EventKind::Message(IncomingMessage::Text(text)) => {
                addressed(text, in_group, &self.keywords, false).is_some()
            }
            EventKind::Message(_) => !in_group,
            EventKind::Postback { .. } | EventKind::Follow | EventKind::Join => true,
            _ => false,
        };
        let now = self.clock.now().as_millisecond();
        match self.approved_now(event, source, called, now).await {
            Ok(true) => {
                door.remember_served(&conversation.id);
                return false;
            }
            Ok(false) => {}
            Err(e) => {
                tracing::warn!(error = %e, %conversation, "cannot read whether the chat is approved; not serving it");
                // Whoever called hearth hears that something went wrong, not silence.
                if called {
                    let sorry =
                        Message::text(crate::platform::i18n::Failure::Internal.message(Lang::ZhTw));
                    self.deliver(event, conversation, vec![sorry], None, received_at, kept).await;
                }
                return true;
            }
        }
        // In a group only a message that calls hearth is read for a code, not the chatter.
        let code_text = text.filter(|_| called);
        if let Some(code) = code_text.and_then(|t| pairing_code_in(&self.spoken(t, in_group))) {
            self.pair(event, source, &code, now, received_at, kept).await;
            return true;
        }
        if !called {
            return true;
        }
        crate::platform::metrics::turn_refused(Refusal::NotAllowed.reason());
        tracing::info!(%conversation, "a chat waiting for approval called hearth");
        match self.limits.door.note_unapproved(&conversation.id, now).await {
            Ok(true) => {
                let notice = Message::text(access::pending_notice(conversation));
                self.deliver(event, conversation, vec![notice], None, received_at, kept).await
            }
            Ok(false) => {}
            Err(e) => tracing::warn!(error = %e, "could not note a chat waiting for approval"),
        }
        true
    }

    /// Whether the chat is served — the door open for it ([`door::rule::chat`]: approved, or
    /// everyone served) — or becomes approved now: listed in `HEARTH_ALLOWED_CHATS`, or a group
    /// where a member whose own chat is approved calls hearth (`called`: a message that did not
    /// call it approves nothing). A revoked chat stays revoked whatever the list, the member or
    /// `HEARTH_OPEN` say.
    async fn approved_now(
        &self,
        event: &Event,
        source: &EventSource,
        called: bool,
        now: i64,
    ) -> Result<bool, crate::store::StoreError> {
        let conversation = &source.conversation;
        let door = &self.limits.door;
        let facts = door.chat_facts(&conversation.id).await?;
        match door::rule::chat(facts) {
            Ok(()) if facts.standing == Standing::Pending && facts.listed => {
                door.approve(&conversation.id, "allow-list", now).await?;
                return Ok(true);
            }
            Ok(()) => return Ok(true),
            Err(door::Closed::Revoked | door::Closed::Left) => return Ok(false),
            Err(door::Closed::Pending) => {}
        }
        let speaks = matches!(event.kind, EventKind::Message(_) | EventKind::Postback { .. });
        let Some(member) = source.user_id.as_deref().filter(|_| speaks && called) else {
            return Ok(false);
        };
        if !conversation.is_multi_person() {
            return Ok(false);
        }
        // The member's own 1:1 chat is approved (or listed, and not revoked).
        let own = door.chat_facts(member).await?;
        let member_approved = match own.standing {
            Standing::Approved => true,
            Standing::Pending => own.listed,
            Standing::Revoked => false,
        };
        if member_approved {
            tracing::info!(%conversation, "an approved member speaks in the group: approved");
            door.approve(&conversation.id, "member", now).await?;
        }
        Ok(member_approved)
    }

    /// The words of `text` without the trigger keyword or a mention of hearth.
    fn spoken(&self, text: &crate::line::webhook::TextMessage, in_group: bool) -> String {
        addressed(text, in_group, &self.keywords, false).map_or(text.text.clone(), |a| a.text)
    }

    /// Tries a pairing code sent in a chat waiting for approval, within the turn rates (so a
    /// stranger cannot try codes quickly) and the service-wide budget of guesses (so many
    /// strangers cannot either, see [`super::pairing`]); says whether it worked, or, over a
    /// limit, that the code was not checked and to send it again in a minute.
    async fn pair(
        &self,
        event: &Event,
        source: &EventSource,
        code: &str,
        now: i64,
        received_at: Timestamp,
        kept: &Kept,
    ) {
        let conversation = &source.conversation;
        let guess = self.guess(source, now).await;
        if guess != Guess::Check {
            crate::platform::metrics::turn_refused(guess.reason());
            tracing::info!(%conversation, reason = guess.reason(), "pairing code not checked: told to wait");
            let wait = Message::text(access::PAIRING_WAIT);
            self.deliver(event, conversation, vec![wait], None, received_at, kept).await;
            return;
        }
        let paired = match self.limits.door.pair(&code_hash(code), &conversation.id, now).await {
            Ok(paired) => paired,
            Err(e) => {
                tracing::warn!(error = %e, "could not check a pairing code");
                return;
            }
        };
        let said = if paired {
            tracing::info!(%conversation, "chat approved by a pairing code");
            self.limits.door.remember_served(&conversation.id);
            access::PAIRED
        } else {
            crate::platform::metrics::turn_refused("pairing_refused");
            access::CODE_REFUSED
        };
        self.deliver(event, conversation, vec![Message::text(said)], None, received_at, kept).await;
    }

    /// Whether a pairing code sent at `now` in `source`'s chat may be checked: within the
    /// chat's and the person's turn rates, then within the budget of guesses of each of its
    /// sources (the chat, and the person when LINE says who). The service's count is kept for
    /// the operator's alarm only.
    async fn guess(&self, source: &EventSource, now: i64) -> Guess {
        let chat = &source.conversation.id;
        if self.limits.rate.check(chat, source.user_id.as_deref()) != RateVerdict::Go {
            return Guess::OverRate;
        }
        let budget = self.limits.pairing;
        let door = &self.limits.door;
        let minute = pairing::window(now);
        match door.count_guess(minute).await {
            Ok(nth) if budget.alarms(nth) => tracing::warn!(
                per_minute = budget.alarm_per_minute,
                "more pairing codes than HEARTH_PAIRING_GUESSES_PER_MIN were sent this minute (someone guessing codes?); each chat and person is still held to its own budget"
            ),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "could not count a pairing guess for the alarm"),
        }
        let mut nth = Some(0);
        for counted in pairing::sources(chat, source.user_id.as_deref()) {
            nth = match (nth, door.count_source_guess(&counted, minute).await) {
                (Some(most), Ok(n)) => Some(most.max(n)),
                (_, Err(e)) => {
                    tracing::warn!(error = %e, "could not count a pairing guess; the code is not checked");
                    None
                }
                (None, Ok(_)) => None,
            };
        }
        Guess::counted(nth, budget)
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
        kept: &Kept,
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
            crate::platform::metrics::turn_refused(Refusal::RateLimited.reason());
            return false;
        };
        crate::platform::metrics::turn_refused(refusal.reason());
        tracing::info!(%conversation, reason = refusal.reason(), "turn refused by a limit");
        if !tell {
            return false;
        }
        let text = refusal.message(lang);
        self.deliver(event, conversation, vec![Message::text(text)], None, received_at, kept).await;
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
        match Spent::from_deps(&self.deps).on(&day, &conversation.id).await {
            Ok(used) => budget.check(used.chat, used.service),
            Err(e) => {
                tracing::warn!(error = %e, "token budget unavailable; turn allowed");
                Ok(())
            }
        }
    }

    /// Forgets the token counts of days more than about thirteen months old (the server calls
    /// it hourly).
    pub async fn prune_token_counts(&self) -> Result<u64, crate::store::StoreError> {
        let now = self.clock.now();
        let oldest = now.saturating_sub(KEEP_TOKEN_COUNTS).unwrap_or(now);
        Spent::from_deps(&self.deps).forget_before(&super::budget_day(oldest, &self.tz)).await
    }

    /// Forgets the counts of pairing guesses older than [`pairing::KEPT`] (the server calls it
    /// hourly).
    pub async fn prune_pairing_guesses(&self) -> Result<u64, crate::store::StoreError> {
        let now = self.clock.now().as_millisecond();
        self.limits.door.prune_guesses(pairing::kept_from(now)).await
    }

    /// Counts the tokens a turn used against today's budgets of its chat and of the service,
    /// with the turn and its tokens' parts (input, cached, output) for `hearth usage`.
    pub(crate) fn charge(&self, conversation: &Conversation, usage: Usage, kept: &Kept) {
        let tokens = usage.tokens();
        crate::platform::metrics::budget_tokens(tokens);
        let charge = Charge {
            day: super::budget_day(self.clock.now(), &self.tz),
            conversation_id: conversation.id.clone(),
            tokens,
            parts: crate::store::TokenParts {
                turns: 1,
                input: usage.prompt_tokens,
                cached: usage.cached_tokens,
                output: usage.completion_tokens,
            },
        };
        // Counted with the event's done mark.
        kept.charge(charge);
    }
}
