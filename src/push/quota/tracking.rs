//! LINE's monthly quota as hearth keeps track of it: reading LINE (at start, hourly, and after a
//! monthly-limit refusal), the running count between readings (what each push cost, recorded
//! per chat and month), what a push into each chat costs (the member count, cached), whether a
//! user has hearth as a friend (cached; a follow event or LINE's profile answer tells), and the
//! once-a-month warning at 80 %, and what the month keeps back for pushes that cannot wait
//! ([`KeptBack`]: care plans'). The decisions themselves are in [`crate::push::quota`].

use std::sync::Arc;

use futures::future::BoxFuture;
use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::line::client::{LineClient, LineError, Sent};
use crate::line::message::Message;
use crate::platform::clock::Clock;
use crate::platform::conversation::Conversation;
use crate::push::quota::{self, Month, Reading, Standing};
use crate::store::{Store, StoreError};

/// A chat's member count is asked again after this long (Unix ms).
const CHAT_SIZE_TTL_MS: i64 = 24 * 3600 * 1000;
/// Whether a user is a friend is asked again after this long (follow events update it sooner).
const FRIEND_TTL_MS: i64 = 7 * 24 * 3600 * 1000;

/// Messages the rest of the month must keep for pushes that cannot wait (a care plan's prompts
/// and escalations): when the month runs out, a push that can wait (a digest, a price alert
/// firing again) may not spend them. Implemented where those pushes come from
/// (`features::care`), so this module knows no feature above it.
pub trait KeptBack: Send + Sync {
    /// What to keep from `now` until `until` (the month's end).
    fn messages(&self, now: Timestamp, until: Timestamp) -> BoxFuture<'_, i64>;
}

/// The quota's bookkeeping, shared by the pushers, the tools and the conversation.
#[derive(Clone)]
pub struct QuotaTracker {
    pub(in crate::push) store: Store,
    pub(in crate::push) line: LineClient,
    pub(in crate::push) clock: Arc<dyn Clock>,
    tz: TimeZone,
    direct_on: bool,
    /// Held while LINE's quota is read and saved, so an earlier reading never lands after a
    /// later one.
    reading: Arc<tokio::sync::Mutex<()>>,
    /// Held while a chat's member count is asked, so concurrent pushes ask LINE once.
    sizing: Arc<tokio::sync::Mutex<()>>,
    /// What the month keeps back when it runs out, if anything does.
    kept_back: Option<Arc<dyn KeptBack>>,
}

impl QuotaTracker {
    /// Bookkeeping over the store and LINE, counting months in `tz`; `direct_on`: personal
    /// reminders set in a group go to the person's 1:1 chat (`HEARTH_PERSONAL_REMINDERS_1TO1`).
    pub fn new(
        store: Store,
        line: LineClient,
        clock: Arc<dyn Clock>,
        tz: TimeZone,
        direct_on: bool,
    ) -> Self {
        Self {
            store,
            line,
            clock,
            tz,
            direct_on,
            reading: Arc::default(),
            sizing: Arc::default(),
            kept_back: None,
        }
    }

