//! The feed of changes: what members changed in a chat, who and from where, recorded once by
//! the operation that made the change ([`crate::features::changes`]) and read back, newest
//! first, by the family page.

use super::{ChangeStore, StoreError};

row! {
    /// A change as recorded.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct ChangeRow {
        /// Its id, in the order they were recorded.
        pub id: i64,
        /// Who, when LINE said.
        pub user_id: Option<String>,
        /// Their display name at the time.
        pub member_name: Option<String>,
        /// The surface's stored name (`chat`, `button`, `menu`, `page`, `cli`, `loop`).
        pub surface: String,
        /// The operation's name.
        pub verb: String,
        /// What it was done to, as the family reads it.
        pub what: String,
        /// When, Unix ms.
        pub at_ms: i64,
    }
}

/// A change to record.
#[derive(Debug, Clone, Copy)]
pub struct NewChange<'a> {
    /// The chat whose things changed.
    pub conversation_id: &'a str,
    /// Who, when LINE said.
    pub user_id: Option<&'a str>,
    /// Their display name.
    pub member_name: Option<&'a str>,
    /// The surface's stored name.
    pub surface: &'a str,
    /// The operation's name.
    pub verb: &'a str,
    /// What it was done to.
    pub what: &'a str,
    /// When, Unix ms.
    pub at_ms: i64,
}

const RECORD: &str = "INSERT INTO changes (conversation_id, user_id, member_name, surface, verb, what, at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)";
const RECENT: &str = "SELECT id, user_id, member_name, surface, verb, what, at_ms FROM changes WHERE conversation_id = $1 ORDER BY id DESC LIMIT CAST($2 AS BIGINT)";
/// The changes recorded before `$1`, a batch at a time.
pub(super) const PRUNE: &str = "DELETE FROM changes WHERE id IN (SELECT id FROM changes WHERE at_ms < $1 LIMIT CAST($2 AS BIGINT))";

impl ChangeStore<'_> {
    /// Records `change`.
    pub async fn record(self, change: NewChange<'_>) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(RECORD)
            .bind(change.conversation_id)
            .bind(change.user_id)
            .bind(change.member_name)
            .bind(change.surface)
            .bind(change.verb)
            .bind(change.what)
            .bind(change.at_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// The latest `limit` changes of `conversation_id`, newest first.
    pub async fn recent(
        self,
        conversation_id: &str,
        limit: i64,
    ) -> Result<Vec<ChangeRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(RECENT)
            .bind(conversation_id)
            .bind(limit)
            .fetch_all(db)
            .await)?)
    }
}
