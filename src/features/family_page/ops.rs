//! The family page's sessions and one-time links: the page's door and 🏠 reach them here.

use crate::contract::ToolCtx;
use crate::features::deps::Deps;
use crate::store::{LinkDoor, StoreError, WebMember};

/// The family page's sessions and one-time links, over the store: the page's door takes a
/// link once and opens a session for its member, reads the session of each request, and ends
/// it on 登出網頁 (or when the door no longer lets its member in).
#[derive(Clone)]
pub struct Sessions {
    store: crate::store::Store,
}

impl Sessions {
    /// Over `deps`' store.
    pub fn from_deps(deps: &Deps) -> Self {
        Self { store: deps.store.clone() }
    }

    /// Takes the unused link of `token_hash` through `door` at `now_ms`: its member, once.
    pub async fn take_link(
        &self,
        token_hash: &str,
        door: LinkDoor,
        now_ms: i64,
    ) -> Result<Option<WebMember>, StoreError> {
        self.store.web_sessions().take_link(token_hash, door, now_ms).await
    }

    /// Opens a session of `token_hash` for `member` (with its CSRF token) until `expires_ms`.
    pub async fn open(
        &self,
        token_hash: &str,
        member: &WebMember,
        csrf: &str,
        now_ms: i64,
        expires_ms: i64,
    ) -> Result<(), StoreError> {
        self.store.web_sessions().open(token_hash, member, csrf, now_ms, expires_ms).await
    }

    /// The open session of `token_hash` at `now_ms`, if any.
    pub async fn get(
        &self,
        token_hash: &str,
        now_ms: i64,
    ) -> Result<Option<crate::store::WebSession>, StoreError> {
        self.store.web_sessions().get(token_hash, now_ms).await
    }

    /// Ends the session of `token_hash`.
    pub async fn end(&self, token_hash: &str) -> Result<(), StoreError> {
        self.store.web_sessions().end(token_hash).await
    }

    /// Keeps a one-time link of `token_hash` for `member`, opened through `door`, from
    /// `now_ms` until `expires_ms`.
    pub async fn mint_link(
        &self,
        token_hash: &str,
        member: &WebMember,
        door: LinkDoor,
        now_ms: i64,
        expires_ms: i64,
    ) -> Result<(), StoreError> {
        self.store.web_sessions().mint_link(token_hash, member, door, now_ms, expires_ms).await
    }

    /// Ends every session and link `user` holds for `ctx`'s chat, and their calendar feed of
    /// it (登出網頁): how many.
    pub async fn end_all(&self, ctx: &ToolCtx, user: &str) -> Result<u64, StoreError> {
        let chat = &ctx.conversation.id;
        let sessions = self.store.web_sessions().end_all(chat, user).await?;
        let feed = self.store.calendar().end_feed(chat, user).await?;
        Ok(sessions + u64::from(feed))
    }
}
