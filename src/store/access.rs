//! Which chats hearth serves (see `crate::turn::limits::access`): each chat's standing — pending,
//! approved or revoked — with who decided and whether it was told it waits, and the one-time
//! pairing codes (kept as hashes) that approve the chat they are sent in. Every change is one
//! statement or one transaction, atomic across replicas on one database.

use super::{Store, StoreError};

row! {
    /// A chat's standing as kept.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct ChatAccess {
        /// The chat (a 1:1 chat's user, a group, a room).
        pub conversation_id: String,
        /// `pending`, `approved` or `revoked`.
        pub status: String,
        /// When hearth first heard from it (Unix ms; 0 for chats kept from before approval).
        pub first_seen_at: i64,
        /// When it was approved or revoked (Unix ms).
        pub decided_at: Option<i64>,
        /// Who decided: `upgrade`, `allow-list`, `cli`, `pairing` or `member`.
        pub decided_by: Option<String>,
    }
}

const STANDING: &str = "SELECT status FROM chat_access WHERE conversation_id = $1";
const NOTE_PENDING: &str = "INSERT INTO chat_access (conversation_id, status, first_seen_at) VALUES ($1, 'pending', $2) ON CONFLICT (conversation_id) DO NOTHING";
const MARK_TOLD: &str = "UPDATE chat_access SET told_at = $2 WHERE conversation_id = $1 AND told_at IS NULL AND status <> 'approved'";
const DECIDE: &str = "INSERT INTO chat_access (conversation_id, status, first_seen_at, decided_at, decided_by) VALUES ($1, $2, $3, $3, $4) ON CONFLICT (conversation_id) DO UPDATE SET status = excluded.status, decided_at = excluded.decided_at, decided_by = excluded.decided_by";
const ALL: &str = "SELECT conversation_id, status, first_seen_at, decided_at, decided_by FROM chat_access ORDER BY CASE status WHEN 'pending' THEN 0 WHEN 'approved' THEN 1 ELSE 2 END, first_seen_at, conversation_id";
const ADD_CODE: &str =
    "INSERT INTO pairing_codes (code_hash, created_at, expires_at) VALUES ($1, $2, $3)";
const USE_CODE: &str = "UPDATE pairing_codes SET used_at = $2, conversation_id = $3 WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $2";
const PRUNE_CODES: &str = "DELETE FROM pairing_codes WHERE expires_at < $1";

impl Store {
    /// The chat's standing, `None` when hearth never heard from it.
    pub async fn chat_standing(&self, conversation_id: &str) -> Result<Option<String>, StoreError> {
        Ok(db!(self, db => sqlx::query_scalar(STANDING)
            .bind(conversation_id)
            .fetch_optional(db)
            .await)?)
    }

    /// Notes a chat that is not approved (pending when new); true the first time this is
    /// asked for a chat not approved: the one time it is told it waits for approval.
    pub async fn note_unapproved(
        &self,
        conversation_id: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        Ok(db!(self, db => {
            sqlx::query(NOTE_PENDING).bind(conversation_id).bind(now_ms).execute(db).await?;
            sqlx::query(MARK_TOLD)
                .bind(conversation_id)
                .bind(now_ms)
                .execute(db)
                .await
                .map(|r| r.rows_affected() == 1)
        })?)
    }

    /// Approves a chat (`by`: who decided).
    pub async fn approve_chat(
        &self,
        conversation_id: &str,
        by: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        self.decide(conversation_id, "approved", by, now_ms).await
    }

    /// Revokes a chat's approval: it is not served until approved again.
    pub async fn revoke_chat(&self, conversation_id: &str, now_ms: i64) -> Result<(), StoreError> {
        self.decide(conversation_id, "revoked", "cli", now_ms).await
    }

    async fn decide(
        &self,
        conversation_id: &str,
        status: &str,
        by: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self, db => sqlx::query(DECIDE)
            .bind(conversation_id)
            .bind(status)
            .bind(now_ms)
            .bind(by)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// Every chat hearth has heard from, pending ones first.
    pub async fn chat_accesses(&self) -> Result<Vec<ChatAccess>, StoreError> {
        Ok(db!(self, db => sqlx::query_as(ALL).fetch_all(db).await)?)
    }

    /// Keeps a new pairing code's hash until `expires_ms` (and forgets expired ones).
    pub async fn add_pairing_code(
        &self,
        code_hash: &str,
        now_ms: i64,
        expires_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self, db => {
            sqlx::query(PRUNE_CODES).bind(now_ms).execute(db).await?;
            sqlx::query(ADD_CODE)
                .bind(code_hash)
                .bind(now_ms)
                .bind(expires_ms)
                .execute(db)
                .await
                .map(|_| ())
        })?;
        Ok(())
    }

