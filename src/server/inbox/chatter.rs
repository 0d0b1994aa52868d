//! Group messages that do not call hearth — most of a busy group's traffic — are only logged
//! (for recaps and history).
//!
//! When nothing of its conversation is in hand and the speaker's name is known, such a message
//! is logged in the transaction that stores its event, which is stored done: one write, no lane,
//! no claim ([`Inbox::log_on_arrival`]). Otherwise it takes its place in its conversation's lane,
//! which takes every such message waiting in a row at its front; they are logged and their
//! events marked done in one transaction, shared with the other lanes doing the same
//! ([`super::commit`]). There the claim fences both writes: an event another process took over
//! is neither finished nor logged here. (An event logged as it is stored was never claimed: it
//! is done in the transaction that stores it.)

use std::sync::Arc;
use std::time::Duration;

use crate::door::Door;
use crate::line::webhook::{Event, EventKind, IncomingMessage};
use crate::platform::conversation::Conversation;
use crate::platform::retry::{Again, Backoff};
use crate::store::StoreError;
use crate::turn::gate::addressed;

use super::Inbox;
use super::accept::Chatter;
use super::queue::{Arriving, Job};
use crate::turn::answers::ChatLine;

/// Most messages of one conversation taken in one run.
pub const MAX_RUN: usize = 256;
/// How a run's write is tried before giving up (the database may be busy); the events then wait
/// for their leases to run out and are taken again.
const WRITE_RETRIES: Backoff = Backoff::doubling(5, Duration::from_millis(200));

/// True when `event` is only to be logged: an active text message in a group or room that is
/// served, does not call hearth (no mention of it, no trigger keyword) and quotes nothing (a
/// quote of one of hearth's messages calls it; telling needs the store, so quotes take the
/// ordinary way).
pub fn only_logged(event: &Event, keywords: &[String], door: &Door) -> bool {
    let (Some(source), EventKind::Message(IncomingMessage::Text(text))) =
        (&event.source, &event.kind)
    else {
        return false;
    };
    !event.standby
        && source.conversation.is_multi_person()
        && door.known_served(&source.conversation)
        && text.quoted_message_id.is_none()
        && addressed(text, true, keywords, false).is_none()
}

/// The conversation and user an event comes from, when it says who.
fn said_by(event: &Event) -> Option<(&Conversation, &str)> {
    let source = event.source.as_ref()?;
    Some((&source.conversation, source.user_id.as_deref()?))
}

impl Inbox {
    /// The lines of a webhook's `events` that are logged as they are stored: each an
    /// [`only_logged`] message whose speaker's name is known here (or that names no speaker),
    /// with nothing of its conversation in hand ([`super::queue::logged_at_once`]). The other
    /// events arrive in their lanes, in order, while the guard lives: keep it until they are
    /// queued.
    pub(crate) async fn log_on_arrival(
        &self,
        events: &[Event],
    ) -> (Vec<Option<ChatLine>>, Arriving) {
        let mut lines = Vec::with_capacity(events.len());
        for event in events {
            let line = if !only_logged(event, &self.turns.keywords, &self.turns.limits.door) {
                None
            } else if let Some((conversation, user)) = said_by(event) {
                // Unknown here, the name is looked up in the lane.
                let key = (conversation.id.clone(), user.to_string());
                self.turns.names.get(&key).await.and_then(|name| ChatLine::of(event, Some(name)))
            } else {
                ChatLine::of(event, None)
            };
            lines.push(line);
        }
        let chats: Vec<(&str, bool)> = events
            .iter()
            .zip(&lines)
            .map(|(e, line)| {
                let conversation = e.source.as_ref().map(|s| s.conversation.id.as_str());
                (conversation.unwrap_or_default(), line.is_some())
            })
            .collect();
        let (at_once, arriving) = self.queue.arrive(&chats);
        for (line, now) in lines.iter_mut().zip(at_once) {
            if !now {
                *line = None;
            }
        }
        (lines, arriving)
    }

