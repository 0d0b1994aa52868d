//! What the store keeps of photos: a reference to each photo sent recently (LINE's message id,
//! who sent it, its set, when), so a question can be answered with the photo it refers to. The
//! content itself is never stored; references older than the caller's horizon are deleted as
//! new ones arrive.

use super::{MediaStore, StoreError};

/// A photo sent to a chat, by reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhotoRef {
    /// LINE's message id (the key of its content).
    pub message_id: String,
    /// Who sent it.
    pub user_id: Option<String>,
    /// Its image set, when sent with others.
    pub set_id: Option<String>,
    /// Its place in the set, from 1 (0: not in a set).
    pub set_index: u32,
    /// How many photos the set has (0: not in a set).
    pub set_total: u32,
    /// When it was sent, Unix ms.
    pub at_ms: i64,
}

const NOTE: &str = "INSERT INTO recent_photos (conversation_id, message_id, user_id, set_id, set_index, set_total, at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (conversation_id, message_id) DO NOTHING";
const PRUNE: &str = "DELETE FROM recent_photos WHERE at_ms < $1";
const RECENT: &str = "SELECT message_id, user_id, set_id, set_index, set_total, at_ms FROM recent_photos WHERE conversation_id = $1 AND at_ms >= $2 ORDER BY at_ms, set_index";
const UNSEND: &str = "DELETE FROM recent_photos WHERE conversation_id = $1 AND message_id = $2";

row! {
    struct Row {
        message_id: String,
        user_id: Option<String>,
        set_id: Option<String>,
        set_index: i32,
        set_total: i32,
        at_ms: i64,
    }
}

impl MediaStore<'_> {
    /// Notes a photo sent to the conversation and deletes every reference older than
    /// `prune_before_ms`.
    pub async fn note_photo(
        self,
        conversation_id: &str,
        photo: &PhotoRef,
        prune_before_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(PRUNE).bind(prune_before_ms).execute(db).await.map(|_| ()))?;
        db!(self.store, db => sqlx::query(NOTE)
            .bind(conversation_id)
            .bind(&photo.message_id)
            .bind(photo.user_id.as_deref())
            .bind(photo.set_id.as_deref())
            .bind(i32::try_from(photo.set_index).unwrap_or(0))
            .bind(i32::try_from(photo.set_total).unwrap_or(0))
            .bind(photo.at_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// The photos sent to the conversation since `since_ms`, oldest first.
    pub async fn recent_photos(
        self,
        conversation_id: &str,
        since_ms: i64,
    ) -> Result<Vec<PhotoRef>, StoreError> {
        let rows: Vec<Row> = db!(self.store, db => sqlx::query_as(RECENT)
            .bind(conversation_id)
            .bind(since_ms)
            .fetch_all(db)
            .await)?;
        Ok(rows
            .into_iter()
            .map(|r| PhotoRef {
                message_id: r.message_id,
                user_id: r.user_id,
                set_id: r.set_id,
                set_index: u32::try_from(r.set_index).unwrap_or(0),
                set_total: u32::try_from(r.set_total).unwrap_or(0),
                at_ms: r.at_ms,
            })
            .collect())
    }

    /// Drops the reference to a photo or a file its sender unsent.
    pub async fn unsend_media(
        self,
        conversation_id: &str,
        message_id: &str,
    ) -> Result<(), StoreError> {
        for unsend in [UNSEND, super::shared_files::UNSEND] {
            db!(self.store, db => sqlx::query(unsend)
                .bind(conversation_id)
                .bind(message_id)
                .execute(db)
                .await
                .map(|_| ()))?;
        }
        Ok(())
    }
}
