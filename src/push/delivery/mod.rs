//! Pushing recorded deliveries, shared by the reminder scheduler, the price-alert poller and the
//! digest sender.
//!
//! Each records the rendered push under its occurrence's stable name ([`occurrence_key`]: how
//! the loop finds its record again, never sent to LINE) before the first attempt, then hands the
//! item to one per-chat outbox ([`outbox`]), which gives it a random `X-Line-Retry-Key` once and
//! reuses it on every attempt: everything due for one chat
//! within a short window — a reminder, an alert fire and the digest alike — goes in one push
//! request ([`crate::push::quota::batch`]), so a group is charged once, not once per item or per loop.
//! Before pushing, one decision per item asks the chat's quiet hours and the month's quota
//! ([`crate::push::quota::tracking`]): an alert or digest waits for quiet hours to end; when the month cannot pay,
//! the items are held for the chat's next reply (free) instead of being lost. This module says
//! what became of each item: LINE accepted it (a `409` for a key hearth sent before counts; one for a key it never sent
//! is a message not delivered), it was held,
//! LINE refused it for good, the outcome is unknown and the same request is tried again later,
//! or it waits in the outbox — or it was withheld, because the door is closed for its chat
//! ([`crate::door`]: a revoked chat is neither pushed to nor charged). A [`Pusher`] holds what a recorded push needs (the quota's
//! bookkeeping with the LINE client and the store, the button key, the palette, this process's
//! name in claims and the outbox's tuning), once for all three.

mod at_once;
mod outbox;
mod retention;

use jiff::{SignedDuration, Timestamp};
use uuid::Uuid;

use crate::push::quota::QuotaTracker;

use crate::line::flex::Palette;
use crate::line::postback::PostbackKey;
use crate::push::quiet::{self, PushKind};
use crate::store::{DeliveryStatus, NewOutboxItem, OutboxItem, Store, StoreError};

pub use at_once::PushNowError;
pub use outbox::Settled;
pub use retention::prune_settled;

/// How long an item due in the outbox is left to the loop that handed it over before any other
/// round may push it ([`Pusher::flush_waiting`]).
pub const HANDOVER_LAG: std::time::Duration = std::time::Duration::from_secs(1);

/// Namespace of the stable names of occurrences (`reminder:{id}:{at}`, `alert:{id}:{fire_seq}`).
pub const OCCURRENCE_NAMESPACE: Uuid = Uuid::from_u128(0x6865_6172_7468_2d72_656d_696e_6465_7273);

/// The stable identity of a named occurrence: the same name gives the same key, so a loop that
/// prepares an occurrence twice finds its first record (exactly once). It is an identity only,
/// never an `X-Line-Retry-Key`: row ids come back after a restore, and LINE would drop a new
/// message sent with an old key. The outbox gives every item a random key of its own.
pub fn occurrence_key(name: &str) -> Uuid {
    Uuid::new_v5(&OCCURRENCE_NAMESPACE, name.as_bytes())
}

/// What became of one item handed to the outbox.
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
    /// Not sent and not charged: the chat it is for is not served (revoked), or its target's
    /// 1:1 chat is revoked. What it came from (a reminder, an alert, a plan) stays, and goes on
    /// once the chat is approved again.
    Withheld,
    /// Waiting in the outbox (for the chat's quiet hours to end, or for what else is due for the
    /// chat within the window): the outbox pushes it and records what became of it.
    Queued,
}

impl Outcome {
    /// The delivery status to record, or `None` when the delivery stays pending.
    pub fn status(self) -> Option<DeliveryStatus> {
        match self {
            Outcome::Sent => Some(DeliveryStatus::Sent),
            Outcome::Held => Some(DeliveryStatus::Held),
            Outcome::Refused => Some(DeliveryStatus::Failed),
            Outcome::Queued => Some(DeliveryStatus::Queued),
            Outcome::Withheld => Some(DeliveryStatus::Withheld),
            Outcome::RetryLater => None,
        }
    }

    /// What an outbox item's stored state means.
    fn of(item: &OutboxItem) -> Self {
        match item.status.as_str() {
            "sent" => Outcome::Sent,
            "held" => Outcome::Held,
            "withheld" => Outcome::Withheld,
            "failed" | "abandoned" => Outcome::Refused,
            _ if item.attempts > 0 => Outcome::RetryLater,
            _ => Outcome::Queued,
        }
    }
}