    /// Logs a run of messages [`only_logged`] chose, of one conversation, in order, and marks
    /// their events done in the same transaction.
    pub(super) async fn log_chatter(self: &Arc<Self>, run: Vec<Job>) {
        let mut held = Vec::with_capacity(run.len());
        let mut items = Vec::with_capacity(run.len());
        for Job { event, held: event_held, .. } in run {
            let Some(token) = self.confirm_held(event_held.id()).await else {
                tracing::warn!(
                    event_id = event_held.id(),
                    "event taken over by another process; not handled here"
                );
                continue;
            };
            let speaker = match said_by(&event) {
                Some((conversation, user)) => self.turns.display_name(conversation, user).await,
                None => None,
            };
            let Some(line) = ChatLine::of(&event, speaker) else { continue };
            self.queue.finishing(event_held.id());
            items.push(Chatter { event_id: event.webhook_event_id, token, line });
            held.push(event_held);
        }
        let mut tries = WRITE_RETRIES.tries();
        let written = loop {
            // The claim may have been renewed by claiming again meanwhile: write with the latest.
            for item in &mut items {
                item.token = self.queue.lease(&item.event_id).map_or(item.token, |l| l.token);
            }
            let unwritten = match self.writes.chatter.write(std::mem::take(&mut items)).await {
                Err(unwritten) => unwritten,
                written => break written.map_err(|u| u.error),
            };
            // A write abandoned at shutdown has nothing left to write.
            let again = match unwritten.error {
                StoreError::Abandoned => Again::No,
                _ => Again::Backoff { asked: None },
            };
            if !tries.again("could not log untriggered messages", &unwritten.error, again).await {
                break Err(unwritten.error);
            }
            items = unwritten.items;
        };
        match written {
            Ok(finished) => {
                let lost = finished.iter().filter(|done| !**done).count();
                if lost > 0 {
                    tracing::warn!(lost, "events were taken over before they were logged");
                }
            }
            Err(e) => {
                tracing::error!(error = %e, events = held.len(), "could not log untriggered messages; they are taken again when their leases end");
            }
        }
        drop(held);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::door::AllowList;

    use super::*;

    /// A door of a fresh store (`open`: `HEARTH_OPEN`), with `served` known to be served.
    async fn door(open: bool, listed: &[&str], served: &[&str]) -> Door {
        let store = crate::store::Store::in_memory().await.expect("store");
        let clock = std::sync::Arc::new(crate::platform::clock::SystemClock);
        let door = Door::new(store, clock, open, AllowList::new(listed));
        for chat in served {
            door.remember_served(chat);
        }
        door
    }

    fn event(source: serde_json::Value, message: serde_json::Value) -> Event {
        let raw = json!({
            "type": "message", "mode": "active", "timestamp": 1,
            "webhookEventId": "01TEST", "deliveryContext": {"isRedelivery": false},
            "replyToken": "r", "source": source, "message": message,
        });
        Event::parse(raw).expect("event")
    }

    fn group() -> serde_json::Value {
        json!({"type": "group", "groupId": "Cfamily", "userId": "Umom"})
    }

    fn text(text: &str) -> serde_json::Value {
        json!({"id": "1", "type": "text", "quoteToken": "q", "text": text})
    }

    fn keywords() -> Vec<String> {
        vec!["小幫手".into()]
    }

    #[tokio::test]
    async fn a_group_message_that_does_not_call_hearth_in_a_served_chat_is_only_logged() {
        let e = event(group(), text("今天晚餐吃什麼"));
        assert!(only_logged(&e, &keywords(), &door(false, &[], &["Cfamily"]).await));
        // A listed chat, or any chat when everyone is served, is asked about in the store once,
        // the ordinary way (it may be revoked), then remembered.
        assert!(!only_logged(&e, &keywords(), &door(false, &["Cfamily"], &[]).await));
        assert!(!only_logged(&e, &keywords(), &door(true, &[], &[]).await));
    }

    #[tokio::test]
    async fn a_call_a_quote_a_one_to_one_chat_or_a_chat_not_served_takes_the_ordinary_way() {
        let all = door(true, &[], &["Cfamily", "Umom"]).await;
        let called = event(group(), text("小幫手 明天會下雨嗎"));
        assert!(!only_logged(&called, &keywords(), &all), "keyword");
        let mut quoting = text("對啊");
        quoting["quotedMessageId"] = json!("42");
        assert!(!only_logged(&event(group(), quoting), &keywords(), &all), "a quote");
        let one_to_one = event(json!({"type": "user", "userId": "Umom"}), text("你好"));
        assert!(!only_logged(&one_to_one, &keywords(), &all), "1:1 always calls");
        let place = json!({"id": "2", "type": "location", "title": "家", "address": "台北",
                           "latitude": 25.03, "longitude": 121.56});
        assert!(!only_logged(&event(group(), place), &keywords(), &all), "not text");
        let other = door(false, &["Cother"], &["Cother"]).await;
        assert!(
            !only_logged(&event(group(), text("吃飯了")), &keywords(), &other),
            "a chat not known to be served is turned away (or approved) the ordinary way"
        );
        let mut standby = event(group(), text("吃飯了"));
        standby.standby = true;
        assert!(!only_logged(&standby, &keywords(), &all));
    }
}
