//! The answers a turn sent, kept until its event is marked done: they are recorded (the chat log
//! line and the ids LINE gave the messages) in the same transaction as the done mark, one write
//! at the end of a turn instead of two. Outside the handling of an inbox event (nothing to mark
//! done) an answer is recorded at once, as before.

use std::cell::RefCell;
use std::future::Future;

use crate::store::NewMessage;

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

tokio::task_local! {
    static SENT: RefCell<Vec<SentAnswer>>;
}

/// Runs `turn`, keeping the answers it sends; returns its output and them.
pub async fn keeping<T>(turn: impl Future<Output = T>) -> (T, Vec<SentAnswer>) {
    SENT.scope(RefCell::new(Vec::new()), async {
        let output = turn.await;
        (output, SENT.with(|sent| sent.take()))
    })
    .await
}

/// Keeps `answer` for the end of the turn when the turn runs under [`keeping`]; otherwise
/// gives it back, to be recorded at once.
pub fn keep(answer: SentAnswer) -> Option<SentAnswer> {
    if SENT.try_with(|_| ()).is_err() {
        return Some(answer);
    }
    SENT.with(|sent| sent.borrow_mut().push(answer));
    None
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
        })
        .await;
        assert_eq!(kept, [answer("a"), answer("b")]);
        assert_eq!(kept[0].message().message_id, Some("1"), "logged under the first id");
    }

    #[tokio::test]
    async fn outside_a_turn_an_answer_is_given_back_to_be_recorded_at_once() {
        assert_eq!(keep(answer("a")), Some(answer("a")));
    }
}
