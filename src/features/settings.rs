//! A chat's small settings, as typed operations run for the chat and member of their context:
//! the place it last asked the weather for (「要帶傘嗎」 with no place is about it), spoken
//! answers (「用講的回答我」, for the chat or for the asker alone) and who was welcomed. The tools call these, never the
//! store around them. (Quiet hours and the daily digest have their own:
//! [`crate::push::quiet::setting`], [`crate::features::digest::ops::setting`].)

use crate::contract::ToolCtx;
use crate::features::deps::Deps;
use crate::store::{Store, StoreError};

/// The chats' small settings, over the store.
#[derive(Clone)]
pub struct ChatSettings {
    store: Store,
}

impl ChatSettings {
    /// The settings kept in `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// The settings kept in `deps`' store.
    pub fn from_deps(deps: &Deps) -> Self {
        Self::new(deps.store.clone())
    }

    /// The place `ctx`'s chat last asked about, if any.
    pub async fn last_place(&self, ctx: &ToolCtx) -> Result<Option<String>, StoreError> {
        self.store.chats().last_place(&ctx.conversation.id).await
    }

    /// Keeps `place` as the one `ctx`'s chat last asked about.
    pub async fn keep_place(&self, ctx: &ToolCtx, place: &str) -> Result<(), StoreError> {
        let now = ctx.now().as_millisecond();
        self.store.chats().save_last_place(&ctx.conversation.id, place, now).await
    }

    /// Whether `chat`, or its `member`, asked for spoken answers.
    pub async fn spoken(&self, chat: &str, member: Option<&str>) -> Result<bool, StoreError> {
        self.store.chats().spoken(chat, member).await
    }

    /// Of `users` who joined group `chat`, those never welcomed there, now marked welcomed (so
    /// a member is welcomed once, across replicas).
    pub async fn newcomers(
        &self,
        chat: &str,
        users: &[String],
        now_ms: i64,
    ) -> Result<Vec<String>, StoreError> {
        self.store.chats().mark_welcomed(chat, users, now_ms).await
    }

    /// Spoken answers on or off in `ctx`'s chat: for `member` alone, or for the whole chat
    /// (none). Off for the whole chat of a group ends the asker's own too (「不用語音了」 ends it
    /// for whoever asks, whoever turned it on).
    pub async fn set_spoken(
        &self,
        ctx: &ToolCtx,
        member: Option<&str>,
        on: bool,
    ) -> Result<(), StoreError> {
        let now = ctx.now().as_millisecond();
        let chat = &ctx.conversation.id;
        self.store.chats().set_spoken(chat, member, on, now).await?;
        if !on && member.is_none() && ctx.conversation.is_multi_person() {
            self.store.chats().set_spoken(chat, ctx.user_id.as_deref(), false, now).await?;
        }
        Ok(())
    }
}
