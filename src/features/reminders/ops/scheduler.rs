//! Delivers due reminders, each occurrence exactly once, even with several processes on one
//! database: claim due reminders with a lease, record the rendered push (and its deterministic
//! `X-Line-Retry-Key`) before sending, push the recorded payload, then advance the reminder fenced
//! on the claimed occurrence and the owner. A retry — in this process or another after a crash —
//! sends the identical request with the same key, and LINE answers a repeat with 409, which
//! counts as delivered. Occurrences are handed to the per-chat outbox ([`crate::push::delivery`]), so
//! what is due together for one chat — with alert fires and the digest — goes out in one push (a
//! group is charged once); when the month's quota cannot pay, they are held for the chat's next
//! reply and the reminder moves on. A personal reminder routed to its person's 1:1 chat goes back to the
//! chat it was set in once that person is no longer a friend. Missed occurrences after downtime are not replayed: only the most recent
//! one is sent, late, with a note.

use futures::StreamExt;
use jiff::{SignedDuration, Timestamp};

use crate::features::reminders::render;
use crate::push::delivery::{self, Item, Outcome, Pusher};
use crate::push::quiet::PushKind;
use crate::sources::calendar::WorkCalendar;
use crate::store::{
    DeliveryRow, DeliveryStatus, Finish, NewDelivery, Next, ReminderRow, Store, StoreError,
};

/// Tuning of the scheduler.
#[derive(Debug, Clone, Copy)]
pub struct SchedulerSettings {
    /// How long a claim lasts; must outlast the worst-case push with its retries.
    pub lease: SignedDuration,
    /// Occurrences later than this are still sent, with a note; older pending attempts are abandoned.
    pub grace: SignedDuration,
    /// Reminders claimed per round.
    pub batch: i64,
    /// Pushes in flight at once.
    pub concurrency: usize,
    /// Wait before trying an occurrence again after LINE failed.
    pub retry_after: SignedDuration,
}

impl Default for SchedulerSettings {
    fn default() -> Self {
        Self {
            lease: SignedDuration::from_mins(2),
            grace: SignedDuration::from_mins(30),
            batch: 500,
            concurrency: 64,
            retry_after: SignedDuration::from_mins(1),
        }
    }
}

/// What a tick did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TickReport {
    /// Pushes LINE accepted (or had already accepted).
    pub sent: usize,
    /// Occurrences to be tried again later.
    pub retrying: usize,
    /// Occurrences not delivered for good (refused, abandoned).
    pub failed: usize,
    /// Occurrences held for their chat's next reply (the month's quota could not pay).
    pub held: usize,
    /// Occurrences handed to the outbox, waiting for what else is due for their chat.
    pub queued: usize,
}

/// A claimed occurrence with its recorded delivery.
#[derive(Debug, Clone)]
pub struct Prepared {
    row: ReminderRow,
    claimed_fire_at: i64,
    delivery: DeliveryRow,
    next: Next,
}

/// What [`ReminderScheduler::plan`] makes of a claimed reminder.
enum Plan {
    /// Nothing was claimed after all (no next time).
    Skip,
    /// Finished without a push (an unreadable rule is paused; a time passed over moves on).
    Finish(Finish),
    /// To be recorded and pushed: the delivery, the row, the claimed time and what comes next.
    Push(Box<(NewDelivery, ReminderRow, i64, Next)>),
}

/// What earlier attempts leave of a recorded delivery: `None` when it is to be pushed now, or
/// `Some(status)` when its reminder only advances, recording `status` if any. Sent (or given
/// up) by an earlier attempt: only advance. A pending attempt first made before `grace_start`
/// has an unknown outcome: abandon it, never resend.
fn settled(delivery: &DeliveryRow, grace_start: i64) -> Option<Option<(i64, DeliveryStatus)>> {
    let done_before = delivery.status != DeliveryStatus::Pending;
    let stale_attempt = delivery.attempts > 0 && delivery.first_attempt_at < grace_start;
    if !(done_before || stale_attempt) {
        return None;
    }
    Some(
        (stale_attempt && !done_before)
            .then_some((delivery.scheduled_for, DeliveryStatus::Abandoned)),
    )
}

/// The reminder scheduler of one process.
pub struct ReminderScheduler {
    pusher: Pusher,
    /// What it reads and records, its capability's rows.
    store: Store,
    settings: SchedulerSettings,
    work_calendar: WorkCalendar,
}

impl ReminderScheduler {
    /// A scheduler claiming in `store` and pushing through `pusher` (identified by its owner in
    /// claims); workday reminders follow `work_calendar`.
    pub fn new(
        pusher: Pusher,
        store: Store,
        settings: SchedulerSettings,
        work_calendar: WorkCalendar,
    ) -> Self {
        Self { pusher, store, settings, work_calendar }
    }

    /// The working calendar workday reminders follow.
    pub fn work_calendar(&self) -> &WorkCalendar {
        &self.work_calendar
    }

