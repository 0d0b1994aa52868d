//! What this process holds of the inbox, in memory and bounded: a fixed number of slots, the
//! claim (fencing token and lease end) of every event it holds, and one lane per conversation
//! so a conversation's events are handled one at a time, in order. Events beyond the slots wait
//! in the store, not here. Which conversations have events on their way to their lanes
//! ([`Arriving`]) is kept too: a message is logged as it is stored only when nothing of its
//! conversation is in hand ([`logged_at_once`]).

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use jiff::Timestamp;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

use crate::line::webhook::Event;

/// A claim on an event: its fencing token and when its lease ends (Unix ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease {
    /// The claim's fencing token (the store's `attempts`).
    pub token: i64,
    /// When the lease ends unless renewed.
    pub until_ms: i64,
}

/// An event waiting in its conversation's lane, or being handled.
pub struct Job {
    /// The event.
    pub event: Event,
    /// When its webhook arrived.
    pub received_at: Timestamp,
    /// Its slot and claim.
    pub held: HeldEvent,
}

/// An event this process holds: dropping it frees its slot and forgets its claim, so the
/// heartbeat stops renewing it (whatever happened to it, it is never held forever).
pub struct HeldEvent {
    id: String,
    queue: Arc<InboxQueue>,
    _slot: OwnedSemaphorePermit,
}

impl HeldEvent {
    /// The event's id.
    pub fn id(&self) -> &str {
        &self.id
    }
}

impl Drop for HeldEvent {
    fn drop(&mut self) {
        lock(&self.queue.held).remove(&self.id);
        lock(&self.queue.finishing).remove(&self.id);
        if self.queue.has_backlog() {
            self.queue.wake.notify_one();
        }
    }
}

/// Where a webhook's events go ([`InboxQueue::room`]).
pub enum Room {
    /// Slots in memory: the events are claimed as they are stored and queued at once.
    Slots(OwnedSemaphorePermit),
    /// The store, to wait there for the loop that takes them.
    Store(LeftInStore),
}

/// A webhook's events on their way to the store to wait there: a backlog from the moment the
/// webhook was sent there. Dropped once the store write is over (whatever its outcome, even
/// when the webhook's request was cancelled), it marks them as waiting there, so the loop looks.
pub struct LeftInStore {
    queue: Arc<InboxQueue>,
}

