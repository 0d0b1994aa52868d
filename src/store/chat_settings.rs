//! What the store keeps of a chat's settings: one table for all of them, a setting being a name
//! and its value as JSON, for the whole chat or for one member of a group
//! (`crate::features::settings` gives each its type). Forgotten with the chat, like every table
//! with a `conversation_id`.

use super::{ChatStore, StoreError};

const PUT: &str = "INSERT INTO chat_settings (conversation_id, member_id, name, value, set_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (conversation_id, member_id, name) DO UPDATE SET value = excluded.value, set_at = excluded.set_at WHERE chat_settings.value <> excluded.value";
const REMOVE: &str =
    "DELETE FROM chat_settings WHERE conversation_id = $1 AND member_id = $2 AND name = $3";
// A member's own ('' sorts first) before the whole chat's.
const GET: &str = "SELECT value FROM chat_settings WHERE conversation_id = $1 AND name = $3 AND (member_id = '' OR member_id = $2) ORDER BY member_id DESC LIMIT 1";
const HOLDERS: &str = "SELECT member_id, value FROM chat_settings WHERE conversation_id = $1 AND name = $2 ORDER BY member_id";

impl ChatStore<'_> {
    /// Sets `name` to `value` (JSON) in `conversation_id`, for the whole chat (`member` `None`)
    /// or for one member of it; `None` takes it away. False when nothing changed.
    pub async fn put_setting(
        self,
        conversation_id: &str,
        member: Option<&str>,
        name: &str,
        value: Option<&str>,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let member = member.unwrap_or_default();
        let changed = match value {
            Some(value) => db!(self.store, db => sqlx::query(PUT)
                .bind(conversation_id)
                .bind(member)
                .bind(name)
                .bind(value)
                .bind(now_ms)
                .execute(db)
                .await
                .map(|r| r.rows_affected()))?,
            None => db!(self.store, db => sqlx::query(REMOVE)
                .bind(conversation_id)
                .bind(member)
                .bind(name)
                .execute(db)
                .await
                .map(|r| r.rows_affected()))?,
        };
        Ok(changed > 0)
    }

    /// The value (JSON) of `name` in `conversation_id` for `member`: their own when they set
    /// one, else the whole chat's.
    pub async fn setting(
        self,
        conversation_id: &str,
        member: Option<&str>,
        name: &str,
    ) -> Result<Option<String>, StoreError> {
        let row: Option<(String,)> = db!(self.store, db => sqlx::query_as(GET)
            .bind(conversation_id)
            .bind(member.unwrap_or_default())
            .bind(name)
            .fetch_optional(db)
            .await)?;
        Ok(row.map(|(value,)| value))
    }

    /// Who set `name` in `conversation_id`, with their values (JSON): `""` for the whole chat,
    /// else a member's user id.
    pub async fn setting_holders(
        self,
        conversation_id: &str,
        name: &str,
    ) -> Result<Vec<(String, String)>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(HOLDERS)
            .bind(conversation_id)
            .bind(name)
            .fetch_all(db)
            .await)?)
    }
}
