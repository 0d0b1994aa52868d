//! What the store keeps of spoken answers: their audio (M4A) under an unguessable token until
//! it expires, for LINE to fetch (`crate::features::speech`). Kept here, not in the server's
//! memory: a day's answers stay served however many there are, after a restart too, and by
//! any replica. Forgotten with the chat, like every table with a `conversation_id`.

use super::{SpokenAudioStore, StoreError};

const SWEEP: &str = "DELETE FROM spoken_audio WHERE expires_at <= $1";
// Kept only while fewer than `$6` are served: the bound is on what is kept, never on what was
// already handed out (an answer given a link keeps it for the day).
const KEEP: &str = "INSERT INTO spoken_audio (token, conversation_id, audio, expires_at) SELECT $1, $2, $3, $4 WHERE (SELECT COUNT(*) FROM spoken_audio WHERE expires_at > $5) < $6";
const GET: &str = "SELECT audio FROM spoken_audio WHERE token = $1 AND expires_at > $2";

impl SpokenAudioStore<'_> {
    /// Keeps `audio`, spoken in `conversation_id`, under `token` until `expires_ms`, dropping
    /// what expired by `now_ms`; false (nothing kept) when `max_files` are already served.
    pub async fn keep(
        self,
        token: &str,
        conversation_id: &str,
        audio: &[u8],
        expires_ms: i64,
        now_ms: i64,
        max_files: i64,
    ) -> Result<bool, StoreError> {
        self.sweep(now_ms).await?;
        let kept = db!(self.store, db => sqlx::query(KEEP)
            .bind(token)
            .bind(conversation_id)
            .bind(audio)
            .bind(expires_ms)
            .bind(now_ms)
            .bind(max_files)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(kept > 0)
    }

    /// Deletes the audio that expired by `now_ms`: how much.
    pub async fn sweep(self, now_ms: i64) -> Result<u64, StoreError> {
        Ok(db!(self.store, db => sqlx::query(SWEEP)
            .bind(now_ms)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?)
    }

    /// The audio under `token`, while it is served at `now_ms`.
    pub async fn get(self, token: &str, now_ms: i64) -> Result<Option<Vec<u8>>, StoreError> {
        let row: Option<(Vec<u8>,)> = db!(self.store, db => sqlx::query_as(GET)
            .bind(token)
            .bind(now_ms)
            .fetch_optional(db)
            .await)?;
        Ok(row.map(|(audio,)| audio))
    }
}
