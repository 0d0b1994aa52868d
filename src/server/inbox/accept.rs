//! The inbox's writes that many callers share, with group commit ([`super::commit`]): storing
//! acknowledged webhook events — the events of webhooks that arrive while a transaction is being
//! made are stored together in the next one, and each webhook gets its 200 once the transaction
//! holding its events is committed; an untriggered group message with nothing of its chat in
//! hand is logged in that same transaction and stored done ([`Fate::Logged`]) — and logging the
//! untriggered group messages a lane holds as their events are marked done
//! ([`super::chatter`]).

use std::sync::Arc;

use crate::platform::clock::Clock;
use crate::store::{Claim, InboxEvent, Intake, LoggedEvent, Store, StoreError};

use super::commit::{Batch, GroupCommit};
use super::in_flight::InFlight;
use super::queue::LeftInStore;
use crate::turn::answers::ChatLine;

/// A verified event to store, and what becomes of it.
pub struct Accepted {
    /// LINE's `webhookEventId`.
    pub event_id: String,
    /// The event type.
    pub event_type: String,
    /// The event's JSON as received.
    pub payload: String,
    /// When the webhook arrived (Unix ms).
    pub received_at_ms: i64,
    /// Claimed, left waiting, or logged at once.
    pub fate: Fate,
}

/// What becomes of an accepted event as it is stored.
pub enum Fate {
    /// Taken by this process at once, under a lease ending then (Unix ms).
    Claimed(i64),
    /// Left waiting in the inbox. It holds its webhook's place in the backlog until the write
    /// is over, so the backlog is marked only once the row is stored (or failed), even when the
    /// webhook's request is gone.
    Waiting(Arc<LeftInStore>),
    /// Logged in the chat log, and done, in the transaction that stores it
    /// ([`super::chatter`]).
    Logged(ChatLine),
}

/// Stores accepted events, many webhooks' in one transaction.
pub struct Accepts {
    store: Store,
    owner: String,
}

impl Batch for Accepts {
    type Item = Accepted;
    type Out = bool;

    async fn write(&self, items: &[Accepted]) -> Result<Vec<bool>, StoreError> {
        let rows: Vec<(InboxEvent<'_>, Intake<'_>)> = items
            .iter()
            .map(|a| {
                let event = InboxEvent {
                    event_id: &a.event_id,
                    event_type: &a.event_type,
                    payload: &a.payload,
                    received_at_ms: a.received_at_ms,
                };
                let intake = match &a.fate {
                    Fate::Claimed(until) => {
                        Intake::Claimed(Claim { owner: &self.owner, lease_until_ms: *until })
                    }
                    Fate::Waiting(_) => Intake::Waiting,
                    Fate::Logged(line) => Intake::Logged(line.message()),
                };
                (event, intake)
            })
            .collect();
        self.store.inbox().accept(&rows).await
    }
}

/// A message to log as its event is marked done.
pub struct Chatter {
    pub(crate) event_id: String,
    pub(crate) token: i64,
    pub(crate) line: ChatLine,
}

/// Logs messages and marks their events done, many callers' in one transaction.
pub struct ChatterLog {
    store: Store,
    owner: String,
    clock: Arc<dyn Clock>,
}

impl ChatterLog {
    /// Writes to `store` under the claims of `owner`.
    pub fn new(store: Store, owner: String, clock: Arc<dyn Clock>) -> Self {
        Self { store, owner, clock }
    }
}

impl Batch for ChatterLog {
    type Item = Chatter;
    type Out = bool;

    async fn write(&self, items: &[Chatter]) -> Result<Vec<bool>, StoreError> {
        let events: Vec<LoggedEvent<'_>> = items
            .iter()
            .map(|c| LoggedEvent {
                event_id: &c.event_id,
                token: c.token,
                message: c.line.message(),
            })
            .collect();
        let now = self.clock.now().as_millisecond();
        self.store.inbox().finish_logged(&self.owner, now, &events).await
    }
}

/// The inbox's writes that many callers share.
pub struct InboxWrites {
    /// Storing webhook events before their 200.
    pub accepts: GroupCommit<Accepts>,
    /// Logging untriggered group messages and marking them done.
    pub chatter: GroupCommit<ChatterLog>,
}

impl InboxWrites {
    /// The shared writes of process `owner` to `store`, each counted in `in_flight` until it is
    /// answered.
    pub fn new(store: Store, owner: &str, clock: Arc<dyn Clock>, in_flight: &InFlight) -> Self {
        let accepts = Accepts { store: store.clone(), owner: owner.to_string() };
        Self {
            accepts: GroupCommit::new(accepts, in_flight),
            chatter: GroupCommit::new(ChatterLog::new(store, owner.to_string(), clock), in_flight),
        }
    }
}
