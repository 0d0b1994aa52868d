//! Handling stored webhook events. The webhook hands the events it just stored (leased to this
//! process) to [`Hearth::dispatch_events`]; a recovery loop claims events whose lease ran out —
//! their process died after LINE got its 200 — and handles them the same way. Events are
//! handled one conversation at a time, in timestamp order, and marked done afterwards.

use std::collections::HashMap;
use std::sync::Arc;

use jiff::Timestamp;

use crate::app::Hearth;
use crate::line::webhook::Event;
use crate::store::StoreError;

/// Unfinished events claimed per recovery round.
const RECOVERY_BATCH: i64 = 100;

impl Hearth {
    /// Handles stored events in the background: one task per conversation, in timestamp order.
    /// Each event carries the time its webhook arrived (which decides whether its reply token
    /// may still be used).
    pub fn dispatch_events(self: &Arc<Self>, events: Vec<(Event, Timestamp)>) {
        let mut by_conversation: HashMap<String, Vec<(Event, Timestamp)>> = HashMap::new();
        for (event, received_at) in events {
            let key = event.source.as_ref().map(|s| s.conversation.id.clone()).unwrap_or_default();
            by_conversation.entry(key).or_default().push((event, received_at));
        }
        for (conversation, mut events) in by_conversation {
            events.sort_by_key(|(e, _)| e.timestamp_ms);
            let worker = self.clone();
            self.spawn_tracked(async move {
                let lock = worker.conversation_lock(&conversation);
                let _in_order = lock.lock().await;
                let _permit = worker.turn_permit().await;
                for (event, received_at) in events {
                    let id = event.webhook_event_id.clone();
                    // Boxed: a task waiting for its turn stays small; the turn's large future is
                    // allocated only when it starts.
                    Box::pin(worker.handle_event(event, received_at)).await;
                    let now = worker.clock.now().as_millisecond();
                    match worker.store.finish_event(&id, &worker.owner, now).await {
                        Ok(true) => {}
                        Ok(false) => tracing::warn!(event_id = id, "event was taken over before it was finished"),
                        Err(e) => tracing::error!(error = %e, event_id = id, "could not mark an event handled"),
                    }
                }
            });
        }
    }

    /// Claims events whose lease ran out and handles them; returns how many were claimed.
    pub async fn recover_events(self: &Arc<Self>) -> Result<usize, StoreError> {
        let now = self.clock.now();
        let claimed = self
            .store
            .claim_stale_events(
                &self.owner,
                now.as_millisecond(),
                self.inbox_lease_until(now),
                RECOVERY_BATCH,
            )
            .await?;
        let count = claimed.len();
        let mut events = Vec::with_capacity(count);
        for pending in claimed {
            let received_at = Timestamp::from_millisecond(pending.received_at).unwrap_or(now);
            let parsed = serde_json::from_str(&pending.payload)
                .map_err(|e| e.to_string())
                .and_then(|raw| Event::parse(raw).map_err(|e| e.to_string()));
            match parsed {
                Ok(event) => {
                    tracing::info!(
                        event_id = pending.event_id,
                        attempt = pending.attempts,
                        "handling an event another process left unfinished"
                    );
                    events.push((event, received_at));
                }
                Err(e) => {
                    tracing::error!(
                        event_id = pending.event_id,
                        error = e,
                        "stored event unreadable; dropped"
                    );
                    self.store
                        .finish_event(&pending.event_id, &self.owner, now.as_millisecond())
                        .await?;
                }
            }
        }
        self.dispatch_events(events);
        Ok(count)
    }
}
