//! Handling stored webhook events. Every accepted event is in the store (the durable inbox)
//! before LINE gets its 200; what waits in memory is bounded ([`queue`]). The webhook takes its
//! events into the queue at once when there is room — claimed under a lease, token 1 — and
//! leaves them in the store otherwise; a loop takes waiting events from the store as room frees,
//! and with them the events of processes that died (their leases were not renewed).
//!
//! Exactly once: a live process renews the leases of what it holds ([`lease::renew_every`]),
//! confirms its claim before it starts an event whose lease may have lapsed, and finishes it
//! only with the token it claimed. A slow turn in a live process is never taken from it; a dead
//! process's events are taken over within a lease (15 s by default). Events are handled one
//! conversation at a time, in order.
//!
//! Writes many events share are made together ([`commit`]): the webhooks' events are stored
//! in shared transactions ([`accept`]). Untriggered group messages ([`chatter`]) are logged in
//! that same transaction, stored done, when nothing of their conversation is in hand; otherwise
//! their lane logs them and marks them done in runs.

pub mod accept;
pub mod chatter;
pub mod commit;
pub mod in_flight;
pub mod lease;
pub mod poison;
pub mod queue;

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use jiff::{SignedDuration, Timestamp};
use tokio::sync::OwnedSemaphorePermit;
use tracing::Instrument;

use crate::line::webhook::Event;
use crate::platform::clock::Clock;
use crate::platform::retry::{Again, Backoff};
use crate::store::Store;
use crate::store::{PendingEvent, StoreError};
use crate::turn::Turns;
use crate::turn::answers::{Kept, KeptWrites};
use accept::InboxWrites;
use in_flight::InFlight;
use queue::InboxQueue;
use queue::{Job, Lease};

/// Most events taken from the store in one look.
const TAKE_BATCH: usize = 256;
/// How marking a handled event done is tried before giving up (the database may be busy).
const FINISH_RETRIES: Backoff = Backoff::doubling(5, std::time::Duration::from_millis(200));

/// The inbox service: the events this process holds, their leases, the lanes that hand them to
/// the turn handler one conversation at a time, and the writes many events share.
pub struct Inbox {
    /// What handles each event.
    pub(crate) turns: Arc<Turns>,
    /// The store (the durable inbox).
    pub(crate) store: Store,
    /// The clock.
    pub(crate) clock: Arc<dyn Clock>,
    /// This process's name in leases.
    pub(crate) owner: String,
    /// How long a claim on an event lasts unless renewed (the heartbeat renews it).
    pub lease: SignedDuration,
    /// The events this process holds in memory (bounded), by conversation.
    pub(crate) queue: Arc<InboxQueue>,
    /// The writes that many events share (group commit).
    pub(crate) writes: InboxWrites,
    /// Background work in hand: lanes, and writes waiting in the group commits.
    in_flight: InFlight,
    /// At most `HEARTH_MAX_CONCURRENT_TURNS` turns at once.
    turn_permits: Arc<tokio::sync::Semaphore>,
}

impl Inbox {
    /// The inbox of `turns`: `max_queued` events held in memory at most, `max_turns` turns at
    /// once, claims made as `owner` for `lease`.
    pub(crate) fn new(
        turns: Arc<Turns>,
        owner: String,
        lease: SignedDuration,
        max_queued: usize,
        max_turns: usize,
    ) -> Self {
        let store = turns.deps.store.clone();
        let clock = turns.clock.clone();
        // Shared by the lanes and the group commits: a write waiting in a commit is work in hand
        // whoever asked for it.
        let in_flight = InFlight::default();
        let writes = InboxWrites::new(store.clone(), &owner, clock.clone(), &in_flight);
        Self {
            turns,
            store,
            clock,
            owner,
            lease,
            queue: InboxQueue::new(max_queued),
            writes,
            in_flight,
            turn_permits: Arc::new(tokio::sync::Semaphore::new(max_turns.max(1))),
        }
    }

