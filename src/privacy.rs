//! The chat log the family controls: messages are kept for `HEARTH_LOG_RETENTION_DAYS` and then
//! deleted, an unsent message leaves the log at once, and a conversation that removes hearth
//! (the bot leaves or is removed from a group, a user blocks it) is forgotten entirely — its
//! log, its memories, its reminders and price alerts, its held calls, the ids of hearth's
//! messages there and its cached display names (every table with a `conversation_id` column,
//! in one transaction).

use crate::app::Hearth;
use crate::source::Conversation;
use crate::store::StoreError;

impl Hearth {
    /// Deletes the chat log older than the retention period (measured on the injected clock);
    /// returns how many messages went. The server calls it hourly; tests call it directly.
    pub async fn prune_chat_log(&self) -> Result<u64, StoreError> {
        let now = self.clock.now();
        let cutoff = now.saturating_sub(self.log_retention).unwrap_or(now);
        let pruned = self.store.prune_chat_log(cutoff.as_millisecond()).await?;
        let expired = now.saturating_sub(crate::confirm::EXPIRY).unwrap_or(now);
        self.store.prune_pending_calls(expired.as_millisecond()).await?;
        if pruned > 0 {
            tracing::info!(pruned, "chat log older than the retention period deleted");
        }
        Ok(pruned)
    }

    /// A message was unsent: it leaves the log (and so every later recap and history).
    pub(crate) async fn on_unsend(&self, conversation: &Conversation, message_id: &str) {
        match self.store.unsend_message(&conversation.id, message_id).await {
            Ok(n) => {
                tracing::info!(%conversation, removed = n, "unsent message removed from the log")
            }
            Err(e) => tracing::error!(error = %e, "could not remove an unsent message"),
        }
    }

    /// hearth left or was removed from a group or room, or a user blocked it: everything kept
    /// about that conversation is deleted.
    pub(crate) async fn on_removed(&self, conversation: &Conversation) {
        let cached: Vec<(String, String)> = self
            .names
            .iter()
            .filter(|(key, _)| key.0 == conversation.id)
            .map(|(key, _)| (*key).clone())
            .collect();
        for key in cached {
            self.names.invalidate(&key).await;
        }
        match self.store.forget_conversation(&conversation.id).await {
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
}