    /// The same bookkeeping, keeping back what `kept_back` says when the month runs out.
    pub fn keeping_back(mut self, kept_back: Arc<dyn KeptBack>) -> Self {
        self.kept_back = Some(kept_back);
        self
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The family's time zone (months are counted in it).
    pub fn tz(&self) -> &TimeZone {
        &self.tz
    }

    /// True when personal reminders set in a group go to the person's 1:1 chat.
    pub fn direct_on(&self) -> bool {
        self.direct_on
    }

    /// The current month.
    pub fn month(&self) -> Month {
        Month::of(self.clock.now(), &self.tz)
    }

    /// What the rest of the month keeps back for pushes that cannot wait; 0 with nothing to
    /// keep.
    pub async fn kept_back(&self) -> i64 {
        match &self.kept_back {
            Some(k) => k.messages(self.clock.now(), self.month().end(&self.tz)).await,
            None => 0,
        }
    }

    /// Where the current month stands: LINE's last reading plus what was pushed since.
    pub async fn standing(&self) -> Result<Standing, StoreError> {
        Ok(self.standing_and_held("").await?.0)
    }

    /// The pushes held for `conversation_id` while the month was out, and those withheld while
    /// it was not served (revoked, then approved again), taken to be told with its next reply,
    /// each once, in the order they were due.
    pub async fn take_held(
        &self,
        conversation_id: &str,
    ) -> Result<Vec<crate::store::HeldPush>, StoreError> {
        let mut held = self.store.quota().take_held(conversation_id).await?;
        for (_, payload, due_at) in self.store.outbox().take_withheld(conversation_id).await? {
            let payload = serde_json::from_str(&payload).unwrap_or_default();
            held.push(crate::store::HeldPush {
                summary: quota::batch::summary(&payload),
                held_at: due_at,
            });
        }
        held.sort_by_key(|h| h.held_at);
        Ok(held)
    }

    /// [`Self::standing`], and whether items are held for `conversation_id` (pushes that waited
    /// while the month was out), read together.
    pub async fn standing_and_held(
        &self,
        conversation_id: &str,
    ) -> Result<(Standing, bool), StoreError> {
        let month = self.month().key();
        let (reading, recorded, held) =
            self.store.quota().month_and_held(&month, conversation_id).await?;
        let standing = Standing::from_reading(
            reading.map(|r| Reading {
                limit: r.quota_limit,
                used: r.used,
                recorded: r.recorded,
                exhausted: r.exhausted_at.is_some(),
            }),
            recorded,
        );
        crate::platform::metrics::quota_standing(standing.limit, standing.used);
        Ok((standing, held))
    }

    /// Reads LINE's quota and consumption and saves them as the month's reading.
    pub async fn refresh(&self) {
        let _one_at_a_time = self.reading.lock().await;
        let quota = match self.line.quota().await {
            Ok(q) => q,
            Err(e) => {
                tracing::warn!(error = %e, "could not read LINE's message quota");
                return;
            }
        };
        let now = self.clock.now().as_millisecond();
        let month = self.month().key();
        let saved = async {
            let recorded = self.store.quota().month_cost(&month).await?;
            self.store.quota().save_reading(&month, quota.limit, quota.used, recorded, now).await
        };
        match saved.await {
            Ok(()) => {
                tracing::info!(month, limit = ?quota.limit, used = quota.used, "LINE message quota read");
                crate::platform::metrics::quota_standing(quota.limit, quota.used);
            }
            Err(e) => tracing::warn!(error = %e, "could not save the quota reading"),
        }
    }

    /// LINE refused a push for the monthly limit: the month is out until it turns (LINE is
    /// read again for the record).
    pub async fn exhausted(&self) {
        let now = self.clock.now().as_millisecond();
        tracing::error!(month = %self.month(), "LINE's monthly message quota is used up: pushes are held until next month");
        if let Err(e) = self.store.quota().mark_exhausted(&self.month().key(), now).await {
            tracing::warn!(error = %e, "could not record the exhausted quota");
        }
        self.refresh().await;
    }

    /// Records a push into `to` that cost `cost`.
    pub async fn record_push(&self, to: &str, cost: i64) {
        crate::platform::metrics::push_cost(cost);
        if let Err(e) = self.store.quota().record_push_cost(to, &self.month().key(), cost).await {
            tracing::warn!(error = %e, "could not record a push's cost");
        }
    }

    /// Pushes `messages` to `to` outside the outbox (`retry_key` made once by the caller) and
    /// keeps the month's count as the outbox does: a push LINE accepts is recorded at `cost`
    /// (not again when LINE answers that this key was accepted before, unless an attempt of
    /// this push had an unknown outcome), and LINE's monthly-limit answer marks the month out.
    /// For the pushes sent at once ([`crate::push::delivery::Pusher::push_now`],
    /// [`crate::push::delivery::Pusher::push_answer`]): every push LINE charges for is counted,
    /// whichever way it went.
    pub(in crate::push) async fn push_counted(
        &self,
        to: &str,
        messages: &[Message],
        retry_key: uuid::Uuid,
        cost: i64,
    ) -> Result<Sent, LineError> {
        let pushed = self.line.push_with_retry(to, messages, retry_key, false).await;
        match &pushed {
            Ok(sent) if !sent.repeated || sent.after_unknown => self.record_push(to, cost).await,
            Ok(_) => {}
            Err(LineError::QuotaExhausted) => self.exhausted().await,
            Err(_) => {}
        }
        pushed
    }

    /// What one push into `conversation_id` costs: its member count (cached for a day; a stale
    /// count, else one, when LINE cannot tell), one for a user.
    pub async fn cost_of(&self, conversation_id: &str) -> i64 {
        let conversation = Conversation::from_id(conversation_id);
        if !conversation.is_multi_person() {
            return quota::messages_per_push(false, None);
        }
        let now = self.clock.now().as_millisecond();
        let fresh =
            |cached: Option<(i64, i64)>| cached.filter(|(_, at)| now - at < CHAT_SIZE_TTL_MS);
        let cached = self.store.quota().chat_size(conversation_id).await.ok().flatten();
        if let Some((members, _)) = fresh(cached) {
            return quota::messages_per_push(true, Some(members));
        }
        let _one_at_a_time = self.sizing.lock().await;
        let cached = self.store.quota().chat_size(conversation_id).await.ok().flatten();
        if let Some((members, _)) = fresh(cached) {
            return quota::messages_per_push(true, Some(members));
        }
        match self.line.members_count(&conversation).await {
            Ok(Some(members)) => {
                if let Err(e) =
                    self.store.quota().save_chat_size(conversation_id, members, now).await
                {
                    tracing::warn!(error = %e, "could not cache a chat's size");
                }
                quota::messages_per_push(true, Some(members))
            }
            Ok(None) => quota::messages_per_push(false, None),
            Err(e) => {
                tracing::warn!(error = %e, "members count unavailable");
                quota::messages_per_push(true, cached.map(|(members, _)| members))
            }
        }
    }

    /// Whether `user_id` has hearth as a friend (cached; false when LINE cannot tell).
    pub async fn is_friend(&self, user_id: &str) -> bool {
        let now = self.clock.now().as_millisecond();
        if let Ok(Some((friend, at))) = self.store.quota().friend(user_id).await
            && now - at < FRIEND_TTL_MS
        {
            return friend;
        }
        match self.line.is_friend(user_id).await {
            Ok(friend) => {
                self.note_friend(user_id, friend).await;
                friend
            }
            Err(e) => {
                tracing::debug!(error = %e, "friendship unknown");
                false
            }
        }
    }

    /// Where something set in `conversation` for `person` is pushed: that person's 1:1 chat
    /// (`Some(user id)`) when it is set in a group or room, not for everyone, the person has
    /// hearth as a friend and the setting is on; else its own chat (`None`).
    pub async fn route(
        &self,
        conversation: &Conversation,
        person: Option<&str>,
        everyone: bool,
    ) -> Option<String> {
        let multi = conversation.is_multi_person();
        let candidate = person.filter(|_| multi && !everyone && self.direct_on)?;
        let friend = self.is_friend(candidate).await;
        match quota::route(multi, Some(candidate), everyone, friend, self.direct_on) {
            quota::Route::Direct(user) => Some(user),
            quota::Route::Chat => None,
        }
    }

    /// Notes that `user_id` added (a follow event) or has not added hearth as a friend.
    pub async fn note_friend(&self, user_id: &str, friend: bool) {
        let now = self.clock.now().as_millisecond();
        if let Err(e) = self.store.quota().save_friend(user_id, friend, now).await {
            tracing::warn!(error = %e, "could not cache a friendship");
        }
    }

    /// The month's `standing`, when `conversation_id` should be told now that the month is
    /// running out (once a month, only a chat with pushes scheduled).
    pub async fn warning_due(&self, conversation_id: &str, standing: Standing) -> Option<Standing> {
        let month = self.month().key();
        if !quota::running_out(&standing) {
            return None;
        }
        let scheduled = self.store.quota().has_scheduled_pushes(conversation_id).await.ok()?;
        let told = self.store.quota().warned(conversation_id, &month).await.ok()?;
        if !quota::warning_due(&standing, scheduled, told) {
            return None;
        }
        self.store.quota().note_warning(conversation_id, &month).await.ok()?.then_some(standing)
    }
}
