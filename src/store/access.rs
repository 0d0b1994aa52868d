//! What the door keeps (see `crate::door`): each chat's standing — pending, approved or revoked —
//! with who decided and whether it was told it waits, the members who left a group, and the
//! one-time pairing codes (kept as hashes) that approve the chat they are sent in. Every change
//! is one statement or one transaction, atomic across replicas on one database: revoking a chat
//! ends its family-page sessions and unused links with it, and a member leaving ends theirs.

use super::{AccessStore, StoreError};

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
const MARK_TOLD: &str = "UPDATE chat_access SET told_at = $2 WHERE conversation_id = $1 AND told_at IS NULL AND status = 'pending'";
const DECIDE: &str = "INSERT INTO chat_access (conversation_id, status, first_seen_at, decided_at, decided_by) VALUES ($1, $2, $3, $3, $4) ON CONFLICT (conversation_id) DO UPDATE SET status = excluded.status, decided_at = excluded.decided_at, decided_by = excluded.decided_by";
const ALL: &str = "SELECT conversation_id, status, first_seen_at, decided_at, decided_by FROM chat_access ORDER BY CASE status WHEN 'pending' THEN 0 WHEN 'approved' THEN 1 ELSE 2 END, first_seen_at, conversation_id";
const ADD_CODE: &str =
    "INSERT INTO pairing_codes (code_hash, created_at, expires_at) VALUES ($1, $2, $3)";
const USE_CODE: &str = "UPDATE pairing_codes SET used_at = $2, conversation_id = $3 WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $2";
const PRUNE_CODES: &str = "DELETE FROM pairing_codes WHERE expires_at < $1";
const END_CHAT_SESSIONS: &str = "DELETE FROM web_sessions WHERE conversation_id = $1";
const END_CHAT_LINKS: &str = "DELETE FROM web_links WHERE conversation_id = $1";
const LEFT_AT: &str =
    "SELECT left_at FROM member_departures WHERE conversation_id = $1 AND user_id = $2";
const NOTE_LEFT: &str = "INSERT INTO member_departures (conversation_id, user_id, left_at) VALUES ($1, $2, $3) ON CONFLICT (conversation_id, user_id) DO UPDATE SET left_at = excluded.left_at";
const END_MEMBER_SESSIONS: &str =
    "DELETE FROM web_sessions WHERE conversation_id = $1 AND user_id = $2";
const END_MEMBER_LINKS: &str = "DELETE FROM web_links WHERE conversation_id = $1 AND user_id = $2";
const END_MEMBER_FEED: &str =
    "DELETE FROM calendar_feeds WHERE conversation_id = $1 AND user_id = $2";
const NOTE_BACK: &str = "DELETE FROM member_departures WHERE conversation_id = $1 AND user_id = $2";
const HELD_BACK: &str = "SELECT (SELECT COUNT(*) FROM reminders WHERE conversation_id = $1 AND status = 'active') AS reminders, (SELECT COUNT(*) FROM price_alerts WHERE conversation_id = $1 AND status = 'active') AS alerts, (SELECT COUNT(*) FROM care_plans WHERE conversation_id = $1 AND status = 'active') AS care_plans, (SELECT COUNT(*) FROM digests WHERE conversation_id = $1) AS digests, (SELECT COUNT(*) FROM outbox WHERE conversation_id = $1 AND status = 'withheld') AS withheld";

row! {
    /// What a chat keeps that the loops would push, and what they did not push because the door
    /// was closed (`hearth chats`, for a revoked chat).
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub struct HeldBack {
        /// Active reminders.
        pub reminders: i64,
        /// Active price alerts.
        pub alerts: i64,
        /// Active care plans.
        pub care_plans: i64,
        /// Daily digests (0 or 1).
        pub digests: i64,
        /// Pushes not sent because the chat was not served.
        pub withheld: i64,
    }
}

