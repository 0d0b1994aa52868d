//! Pushing recorded deliveries, shared by the reminder scheduler and the price-alert poller.
//!
//! Both record the rendered push and a deterministic `X-Line-Retry-Key` before the first attempt;
//! every attempt, from any process, then sends the stored payload with that key. Everything due
//! for one chat in a tick goes in one push request ([`crate::quota::batch`]): a group is charged
//! once, not once per item. Before pushing, the month's quota is asked ([`allowance`]): when it
//! cannot pay, the items are held for the chat's next reply (free) instead of being lost. This
//! module does the attempt and says what the outcome means: LINE accepted it (a `409` for a
//! repeated key counts), it was held, LINE refused the target for good, or the outcome is
//! unknown and the same request must be tried again later. A [`Pusher`] holds what a recorded
//! push needs (the quota's bookkeeping with the LINE client and the store, the button key, the
//! palette and this process's name in claims), once for both.

pub mod allowance;

use jiff::Timestamp;
use uuid::Uuid;

pub use allowance::Allowance;

use crate::line::client::LineError;
use crate::line::flex::Palette;
use crate::postback::PostbackKey;
use crate::quiet::{self, PushKind};
use crate::quota::{self, Decision, batch};
use crate::store::{DeliveryStatus, Store, StoreError};

/// Namespace of hearth's retry keys (`reminder:{id}:{at}`, `alert:{id}:{fire_seq}`).
pub const RETRY_KEY_NAMESPACE: Uuid = Uuid::from_u128(0x6865_6172_7468_2d72_656d_696e_6465_7273);

/// The deterministic retry key of a named occurrence.
pub fn retry_key(name: &str) -> Uuid {
    Uuid::new_v5(&RETRY_KEY_NAMESPACE, name.as_bytes())
}

/// The retry key of request `index` carrying the items keyed `keys`: an item pushed alone keeps
/// its own key; items pushed together get a key of their own, the same on every attempt.
fn batch_key(keys: &[&str], index: usize, requests: usize) -> Uuid {
    match keys {
        [only] if requests == 1 => Uuid::parse_str(only).unwrap_or_else(|_| retry_key(only)),
        _ => retry_key(&format!("batch:{}:{index}", keys.join(","))),
    }
}

/// What became of one push attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// LINE accepted it (now, or on an earlier attempt with the same key).
    Sent,
    /// The month's quota could not pay for it: kept for the chat's next reply.
    Held,
    /// LINE refused it for good (the bot left the group, a bad message), or the stored payload
    /// is unreadable.
    Refused,
    /// The outcome is unknown (timeout, server error, still rate limited): try the same request
    /// again later.
    RetryLater,
}

impl Outcome {
    /// The delivery status to record, or `None` when the delivery stays pending.
    pub fn status(self) -> Option<DeliveryStatus> {
        match self {
            Outcome::Sent => Some(DeliveryStatus::Sent),
            Outcome::Held => Some(DeliveryStatus::Held),
            Outcome::Refused => Some(DeliveryStatus::Failed),
            Outcome::RetryLater => None,
        }
    }
}

/// One recorded item to push.
#[derive(Debug, Clone)]
pub struct Item<'a> {
    /// Its stored messages (a JSON array).
    pub payload: &'a str,
    /// Its retry key.
    pub retry_key: &'a str,
    /// The chat it belongs to (where it waits when held: the chat whose next reply carries it).
    pub home: &'a str,
    /// How the log names it (`reminder 42`, `alert 7:2`).
    pub what: String,
}

/// What a recorded push needs, shared by the reminder scheduler and the price-alert poller.
#[derive(Clone)]
pub struct Pusher {
    allowance: Allowance,
    key: PostbackKey,
    palette: Palette,
    owner: String,
}

impl Pusher {
    /// A pusher identified as `owner` in claims, spending through `allowance`, rendering
    /// buttons signed with `key` in `palette`'s colours.
    pub fn new(allowance: Allowance, key: PostbackKey, palette: Palette, owner: String) -> Self {
        Self { allowance, key, palette, owner }
    }

    /// The store the deliveries are recorded in.
    pub fn store(&self) -> &Store {
        &self.allowance.store
    }

    /// The quota's bookkeeping.
    pub fn allowance(&self) -> &Allowance {
        &self.allowance
    }

