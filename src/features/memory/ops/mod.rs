//! The verbs on what a chat asked hearth to remember, each a typed operation run for the chat
//! and member of its context: forget one (by id — 🗑 on a card or the page, or the model
//! passing it — or by words from it, in the chat) and forget everything up to a card's last
//! memory (the confirmation tap). The `memory` tool, the buttons and the family page call these,
//! never the store around them; each forgetting is recorded in the feed of changes.

pub mod privacy;

use crate::contract::ToolCtx;
use crate::features::deps::Deps;
use crate::features::{changes, verbs};
use crate::platform::i18n::Lang;
use crate::store::{Memory, NewMemory, Store, StoreError};

use super::{LoggedMessage, QuotedRow, overlap, tokens};

/// What forgetting by words came to.
#[derive(Debug, Clone)]
pub enum ForgetWords {
    /// The one memory they fit, forgotten.
    Forgotten(Memory),
    /// They fit several: nothing was forgotten.
    Several(Vec<Memory>),
    /// They fit none.
    NoneFits,
}

/// The memories of every chat, over the store.
#[derive(Clone)]
pub struct MemoryOps {
    store: Store,
}

impl MemoryOps {
    /// The verbs over `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// The verbs over `deps`' store.
    pub fn from_deps(deps: &Deps) -> Self {
        Self::new(deps.store.clone())
    }

    /// The chat's part of a turn's prompt in `ctx`'s conversation whose message is `current`:
    /// [`super::chat_part`] with that conversation's memories (and no other conversation's).
    pub async fn chat_part(&self, ctx: &ToolCtx, current: &str) -> String {
        let memories =
            self.store.memory().memories(&ctx.conversation.id).await.unwrap_or_else(|e| {
                tracing::warn!(error = %e, "memories unavailable for the prompt");
                Vec::new()
            });
        super::chat_part(ctx, &memories, current)
    }

    /// The chat log of `ctx`'s chat since `since_ms` (Unix ms), newest first, at most `limit`
    /// messages (a recap's window).
    pub async fn log_window(
        &self,
        ctx: &ToolCtx,
        since_ms: i64,
        limit: u32,
    ) -> Result<Vec<LoggedMessage>, StoreError> {
        self.store.memory().log_window(&ctx.conversation.id, since_ms, limit).await
    }

    /// The latest of `ctx`'s chat log (at most `limit` messages and `max_chars` characters,
    /// oldest first) and what it remembers, read together for a turn's prompt.
    pub async fn history_and_memories(
        &self,
        ctx: &ToolCtx,
        limit: usize,
        max_chars: usize,
    ) -> Result<(Vec<LoggedMessage>, Vec<Memory>), StoreError> {
        let chat = &ctx.conversation.id;
        self.store.memory().history_and_memories(chat, i64::MAX, limit, max_chars).await
    }

    /// Whether message `message_id` of `chat` is one of hearth's own.
    pub async fn is_hearths(&self, chat: &str, message_id: &str) -> Result<bool, StoreError> {
        self.store.chat_log().is_bot_message(chat, message_id).await
    }

    /// Message `message_id` of `chat`'s log, when it is still there (a quote-reply's).
    pub async fn quoted(
        &self,
        chat: &str,
        message_id: &str,
    ) -> Result<Option<QuotedRow>, StoreError> {
        self.store.chat_log().quoted_message(chat, message_id).await
    }

    /// The display name `chat` last knew `user` by, and when (Unix ms).
    pub async fn member_name(
        &self,
        chat: &str,
        user: &str,
    ) -> Result<Option<(String, i64)>, StoreError> {
        self.store.chat_log().member_name(chat, user).await
    }

    /// Keeps `name` as the display name `chat` knows `user` by, at `at_ms`.
    pub async fn keep_member_name(
        &self,
        chat: &str,
        user: &str,
        name: &str,
        at_ms: i64,
    ) -> Result<(), StoreError> {
        self.store.chat_log().save_member(chat, user, name, at_ms).await
    }

    /// What `ctx`'s chat remembers.
    pub async fn memories(&self, ctx: &ToolCtx) -> Result<Vec<Memory>, StoreError> {
        self.of_chat(&ctx.conversation.id).await
    }

    /// What `chat` remembers.
    pub async fn of_chat(&self, chat: &str) -> Result<Vec<Memory>, StoreError> {
        self.store.memory().memories(chat).await
    }