    /// Runs `work` in the background, counted so shutdown and tests can wait for it; the
    /// handle gives its outcome to whoever waits for it, but it runs to the end either way.
    pub(crate) fn spawn_tracked<T: Send + 'static>(
        &self,
        work: impl std::future::Future<Output = T> + Send + 'static,
    ) -> tokio::task::JoinHandle<T> {
        let guard = self.in_flight.enter();
        tokio::spawn(async move {
            let outcome = work.await;
            drop(guard);
            outcome
        })
    }

    /// Waits until the work in hand is done (shutdown: what waits in the inbox stays there).
    pub async fn wait_in_hand(&self) {
        self.in_flight.wait_idle().await;
    }

    /// Waits until no background work is running and no event waits in the inbox for this
    /// process to take it.
    pub async fn wait_idle(&self) {
        loop {
            self.in_flight.wait_idle().await;
            if !self.queue.has_backlog() {
                return;
            }
            self.queue.wake.notify_one();
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }

    /// A permit to work on a turn; at most `HEARTH_MAX_CONCURRENT_TURNS` are out at once.
    async fn turn_permit(&self) -> Option<OwnedSemaphorePermit> {
        self.turn_permits.clone().acquire_owned().await.ok()
    }

    /// When a lease taken or renewed now ends (Unix ms).
    pub fn inbox_lease_until(&self, now: Timestamp) -> i64 {
        now.saturating_add(self.lease).map_or(i64::MAX, |t| t.as_millisecond())
    }

    /// Queues events the webhook stored and claimed (token 1) in `slots`, one slot each.
    pub(crate) fn enqueue_accepted(
        self: &Arc<Self>,
        events: Vec<(Event, Timestamp)>,
        mut slots: OwnedSemaphorePermit,
        lease_until_ms: i64,
    ) {
        for (event, received_at) in events {
            let Some(slot) = slots.split(1) else {
                tracing::error!("fewer slots than accepted events");
                return;
            };
            let lease = Lease { token: 1, until_ms: lease_until_ms };
            self.enqueue(event, received_at, lease, slot);
        }
    }

    fn enqueue(
        self: &Arc<Self>,
        event: Event,
        received_at: Timestamp,
        lease: Lease,
        slot: OwnedSemaphorePermit,
    ) {
        let Some(held) = self.queue.hold(&event.webhook_event_id, lease, slot) else {
            return; // already queued here; the job uses the new claim
        };
        let conversation =
            event.source.as_ref().map(|s| s.conversation.id.clone()).unwrap_or_default();
        if self.queue.push(&conversation, Job { event, received_at, held }) {
            // Boxed where it is made: a lane's future holds a turn's whole way through the store,
            // and moving it unboxed into each wrapper copies it (BENCHMARKS.md, issue 44 §6).
            self.spawn_tracked(Box::pin(self.clone().work_lane(conversation)));
        }
    }

    /// Handles a conversation's queued events one after another until its lane is empty; a
    /// run of messages that are only logged is written in one go.
    async fn work_lane(self: Arc<Self>, conversation: String) {
        let only_logged = |job: &Job| {
            chatter::only_logged(&job.event, &self.turns.keywords, &self.turns.limits.door)
        };
        while let Some(job) = self.queue.pop(&conversation) {
            if self.queue.is_closing() {
                continue; // handed back at shutdown
            }
            if only_logged(&job) {
                let mut run = vec![job];
                while run.len() < chatter::MAX_RUN && !self.queue.is_closing() {
                    match self.queue.pop_if(&conversation, only_logged) {
                        Some(next) => run.push(next),
                        None => break,
                    }
                }
                self.log_chatter(run).await;
                continue;
            }
            let _turn = self.turn_permit().await;
            self.work(job).await;
        }
    }

    /// Handles one event in its span (`event`: its id, its chat and, once called, the tools of
    /// its turn), which every line logged while it is handled carries.
    async fn work(self: &Arc<Self>, job: Job) {
        let chat = job.event.source.as_ref().map(|s| s.conversation.to_string());
        let span = tracing::info_span!(
            "event",
            event_id = job.held.id(),
            chat = chat.as_deref(),
            tools = tracing::field::Empty,
        );
        self.work_in_span(job).instrument(span).await;
    }

    async fn work_in_span(self: &Arc<Self>, job: Job) {
        let id = job.held.id().to_string();
        let Some(token) = self.confirm_held(&id).await else {
            tracing::warn!("event taken over by another process; not handled here");
            return;
        };
        // Counted before it starts: an event that takes the process down twice is set aside.
        if let Err(e) = self.store.inbox().start_event(&id, token).await {
            tracing::warn!(error = %e, "could not note that an event starts");
        }
        // Boxed where it is made: a queued job and the lane stay small, and the turn's large
        // future (kilobytes) is not copied into each wrapper around it.
        let kept = Kept::default();
        let turn = self.turns.handle_event(job.event, job.received_at, &kept);
        let handled = AssertUnwindSafe(Box::pin(turn)).catch_unwind().await;
        if handled.is_err() {
            tracing::error!("handling the event panicked; it is not retried");
        }
        self.finish(&id, token, &kept.into_writes()).await;
        drop(job.held);
    }

    /// Marks a handled event done, recording what its turn left for its end (the message it
    /// answers, the answers it sent, the tokens it used) in the same batch. The claim is still
    /// held (and renewed) meanwhile, so a busy database is waited out rather than letting the
    /// event lapse and be handled again; should the batch keep failing, the done mark is written
    /// alone and the rest as it can be ([`Inbox::finish_apart`]).
    async fn finish(&self, id: &str, token: i64, kept: &KeptWrites) {
        let writes = kept.writes();
        self.queue.finishing(id);
        let mut tries = FINISH_RETRIES.tries();
        let finished = loop {
            // The claim may have been renewed by claiming again meanwhile: finish with the latest.
            let token = self.queue.lease(id).map_or(token, |l| l.token);
            let now = self.clock.now().as_millisecond();
            match self.store.inbox().finish_turn(id, &self.owner, token, now, &writes).await {
                Err(e)
                    if tries
                        .again(
                            "could not mark an event handled",
                            &e,
                            Again::Backoff { asked: None },
                        )
                        .await => {}
                done => break done,
            }
        };
        match finished {
            Ok(true) => {}
            Ok(false) => tracing::warn!("event was taken over before it was finished"),
            Err(e) => {
                tracing::error!(error = %e, "could not record a turn's end; marking its event done alone");
                self.finish_apart(id, token, &writes).await;
            }
        }
    }

    /// The done mark alone, then each of the turn's writes on its own, as far as they go: a
    /// write the batch could not take (a text the database refuses, say) does not keep the event
    /// pending, to be answered again.
    async fn finish_apart(&self, id: &str, token: i64, writes: &crate::store::TurnWrites<'_>) {
        let token = self.queue.lease(id).map_or(token, |l| l.token);
        let now = self.clock.now().as_millisecond();
        if let Err(e) = self.store.inbox().finish_event(id, &self.owner, token, now).await {
            tracing::error!(error = %e, "could not mark an event handled");
        }
        for message in &writes.incoming {
            if let Err(e) = self.store.chat_log().log_message(message).await {
                tracing::warn!(error = %e, "could not log a turn's message");
            }
        }
        for (answer, ids) in &writes.answers {
            if let Err(e) = self.store.chat_log().record_answer(answer, ids).await {
                tracing::warn!(error = %e, "could not record a turn's answer");
            }
        }
        for c in writes.charges {
            if let Err(e) = self.store.usage().add_charge(c).await {
                tracing::warn!(error = %e, "could not count a turn's tokens");
            }
        }
    }

    /// The token of this process's claim on a held event, if the claim still stands: from
    /// memory while its lease is sure to hold, else confirmed (and extended) in the store.
    async fn confirm_held(&self, id: &str) -> Option<i64> {
        let lease = self.queue.lease(id)?;
        let now = self.clock.now();
        if lease::held_without_asking(lease.until_ms, now.as_millisecond(), self.lease) {
            return Some(lease.token);
        }
        let until = self.inbox_lease_until(now);
        match self.store.inbox().confirm_claim(id, &self.owner, until).await {
            // The token may be newer than the one in memory: this process claimed the event
            // again after its lease lapsed, and the loop that took it has not said so yet.
            Ok(Some(token)) => {
                self.queue.set_lease(id, Lease { token, until_ms: until });
                Some(token)
            }
            Ok(None) => None,
            Err(e) => {
                tracing::error!(error = %e, event_id = id, "could not confirm a claim; left for later");
                None
            }
        }
    }

    /// Renews the leases of every held event (the heartbeat); an event whose claim another
    /// process took meanwhile is marked lost, so it is not started here.
    pub async fn renew_leases(&self) -> Result<(), StoreError> {
        let held = self.queue.held();
        if held.is_empty() {
            return Ok(());
        }
        let until = self.inbox_lease_until(self.clock.now());
        let ids: Vec<(&str, i64)> = held.iter().map(|(id, token)| (id.as_str(), *token)).collect();
        let renewed: std::collections::HashSet<String> =
            self.store.inbox().renew_events(&self.owner, &ids, until).await?.into_iter().collect();
        for (id, _) in &held {
            if renewed.contains(id) {
                self.queue.set_until(id, until);
            } else if self.queue.in_hand(id) {
                tracing::warn!(event_id = id, "lease lost to another process");
                self.queue.set_until(id, 0);
            }
        }
        Ok(())
    }

    /// Takes events waiting in the store — left there while the queue was full, or by a
    /// process that died — as far as there is room; returns how many were taken.
    pub async fn take_waiting_events(self: &Arc<Self>) -> Result<usize, StoreError> {
        let Some(mut slots) = self.queue.slots_worth_a_look(TAKE_BATCH) else {
            return Ok(0);
        };
        let room = slots.num_permits();
        let mark = self.queue.backlog_mark();
        let now = self.clock.now();
        let until = self.inbox_lease_until(now);
        let claimed = self
            .store
            .inbox()
            .claim_events(&self.owner, now.as_millisecond(), until, room as i64)
            .await;
        let claimed = claimed?;
        let count = claimed.len();
        let all_taken = count < room;
        for pending in claimed {
            let Some(slot) = slots.split(1) else { break };
            let until_ms = lease::taken_lease_end(pending.attempts, until);
            let lease = Lease { token: pending.attempts, until_ms };
            match parse(&pending) {
                Ok(event) => {
                    if pending.attempts > 1 {
                        tracing::info!(
                            event_id = pending.event_id,
                            attempt = pending.attempts,
                            "handling an event another process left unfinished"
                        );
                    }
                    let received_at =
                        Timestamp::from_millisecond(pending.received_at).unwrap_or(now);
                    self.enqueue(event, received_at, lease, slot);
                }
                Err(e) => {
                    tracing::error!(
                        event_id = pending.event_id,
                        error = e,
                        "stored event unreadable; dropped"
                    );
                    let at = now.as_millisecond();
                    self.store
                        .inbox()
                        .finish_event(&pending.event_id, &self.owner, lease.token, at)
                        .await?;
                }
            }
        }
        if all_taken {
            self.queue.taken_up_to(mark);
        }
        Ok(count)
    }
}

fn parse(pending: &PendingEvent) -> Result<Event, String> {
    Event::parse_json(&pending.payload).map_err(|e| e.to_string())
}
/// How many events are set aside (`hearth doctor`, the metrics).
pub async fn set_aside_count(store: &Store) -> Result<i64, StoreError> {
    store.inbox().set_aside_count().await
}

/// Forgets the handled events finished before `before_ms` (kept that long to answer a
/// redelivered event once); how many went.
pub async fn forget_handled(store: &Store, before_ms: i64) -> Result<u64, StoreError> {
    store.inbox().prune(before_ms).await
}
