//! The conversation log: what each chat said and what hearth answered (the history a turn
//! reads), the ids of hearth's own messages (to recognise quotes of the bot), and the members'
//! display names.

use sqlx::FromRow;

use super::{ChatLogStore, StoreError, batch};

/// Adds to `batch` the logging of `message` (see [`crate::store::ChatLogStore::log_message`]).
pub(super) fn log_message_in<'a>(batch: &mut batch::Batch<'a>, message: &NewMessage<'a>) {
    batch
        .push(LOG_MESSAGE)
        .bind(message.conversation_id)
        .bind(message.message_id)
        .bind(message.user_id)
        .bind(message.speaker)
        .bind(message.from_bot)
        .bind(message.text)
        .bind(message.at_ms)
        .bind(message.tainted);
}

/// Adds to `batch` the record of an answer hearth sent (see
/// [`crate::store::ChatLogStore::record_answer`]).
pub(super) fn record_answer_in<'a>(
    batch: &mut batch::Batch<'a>,
    answer: &NewMessage<'a>,
    message_ids: &'a [String],
) {
    log_message_in(batch, answer);
    let Some((first, more)) = message_ids.split_first() else { return };
    // One statement for all of the answer's messages (a text and a card, say).
    batch.push(record_sent_sql(message_ids.len())).bind(first.as_str());
    batch.bind(answer.conversation_id).bind(answer.at_ms);
    for id in more {
        batch.bind(id.as_str());
    }
}

/// The INSERT of `ids` sent messages of one conversation at one time: `$1` is the first id,
/// `$2` the conversation, `$3` the time, `$4`… the other ids.
fn record_sent_sql(ids: usize) -> std::borrow::Cow<'static, str> {
    let Some(head) = RECORD_SENT.strip_suffix(RECORD_SENT_TAIL).filter(|_| ids > 1) else {
        return RECORD_SENT.into();
    };
    let mut sql = String::from(head);
    for n in 4..ids + 3 {
        sql.push_str(&format!(", (${n}, $2, $3)"));
    }
    sql.push_str(RECORD_SENT_TAIL);
    sql.into()
}

/// The newest of `newest_first` that fit in `max_chars` characters in all, oldest first.
pub(super) fn oldest_first_within(
    newest_first: impl IntoIterator<Item = LoggedMessage>,
    max_chars: usize,
) -> Vec<LoggedMessage> {
    let mut kept = Vec::new();
    let mut used = 0;
    for row in newest_first {
        used += row.text.chars().count();
        if used > max_chars {
            break;
        }
        kept.push(row);
    }
    kept.reverse();
    kept
}

/// A message to add to the conversation log.
#[derive(Debug, Clone)]
pub struct NewMessage<'a> {
    /// The conversation (`U…`, `C…`, `R…`).
    pub conversation_id: &'a str,
    /// LINE's message id, when known.
    pub message_id: Option<&'a str>,
    /// The speaker's user id.
    pub user_id: Option<&'a str>,
    /// The speaker's display name.
    pub speaker: Option<&'a str>,
    /// True for hearth's own answers.
    pub from_bot: bool,
    /// The text.
    pub text: &'a str,
    /// When it was said.
    pub at_ms: i64,
    /// True for an answer written after untrusted web content entered its turn.
    pub tainted: bool,
}

/// A message from the log.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedMessage {
    /// The speaker's display name.
    pub speaker: Option<String>,
    /// True for hearth's own answers.
    pub from_bot: bool,
    /// The text.
    pub text: String,
    /// When it was said.
    pub at_ms: i64,
    /// True for an answer written after untrusted web content entered its turn (read by
    /// history only; other reads leave it false).
    pub tainted: bool,
}

impl<'r, R: sqlx::Row> FromRow<'r, R> for LoggedMessage
where
    &'r str: sqlx::ColumnIndex<R>,
    Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    bool: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    fn from_row(row: &'r R) -> Result<Self, sqlx::Error> {
        let tainted = match row.try_get("tainted") {
            Err(sqlx::Error::ColumnNotFound(_)) => false,
            read => read?,
        };
        Ok(Self {
            speaker: row.try_get("speaker")?,
            from_bot: row.try_get("from_bot")?,
            text: row.try_get("text")?,
            at_ms: row.try_get("at_ms")?,
            tainted,
        })
    }
}

