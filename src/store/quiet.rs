//! What the store keeps for quiet hours: one window per conversation (what waits for the window
//! to end waits in the per-chat outbox, `store::outbox`).

use super::{ChatStore, StoreError};

row! {
    /// A conversation's quiet hours as stored.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct QuietRow {
        /// Start, local `HH:MM`.
        pub start_local: String,
        /// End, local `HH:MM`.
        pub end_local: String,
        /// The zone of both.
        pub tz: String,
    }
}

const SAVE: &str = "INSERT INTO quiet_hours (conversation_id, start_local, end_local, tz, updated_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (conversation_id) DO UPDATE SET start_local = excluded.start_local, end_local = excluded.end_local, tz = excluded.tz, updated_at = excluded.updated_at";
const GET: &str = "SELECT start_local, end_local, tz FROM quiet_hours WHERE conversation_id = $1";
const CANCEL: &str = "DELETE FROM quiet_hours WHERE conversation_id = $1";

impl ChatStore<'_> {
    /// Sets (or changes) the conversation's quiet hours.
    pub async fn save_quiet_hours(
        self,
        conversation_id: &str,
        row: &QuietRow,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(SAVE)
            .bind(conversation_id)
            .bind(&row.start_local)
            .bind(&row.end_local)
            .bind(&row.tz)
            .bind(now_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// The conversation's quiet hours, if set.
    pub async fn quiet_hours(self, conversation_id: &str) -> Result<Option<QuietRow>, StoreError> {
        self.chat_row(GET, conversation_id).await
    }

    /// Ends the conversation's quiet hours; false when it had none.
    pub async fn cancel_quiet_hours(self, conversation_id: &str) -> Result<bool, StoreError> {
        self.delete_chat_row(CANCEL, conversation_id).await
    }
}