/// One recorded item to push.
#[derive(Debug, Clone)]
pub struct Item<'a> {
    /// Its stored messages (a JSON array).
    pub payload: &'a str,
    /// The stable name of its occurrence ([`occurrence_key`]): how its record is found again.
    pub occurrence: &'a str,
    /// The chat it belongs to (where it waits when held: the chat whose next reply carries it).
    pub home: &'a str,
    /// How the log names it (`reminder 42`, `alert 7:2`).
    pub what: String,
    /// What it is (quiet hours hold alerts and the digest, not reminders).
    pub kind: PushKind,
    /// It may go without a notification sound (an alert's re-fire).
    pub silent: bool,
}

impl<'a> Item<'a> {
    /// This item as the outbox records it, for `to`, due at `due_at` (Unix ms).
    fn for_outbox(&self, to: &'a str, due_at: i64) -> NewOutboxItem<'a> {
        NewOutboxItem {
            conversation_id: self.home,
            target: to,
            kind: self.kind.name(),
            occurrence: self.occurrence,
            payload: self.payload,
            silent: self.silent,
            due_at,
        }
    }
}

/// Tuning of the outbox's sender.
#[derive(Debug, Clone, Copy)]
pub struct OutboxSettings {
    /// Items due for one chat within this long of the first are pushed together
    /// (`HEARTH_OUTBOX_WINDOW_SECS`).
    pub window: SignedDuration,
    /// How long a claim on a chat's items lasts; must outlast a push with its retries.
    pub lease: SignedDuration,
    /// Wait before a request of unknown outcome is tried again (same items, same key).
    pub retry_after: SignedDuration,
    /// A request first attempted longer ago than this is abandoned, never resent.
    pub grace: SignedDuration,
}

impl Default for OutboxSettings {
    fn default() -> Self {
        Self {
            window: SignedDuration::from_secs(3),
            lease: SignedDuration::from_mins(2),
            retry_after: SignedDuration::from_mins(1),
            grace: SignedDuration::from_mins(30),
        }
    }
}

/// What a recorded push needs, shared by the reminder scheduler, the price-alert poller and the
/// digest sender.
#[derive(Clone)]
pub struct Pusher {
    quota: QuotaTracker,
    door: std::sync::Arc<crate::door::Door>,
    key: PostbackKey,
    palette: Palette,
    owner: String,
    outbox: OutboxSettings,
    lanes: Lanes,
}

/// How many lanes this process's pushes are spread over.
const LANES: usize = 64;

/// One lane per chat (chats sharing a lane by their name's hash): this process hands a chat's
/// items over and pushes them one call at a time. Two loops' steps pushing to one member at
/// once would otherwise meet in the outbox, where the second finds its item inside the first's
/// request, still in flight, and takes it for an attempt to retry; other processes are kept
/// apart by the outbox's claims. A fixed set, so memory stays flat however many chats there are.
#[derive(Clone)]
struct Lanes(std::sync::Arc<[tokio::sync::Mutex<()>]>);

impl Lanes {
    fn new() -> Self {
        Self((0..LANES).map(|_| tokio::sync::Mutex::new(())).collect())
    }

    /// The lane `to`'s pushes go through.
    fn of(&self, to: &str) -> &tokio::sync::Mutex<()> {
        use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
        let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(to);
        &self.0[(hash % self.0.len() as u64) as usize]
    }
}

impl Pusher {
    /// A pusher identified as `owner` in claims, spending through `quota`, rendering
    /// buttons signed with `key` in `palette`'s colours, pushing only what `door` lets through.
    pub fn new(
        quota: QuotaTracker,
        key: PostbackKey,
        palette: Palette,
        owner: String,
        door: std::sync::Arc<crate::door::Door>,
    ) -> Self {
        Self {
            quota,
            key,
            palette,
            owner,
            door,
            outbox: OutboxSettings::default(),
            lanes: Lanes::new(),
        }
    }

