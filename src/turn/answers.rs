//! What a turn writes at its end, kept until its event is marked done: the message it answers
//! (its chat log line), the answers it sent (their line and the ids LINE gave the messages) and
//! the tokens it used are recorded in the same batch as the done mark
//! ([`crate::store::Store::finish_turn`]), one write at the end of a turn instead of several.
//! Outside the handling of an inbox event (nothing to mark done) they are recorded at once.
//! A [`ChatLine`] also carries the group chatter logged as it arrives ([`super::chatter`]).

use std::cell::RefCell;
use std::future::Future;

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
pub struct Kept {
    /// The messages it took in (the one it answers), in order.
    pub incoming: Vec<ChatLine>,
    /// The answers it sent, in order.
    pub answers: Vec<SentAnswer>,
    /// The tokens it used.
    pub charges: Vec<Charge>,
}

impl Kept {
    /// The writes, as the store takes them: the messages taken in before the answers.
    pub fn writes(&self) -> TurnWrites<'_> {
        TurnWrites {
            incoming: self.incoming.iter().map(ChatLine::message).collect(),
            answers: self.answers.iter().map(|a| (a.message(), a.message_ids.as_slice())).collect(),
            charges: &self.charges,
        }
    }
}

tokio::task_local! {
    static KEPT: RefCell<Kept>;
}

/// Runs `turn`, keeping the message it takes in, the answers it sends and the tokens it uses;
/// returns its output and them.
pub async fn keeping<T>(turn: impl Future<Output = T>) -> (T, Kept) {
    KEPT.scope(RefCell::new(Kept::default()), async {
        let output = turn.await;
        (output, KEPT.with(|kept| kept.take()))
    })
    .await
}

/// Keeps `answer` for the end of the turn when the turn runs under [`keeping`]; otherwise
/// gives it back, to be recorded at once.
pub fn keep(answer: SentAnswer) -> Option<SentAnswer> {
    let mut answer = Some(answer);
    let _ = KEPT.try_with(|kept| kept.borrow_mut().answers.extend(answer.take()));
    answer
}

/// Keeps `line`, the message a turn takes in, for the end of the turn when the turn runs under
/// [`keeping`]; otherwise gives it back, to be logged at once.
pub fn keep_incoming(line: ChatLine) -> Option<ChatLine> {
    let mut line = Some(line);
    let _ = KEPT.try_with(|kept| kept.borrow_mut().incoming.extend(line.take()));
    line
}

/// Keeps `charge` for the end of the turn when the turn runs under [`keeping`]; otherwise gives
/// it back, to be counted at once.
pub fn keep_charge(charge: Charge) -> Option<Charge> {
    let mut charge = Some(charge);
    let _ = KEPT.try_with(|kept| kept.borrow_mut().charges.extend(charge.take()));
    charge
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

    #[tokio::test]
    async fn answers_sent_during_a_turn_are_kept_for_its_end_in_order() {
        let ((), kept) = keeping(async {
            assert_eq!(keep(answer("a")), None);
            tokio::task::yield_now().await;
            assert_eq!(keep(answer("b")), None);
            assert_eq!(keep_charge(charge(30)), None);
        })
        .await;
        assert_eq!(kept.answers, [answer("a"), answer("b")]);
        assert_eq!(kept.answers[0].message().message_id, Some("1"), "logged under the first id");
        assert_eq!(kept.charges, [charge(30)]);
    }

    #[tokio::test]
    async fn outside_a_turn_an_answer_or_a_charge_is_given_back_to_be_recorded_at_once() {
        assert_eq!(keep(answer("a")), Some(answer("a")));
        assert_eq!(keep_charge(charge(5)), Some(charge(5)));
    }

    fn charge(tokens: u64) -> Charge {
        Charge { day: "2026-12-02".into(), conversation_id: "Ufamily".into(), tokens }
    }
}