    /// Uses the pairing code with this hash for `conversation_id`: if it exists, is unused and
    /// has not expired, it is used up and the chat approved, together; true then.
    pub async fn pair_chat(
        &self,
        code_hash: &str,
        conversation_id: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        Ok(db!(self, db => {
            transaction!(db, tx);
            let used = sqlx::query(USE_CODE)
                .bind(code_hash)
                .bind(now_ms)
                .bind(conversation_id)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                == 1;
            if used {
                sqlx::query(DECIDE)
                    .bind(conversation_id)
                    .bind("approved")
                    .bind(now_ms)
                    .bind("pairing")
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            used
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_chat_is_told_once_that_it_waits_and_served_once_approved() {
        let store = Store::in_memory().await.expect("store");
        assert_eq!(store.chat_standing("Ustranger").await.expect("read"), None);
        assert!(store.note_unapproved("Ustranger", 1).await.expect("note"), "told the first time");
        assert!(!store.note_unapproved("Ustranger", 2).await.expect("note"), "then not again");
        assert_eq!(
            store.chat_standing("Ustranger").await.expect("read").as_deref(),
            Some("pending")
        );
        store.approve_chat("Ustranger", "cli", 3).await.expect("approve");
        assert_eq!(
            store.chat_standing("Ustranger").await.expect("read").as_deref(),
            Some("approved")
        );
        store.revoke_chat("Ustranger", 4).await.expect("revoke");
        let all = store.chat_accesses().await.expect("list");
        assert_eq!(all.len(), 1);
        assert_eq!(
            (all[0].status.as_str(), all[0].decided_by.as_deref()),
            ("revoked", Some("cli"))
        );
    }

    #[tokio::test]
    async fn upgrading_keeps_serving_the_chats_that_already_talked_to_hearth() {
        use sqlx::Connection;
        let dir = std::env::temp_dir().join(format!("hearth-upgrade-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let url = format!("sqlite://{}?mode=rwc", dir.join("hearth.db").display());
        // The migrations of the release before approval, as files.
        let old_set = dir.join("migrations");
        std::fs::create_dir_all(&old_set).expect("dir");
        let all = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/sqlite");
        for entry in std::fs::read_dir(all).expect("migrations").flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.as_str() < "0022" {
                std::fs::copy(entry.path(), old_set.join(&name)).expect("copy");
            }
        }
        let before = sqlx::migrate::Migrator::new(old_set.as_path()).await.expect("old migrations");
        let mut old = sqlx::SqliteConnection::connect(&url).await.expect("old database");
        before.run(&mut old).await.expect("the schema before approval");
        for earlier in [
            "INSERT INTO chat_log (conversation_id, text, at_ms) VALUES ('Ufamily', 'hi', 1), ('Cfamily', 'hi', 2)",
            // A chat an allow-list refused: only hearth's refusal is in its log.
            "INSERT INTO chat_log (conversation_id, from_bot, text, at_ms) VALUES ('Urefused', 1, 'sorry', 3)",
            "INSERT INTO refused_chats (conversation_id, refused_at) VALUES ('Urefused', 3)",
        ] {
            sqlx::query(earlier).execute(&mut old).await.expect("an earlier conversation");
        }
        old.close().await.expect("close");
        let store = Store::connect(&url).await.expect("upgraded");
        for chat in ["Ufamily", "Cfamily"] {
            assert_eq!(store.chat_standing(chat).await.expect("read").as_deref(), Some("approved"));
        }
        assert_eq!(store.chat_standing("Ustranger").await.expect("read"), None);
        assert_eq!(store.chat_standing("Urefused").await.expect("read"), None, "still refused");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_pairing_code_approves_one_chat_once_and_not_after_it_expires() {
        let store = Store::in_memory().await.expect("store");
        store.add_pairing_code("h1", 0, 1000).await.expect("code");
        store.add_pairing_code("h2", 0, 1000).await.expect("code");
        assert!(!store.pair_chat("h1", "Cfamily", 1000).await.expect("pair"), "expired at 1000");
        assert!(store.pair_chat("h2", "Cfamily", 999).await.expect("pair"));
        assert!(!store.pair_chat("h2", "Cother", 999).await.expect("pair"), "used once");
        assert!(!store.pair_chat("nope", "Cother", 1).await.expect("pair"));
        assert_eq!(
            store.chat_standing("Cfamily").await.expect("read").as_deref(),
            Some("approved")
        );
        assert_eq!(store.chat_standing("Cother").await.expect("read"), None);
    }
}