    /// Delivers everything due now. Batches are pipelined: while one batch is being pushed, the
    /// next is claimed and prepared and the previous one's outcome is recorded, so a large burst
    /// is limited by LINE's rate limit rather than by the database.
    pub async fn tick(&self) -> Result<TickReport, StoreError> {
        let mut report = TickReport::default();
        let mut current = self.claim_and_prepare().await?;
        let mut unrecorded: Vec<Finish> = Vec::new();
        loop {
            let (prepared, finishes) = current;
            if prepared.is_empty() && finishes.is_empty() {
                self.record(&unrecorded).await?;
                self.flush(&mut report).await?;
                return Ok(report);
            }
            let (delivered, next, recorded) = tokio::join!(
                self.deliver_all(prepared),
                self.claim_and_prepare(),
                self.record(&unrecorded),
            );
            recorded?;
            for f in &delivered {
                match (f.delivery, f.next) {
                    (Some((_, DeliveryStatus::Sent)), _) => report.sent += 1,
                    (Some((_, DeliveryStatus::Held)), _) => report.held += 1,
                    (Some((_, DeliveryStatus::Queued)), _) => report.queued += 1,
                    (_, Next::Retry(_)) => report.retrying += 1,
                    _ => report.failed += 1,
                }
            }
            unrecorded = finishes;
            unrecorded.extend(delivered);
            current = next?;
        }
    }

    /// Pushes the prepared occurrences, those for one chat together in one push.
    async fn deliver_all(&self, prepared: Vec<Prepared>) -> Vec<Finish> {
        let mut by_chat: std::collections::BTreeMap<String, Vec<Prepared>> = Default::default();
        for p in prepared {
            by_chat.entry(p.row.target().to_string()).or_default().push(p);
        }
        let finished: Vec<Vec<Finish>> = futures::stream::iter(by_chat.into_values())
            .map(|group| self.deliver(group))
            .buffer_unordered(self.settings.concurrency.max(1))
            .collect()
            .await;
        finished.into_iter().flatten().collect()
    }

    async fn record(&self, finishes: &[Finish]) -> Result<(), StoreError> {
        if finishes.is_empty() {
            return Ok(());
        }
        let p = &self.pusher;
        self.store.reminders().finish(p.owner(), p.now().as_millisecond(), finishes).await
    }

    /// Claims due reminders and records their deliveries; returns what is to be pushed and what
    /// can be finished without a push (already sent, abandoned, unreadable).
    pub async fn claim_and_prepare(&self) -> Result<(Vec<Prepared>, Vec<Finish>), StoreError> {
        let now = self.pusher.now();
        let now_ms = now.as_millisecond();
        let lease_until =
            now.saturating_add(self.settings.lease).map_or(now_ms, |t| t.as_millisecond());
        let rows = self
            .store
            .reminders()
            .claim_due(self.pusher.owner(), now_ms, lease_until, self.settings.batch)
            .await?;
        let mut finishes = Vec::new();
        let mut planned = Vec::new();
        let mut news = Vec::new();
        for mut row in rows {
            if let Some(user) = row.deliver_to.clone()
                && !self.pusher.is_friend(&user).await
            {
                // No longer a friend: this occurrence goes to the chat it was set in.
                row.deliver_to = None;
            }
            match self.plan(row, now) {
                Plan::Skip => {}
                Plan::Finish(finish) => finishes.push(finish),
                Plan::Push(push) => {
                    let (new, row, claimed, next) = *push;
                    news.push(new);
                    planned.push((row, claimed, next));
                }
            }
        }
        let deliveries = self.store.reminders().prepare_deliveries(&news).await?;
        let grace_start =
            now.saturating_sub(self.settings.grace).map_or(now_ms, |t| t.as_millisecond());
        let mut prepared = Vec::new();
        for ((row, claimed, next), delivery) in planned.into_iter().zip(deliveries) {
            match settled(&delivery, grace_start) {
                Some(status) => finishes.push(Finish {
                    reminder_id: row.id,
                    claimed_fire_at: claimed,
                    delivery: status,
                    next,
                }),
                None => prepared.push(Prepared { row, claimed_fire_at: claimed, delivery, next }),
            }
        }
        Ok((prepared, finishes))
    }

