//! What the store keeps for the family page: one-time links (by the SHA-256 of their token:
//! a link is taken once, before it expires, and only through the [`LinkDoor`] it was minted for)
//! and the sessions they open (by the SHA-256 of the
//! session's token, with the chat and member it is for and its CSRF token). Both carry a
//! `conversation_id`, so forgetting a chat — or hearth leaving it — ends its sessions.

use super::{StoreError, WebSessionStore};
use crate::platform::i18n::Lang;

/// The way a link is opened, recorded when it is minted: a link opens only through its own
/// door, and a try at the other door neither opens nor uses it up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkDoor {
    /// `GET /family/open`: whoever holds the link (it is only ever given to its member).
    Plain,
    /// The LIFF app's sign-in: only with LINE's ID token of the member it was minted for.
    Liff,
}

impl LinkDoor {
    /// How the store keeps it (`web_links.liff`).
    fn liff(self) -> bool {
        self == LinkDoor::Liff
    }
}

row! {
    /// A link or session: whose, for which chat.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct WebMember {
        /// The chat it shows.
        pub conversation_id: String,
        /// The member it was minted for.
        pub user_id: String,
        /// The page's language.
        pub lang: Lang,
    }
}

row! {
    /// An open session.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct WebSession {
        /// The chat it shows.
        pub conversation_id: String,
        /// The member it is for.
        pub user_id: String,
        /// The page's language.
        pub lang: Lang,
        /// The token every form of the session carries.
        pub csrf: String,
    }
}

const MINT: &str = "INSERT INTO web_links (token_hash, conversation_id, user_id, lang, created_at, expires_at, liff) VALUES ($1, $2, $3, $4, $5, $6, $7)";
const TAKE: &str = "UPDATE web_links SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 AND liff = $3 RETURNING conversation_id, user_id, lang";
const OPEN: &str = "INSERT INTO web_sessions (token_hash, conversation_id, user_id, lang, csrf, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)";
const SESSION: &str = "SELECT conversation_id, user_id, lang, csrf FROM web_sessions WHERE token_hash = $1 AND expires_at > $2";
const END_ONE: &str = "DELETE FROM web_sessions WHERE token_hash = $1";
const END_MEMBER: &str = "DELETE FROM web_sessions WHERE conversation_id = $1 AND user_id = $2";
const PRUNE_LINKS: &str = "DELETE FROM web_links WHERE expires_at < $1";
const PRUNE_SESSIONS: &str = "DELETE FROM web_sessions WHERE expires_at < $1";

impl WebSessionStore<'_> {
    /// Keeps a link (by its token's hash) for `member`, to be opened through `door`, valid
    /// until `expires_ms`.
    pub async fn mint_link(
        self,
        token_hash: &str,
        member: &WebMember,
        door: LinkDoor,
        now_ms: i64,
        expires_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(MINT)
            .bind(token_hash).bind(&member.conversation_id).bind(&member.user_id)
            .bind(member.lang.code()).bind(now_ms).bind(expires_ms).bind(door.liff())
            .execute(db).await.map(|_| ()))?;
        Ok(())
    }

    /// Takes the link with this token hash at `door`: whose it is, once, while it is valid;
    /// `None` for a link unknown, used, expired or minted for the other door (which is left as
    /// it was).
    pub async fn take_link(
        self,
        token_hash: &str,
        door: LinkDoor,
        now_ms: i64,
    ) -> Result<Option<WebMember>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(TAKE)
            .bind(token_hash).bind(now_ms).bind(door.liff())
            .fetch_optional(db).await)?)
    }

    /// Opens a session (by its token's hash) for `member` until `expires_ms`.
    pub async fn open(
        self,
        token_hash: &str,
        member: &WebMember,
        csrf: &str,
        now_ms: i64,
        expires_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(OPEN)
            .bind(token_hash).bind(&member.conversation_id).bind(&member.user_id)
            .bind(member.lang.code()).bind(csrf).bind(now_ms).bind(expires_ms)
            .execute(db).await.map(|_| ()))?;
        Ok(())
    }

    /// The open session with this token hash, if any.
    pub async fn get(
        self,
        token_hash: &str,
        now_ms: i64,
    ) -> Result<Option<WebSession>, StoreError> {
        Ok(
            db!(self.store, db => sqlx::query_as(SESSION).bind(token_hash).bind(now_ms).fetch_optional(db).await)?,
        )
    }

    /// Ends the session with this token hash.
    pub async fn end(self, token_hash: &str) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(END_ONE).bind(token_hash).execute(db).await.map(|_| ()))?;
        Ok(())
    }

    /// Ends every session of `user_id` in the chat; how many there were.
    pub async fn end_all(self, conversation_id: &str, user_id: &str) -> Result<u64, StoreError> {
        Ok(db!(self.store, db => sqlx::query(END_MEMBER).bind(conversation_id).bind(user_id)
            .execute(db).await.map(|r| r.rows_affected()))?)
    }

    /// Deletes links and sessions that expired before `before_ms`.
    pub async fn prune(self, before_ms: i64) -> Result<u64, StoreError> {
        let mut n = 0;
        for sql in [PRUNE_LINKS, PRUNE_SESSIONS] {
            n += db!(self.store, db => sqlx::query(sql).bind(before_ms).execute(db).await.map(|r| r.rows_affected()))?;
        }
        Ok(n)
    }
}
