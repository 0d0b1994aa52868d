//! The place a conversation last asked the weather for, so that "要帶傘嗎" without a place is
//! about it (forgotten with the conversation, like every table with a `conversation_id`).

use super::{ChatStore, StoreError};

const SAVE: &str = "INSERT INTO chat_places (conversation_id, place, updated_at) VALUES ($1, $2, $3) ON CONFLICT (conversation_id) DO UPDATE SET place = excluded.place, updated_at = excluded.updated_at";
const GET: &str = "SELECT place FROM chat_places WHERE conversation_id = $1";

impl ChatStore<'_> {
    /// Records `place` as the one the conversation last asked about.
    pub async fn save_last_place(
        self,
        conversation_id: &str,
        place: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(SAVE)
            .bind(conversation_id)
            .bind(place)
            .bind(now_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// The place the conversation last asked about, if any.
    pub async fn last_place(self, conversation_id: &str) -> Result<Option<String>, StoreError> {
        let row: Option<(String,)> = self.chat_row(GET, conversation_id).await?;
        Ok(row.map(|(place,)| place))
    }
}
