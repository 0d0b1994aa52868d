//! Pushing a recorded delivery, shared by the reminder scheduler and the price-alert poller.
//!
//! Both record the rendered push and a deterministic `X-Line-Retry-Key` before the first attempt;
//! every attempt, from any process, then sends the stored payload with that key. This module does
//! the attempt and says what the outcome means: LINE accepted it (a `409` for a repeated key
//! counts), the monthly quota is used up (recorded so the conversation is told on its next turn),
//! LINE refused the target for good, or the outcome is unknown and the same request must be tried
//! again later. A [`Pusher`] holds what a recorded push needs (the LINE client, the store, the
//! clock, the button key, the palette and this process's name in claims), once for both.

use std::sync::Arc;

use jiff::Timestamp;
use uuid::Uuid;

use crate::clock::Clock;
use crate::line::client::{LineClient, LineError};
use crate::line::flex::Palette;
use crate::postback::PostbackKey;
use crate::quiet::{self, Decision, PushKind};
use crate::store::{DeliveryStatus, Store, StoreError};

/// Namespace of hearth's retry keys (`reminder:{id}:{at}`, `alert:{id}:{fire_seq}`).
pub const RETRY_KEY_NAMESPACE: Uuid = Uuid::from_u128(0x6865_6172_7468_2d72_656d_696e_6465_7273);

/// The deterministic retry key of a named occurrence.
pub fn retry_key(name: &str) -> Uuid {
    Uuid::new_v5(&RETRY_KEY_NAMESPACE, name.as_bytes())
}

/// What became of one push attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// LINE accepted it (now, or on an earlier attempt with the same key).
    Sent,
    /// The monthly quota is used up; recorded for the conversation's quota notice.
    Quota,
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
            Outcome::Quota => Some(DeliveryStatus::FailedQuota),
            Outcome::Refused => Some(DeliveryStatus::Failed),
            Outcome::RetryLater => None,
        }
    }
}

/// What a recorded push needs, shared by the reminder scheduler and the price-alert poller.
#[derive(Clone)]
pub struct Pusher {
    store: Store,
    line: LineClient,
    clock: Arc<dyn Clock>,
    key: PostbackKey,
    palette: Palette,
    owner: String,
}

impl Pusher {
    /// A pusher identified as `owner` in claims, rendering buttons signed with `key` in
    /// `palette`'s colours.
    pub fn new(
        store: Store,
        line: LineClient,
        clock: Arc<dyn Clock>,
        key: PostbackKey,
        palette: Palette,
        owner: String,
    ) -> Self {
        Self { store, line, clock, key, palette, owner }
    }

    /// The store the deliveries are recorded in.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// This process's name in claims.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The current time.
    pub fn now(&self) -> Timestamp {
        self.clock.now()
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
        let Some(row) = self.store.quiet_hours(conversation_id).await? else { return Ok(None) };
        let Some((hours, tz)) = quiet::stored(&row.start_local, &row.end_local, &row.tz) else {
            return Ok(None);
        };
        Ok(match quiet::decide(kind, self.now(), &tz, Some(&hours)) {
            Decision::Now => None,
            Decision::HoldUntil(t) => Some(t.as_millisecond()),
        })
    }

    /// Pushes the stored `payload` (a JSON array of messages) to `to` with `retry_key`, retrying
    /// briefly inside [`LineClient::push_with_retry`]. `what` names the item in the log
    /// (`reminder 42`, `alert 7`).
    pub async fn push(&self, to: &str, payload: &str, retry_key: &str, what: &str) -> Outcome {
        let messages: serde_json::Value = match serde_json::from_str(payload) {
            Ok(m) => m,
            Err(e) => {
                tracing::error!(item = what, error = %e, "stored payload unreadable");
                return Outcome::Refused;
            }
        };
        let key = Uuid::parse_str(retry_key).unwrap_or_else(|_| self::retry_key(retry_key));
        match self.line.push_with_retry(to, &messages, key).await {
            Ok(_) => Outcome::Sent,
            Err(LineError::QuotaExhausted) => {
                tracing::error!(item = what, "monthly message quota reached: not pushed");
                let now_ms = self.now().as_millisecond();
                if let Err(e) = self.store.record_quota_miss(to, now_ms).await {
                    tracing::warn!(error = %e, "could not record the quota miss");
                }
                Outcome::Quota
            }
            Err(LineError::Rejected { status, message }) => {
                tracing::error!(item = what, %status, message, "LINE refused the push");
                Outcome::Refused
            }
            Err(e) => {
                tracing::warn!(item = what, error = %e, "push failed; will retry with the same key");
                Outcome::RetryLater
            }
        }
    }
}