    /// This process's name in claims.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The current time.
    pub fn now(&self) -> Timestamp {
        self.allowance.clock.now()
    }

    /// The key that signs the buttons of rendered pushes.
    pub fn key(&self) -> &PostbackKey {
        &self.key
    }

    /// The colours of rendered cards.
    pub fn palette(&self) -> Palette {
        self.palette
    }

    /// When the conversation's quiet hours hold a push of `kind` now, the end of them (Unix ms);
    /// `None` to push now (no quiet hours, unreadable ones, outside them, or a reminder).
    pub async fn quiet_until(
        &self,
        conversation_id: &str,
        kind: PushKind,
    ) -> Result<Option<i64>, StoreError> {
        let Some(row) = self.store().quiet_hours(conversation_id).await? else { return Ok(None) };
        let Some((hours, tz)) = quiet::stored(&row.start_local, &row.end_local, &row.tz) else {
            return Ok(None);
        };
        Ok(match quiet::decide(kind, self.now(), &tz, Some(&hours)) {
            quiet::Decision::Now => None,
            quiet::Decision::HoldUntil(t) => Some(t.as_millisecond()),
        })
    }

    /// Pushes `items` to `to` together (as few requests as LINE allows), `quiet` without a
    /// notification sound — or holds them when the month's quota cannot pay. Retries briefly
    /// inside [`crate::line::client::LineClient::push_with_retry`].
    pub async fn push(&self, to: &str, items: &[Item<'_>], quiet: bool) -> Outcome {
        let mut payloads = Vec::with_capacity(items.len());
        for item in items {
            match serde_json::from_str::<serde_json::Value>(item.payload) {
                Ok(p) => payloads.push(p),
                Err(e) => {
                    tracing::error!(item = item.what, error = %e, "stored payload unreadable");
                    return Outcome::Refused;
                }
            }
        }
        let requests = batch::requests(&payloads);
        let cost = self.allowance.cost_of(to).await;
        let planned = cost.saturating_mul(i64::try_from(requests.len()).unwrap_or(i64::MAX));
        let standing = self.allowance.standing().await.unwrap_or_default();
        if let Decision::Hold(reason) = quota::decide([quota::quota_hold(&standing, planned)]) {
            tracing::warn!(to, ?reason, items = items.len(), "push held");
            self.hold(items, &payloads).await;
            return Outcome::Held;
        }
        let keys: Vec<&str> = items.iter().map(|i| i.retry_key).collect();
        for (index, messages) in requests.iter().enumerate() {
            let key = batch_key(&keys, index, requests.len());
            match self.allowance.line.push_with_retry(to, messages, key, quiet).await {
                Ok(_) => self.allowance.record_push(to, cost).await,
                Err(LineError::QuotaExhausted) => {
                    self.allowance.exhausted().await;
                    self.hold(items, &payloads).await;
                    return Outcome::Held;
                }
                Err(LineError::Rejected { status, message }) => {
                    tracing::error!(to, %status, message, "LINE refused the push");
                    return Outcome::Refused;
                }
                Err(e) => {
                    tracing::warn!(to, error = %e, "push failed; will retry with the same key");
                    return Outcome::RetryLater;
                }
            }
        }
        Outcome::Sent
    }

    /// Keeps `items` for their chats' next replies.
    async fn hold(&self, items: &[Item<'_>], payloads: &[serde_json::Value]) {
        let now = self.now().as_millisecond();
        crate::metrics::pushes_held(items.len() as u64);
        for (item, payload) in items.iter().zip(payloads) {
            let summary = batch::summary(payload);
            if let Err(e) = self.store().hold_push(item.home, &summary, now).await {
                tracing::error!(item = item.what, error = %e, "could not keep a held item");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_pushed_alone_keeps_its_key_and_a_batch_gets_its_own() {
        let own = retry_key("reminder:1:5").to_string();
        assert_eq!(batch_key(&[own.as_str()], 0, 1).to_string(), own);
        let batch = batch_key(&[own.as_str(), "b"], 0, 1);
        assert_ne!(batch.to_string(), own);
        assert_eq!(batch, batch_key(&[own.as_str(), "b"], 0, 1), "the same on every attempt");
        assert_ne!(batch, batch_key(&[own.as_str(), "b"], 1, 2));
    }
}
