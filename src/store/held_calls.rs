//! State-changing tool calls held for confirmation (see `crate::features::held_calls`). A held call belongs
//! to one conversation and is only read or deleted through that conversation's id; taking it is
//! one `DELETE … RETURNING`, so a double tap runs it once.

use super::{HeldCallStore, StoreError};
use crate::platform::i18n::Lang;

row! {
    /// A held tool call.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct HeldCall {
        /// Its id (in the confirm button's data).
        pub id: i64,
        /// The conversation it was made in; only a tap there runs it.
        pub conversation_id: String,
        /// The tool's wire name.
        pub tool: String,
        /// The raw JSON arguments.
        pub args: String,
        /// The turn's language.
        pub lang: Lang,
        /// When it was held, Unix ms.
        pub created_at: i64,
    }
}

/// A call to hold.
#[derive(Debug, Clone)]
pub struct NewHeldCall<'a> {
    /// The conversation.
    pub conversation_id: &'a str,
    /// The tool's wire name.
    pub tool: &'a str,
    /// The raw JSON arguments.
    pub args: &'a str,
    /// The turn's language.
    pub lang: Lang,
    /// Now, Unix ms.
    pub at_ms: i64,
}

const ADD_PENDING: &str = "INSERT INTO held_calls (conversation_id, tool, args, lang, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id";
const TAKE_PENDING: &str = "DELETE FROM held_calls WHERE conversation_id = $1 AND id = $2 RETURNING id, conversation_id, tool, args, lang, created_at";
const PENDING: &str = "SELECT id, conversation_id, tool, args, lang, created_at FROM held_calls WHERE conversation_id = $1 ORDER BY id";
const PRUNE_PENDING: &str = "DELETE FROM held_calls WHERE created_at < $1";

impl HeldCallStore<'_> {
    /// Holds a call; returns its id.
    pub async fn add(self, c: &NewHeldCall<'_>) -> Result<i64, StoreError> {
        let (id,): (i64,) = db!(self.store, db => sqlx::query_as(ADD_PENDING)
            .bind(c.conversation_id)
            .bind(c.tool)
            .bind(c.args)
            .bind(c.lang.code())
            .bind(c.at_ms)
            .fetch_one(db)
            .await)?;
        Ok(id)
    }

    /// Removes and returns held call `id` of the conversation; `None` if the conversation has
    /// no such call (another conversation's call is never touched).
    pub async fn take(
        self,
        conversation_id: &str,
        id: i64,
    ) -> Result<Option<HeldCall>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(TAKE_PENDING)
            .bind(conversation_id)
            .bind(id)
            .fetch_optional(db)
            .await)?)
    }

    /// The conversation's held calls, oldest first.
    pub async fn of_chat(self, conversation_id: &str) -> Result<Vec<HeldCall>, StoreError> {
        Ok(
            db!(self.store, db => sqlx::query_as(PENDING).bind(conversation_id).fetch_all(db).await)?,
        )
    }

    /// Deletes calls held before `before_ms`; returns how many.
    pub async fn prune(self, before_ms: i64) -> Result<u64, StoreError> {
        Ok(
            db!(self.store, db => sqlx::query(PRUNE_PENDING).bind(before_ms).execute(db).await.map(|r| r.rows_affected()))?,
        )
    }
}