const LOG_MESSAGE: &str = "INSERT INTO chat_log (conversation_id, message_id, user_id, speaker, from_bot, text, at_ms, tainted) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id";
const HISTORY: &str = "SELECT speaker, from_bot, text, at_ms, tainted FROM chat_log WHERE conversation_id = $1 AND id < $2 ORDER BY id DESC LIMIT CAST($3 AS BIGINT)";
const RECORD_SENT: &str = "INSERT INTO sent_messages (message_id, conversation_id, sent_at) VALUES ($1, $2, $3) ON CONFLICT (message_id) DO NOTHING";
/// The part of [`RECORD_SENT`] after its row of values.
const RECORD_SENT_TAIL: &str = " ON CONFLICT (message_id) DO NOTHING";
const IS_SENT: &str =
    "SELECT message_id FROM sent_messages WHERE message_id = $1 AND conversation_id = $2";
const MEMBER_NAME: &str =
    "SELECT display_name, updated_at FROM members WHERE conversation_id = $1 AND user_id = $2";
const SAVE_MEMBER: &str = "INSERT INTO members (conversation_id, user_id, display_name, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT (conversation_id, user_id) DO UPDATE SET display_name = excluded.display_name, updated_at = excluded.updated_at";

impl ChatLogStore<'_> {
    /// Adds a message to the conversation log; returns its row id.
    pub async fn log_message(self, m: &NewMessage<'_>) -> Result<i64, StoreError> {
        let (id,): (i64,) = db!(self.store, db => sqlx::query_as(LOG_MESSAGE)
            .bind(m.conversation_id)
            .bind(m.message_id)
            .bind(m.user_id)
            .bind(m.speaker)
            .bind(m.from_bot)
            .bind(m.text)
            .bind(m.at_ms)
            .bind(m.tainted)
            .fetch_one(db)
            .await)?;
        Ok(id)
    }

    /// Up to `limit` messages of the conversation logged before row `before_id`, oldest first,
    /// trimmed from the oldest end to at most `max_chars` characters in all.
    pub async fn history(
        self,
        conversation_id: &str,
        before_id: i64,
        limit: usize,
        max_chars: usize,
    ) -> Result<Vec<LoggedMessage>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows: Vec<LoggedMessage> = db!(self.store, db => sqlx::query_as(HISTORY)
            .bind(conversation_id)
            .bind(before_id)
            .bind(limit)
            .fetch_all(db)
            .await)?;
        Ok(oldest_first_within(rows, max_chars))
    }

    /// Records an answer hearth sent: its text in the conversation log and the ids LINE gave its
    /// messages (to recognise quotes of the bot), together.
    pub async fn record_answer(
        self,
        answer: &NewMessage<'_>,
        message_ids: &[String],
    ) -> Result<(), StoreError> {
        let mut batch = batch::Batch::new();
        record_answer_in(&mut batch, answer, message_ids);
        self.store.run_batch(&batch).await?;
        Ok(())
    }

    /// True if `message_id` is a message hearth sent into this conversation.
    pub async fn is_bot_message(
        self,
        conversation_id: &str,
        message_id: &str,
    ) -> Result<bool, StoreError> {
        let row: Option<(String,)> = db!(self.store, db => sqlx::query_as(IS_SENT)
            .bind(message_id)
            .bind(conversation_id)
            .fetch_optional(db)
            .await)?;
        Ok(row.is_some())
    }

    /// The cached display name of a member, with when it was learned.
    pub async fn member_name(
        self,
        conversation_id: &str,
        user_id: &str,
    ) -> Result<Option<(String, i64)>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(MEMBER_NAME)
            .bind(conversation_id)
            .bind(user_id)
            .fetch_optional(db)
            .await)?)
    }

    /// Saves a member's display name.
    pub async fn save_member(
        self,
        conversation_id: &str,
        user_id: &str,
        display_name: &str,
        at_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(SAVE_MEMBER)
            .bind(conversation_id)
            .bind(user_id)
            .bind(display_name)
            .bind(at_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }
}
