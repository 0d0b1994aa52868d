//! Poison events: an event whose handling did not finish twice (it crashed or hung every process
//! that took it) is set aside instead of being claimed a third time, so one message can never
//! put hearth in a crash loop. Its chat is told once, when the event would have been answered
//! ([`owed_an_answer`]); the apology is pushed before the event is marked, with a retry key of
//! its own, so a process that dies in between pushes it again and LINE refuses the copy.

use uuid::Uuid;

use super::Inbox;
use crate::line::message::Message;
use crate::line::webhook::{Event, EventKind, IncomingMessage};
use crate::platform::conversation::Conversation;
use crate::platform::i18n::{Failure, Lang};
use crate::store::StoreError;
use crate::turn::gate::addressed;

/// Namespace of the apologies' retry keys (apart from the answers' own).
const APOLOGY_NAMESPACE: Uuid = Uuid::from_u128(0x6865_6172_7468_2d73_6574_2d61_7369_6465);

/// The chat that waited for an answer to `event`, and its language; `None` when nobody did (a
/// group message that did not call hearth, a follow, an unsend).
pub fn owed_an_answer(event: &Event, keywords: &[String]) -> Option<(Conversation, Lang)> {
    let source = event.source.as_ref()?;
    let conversation = source.conversation.clone();
    let in_group = conversation.is_multi_person();
    match &event.kind {
        EventKind::Message(IncomingMessage::Text(text)) => {
            let called = addressed(text, in_group, keywords, false)?;
            Some((conversation, Lang::detect(&called.text)))
        }
        EventKind::Message(_) if !in_group => Some((conversation, Lang::ZhTw)),
        EventKind::Postback { .. } => Some((conversation, Lang::ZhTw)),
        _ => None,
    }
}

impl Inbox {
    /// Sets aside the events whose handling did not finish twice, telling each chat that
    /// waited once; updates the count `/metrics` shows.
    pub async fn set_aside_poison_events(&self) -> Result<(), StoreError> {
        let now = self.clock.now().as_millisecond();
        for poisoned in self.store.inbox().poisoned_events(now).await? {
            tracing::error!(
                event_id = poisoned.event_id,
                claims = poisoned.attempts,
                "an event's handling did not finish twice; setting it aside"
            );
            let owed = Event::parse_json(&poisoned.payload)
                .ok()
                .and_then(|event| owed_an_answer(&event, &self.turns.keywords));
            // A chat hearth does not serve gets no (paid) apology either.
            let owed = match owed {
                Some((conversation, lang)) if self.serves(&conversation).await => {
                    Some((conversation, lang))
                }
                _ => None,
            };
            if let Some((conversation, lang)) = owed {
                let key = Uuid::new_v5(&APOLOGY_NAMESPACE, poisoned.event_id.as_bytes());
                let sorry = [Message::text(Failure::SetAside.message(lang))];
                let pusher = &self.turns.deps.pusher;
                if let Err(e) = pusher.push_answer(&conversation.id, &sorry, key).await {
                    tracing::warn!(error = %e, %conversation, "the apology for a set-aside event was not delivered");
                }
            }
            if self
                .store
                .inbox()
                .set_aside_event(&poisoned.event_id, poisoned.attempts, now)
                .await?
            {
                crate::platform::metrics::events_set_aside(1);
            }
        }
        crate::platform::metrics::set_aside_total(self.store.inbox().set_aside_count().await?);
        Ok(())
    }

    /// Whether `conversation` is served now (the door is open for it).
    async fn serves(&self, conversation: &Conversation) -> bool {
        let door = &self.turns.limits.door;
        door.known_served(conversation) || matches!(door.chat(&conversation.id).await, Ok(Ok(())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(source: &str, message: &str) -> Event {
        Event::parse_json(&format!(
            r#"{{"type":"message","webhookEventId":"01E","timestamp":1,"mode":"active","deliveryContext":{{"isRedelivery":false}},"replyToken":"r","source":{source},"message":{message}}}"#
        ))
        .expect("event")
    }

    const DM: &str = r#"{"type":"user","userId":"Umom"}"#;
    const GROUP: &str = r#"{"type":"group","groupId":"Cfamily","userId":"Umom"}"#;

    #[test]
    fn a_direct_message_is_owed_an_answer_in_its_language() {
        let text = r#"{"type":"text","id":"1","text":"what's the weather","quoteToken":"q"}"#;
        let (conversation, lang) = owed_an_answer(&event(DM, text), &[]).expect("owed");
        assert_eq!(conversation.id, "Umom");
        assert_eq!(lang, Lang::En);
        let file = r#"{"type":"file","id":"2","fileName":"a.pdf","fileSize":10}"#;
        assert_eq!(owed_an_answer(&event(DM, file), &[]).map(|o| o.1), Some(Lang::ZhTw));
    }

    #[test]
    fn a_group_message_is_owed_one_only_when_it_called_hearth() {
        let keywords = vec!["小幫手".to_string()];
        let chatter = r#"{"type":"text","id":"1","text":"晚餐吃什麼","quoteToken":"q"}"#;
        assert!(owed_an_answer(&event(GROUP, chatter), &keywords).is_none());
        let called = r#"{"type":"text","id":"1","text":"小幫手 晚餐吃什麼","quoteToken":"q"}"#;
        let (conversation, _) = owed_an_answer(&event(GROUP, called), &keywords).expect("owed");
        assert_eq!(conversation.id, "Cfamily");
        let photo = r#"{"type":"image","id":"3","contentProvider":{"type":"line"}}"#;
        assert!(owed_an_answer(&event(GROUP, photo), &keywords).is_none());
    }
}