impl AccessStore<'_> {
    /// The chat's standing, `None` when hearth never heard from it.
    pub async fn chat_standing(self, conversation_id: &str) -> Result<Option<String>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_scalar(STANDING)
            .bind(conversation_id)
            .fetch_optional(db)
            .await)?)
    }

    /// Notes a chat that is not approved (pending when new); true the first time this is
    /// asked for a chat waiting for approval: the one time it is told so. A revoked chat is
    /// told nothing, ever.
    pub async fn note_unapproved(
        self,
        conversation_id: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        Ok(db!(self.store, db => {
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
        self,
        conversation_id: &str,
        by: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        self.decide(conversation_id, "approved", by, now_ms).await
    }

    /// Revokes a chat's approval, in one transaction with the end of its family-page sessions
    /// and unused links: nothing of it is served until it is approved again (its reminders,
    /// alerts and plans stay, not pushed). Says how many sessions ended.
    pub async fn revoke_chat(self, conversation_id: &str, now_ms: i64) -> Result<u64, StoreError> {
        Ok(db!(self.store, db => {
            transaction!(db, tx);
            sqlx::query(DECIDE)
                .bind(conversation_id)
                .bind("revoked")
                .bind(now_ms)
                .bind("cli")
                .execute(&mut *tx)
                .await?;
            let ended = sqlx::query(END_CHAT_SESSIONS)
                .bind(conversation_id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            sqlx::query(END_CHAT_LINKS).bind(conversation_id).execute(&mut *tx).await?;
            tx.commit().await?;
            ended
        }))
    }

    /// When `user_id` left the group `conversation_id`, if they did and are not back.
    pub async fn member_left_at(
        self,
        conversation_id: &str,
        user_id: &str,
    ) -> Result<Option<i64>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_scalar(LEFT_AT)
            .bind(conversation_id)
            .bind(user_id)
            .fetch_optional(db)
            .await)?)
    }

    /// Notes that `user_ids` left the group `conversation_id`, in one transaction with the end
    /// of their family-page sessions, unused links and calendar feed there; says how many
    /// sessions ended.
    pub async fn members_left(
        self,
        conversation_id: &str,
        user_ids: &[String],
        now_ms: i64,
    ) -> Result<u64, StoreError> {
        Ok(db!(self.store, db => {
            transaction!(db, tx);
            let mut ended = 0;
            for user in user_ids {
                sqlx::query(NOTE_LEFT)
                    .bind(conversation_id)
                    .bind(user)
                    .bind(now_ms)
                    .execute(&mut *tx)
                    .await?;
                ended += sqlx::query(END_MEMBER_SESSIONS)
                    .bind(conversation_id)
                    .bind(user)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                sqlx::query(END_MEMBER_LINKS)
                    .bind(conversation_id)
                    .bind(user)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(END_MEMBER_FEED)
                    .bind(conversation_id)
                    .bind(user)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            ended
        }))
    }

    /// Notes that `user_ids` are in the group `conversation_id` (again).
    pub async fn members_back(
        self,
        conversation_id: &str,
        user_ids: &[String],
    ) -> Result<(), StoreError> {
        for user in user_ids {
            db!(self.store, db => sqlx::query(NOTE_BACK)
                .bind(conversation_id)
                .bind(user)
                .execute(db)
                .await
                .map(|_| ()))?;
        }
        Ok(())
    }

    /// What the chat keeps that the loops would push, and the pushes withheld from it.
    pub async fn held_back(self, conversation_id: &str) -> Result<HeldBack, StoreError> {
        Ok(
            db!(self.store, db => sqlx::query_as(HELD_BACK).bind(conversation_id).fetch_one(db).await)?,
        )
    }

    async fn decide(
        self,
        conversation_id: &str,
        status: &str,
        by: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(DECIDE)
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
    pub async fn chat_accesses(self) -> Result<Vec<ChatAccess>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(ALL).fetch_all(db).await)?)
    }

    /// Keeps a new pairing code's hash until `expires_ms` (and forgets expired ones).
    pub async fn add_pairing_code(
        self,
        code_hash: &str,
        now_ms: i64,
        expires_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => {
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
        self,
        code_hash: &str,
        conversation_id: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        Ok(db!(self.store, db => {
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
    use crate::store::Store;

    #[tokio::test]
    async fn a_chat_is_told_once_that_it_waits_and_served_once_approved() {
        let store = Store::in_memory().await.expect("store");
        assert_eq!(store.access().chat_standing("Ustranger").await.expect("read"), None);
        assert!(
            store.access().note_unapproved("Ustranger", 1).await.expect("note"),
            "told the first time"
        );
        assert!(
            !store.access().note_unapproved("Ustranger", 2).await.expect("note"),
            "then not again"
        );
        assert_eq!(
            store.access().chat_standing("Ustranger").await.expect("read").as_deref(),
            Some("pending")
        );
        store.access().approve_chat("Ustranger", "cli", 3).await.expect("approve");
        assert_eq!(
            store.access().chat_standing("Ustranger").await.expect("read").as_deref(),
            Some("approved")
        );
        store.access().revoke_chat("Ustranger", 4).await.expect("revoke");
        let all = store.access().chat_accesses().await.expect("list");
        assert_eq!(all.len(), 1);
        assert_eq!(
            (all[0].status.as_str(), all[0].decided_by.as_deref()),
            ("revoked", Some("cli"))
        );
    }

    #[tokio::test]
    async fn upgrading_keeps_serving_the_chats_that_already_talked_to_hearth() {
        // The schema of the release before approval, with its rows.
        let earlier = [
            "INSERT INTO chat_log (conversation_id, text, at_ms) VALUES ('Ufamily', 'hi', 1), ('Cfamily', 'hi', 2)",
            // A chat an allow-list refused: only hearth's refusal is in its log.
            "INSERT INTO chat_log (conversation_id, from_bot, text, at_ms) VALUES ('Urefused', 1, 'sorry', 3)",
            "INSERT INTO refused_chats (conversation_id, refused_at) VALUES ('Urefused', 3)",
        ];
        let (url, dir) = crate::store::migrations::sqlite_before("0022", &earlier).await;
        let store = Store::connect(&url).await.expect("upgraded");
        for chat in ["Ufamily", "Cfamily"] {
            assert_eq!(
                store.access().chat_standing(chat).await.expect("read").as_deref(),
                Some("approved")
            );
        }
        assert_eq!(store.access().chat_standing("Ustranger").await.expect("read"), None);
        assert_eq!(
            store.access().chat_standing("Urefused").await.expect("read"),
            None,
            "still refused"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_pairing_code_approves_one_chat_once_and_not_after_it_expires() {
        let store = Store::in_memory().await.expect("store");
        store.access().add_pairing_code("h1", 0, 1000).await.expect("code");
        store.access().add_pairing_code("h2", 0, 1000).await.expect("code");
        assert!(
            !store.access().pair_chat("h1", "Cfamily", 1000).await.expect("pair"),
            "expired at 1000"
        );
        assert!(store.access().pair_chat("h2", "Cfamily", 999).await.expect("pair"));
        assert!(!store.access().pair_chat("h2", "Cother", 999).await.expect("pair"), "used once");
        assert!(!store.access().pair_chat("nope", "Cother", 1).await.expect("pair"));
        assert_eq!(
            store.access().chat_standing("Cfamily").await.expect("read").as_deref(),
            Some("approved")
        );
        assert_eq!(store.access().chat_standing("Cother").await.expect("read"), None);
    }
}