    /// The step for one claimed reminder at `now`: the most recent occurrence due (older missed
    /// ones are not replayed), rendered and keyed for recording, and how the reminder moves on.
    fn plan(&self, row: ReminderRow, now: Timestamp) -> Plan {
        let Some(claimed) = row.next_fire_at else { return Plan::Skip };
        let Some(schedule) = row.schedule(&self.work_calendar) else {
            tracing::error!(reminder = row.id, "unreadable reminder rule; paused");
            return Plan::Finish(Finish {
                reminder_id: row.id,
                claimed_fire_at: claimed,
                delivery: None,
                next: Next::Pause,
            });
        };
        let claimed_at = Timestamp::from_millisecond(claimed).unwrap_or(now);
        let (occurrence, at) = schedule
            .last_at_or_before(now)
            .filter(|(_, t)| *t >= claimed_at)
            .unwrap_or((u32::try_from(row.next_occurrence).unwrap_or(0), claimed_at));
        let next = match schedule.next_after(at) {
            Some((i, t)) => Next::At(t.as_millisecond(), i64::from(i)),
            None => Next::Done,
        };
        if row.passes_over(at.as_millisecond()) {
            // The time of the event it comes before was called off: it moves on unsent.
            let finish =
                Finish { reminder_id: row.id, claimed_fire_at: claimed, delivery: None, next };
            return Plan::Finish(finish);
        }
        let lag = now.duration_since(at);
        crate::platform::metrics::scheduler_lag(lag.unsigned_abs());
        let late = lag > self.settings.grace;
        let (palette, key) = (self.pusher.palette(), self.pusher.key());
        let messages = render::delivery(&row, &schedule, occurrence, at, late, palette, key);
        let retry_key =
            delivery::occurrence_key(&format!("reminder:{}:{}", row.id, at.as_millisecond()));
        let new = NewDelivery {
            reminder_id: row.id,
            scheduled_for: at.as_millisecond(),
            conversation_id: row.conversation_id.clone(),
            retry_key: retry_key.to_string(),
            payload: serde_json::to_string(&messages).unwrap_or_else(|_| "[]".into()),
            now_ms: now.as_millisecond(),
        };
        Plan::Push(Box::new((new, row, claimed, next)))
    }

    /// Hands prepared occurrences for one chat to the outbox (pushed together with whatever else
    /// is due for that chat) and says how each reminder moves on: once the outbox has an
    /// occurrence, the reminder moves on and the outbox sees it delivered.
    pub async fn deliver(&self, group: Vec<Prepared>) -> Vec<Finish> {
        let Some(first) = group.first() else { return Vec::new() };
        let now = self.pusher.now();
        let to = first.row.target().to_string();
        let items: Vec<Item<'_>> = group
            .iter()
            .map(|p| Item {
                payload: &p.delivery.payload,
                occurrence: &p.delivery.retry_key,
                home: &p.row.conversation_id,
                what: format!("reminder {}", p.row.id),
                kind: PushKind::Reminder,
                silent: false,
            })
            .collect();
        let outcomes = self.pusher.push(&to, &items).await;
        let next_of = |p: &Prepared, outcome: Outcome| match outcome {
            // Withheld (the chat is revoked): not sent, and the reminder moves on as if it had
            // been, so approving the chat again resumes it at its next time. Refused (LINE
            // refused this push for good): one failed occurrence never stops a repeating
            // reminder, which moves on to its next time.
            Outcome::Sent
            | Outcome::Held
            | Outcome::Queued
            | Outcome::Withheld
            | Outcome::Refused => p.next,
            Outcome::RetryLater => Next::Retry(
                now.saturating_add(self.settings.retry_after)
                    .map_or(i64::MAX, |t| t.as_millisecond()),
            ),
        };
        group
            .iter()
            .zip(outcomes)
            .map(|(p, outcome)| Finish {
                reminder_id: p.row.id,
                claimed_fire_at: p.claimed_fire_at,
                delivery: outcome.status().map(|s| (p.delivery.scheduled_for, s)),
                next: next_of(p, outcome),
            })
            .collect()
    }

    /// Pushes what waits in the outbox for chats whose window has passed (items held for quiet
    /// hours or handed over by another loop); counts the reminders among them into `report`.
    async fn flush(&self, report: &mut TickReport) -> Result<(), StoreError> {
        let flushed = self.pusher.flush_waiting_counting(PushKind::Reminder).await?;
        report.sent += flushed.sent;
        report.held += flushed.held;
        report.failed += flushed.failed;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(status: DeliveryStatus, attempts: i64, first_attempt_at: i64) -> DeliveryRow {
        DeliveryRow {
            reminder_id: 1,
            scheduled_for: 500,
            retry_key: String::new(),
            payload: "[]".into(),
            status,
            attempts,
            first_attempt_at,
        }
    }

    #[test]
    fn a_fresh_or_recent_pending_delivery_is_pushed() {
        assert_eq!(settled(&recorded(DeliveryStatus::Pending, 0, 0), 1_000), None);
        assert_eq!(settled(&recorded(DeliveryStatus::Pending, 2, 1_500), 1_000), None);
    }

    #[test]
    fn a_delivery_settled_earlier_only_advances() {
        assert_eq!(settled(&recorded(DeliveryStatus::Sent, 1, 0), 1_000), Some(None));
        assert_eq!(settled(&recorded(DeliveryStatus::Failed, 1, 1_500), 1_000), Some(None));
    }

    #[test]
    fn a_pending_attempt_older_than_the_grace_window_is_abandoned() {
        assert_eq!(
            settled(&recorded(DeliveryStatus::Pending, 1, 900), 1_000),
            Some(Some((500, DeliveryStatus::Abandoned)))
        );
    }
}
