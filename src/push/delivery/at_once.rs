//! The pushes that cannot wait for the outbox's round, through the same way out: the answer to
//! a tap someone is waiting for (the family page's private link, [`Pusher::push_now`]), an
//! answer whose reply token went stale and the apology for an event set aside
//! ([`Pusher::push_answer`]); and items recorded for the outbox's next round without pushing
//! now ([`Pusher::queue`]: what a tap tells the others). Every one is counted in the month's
//! quota as the outbox counts its own.

use crate::door::Closed;
use crate::line::client::{LineError, Sent};
use crate::line::message::Message;
use crate::push::quota::{self, Decision};
use crate::store::{NewOutboxItem, StoreError};

use super::{Item, Pusher};

/// Why a push sent at once ([`Pusher::push_now`]) did not go.
#[derive(Debug, thiserror::Error)]
pub enum PushNowError {
    /// The door is closed: the chat it is for is not served, or the target chat is revoked.
    #[error("the door is closed ({})", .0.reason())]
    Closed(Closed),
    /// The door could not be asked.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The month's quota cannot pay for it (or LINE said the month is out).
    #[error("the month's message quota cannot pay for this push")]
    QuotaOut,
    /// LINE did not take it.
    #[error(transparent)]
    Line(#[from] LineError),
}

impl Pusher {
    /// Pushes `messages` on behalf of the chat `home` to `to` at once, outside the outbox,
    /// after asking the door as the outbox asks it (`home` served, `to` not revoked); the
    /// month's standing is asked first (like a push that can wait, it leaves what is kept for
    /// care plans alone). `retry_key` is made once by the caller.
    pub async fn push_now(
        &self,
        home: &str,
        to: &str,
        messages: &[Message],
        retry_key: uuid::Uuid,
    ) -> Result<(), PushNowError> {
        self.door.push(home, to).await?.map_err(PushNowError::Closed)?;
        let quota = &self.quota;
        let cost = quota.cost_of(to).await;
        let standing = quota.standing().await.unwrap_or_default();
        let kept = match quota::running_out(&standing) {
            true => quota::care_first_hold(&standing, cost, quota.kept_back().await),
            false => None,
        };
        if let Decision::Hold(reason) = quota::decide([kept, quota::quota_hold(&standing, cost)]) {
            tracing::warn!(?reason, "a push sent at once was held");
            return Err(PushNowError::QuotaOut);
        }
        match quota.push_counted(to, messages, retry_key, cost).await {
            Ok(_) => Ok(()),
            Err(LineError::QuotaExhausted) => Err(PushNowError::QuotaOut),
            Err(e) => Err(e.into()),
        }
    }

    /// Pushes an answer owed to the chat `to` that could not be replied (its reply token went
    /// stale, or the event was set aside): the door was asked when its turn began, and a month
    /// out cannot hold back an answer someone waits for; it is counted like every push (not
    /// again when LINE answers that `retry_key` was accepted before).
    pub async fn push_answer(
        &self,
        to: &str,
        messages: &[Message],
        retry_key: uuid::Uuid,
    ) -> Result<Sent, LineError> {
        let cost = self.quota.cost_of(to).await;
        self.quota.push_counted(to, messages, retry_key, cost).await
    }

    /// Records `items`, each for its `to`, due at `now_ms`, for the outbox's next round (within
    /// [`super::HANDOVER_LAG`]) without pushing now: what a tap tells the others goes out with
    /// whatever else is due for their chats, asked by the door, quiet hours and the quota there.
    pub async fn queue(&self, items: &[(&str, Item<'_>)], now_ms: i64) -> Result<(), StoreError> {
        let news: Vec<NewOutboxItem<'_>> =
            items.iter().map(|(to, i)| i.for_outbox(to, now_ms)).collect();
        self.quota.store.outbox().record(&news, now_ms).await
    }
}
