//! What the store keeps for spoken answers: the chats, and the members of a group, whose answers
//! also come as a voice message (`crate::features::speech`).

use super::{ChatStore, StoreError};

const ON: &str = "INSERT INTO spoken_answers (conversation_id, user_id, set_at) VALUES ($1, $2, $3) ON CONFLICT (conversation_id, user_id) DO UPDATE SET set_at = excluded.set_at";
const OFF: &str = "DELETE FROM spoken_answers WHERE conversation_id = $1 AND user_id = $2";
const ASKERS: &str =
    "SELECT user_id FROM spoken_answers WHERE conversation_id = $1 ORDER BY user_id";
const ASKED: &str = "SELECT COUNT(*) FROM spoken_answers WHERE conversation_id = $1 AND (user_id = '' OR user_id = $2)";

impl ChatStore<'_> {
    /// Turns spoken answers on or off in `conversation_id`: for the whole chat (`member` `None`)
    /// or for one member of it. False when nothing changed.
    pub async fn set_spoken(
        self,
        conversation_id: &str,
        member: Option<&str>,
        on: bool,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let member = member.unwrap_or_default();
        let changed = if on {
            db!(self.store, db => sqlx::query(ON)
                .bind(conversation_id)
                .bind(member)
                .bind(now_ms)
                .execute(db)
                .await
                .map(|r| r.rows_affected()))?
        } else {
            db!(self.store, db => sqlx::query(OFF)
                .bind(conversation_id)
                .bind(member)
                .execute(db)
                .await
                .map(|r| r.rows_affected()))?
        };
        Ok(changed > 0)
    }

    /// Whether answers in `conversation_id` (to `member`, when one is named) are spoken: the
    /// chat asked for it, or that member did.
    pub async fn spoken(
        self,
        conversation_id: &str,
        member: Option<&str>,
    ) -> Result<bool, StoreError> {
        let member = member.unwrap_or_default();
        let (n,): (i64,) = db!(self.store, db => sqlx::query_as(ASKED)
            .bind(conversation_id)
            .bind(member)
            .fetch_one(db)
            .await)?;
        Ok(n > 0)
    }

    /// Who asked for spoken answers in `conversation_id`: `""` for the whole chat, else a
    /// member's user id.
    pub async fn spoken_askers(self, conversation_id: &str) -> Result<Vec<String>, StoreError> {
        let rows: Vec<(String,)> = db!(self.store, db => sqlx::query_as(ASKERS)
            .bind(conversation_id)
            .fetch_all(db)
            .await)?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }
}
