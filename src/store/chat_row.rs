//! The one row a conversation may have in a settings table (its digest, its quiet hours, its
//! last place): read it, or delete it. Each table keeps its own statements; these run them.

use sqlx::FromRow;
use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;

use super::{ChatStore, StoreError};

impl ChatStore<'_> {
    /// The row `select` (a query whose `$1` is the conversation) finds, if any.
    pub(super) async fn chat_row<T>(
        self,
        select: &'static str,
        conversation_id: &str,
    ) -> Result<Option<T>, StoreError>
    where
        T: for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + Send + Unpin,
    {
        Ok(
            db!(self.store, db => sqlx::query_as(select).bind(conversation_id).fetch_optional(db).await)?,
        )
    }

    /// Runs `delete` (a statement whose `$1` is the conversation); false when it had no row.
    pub(super) async fn delete_chat_row(
        self,
        delete: &'static str,
        conversation_id: &str,
    ) -> Result<bool, StoreError> {
        let n = db!(self.store, db => sqlx::query(delete)
            .bind(conversation_id)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n > 0)
    }
}