impl Drop for LeftInStore {
    fn drop(&mut self) {
        // Marked before the count goes down: the backlog never looks empty in between.
        self.queue.mark_backlog();
        self.queue.storing.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A webhook's events on their way to their lanes: stored (or being stored) and not queued yet.
/// While it lives, a later message of one of their conversations is not logged ahead of them
/// ([`InboxQueue::arrive`]).
pub struct Arriving {
    queue: Arc<InboxQueue>,
    conversations: Vec<String>,
}

impl Drop for Arriving {
    fn drop(&mut self) {
        if self.conversations.is_empty() {
            return;
        }
        let mut arriving = lock(&self.queue.arriving);
        for conversation in &self.conversations {
            if let Some(n) = arriving.get_mut(conversation) {
                *n -= 1;
                if *n == 0 {
                    arriving.remove(conversation);
                }
            }
        }
    }
}

/// The in-memory side of the inbox.
pub struct InboxQueue {
    slots: Arc<Semaphore>,
    capacity: usize,
    held: Mutex<HashMap<String, Lease>>,
    /// Held events being marked done: no longer renewed, and not lost when a renewal misses them.
    finishing: Mutex<HashSet<String>>,
    lanes: Mutex<HashMap<String, VecDeque<Job>>>,
    /// Events per conversation on their way to its lane ([`Arriving`]); locked before `lanes`.
    arriving: Mutex<HashMap<String, usize>>,
    /// Webhooks sent to the store whose events are not stored yet.
    storing: AtomicU64,
    /// Webhooks choose between memory and the store one at a time ([`Self::room`]).
    choosing: Mutex<()>,
    /// Counts webhooks that left events waiting in the store, and the process's start (the
    /// store may hold events from before it).
    left_in_store: AtomicU64,
    /// The count up to which the store's waiting events were all taken.
    taken_from_store: AtomicU64,
    closing: AtomicBool,
    /// Wakes the loop that takes waiting events from the store.
    pub wake: Notify,
}

impl InboxQueue {
    /// A queue holding at most `capacity` events (`HEARTH_MAX_QUEUED_EVENTS`).
    pub fn new(capacity: usize) -> Arc<Self> {
        let capacity = capacity.max(1);
        Arc::new(Self {
            slots: Arc::new(Semaphore::new(capacity)),
            capacity,
            held: Mutex::default(),
            finishing: Mutex::default(),
            lanes: Mutex::default(),
            arriving: Mutex::default(),
            storing: AtomicU64::new(0),
            choosing: Mutex::default(),
            // A new process may find events waiting in the store (handed back by the process
            // before it, or left by one that died): a backlog until its first look takes them.
            left_in_store: AtomicU64::new(1),
            taken_from_store: AtomicU64::new(0),
            closing: AtomicBool::new(false),
            wake: Notify::new(),
        })
    }

    /// Where the `n` events a webhook just brought go: into memory when slots are free and
    /// nothing older waits in the store (taking newer events first would reorder a
    /// conversation), else to the store. The choice and the backlog it starts are one step, so
    /// once a webhook is sent to the store every webhook after it is sent there too, until the
    /// loop has taken them all.
    pub fn room(self: &Arc<Self>, n: usize) -> Room {
        let _one_at_a_time = lock(&self.choosing);
        if !self.is_closing() && !self.has_backlog() {
            let slots = u32::try_from(n)
                .ok()
                .and_then(|n| self.slots.clone().try_acquire_many_owned(n).ok());
            if let Some(slots) = slots {
                return Room::Slots(slots);
            }
        }
        self.storing.fetch_add(1, Ordering::SeqCst);
        Room::Store(LeftInStore { queue: self.clone() })
    }

    /// Which of a webhook's events — each its conversation and whether it could be logged as it
    /// is stored — are ([`logged_at_once`]); the others are arriving in their lanes until the
    /// guard is dropped (after they are queued, or left in the store).
    pub fn arrive(self: &Arc<Self>, events: &[(&str, bool)]) -> (Vec<bool>, Arriving) {
        let mut arriving = lock(&self.arriving);
        let at_once = {
            let lanes = lock(&self.lanes);
            let busy = |c: &str| arriving.contains_key(c) || lanes.contains_key(c);
            logged_at_once(events, busy, self.has_backlog() || self.is_closing())
        };
        let mut conversations = Vec::new();
        for ((conversation, _), now) in events.iter().zip(&at_once) {
            if !now {
                *arriving.entry(conversation.to_string()).or_default() += 1;
                conversations.push(conversation.to_string());
            }
        }
        (at_once, Arriving { queue: self.clone(), conversations })
    }

    /// Up to `max` free slots, for events taken from the store.
    pub fn free_slots(&self, max: usize) -> Option<OwnedSemaphorePermit> {
        let n = self.slots.available_permits().min(max);
        if n == 0 || self.is_closing() {
            return None;
        }
        self.slots.clone().try_acquire_many_owned(u32::try_from(n).ok()?).ok()
    }

    /// Up to `max` free slots for a look at the store, when [`worth_a_look`] says enough are
    /// free to make one.
    pub fn slots_worth_a_look(&self, max: usize) -> Option<OwnedSemaphorePermit> {
        let free = self.slots.available_permits();
        if !worth_a_look(free, self.capacity, self.len()) {
            return None;
        }
        self.free_slots(max)
    }

    /// True when a slot is free.
    pub fn free_slots_available(&self) -> bool {
        self.slots.available_permits() > 0 && !self.is_closing()
    }

    /// Events were left waiting in the store (called after they were stored): the loop takes
    /// them.
    fn mark_backlog(&self) {
        self.left_in_store.fetch_add(1, Ordering::SeqCst);
        self.wake.notify_one();
    }

    /// A mark to read before looking at the store, for [`Self::taken_up_to`].
    pub fn backlog_mark(&self) -> u64 {
        self.left_in_store.load(Ordering::SeqCst)
    }

    /// A look at the store that began at `mark` found everything waiting there: events left
    /// after the mark still count as a backlog.
    pub fn taken_up_to(&self, mark: u64) {
        self.taken_from_store.fetch_max(mark, Ordering::SeqCst);
    }

    /// True while events left in the store may still wait there, or are on their way there.
    pub fn has_backlog(&self) -> bool {
        self.storing.load(Ordering::SeqCst) > 0
            || self.left_in_store.load(Ordering::SeqCst)
                > self.taken_from_store.load(Ordering::SeqCst)
    }

    /// Holds event `id` under `lease` in `slot`. None when this process already holds it (its
    /// own earlier claim lapsed and was renewed by claiming again): the claim is updated, and
    /// the job already queued uses it.
    pub fn hold(
        self: &Arc<Self>,
        id: &str,
        lease: Lease,
        slot: OwnedSemaphorePermit,
    ) -> Option<HeldEvent> {
        match lock(&self.held).entry(id.to_string()) {
            Entry::Occupied(mut held) => {
                held.insert(lease);
                None
            }
            Entry::Vacant(free) => {
                free.insert(lease);
                Some(HeldEvent { id: id.to_string(), queue: self.clone(), _slot: slot })
            }
        }
    }

    /// The current claim on a held event.
    pub fn lease(&self, id: &str) -> Option<Lease> {
        lock(&self.held).get(id).copied()
    }

    /// Records the latest claim on a held event (confirmed in the store).
    pub fn set_lease(&self, id: &str, lease: Lease) {
        if let Some(held) = lock(&self.held).get_mut(id) {
            *held = lease;
        }
    }

    /// Records a renewed (or, with 0, a lost) lease end.
    pub fn set_until(&self, id: &str, until_ms: i64) {
        if let Some(lease) = lock(&self.held).get_mut(id) {
            lease.until_ms = until_ms;
        }
    }

    /// Every held event's id and token, for the heartbeat.
    pub fn held(&self) -> Vec<(String, i64)> {
        let finishing = lock(&self.finishing);
        lock(&self.held)
            .iter()
            .filter(|(id, _)| !finishing.contains(*id))
            .map(|(id, lease)| (id.clone(), lease.token))
            .collect()
    }

    /// Event `id` was handled and is being marked done: the heartbeat leaves it alone.
    pub fn finishing(&self, id: &str) {
        lock(&self.finishing).insert(id.to_string());
    }

    /// True while event `id` is held and not being marked done: a renewal that missed it means
    /// another process took it over.
    pub fn in_hand(&self, id: &str) -> bool {
        let held = lock(&self.held).contains_key(id);
        held && !lock(&self.finishing).contains(id)
    }

    /// How many events are held.
    pub fn len(&self) -> usize {
        lock(&self.held).len()
    }

    /// True when no event is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Queues `job` in its conversation's lane; true when the lane was idle and needs a worker.
    pub fn push(&self, conversation: &str, job: Job) -> bool {
        let mut lanes = lock(&self.lanes);
        match lanes.get_mut(conversation) {
            Some(lane) => {
                lane.push_back(job);
                false
            }
            None => {
                lanes.insert(conversation.to_string(), VecDeque::from([job]));
                true
            }
        }
    }

    /// The next job of a lane; None (and the lane removed) when it is empty.
    pub fn pop(&self, conversation: &str) -> Option<Job> {
        let mut lanes = lock(&self.lanes);
        let job = lanes.get_mut(conversation).and_then(VecDeque::pop_front);
        if job.is_none() {
            lanes.remove(conversation);
        }
        job
    }

    /// The next job of a lane if `wanted` says so; the lane stays (even empty) for its worker,
    /// which ends it with [`Self::pop`].
    pub fn pop_if(&self, conversation: &str, wanted: impl Fn(&Job) -> bool) -> Option<Job> {
        let mut lanes = lock(&self.lanes);
        let lane = lanes.get_mut(conversation)?;
        if lane.front().is_some_and(wanted) { lane.pop_front() } else { None }
    }

    /// Stops taking events (shutdown): queued jobs are dropped unstarted and handed back.
    pub fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
    }

    /// True once shutdown began.
    pub fn is_closing(&self) -> bool {
        self.closing.load(Ordering::SeqCst)
    }
}

/// For each of a webhook's events (its conversation, and whether it could be logged as it is
/// stored), whether it is: only when no older event of its conversation may still be handled
/// before it — none `busy` (queued, being handled, or arriving in its lane), none earlier in
/// the webhook that is not logged at once, and no `backlog` in the store — so each
/// conversation's log keeps the order in which this process received its messages. (Replicas
/// each keep their own order; an event of this process left to lapse after a failed write, or
/// taken over from one that died, or handed back by a process stopping after this one's first
/// look at the store, is older than what is logged meanwhile; and two webhooks on different
/// threads may reach the store in the other order than they passed here.)
pub fn logged_at_once(
    events: &[(&str, bool)],
    busy: impl Fn(&str) -> bool,
    backlog: bool,
) -> Vec<bool> {
    let mut held_back: HashSet<&str> = HashSet::new();
    events
        .iter()
        .map(|&(conversation, loggable)| {
            let now =
                loggable && !backlog && !held_back.contains(conversation) && !busy(conversation);
            if !now {
                held_back.insert(conversation);
            }
            now
        })
        .collect()
}

/// Whether `free` slots of `capacity` are worth a look at the store while `in_hand` events are
/// held. A look claims what it takes in one statement whose cost grows with the backlog, not
/// with the batch, so under a backlog it waits until a quarter of the slots are free (the events
/// in hand free theirs and wake the loop) instead of claiming one event per look.
pub fn worth_a_look(free: usize, capacity: usize, in_hand: usize) -> bool {
    free > 0 && (in_hand == 0 || free >= (capacity / 4).max(1))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A queue as it is once the first look at the store found nothing waiting there.
    fn started(capacity: usize) -> Arc<InboxQueue> {
        let q = InboxQueue::new(capacity);
        q.taken_up_to(q.backlog_mark());
        q
    }

    #[test]
    fn a_new_process_takes_what_the_store_may_hold_before_taking_events_into_memory() {
        let q = InboxQueue::new(8);
        assert!(q.has_backlog());
        assert_eq!(q.arrive(&[("Ca", true)]).0, [false], "nothing logged ahead of the store");
        drop(stored(q.room(1)));
        q.taken_up_to(q.backlog_mark());
        assert!(!q.has_backlog());
        drop(slots(q.room(1)));
    }

    fn lease(token: i64) -> Lease {
        Lease { token, until_ms: 1_000 }
    }

    fn slots(room: Room) -> OwnedSemaphorePermit {
        match room {
            Room::Slots(slots) => slots,
            Room::Store(_) => panic!("sent to the store"),
        }
    }

    fn stored(room: Room) -> LeftInStore {
        match room {
            Room::Slots(_) => panic!("taken into memory"),
            Room::Store(left) => left,
        }
    }

    #[test]
    fn chatter_is_logged_at_once_only_behind_nothing_of_its_conversation() {
        let idle = |_: &str| false;
        let events = [("Ca", true), ("Cb", false), ("Cb", true), ("Ca", true), ("Cc", true)];
        assert_eq!(
            logged_at_once(&events, idle, false),
            [true, false, false, true, true],
            "a message behind one of its chat that takes a lane takes the lane too"
        );
        let busy = |c: &str| c == "Cc";
        assert_eq!(logged_at_once(&events, busy, false), [true, false, false, true, false]);
        assert_eq!(logged_at_once(&events, idle, true), [false; 5], "a backlog may hold any chat");
    }

    #[test]
    fn a_conversation_stays_busy_while_its_events_arrive_in_their_lane() {
        let q = started(8);
        let (now, arriving) = q.arrive(&[("Ca", false), ("Cb", true)]);
        assert_eq!(now, [false, true]);
        let (now, second) = q.arrive(&[("Ca", true), ("Ca", false), ("Cb", true)]);
        assert_eq!(now, [false, false, true], "Ca's first event is still on its way");
        drop(arriving);
        assert_eq!(q.arrive(&[("Ca", true)]).0, [false], "the second webhook's Ca still arrives");
        drop(second);
        assert_eq!(q.arrive(&[("Ca", true)]).0, [true]);
        q.close();
        assert_eq!(q.arrive(&[("Ca", true)]).0, [false], "nothing is logged once shutdown began");
    }

    #[test]
    fn slots_bound_what_is_held_and_come_back_when_an_event_is_dropped() {
        let q = started(2);
        let mut slots = slots(q.room(2));
        drop(stored(q.room(1)));
        let one = slots.split(1).expect("split");
        let a = q.hold("a", lease(1), one).expect("new");
        let b = q.hold("b", lease(1), slots).expect("new");
        assert_eq!(q.len(), 2);
        drop(a);
        assert_eq!(q.len(), 1);
        assert!(q.lease("a").is_none(), "a dropped event is no longer renewed");
        assert!(q.free_slots(10).is_some_and(|p| p.num_permits() == 1));
        drop(b);
        assert!(q.is_empty());
    }

    #[test]
    fn a_backlog_in_the_store_sends_new_events_there_too() {
        let q = started(8);
        let before = q.backlog_mark();
        q.mark_backlog();
        assert!(q.has_backlog());
        drop(stored(q.room(1)));
        assert!(q.free_slots(8).is_some(), "the store's backlog is taken first");
        q.taken_up_to(before);
        assert!(q.has_backlog(), "left after the look began: still waiting");
        let mark = q.backlog_mark();
        q.mark_backlog();
        q.taken_up_to(mark);
        assert!(q.has_backlog());
        q.taken_up_to(q.backlog_mark());
        assert!(!q.has_backlog());
        drop(slots(q.room(1)));
    }

    #[test]
    fn a_webhook_sent_to_the_store_is_a_backlog_before_its_events_are_stored() {
        let q = started(2);
        // The loop looks at the store holding every free slot: a webhook now goes there.
        let looking = q.free_slots(2).expect("all free");
        let first = stored(q.room(1));
        drop(looking);
        assert!(q.has_backlog(), "on its way to the store: waited for");
        // Slots are free again, yet a later webhook never overtakes it.
        let second = stored(q.room(1));
        // A look that began before the first webhook's events were stored cannot clear them.
        let mark = q.backlog_mark();
        drop(first);
        q.taken_up_to(mark);
        assert!(q.has_backlog());
        drop(second);
        q.taken_up_to(q.backlog_mark());
        assert!(!q.has_backlog(), "all stored, all taken");
        drop(slots(q.room(1)));
    }

    #[test]
    fn claiming_an_event_already_held_updates_its_claim_instead_of_queueing_it_twice() {
        let q = started(4);
        let held = q.hold("a", lease(1), q.free_slots(1).expect("slot")).expect("new");
        assert!(q.hold("a", lease(2), q.free_slots(1).expect("slot")).is_none());
        assert_eq!(q.lease("a").map(|l| l.token), Some(2));
        assert_eq!(q.slots.available_permits(), 3, "the second slot went back");
        drop(held);
    }

    #[test]
    fn the_store_is_looked_at_for_a_batch_not_for_every_freed_slot() {
        assert!(!worth_a_look(0, 256, 0), "no room");
        assert!(worth_a_look(1, 256, 0), "nothing in hand: take what fits");
        assert!(!worth_a_look(1, 256, 255), "one slot while 255 are busy: wait for more");
        assert!(!worth_a_look(63, 256, 193));
        assert!(worth_a_look(64, 256, 192), "a quarter free");
        assert!(worth_a_look(1, 1, 0) && worth_a_look(1, 2, 1) && worth_a_look(1, 3, 2));
    }

    #[test]
    fn a_look_at_the_store_waits_until_a_batch_of_slots_is_free() {
        let q = started(8);
        let mut slots = slots(q.room(8));
        let mut held = Vec::new();
        for id in ["a", "b", "c", "d", "e", "f", "g", "h"] {
            let slot = slots.split(1).expect("slot");
            held.push(q.hold(id, lease(1), slot).expect("new"));
        }
        drop(held.pop());
        assert!(q.slots_worth_a_look(8).is_none(), "one free of eight, seven in hand");
        drop(held.pop());
        assert!(q.slots_worth_a_look(8).is_some_and(|p| p.num_permits() == 2));
    }

    #[test]
    fn an_event_being_finished_is_no_longer_renewed_nor_counted_as_in_hand() {
        let q = started(2);
        let a = q.hold("a", lease(1), q.free_slots(1).expect("slot")).expect("new");
        let _b = q.hold("b", lease(1), q.free_slots(1).expect("slot")).expect("new");
        q.finishing("a");
        assert_eq!(q.held(), vec![("b".to_string(), 1)]);
        assert!(!q.in_hand("a") && q.in_hand("b"));
        drop(a);
        assert!(lock(&q.finishing).is_empty(), "forgotten with the event");
    }

    #[test]
    fn closing_refuses_new_work() {
        let q = started(4);
        q.close();
        drop(stored(q.room(1)));
        assert!(q.free_slots(4).is_none());
    }
}