    /// Remembers `fact` (checked and resolved by the caller) for `ctx`'s chat, as said by
    /// `ctx`'s member: the memory, and whether the chat already remembered exactly this (then
    /// nothing new is kept).
    pub async fn remember(&self, ctx: &ToolCtx, fact: &str) -> Result<(Memory, bool), StoreError> {
        let chat = &ctx.conversation.id;
        let existing = self.memories(ctx).await?;
        if let Some(same) =
            existing.iter().find(|m| m.text.trim().to_lowercase() == fact.to_lowercase())
        {
            return Ok((same.clone(), true));
        }
        let memory = NewMemory {
            conversation_id: chat,
            text: fact,
            user_id: ctx.user_id.as_deref(),
            speaker: ctx.display_name.as_deref(),
            at_ms: ctx.now().as_millisecond(),
        };
        let id = self.store.memory().add(&memory).await?;
        changes::record(&self.store, ctx, &verbs::MEMORY_REMEMBER, fact).await;
        let kept = Memory {
            id,
            text: fact.to_string(),
            user_id: ctx.user_id.clone(),
            speaker: ctx.display_name.clone(),
            created_at: memory.at_ms,
        };
        Ok((kept, false))
    }

    /// Forgets memory `id` of `ctx`'s chat: what it was, or none when the chat has no such one.
    pub async fn forget(&self, ctx: &ToolCtx, id: i64) -> Result<Option<Memory>, StoreError> {
        let forgotten = self.store.memory().delete(&ctx.conversation.id, id).await?;
        if let Some(m) = &forgotten {
            changes::record(&self.store, ctx, &verbs::MEMORY_FORGET, &m.text).await;
        }
        Ok(forgotten)
    }

    /// Forgets the memory of `ctx`'s chat that `words` point at ([`matching`]), when exactly
    /// one.
    pub async fn forget_words(
        &self,
        ctx: &ToolCtx,
        words: &str,
    ) -> Result<ForgetWords, StoreError> {
        let memories = self.memories(ctx).await?;
        let fits = matching(&memories, words);
        match fits.as_slice() {
            [] => Ok(ForgetWords::NoneFits),
            [one] => Ok(match self.forget(ctx, one.id).await? {
                Some(m) => ForgetWords::Forgotten(m),
                None => ForgetWords::NoneFits,
            }),
            several => Ok(ForgetWords::Several(several.iter().map(|m| (*m).clone()).collect())),
        }
    }

    /// Forgets every memory of `ctx`'s chat up to `up_to_id` (those a confirmation card
    /// covered; later ones stay): how many went.
    pub async fn forget_all(&self, ctx: &ToolCtx, up_to_id: i64) -> Result<u64, StoreError> {
        let n = self.store.memory().delete_up_to(&ctx.conversation.id, up_to_id).await?;
        if n > 0 {
            let what = match ctx.lang {
                Lang::ZhTw => format!("全部 {n} 件事"),
                Lang::En => format!("all {n} memories"),
            };
            changes::record(&self.store, ctx, &verbs::MEMORY_FORGET_ALL, &what).await;
        }
        Ok(n)
    }
}

/// The memories `words` point at: those containing them, else those sharing the most words
/// with them (none when no word is shared).
pub fn matching<'a>(memories: &'a [Memory], words: &str) -> Vec<&'a Memory> {
    let needle = words.to_lowercase();
    let containing: Vec<&Memory> =
        memories.iter().filter(|m| m.text.to_lowercase().contains(&needle)).collect();
    if !containing.is_empty() {
        return containing;
    }
    let wanted = tokens(words);
    let scored: Vec<(usize, &Memory)> =
        memories.iter().map(|m| (overlap(&wanted, &m.text), m)).collect();
    let best = scored.iter().map(|(s, _)| *s).max().unwrap_or(0);
    if best == 0 {
        return Vec::new();
    }
    scored.into_iter().filter(|(s, _)| *s == best).map(|(_, m)| m).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(id: i64, text: &str) -> Memory {
        Memory { id, text: text.into(), user_id: None, speaker: None, created_at: 0 }
    }

    #[test]
    fn words_match_by_containment_then_shared_words() {
        let all = [
            memory(1, "奶奶對花生過敏"),
            memory(2, "爸爸的班機 12/5 18:40 到"),
            memory(3, "Grandma is allergic to peanuts"),
        ];
        let ids = |d: &str| matching(&all, d).iter().map(|m| m.id).collect::<Vec<_>>();
        assert_eq!(ids("花生"), [1]);
        assert_eq!(ids("花生那件事"), [1]);
        assert_eq!(ids("爸爸班機"), [2]);
        assert_eq!(ids("PEANUT"), [3]);
        assert!(ids("生日").is_empty());
        assert!(ids("the thing").is_empty());
    }
}
