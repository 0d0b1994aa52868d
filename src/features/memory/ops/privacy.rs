//! The chat log the family controls: messages are kept for `HEARTH_LOG_RETENTION_DAYS` and then
//! deleted, an unsent message leaves the log at once, and a conversation that removes hearth
//! (the bot leaves or is removed from a group, a user blocks it) is forgotten entirely — its
//! log, its memories, its reminders and price alerts, its held calls, the ids of hearth's
//! messages there (every table with a `conversation_id` column, in one transaction); the turn
//! drops its cached display names of it.

use jiff::{SignedDuration, Timestamp};

use crate::platform::conversation::Conversation;
use crate::store::{Store, StoreError};

/// Deletes the chat log older than `retention` before `now` (and expired held calls); returns
/// how many messages went.
pub async fn prune_chat_log(
    store: &Store,
    now: Timestamp,
    retention: SignedDuration,
) -> Result<u64, StoreError> {
    let cutoff = now.saturating_sub(retention).unwrap_or(now);
    let pruned = store.memory().prune_chat_log(cutoff.as_millisecond()).await?;
    let expired = now.saturating_sub(crate::features::held_calls::EXPIRY).unwrap_or(now);
    store.held_calls().prune(expired.as_millisecond()).await?;
    if pruned > 0 {
        tracing::info!(pruned, "chat log older than the retention period deleted");
    }
    Ok(pruned)
}

/// A message was unsent: it leaves the log (and so every later recap and history).
pub async fn on_unsend(store: &Store, conversation: &Conversation, message_id: &str) {
    match store.memory().unsend_message(&conversation.id, message_id).await {
        Ok(n) => {
            tracing::info!(%conversation, removed = n, "unsent message removed from the log")
        }
        Err(e) => tracing::error!(error = %e, "could not remove an unsent message"),
    }
    if let Err(e) = store.media().unsend(&conversation.id, message_id).await {
        tracing::error!(error = %e, "could not forget an unsent photo or file");
    }
}

/// hearth left or was removed from a group or room, or a user blocked it: everything kept about
/// that conversation is deleted.
pub async fn on_removed(store: &Store, conversation: &Conversation) {
    match store.forget_conversation(&conversation.id).await {
        Ok(removed) => tracing::info!(
            %conversation,
            messages = removed.messages,
            memories = removed.memories,
            reminders = removed.reminders,
            "hearth was removed: the conversation's log, memories and reminders are deleted"
        ),
        Err(e) => tracing::error!(error = %e, %conversation, "could not forget a conversation"),
    }
}