    /// The pusher `config` sets up (its button key, palette and outbox tuning) over `quota`
    /// and `door`, named `owner` in claims.
    pub fn from_config(
        config: &crate::platform::config::Config,
        quota: QuotaTracker,
        door: std::sync::Arc<crate::door::Door>,
        owner: String,
    ) -> Self {
        let key = PostbackKey::new(&config.line.postback_key, &config.line.line_channel_secret);
        let palette = Palette::new(config.family.price_colors);
        let outbox = OutboxSettings {
            window: SignedDuration::from_secs(
                i64::try_from(config.push.outbox_window_secs).unwrap_or(0),
            ),
            // A chat's items are claimed like due reminders (`HEARTH_REMINDER_LEASE_SECS`).
            lease: SignedDuration::from_secs(config.loops.reminder_lease_secs.max(1) as i64),
            ..OutboxSettings::default()
        };
        Self::new(quota, key, palette, owner, door).with_outbox(outbox)
    }

    /// The same pusher with the outbox tuned by `settings`.
    pub fn with_outbox(mut self, settings: OutboxSettings) -> Self {
        self.outbox = settings;
        self
    }

    /// The store the deliveries are recorded in (the outbox's own; the loops hold their own).
    pub(in crate::push) fn store(&self) -> &Store {
        &self.quota.store
    }

    /// The quota's bookkeeping, for the deps built around this pusher.
    pub fn quota(&self) -> &QuotaTracker {
        &self.quota
    }

    /// Whether `user_id` has hearth as a friend: a push to their own 1:1 chat can reach them
    /// (cached; false when LINE cannot tell).
    pub async fn is_friend(&self, user_id: &str) -> bool {
        self.quota.is_friend(user_id).await
    }

    /// The zone the month and the quiet hours are counted in.
    pub fn tz(&self) -> &jiff::tz::TimeZone {
        self.quota.tz()
    }

    /// This process's name in claims.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The current time.
    pub fn now(&self) -> Timestamp {
        self.quota.clock.now()
    }

    /// The clock it reads (a loop's context reads the same).
    pub fn clock(&self) -> std::sync::Arc<dyn crate::platform::clock::Clock> {
        self.quota.clock.clone()
    }

    /// The key that signs the buttons of rendered pushes.
    pub fn key(&self) -> &PostbackKey {
        &self.key
    }

    /// The colours of rendered cards.
    pub fn palette(&self) -> Palette {
        self.palette
    }

    /// The conversation's quiet hours with their zone, if it has readable ones.
    async fn quiet_hours(
        &self,
        conversation_id: &str,
    ) -> Result<Option<(quiet::QuietHours, jiff::tz::TimeZone)>, StoreError> {
        let Some(row) = self.store().chats().quiet_hours(conversation_id).await? else {
            return Ok(None);
        };
        Ok(quiet::stored(&row.start_local, &row.end_local, &row.tz))
    }

    /// Hands `items` for `to` to the outbox and pushes what is due for that chat now (these
    /// items with whatever else waits for it, in as few requests as LINE allows); says, item by
    /// item, what became of them. An item already handed over keeps its first record.
    pub async fn push(&self, to: &str, items: &[Item<'_>]) -> Vec<Outcome> {
        let _lane = self.lanes.of(to).lock().await;
        let now = self.now().as_millisecond();
        let news: Vec<NewOutboxItem<'_>> = items.iter().map(|i| i.for_outbox(to, now)).collect();
        if let Err(e) = self.store().outbox().record(&news, now).await {
            tracing::error!(to, error = %e, "could not record pushes in the outbox; will retry");
            return vec![Outcome::RetryLater; items.len()];
        }
        if let Err(e) = self.flush_chat(to, now).await {
            tracing::error!(to, error = %e, "outbox: could not push a chat's items");
        }
        let mut outcomes = Vec::with_capacity(items.len());
        for item in items {
            outcomes.push(match self.store().outbox().item(item.occurrence).await {
                Ok(Some(stored)) => Outcome::of(&stored),
                Ok(None) => Outcome::RetryLater,
                Err(e) => {
                    tracing::error!(item = item.what, error = %e, "outbox: could not read an item");
                    Outcome::RetryLater
                }
            });
        }
        outcomes
    }
}
