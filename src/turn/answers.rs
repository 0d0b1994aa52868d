//! What a turn writes at its end, kept until its event is marked done: the message it answers
//! (its chat log line), the answers it sent (their line and the ids LINE gave the messages) and
//! the tokens it used are recorded in the same batch as the done mark
//! ([`crate::store::InboxStore::finish_turn`]), one write at the end of a turn instead of several.
//! The inbox gives each event's turn a [`Kept`] and records what it holds with the done mark;
//! the turn passes it to whatever writes. A [`ChatLine`] also carries the group chatter logged
//! as it arrives (`server::inbox::chatter`).

use std::sync::{Mutex, PoisonError};

use crate::line::webhook::{Event, EventKind, EventSource, IncomingMessage};
use crate::store::{Charge, NewMessage, TurnWrites};

/// A message for the chat log, held until it is written.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatLine {
    conversation_id: String,
    message_id: String,
    user_id: Option<String>,
    speaker: Option<String>,
    text: String,
    at_ms: i64,
}

impl ChatLine {
    /// The line of `event` said by `speaker`, if it is a text message with a source.
    pub fn of(event: &Event, speaker: Option<String>) -> Option<Self> {
        let (Some(source), EventKind::Message(IncomingMessage::Text(message))) =
            (&event.source, &event.kind)
        else {
            return None;
        };
        Some(Self::said(source, &message.id, &message.text, speaker, event.timestamp_ms))
    }

    /// The line of message `message_id`, `text`, said by `speaker` from `source` at `at_ms`.
    pub fn said(
        source: &EventSource,
        message_id: &str,
        text: &str,
        speaker: Option<String>,
        at_ms: i64,
    ) -> Self {
        Self {
            conversation_id: source.conversation.id.clone(),
            message_id: message_id.to_string(),
            user_id: source.user_id.clone(),
            speaker,
            text: text.to_string(),
            at_ms,
        }
    }

    /// The line as the store writes it.
    pub fn message(&self) -> NewMessage<'_> {
        NewMessage {
            conversation_id: &self.conversation_id,
            message_id: Some(&self.message_id),
            user_id: self.user_id.as_deref(),
            speaker: self.speaker.as_deref(),
            from_bot: false,
            text: &self.text,
            at_ms: self.at_ms,
            tainted: false,
        }
    }
}

/// An answer hearth sent.
#[derive(Debug, Clone, PartialEq)]
pub struct SentAnswer {
    /// The conversation.
    pub conversation_id: String,
    /// The ids LINE gave the messages.
    pub message_ids: Vec<String>,
    /// The text, as logged.
    pub text: String,
    /// When it was sent.
    pub at_ms: i64,
    /// Written after untrusted content entered its turn.
    pub tainted: bool,
}

impl SentAnswer {
    /// The chat log line of the answer.
    pub fn message(&self) -> NewMessage<'_> {
        NewMessage {
            conversation_id: &self.conversation_id,
            message_id: self.message_ids.first().map(String::as_str),
            user_id: None,
            speaker: Some("hearth"),
            from_bot: true,
            text: &self.text,
            at_ms: self.at_ms,
            tainted: self.tainted,
        }
    }
}

/// What a turn left for its end.
#[derive(Debug, Default, PartialEq)]
pub struct KeptWrites {
    /// The messages it took in (the one it answers), in order.
    pub incoming: Vec<ChatLine>,
    /// The answers it sent, in order.
    pub answers: Vec<SentAnswer>,
    /// The tokens it used.
    pub charges: Vec<Charge>,
}

impl KeptWrites {
    /// The writes, as the store takes them: the messages taken in before the answers.
    pub fn writes(&self) -> TurnWrites<'_> {
        TurnWrites {
            incoming: self.incoming.iter().map(ChatLine::message).collect(),
            answers: self.answers.iter().map(|a| (a.message(), a.message_ids.as_slice())).collect(),
            charges: &self.charges,
        }
    }
}

/// The writes one turn keeps for its end, collected as it goes: created by the inbox for each
/// event, passed along the turn to whatever sends, logs or spends, and taken back when the turn
/// is over.
#[derive(Debug, Default)]
pub struct Kept(Mutex<KeptWrites>);

impl Kept {
    /// Keeps `answer`, sent by the turn.
    pub fn answer(&self, answer: SentAnswer) {
        self.lock().answers.push(answer);
    }

    /// Keeps `line`, the message the turn takes in.
    pub fn incoming(&self, line: ChatLine) {
        self.lock().incoming.push(line);
    }

    /// Keeps `charge`, the tokens the turn used.
    pub fn charge(&self, charge: Charge) {
        self.lock().charges.push(charge);
    }

    /// Everything kept, in order.
    pub fn into_writes(self) -> KeptWrites {
        self.0.into_inner().unwrap_or_else(PoisonError::into_inner)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, KeptWrites> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(text: &str) -> SentAnswer {
        SentAnswer {
            conversation_id: "Ufamily".into(),
            message_ids: vec!["1".into(), "2".into()],
            text: text.into(),
            at_ms: 5,
            tainted: false,
        }
    }

    #[test]
    fn what_a_turn_keeps_comes_back_in_order_with_answers_under_their_first_id() {
        let kept = Kept::default();
        kept.answer(answer("a"));
        kept.answer(answer("b"));
        kept.charge(charge(30));
        let kept = kept.into_writes();
        assert_eq!(kept.answers, [answer("a"), answer("b")]);
        assert_eq!(kept.answers[0].message().message_id, Some("1"), "logged under the first id");
        assert_eq!(kept.charges, [charge(30)]);
    }

    fn charge(tokens: u64) -> Charge {
        Charge {
            day: "2026-12-02".into(),
            conversation_id: "Ufamily".into(),
            tokens,
            parts: Default::default(),
        }
    }
}
