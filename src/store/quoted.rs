//! Finding a message in the chat log by its LINE message id: the message a member quoted
//! (replied to) when calling hearth.

use super::{ChatLogStore, StoreError};

row! {
    /// A logged message found by its LINE message id.
    #[derive(Debug, Clone, PartialEq)]
    pub struct QuotedRow {
        /// Who said it (display name at the time).
        pub speaker: Option<String>,
        /// True for one of hearth's own answers.
        pub from_bot: bool,
        /// The text.
        pub text: String,
        /// True for an answer written after untrusted content entered its turn.
        pub tainted: bool,
    }
}

const QUOTED: &str = "SELECT speaker, from_bot, text, tainted FROM chat_log WHERE conversation_id = $1 AND message_id = $2 ORDER BY id LIMIT 1";

impl ChatLogStore<'_> {
    /// The logged message `message_id` of this conversation (another chat's id finds nothing).
    pub async fn quoted_message(
        self,
        conversation_id: &str,
        message_id: &str,
    ) -> Result<Option<QuotedRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(QUOTED)
            .bind(conversation_id)
            .bind(message_id)
            .fetch_optional(db)
            .await)?)
    }
}
