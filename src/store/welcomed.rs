//! Who hearth has welcomed in each group: one welcome per member per chat, ever (until the chat
//! removes hearth and is forgotten).

use super::{ChatStore, StoreError};

const WELCOME: &str = "INSERT INTO welcomed_members (conversation_id, user_id, welcomed_at) VALUES ($1, $2, $3) ON CONFLICT (conversation_id, user_id) DO NOTHING";

impl ChatStore<'_> {
    /// Records `user_ids` as welcomed in this conversation and returns those that were not
    /// welcomed before (in their order), in one transaction: of two replicas handling the same
    /// join, one gets them.
    pub async fn mark_welcomed(
        self,
        conversation_id: &str,
        user_ids: &[String],
        now_ms: i64,
    ) -> Result<Vec<String>, StoreError> {
        Ok(db!(self.store, db => {
            transaction!(db, tx);
            let mut new = Vec::new();
            for user in user_ids {
                let inserted = sqlx::query(WELCOME)
                    .bind(conversation_id)
                    .bind(user)
                    .bind(now_ms)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                if inserted == 1 && !new.contains(user) {
                    new.push(user.clone());
                }
            }
            tx.commit().await?;
            new
        }))
    }
}
