//! What the store keeps of photos and files sent in a chat: a reference to each one sent
//! recently (LINE's message id, who sent it, when; a photo's image set, a file's name), so a
//! question can be answered with the photo or the file it refers to. The chat log only says
//! `[photo]` or `[file: NAME]` (`features::media::pick::file_log`), which a person could type
//! too, so the references are kept apart. The content itself is never stored; references older
//! than the caller's horizon are deleted as new ones arrive, an unsent one is forgotten at once
//! ([`MediaStore::unsend`]), and a forgotten chat takes its references with it.

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

/// A file shared in a chat, by reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    /// LINE's message id (the key of its content).
    pub message_id: String,
    /// Who sent it.
    pub user_id: Option<String>,
    /// The file's name.
    pub file_name: String,
    /// When it was sent, Unix ms.
    pub at_ms: i64,
}

/// A photo or a file to note.
#[derive(Debug, Clone, Copy)]
pub enum SentMedia<'a> {
    /// A photo.
    Photo(&'a PhotoRef),
    /// A file.
    File(&'a FileRef),
}

/// What a chat was sent recently, each kind oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecentMedia {
    /// The photos.
    pub photos: Vec<PhotoRef>,
    /// The files.
    pub files: Vec<FileRef>,
}

const NOTE: &str = "INSERT INTO recent_media (conversation_id, message_id, user_id, file_name, set_id, set_index, set_total, at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (conversation_id, message_id) DO NOTHING";
const PRUNE: &str = "DELETE FROM recent_media WHERE at_ms < $1";
const RECENT: &str = "SELECT message_id, user_id, file_name, set_id, set_index, set_total, at_ms FROM recent_media WHERE conversation_id = $1 AND at_ms >= $2 ORDER BY at_ms, set_index";
const UNSEND: &str = "DELETE FROM recent_media WHERE conversation_id = $1 AND message_id = $2";

row! {
    struct Row {
        message_id: String,
        user_id: Option<String>,
        file_name: Option<String>,
        set_id: Option<String>,
        set_index: i32,
        set_total: i32,
        at_ms: i64,
    }
}

impl MediaStore<'_> {
    /// Notes a photo or a file sent to the conversation and deletes every reference older than
    /// `prune_before_ms`.
    pub async fn note(
        self,
        conversation_id: &str,
        sent: SentMedia<'_>,
        prune_before_ms: i64,
    ) -> Result<(), StoreError> {
        let (message_id, user_id, at_ms) = match sent {
            SentMedia::Photo(p) => (&p.message_id, &p.user_id, p.at_ms),
            SentMedia::File(f) => (&f.message_id, &f.user_id, f.at_ms),
        };
        let (file_name, set_id, set_index, set_total) = match sent {
            SentMedia::Photo(p) => (None, p.set_id.as_deref(), p.set_index, p.set_total),
            SentMedia::File(f) => (Some(f.file_name.as_str()), None, 0, 0),
        };
        db!(self.store, db => sqlx::query(PRUNE).bind(prune_before_ms).execute(db).await.map(|_| ()))?;
        db!(self.store, db => sqlx::query(NOTE)
            .bind(conversation_id)
            .bind(message_id)
            .bind(user_id.as_deref())
            .bind(file_name)
            .bind(set_id)
            .bind(i32::try_from(set_index).unwrap_or(0))
            .bind(i32::try_from(set_total).unwrap_or(0))
            .bind(at_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// The photos and files sent to the conversation since `since_ms`.
    pub async fn recent(
        self,
        conversation_id: &str,
        since_ms: i64,
    ) -> Result<RecentMedia, StoreError> {
        let rows: Vec<Row> = db!(self.store, db => sqlx::query_as(RECENT)
            .bind(conversation_id)
            .bind(since_ms)
            .fetch_all(db)
            .await)?;
        let mut recent = RecentMedia::default();
        for r in rows {
            match r.file_name {
                Some(file_name) => recent.files.push(FileRef {
                    message_id: r.message_id,
                    user_id: r.user_id,
                    file_name,
                    at_ms: r.at_ms,
                }),
                None => recent.photos.push(PhotoRef {
                    message_id: r.message_id,
                    user_id: r.user_id,
                    set_id: r.set_id,
                    set_index: u32::try_from(r.set_index).unwrap_or(0),
                    set_total: u32::try_from(r.set_total).unwrap_or(0),
                    at_ms: r.at_ms,
                }),
            }
        }
        Ok(recent)
    }

    /// Drops the reference to a photo or a file its sender unsent.
    pub async fn unsend(self, conversation_id: &str, message_id: &str) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(UNSEND)
            .bind(conversation_id)
            .bind(message_id)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{FileRef, PhotoRef, SentMedia};
    use crate::store::Store;

    fn photo(id: &str, at_ms: i64) -> PhotoRef {
        PhotoRef {
            message_id: id.into(),
            user_id: Some("Umom".into()),
            set_id: Some("set1".into()),
            set_index: 2,
            set_total: 3,
            at_ms,
        }
    }

    fn file(id: &str, at_ms: i64) -> FileRef {
        FileRef { message_id: id.into(), user_id: None, file_name: "menu.pdf".into(), at_ms }
    }

    #[tokio::test]
    async fn photos_and_files_come_back_apart_and_old_or_unsent_ones_are_gone() {
        let store = Store::in_memory().await.expect("store");
        let media = store.media();
        media.note("Cfamily", SentMedia::Photo(&photo("p-old", 1_000)), 0).await.expect("noted");
        media.note("Cfamily", SentMedia::File(&file("f1", 5_000)), 2_000).await.expect("noted");
        media.note("Cfamily", SentMedia::Photo(&photo("p1", 6_000)), 2_000).await.expect("noted");
        media.note("Cother", SentMedia::Photo(&photo("p2", 6_000)), 2_000).await.expect("noted");
        let recent = media.recent("Cfamily", 0).await.expect("read");
        assert_eq!(recent.photos, vec![photo("p1", 6_000)], "the old photo was pruned");
        assert_eq!(recent.files, vec![file("f1", 5_000)]);
        media.unsend("Cfamily", "f1").await.expect("unsent");
        assert!(media.recent("Cfamily", 0).await.expect("read").files.is_empty());
        assert_eq!(media.recent("Cother", 0).await.expect("read").photos.len(), 1, "other chat");
    }

    #[tokio::test]
    async fn upgrading_keeps_the_photos_and_files_noted_before_one_table_held_both() {
        // The schema of two tables, one for each kind, with a row in each.
        let earlier = [
            "INSERT INTO recent_photos (conversation_id, message_id, user_id, set_id, set_index, set_total, at_ms) VALUES ('Cfamily', 'p1', 'Umom', 'set1', 2, 3, 6000)",
            "INSERT INTO recent_files (conversation_id, message_id, user_id, file_name, at_ms) VALUES ('Cfamily', 'f1', NULL, 'menu.pdf', 5000)",
        ];
        let (url, dir) = crate::store::migrations::sqlite_before("0037", &earlier).await;
        let store = Store::connect(&url).await.expect("upgraded");
        let recent = store.media().recent("Cfamily", 0).await.expect("read");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(recent.photos, vec![photo("p1", 6_000)]);
        assert_eq!(recent.files, vec![file("f1", 5_000)]);
    }
}
