//! The sender of the per-chat outbox. Every loop hands its rendered items (each with its own
//! retry key) to the outbox; this pushes everything due for one chat within a short window in
//! one request — at most five message objects, cards gathered into a carousel, more requests
//! only beyond that ([`crate::push::quota::batch`]). One decision per item says push, hold until the
//! chat's quiet hours end, or hold for the chat's next reply when the month's quota cannot pay
//! ([`crate::push::quota::decide`]).
//!
//! Before anything is pushed, the door ([`crate::door`]) is asked for each item's chat: what a
//! loop would push for a chat not served (revoked) is settled as withheld — not sent, not
//! charged. The guarantees of the loops are kept: a chat's due items are claimed under a lease (one
//! replica pushes them); which items go in which request, and that request's retry key, are
//! recorded before its first attempt, so every attempt from any replica sends the same items
//! with the same key (LINE answers a repeat with `409`, which counts as accepted; a `409` for a
//! key hearth never sent is a message not delivered: logged, counted, and held for the chat's next
//! reply, like a push the month could not pay for); each request
//! is settled as LINE answers it, so a quota `429` after some requests were accepted holds only
//! the rest; an attempt of unknown outcome is tried again later, and abandoned after the grace.

use std::collections::BTreeMap;

use serde_json::Value;
use uuid::Uuid;

use super::{HANDOVER_LAG, Outcome, Pusher, occurrence_key};
use crate::line::client::{LineError, Sent};
use crate::push::quiet::{self, PushKind, QuietHours};
use crate::push::quota::{self, Decision, HoldReason, batch};
use crate::store::{OutboxItem, StoreError};

/// Chats looked at per round.
const CHATS_PER_ROUND: i64 = 500;

/// What became of an item the sender pushed, held or gave up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settled {
    /// What the item was.
    pub kind: PushKind,
    /// What became of it.
    pub outcome: Outcome,
}

/// How many items of one kind a flush sent, held or gave up.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SettledCount {
    /// Pushed (LINE accepted them).
    pub sent: usize,
    /// Held for the chat's next reply.
    pub held: usize,
    /// Given up for good.
    pub failed: usize,
}

/// The retry keys of a group of items pushed together, one per request LINE needs (`count`),
/// comma-separated: an item alone sends its first request with its own key (random, made when
/// it was recorded); every other request gets a random key of its own. They are stored before the
/// first attempt, so every attempt, from any replica, repeats them; none is derived from an id.
fn group_keys(items: &[&OutboxItem], count: usize) -> String {
    let mut keys: Vec<String> = match items {
        [only] => only.line_key.iter().cloned().collect(),
        _ => Vec::new(),
    };
    while keys.len() < count.max(1) {
        keys.push(Uuid::new_v4().to_string());
    }
    keys.join(",")
}

/// The retry key of request `index` of a group whose stored keys are `keys`. A group stored
/// before keys were random holds one key: its single request is sent with it, and its further
/// requests with the names they had then (so a retry repeats them).
fn request_key(keys: &str, index: usize) -> Uuid {
    match keys.split(',').nth(index).map(Uuid::parse_str) {
        Some(Ok(key)) => key,
        _ if index == 0 => occurrence_key(keys),
        _ => occurrence_key(&format!("{keys}:{index}")),
    }
}

/// Whether LINE's acceptance of a request is a message told. A `409` answers a key LINE has
/// seen before: the family was told only if hearth itself sent that request before (it was
/// attempted in an earlier round — `fixed_before` — or earlier in this push after an answer of
/// unknown outcome). Otherwise the key was someone else's, and the message was not delivered.
fn told(sent: &Sent, fixed_before: bool) -> bool {
    !sent.repeated || fixed_before || sent.after_unknown
}

/// Quiet hours as a reason for the one send-or-hold decision ([`quota::decide`]): the reason
/// to hold `item` at `now` until they end; none for an item already attempted (its request must
/// be repeated as it was), nor for a reminder.
fn quiet_reason(
    item: &OutboxItem,
    now: jiff::Timestamp,
    quiet: Option<&(QuietHours, jiff::tz::TimeZone)>,
) -> Option<HoldReason> {
    if item.request_key.is_some() {
        return None;
    }
    let (hours, tz) = quiet?;
    match quiet::decide(PushKind::named(&item.kind), now, tz, Some(hours)) {
        quiet::Decision::Now => None,
        quiet::Decision::HoldUntil(end) => Some(HoldReason::QuietUntil(end.as_millisecond())),
    }
}

/// True for a push that gives way to care plans when the month runs out: a digest, or a price
/// alert firing again (an every-time alert's later fires, the ones sent without a sound).
fn yields_to_care(item: &OutboxItem) -> bool {
    PushKind::named(&item.kind).yields_to_care(item.silent)
}

/// The groups of `items` to push, in order: those already put in a request keep it; the others
/// are packed into as few requests as LINE allows. Each group with its key.
fn groups<'a>(
    items: &[&'a OutboxItem],
    payloads: &BTreeMap<i64, Value>,
) -> Vec<(String, Vec<&'a OutboxItem>, bool)> {
    let mut out: Vec<(String, Vec<&OutboxItem>, bool)> = Vec::new();
    let mut fresh: Vec<&OutboxItem> = Vec::new();
    for &item in items {
        match &item.request_key {
            Some(key) => match out.iter_mut().find(|(k, _, _)| k == key) {
                Some((_, group, _)) => group.push(item),
                None => out.push((key.clone(), vec![item], false)),
            },
            None => fresh.push(item),
        }
    }
    let values: Vec<Value> = fresh.iter().map(|i| payloads[&i.id].clone()).collect();
    for packed in batch::pack(&values) {
        let group: Vec<&OutboxItem> = packed.iter().map(|&i| fresh[i]).collect();
        let messages: Vec<Value> = packed.iter().map(|&i| values[i].clone()).collect();
        out.push((group_keys(&group, batch::requests(&messages).len()), group, true));
    }
    out
}

impl Pusher {
    /// Pushes what is due in every chat whose oldest due item has waited the window; says what
    /// became of each item settled.
    pub async fn flush_due(&self) -> Result<Vec<Settled>, StoreError> {
        self.flush_overdue(std::time::Duration::ZERO).await
    }

    /// [`Self::flush_due`] for what was recorded at least [`HANDOVER_LAG`] ago: items held for
    /// quiet hours, or left by a loop that died. The loops' own rounds and the outbox's round
    /// use it, so what one loop has just handed over is pushed by that loop's own
    /// [`Pusher::push`], which reports it, never by another loop running at the same instant.
    pub async fn flush_waiting(&self) -> Result<Vec<Settled>, StoreError> {
        self.flush_overdue(HANDOVER_LAG).await
    }

    /// [`Self::flush_waiting`], counting what became of the items of `kind` (each loop reports
    /// its own).
    pub async fn flush_waiting_counting(&self, kind: PushKind) -> Result<SettledCount, StoreError> {
        let mut count = SettledCount::default();
        for settled in self.flush_waiting().await? {
            if settled.kind == kind {
                match settled.outcome {
                    Outcome::Sent => count.sent += 1,
                    Outcome::Held => count.held += 1,
                    Outcome::Refused => count.failed += 1,
                    Outcome::RetryLater | Outcome::Queued | Outcome::Withheld => {}
                }
            }
        }
        Ok(count)
    }

    /// [`Self::flush_due`] for the items recorded at least `lag` ago.
    async fn flush_overdue(&self, lag: std::time::Duration) -> Result<Vec<Settled>, StoreError> {
        let now = self.now();
        let oldest_by = now.saturating_sub(self.outbox.window).unwrap_or(now).as_millisecond();
        let recorded_by = now.saturating_sub(lag).unwrap_or(now).as_millisecond();
        let targets = self
            .store()
            .outbox()
            .due_targets(now.as_millisecond(), oldest_by, recorded_by, CHATS_PER_ROUND)
            .await?;
        let mut settled = Vec::new();
        for target in targets {
            let _lane = self.lanes.of(&target).lock().await;
            settled.extend(self.flush_chat(&target, recorded_by).await?);
        }
        Ok(settled)
    }

    /// Pushes everything due for `to` and recorded by `recorded_by_ms`, when its oldest due
    /// item has waited the window.
    pub(super) async fn flush_chat(
        &self,
        to: &str,
        recorded_by_ms: i64,
    ) -> Result<Vec<Settled>, StoreError> {
        let now = self.now();
        let now_ms = now.as_millisecond();
        let Some(oldest) = self.store().outbox().oldest_due(to, now_ms).await? else {
            return Ok(Vec::new());
        };
        let window_ms = i64::try_from(self.outbox.window.as_millis()).unwrap_or(i64::MAX);
        if oldest.saturating_add(window_ms) > now_ms {
            return Ok(Vec::new());
        }
        let lease_until = now.saturating_add(self.outbox.lease).unwrap_or(now).as_millisecond();
        let claimed = self
            .store()
            .outbox()
            .claim(&self.owner, to, now_ms, lease_until, recorded_by_ms)
            .await?;
        if claimed.is_empty() {
            return Ok(Vec::new());
        }
        let mut settled = Vec::new();
        let grace_start = now.saturating_sub(self.outbox.grace).unwrap_or(now).as_millisecond();
        let quiet = self.quiet_hours(to).await?;
        let mut payloads = BTreeMap::new();
        let mut live = Vec::new();
        let mut doors: BTreeMap<&str, crate::door::Verdict> = BTreeMap::new();
        for item in &claimed {
            let home = item.conversation_id.as_str();
            let verdict = match doors.get(home) {
                Some(verdict) => *verdict,
                None => *doors.entry(home).or_insert(self.door.push(home, to).await?),
            };
            if let Err(closed) = verdict {
                tracing::info!(
                    to,
                    home,
                    key = item.retry_key,
                    reason = closed.reason(),
                    "outbox: withheld, the chat is not served"
                );
                crate::platform::metrics::pushes_withheld(closed.reason());
                self.settle(&[item], "withheld", Outcome::Withheld, &mut settled).await?;
                continue;
            }
            if item.attempts > 0 && item.first_attempt_at.is_some_and(|t| t < grace_start) {
                // An attempt this old has an unknown outcome: never sent again (LINE may have
                // delivered it), nor lost — told with the chat's next reply, as a push the
                // month could not pay for is, and a repeating reminder goes on.
                tracing::warn!(
                    to,
                    key = item.retry_key,
                    "outbox: stale attempt not sent again; told with the next reply"
                );
                let payloads: BTreeMap<i64, Value> = serde_json::from_str(&item.payload)
                    .map(|payload| BTreeMap::from([(item.id, payload)]))
                    .unwrap_or_default();
                self.hold(&[item], &payloads, &mut settled).await?;
                continue;
            }
            let Ok(payload) = serde_json::from_str::<Value>(&item.payload) else {
                tracing::error!(to, key = item.retry_key, "outbox: stored payload unreadable");
                self.settle(&[item], "failed", Outcome::Refused, &mut settled).await?;
                continue;
            };
            if let Decision::Hold(HoldReason::QuietUntil(until)) =
                quota::decide([quiet_reason(item, now, quiet.as_ref())])
            {
                tracing::info!(to, key = item.retry_key, until, "outbox: held for quiet hours");
                self.store().outbox().defer(&self.owner, item.id, until).await?;
                continue;
            }
            payloads.insert(item.id, payload);
            live.push(item);
        }
        if live.is_empty() {
            return Ok(settled);
        }
        let cost = self.quota.cost_of(to).await;
        let standing = self.quota.standing().await.unwrap_or_default();
        let mut planned = 0i64;
        let mut rest = groups(&live, &payloads).into_iter();
        while let Some((key, group, fresh)) = rest.next() {
            let values: Vec<Value> = group.iter().map(|i| payloads[&i.id].clone()).collect();
            let requests = batch::requests(&values);
            planned = planned.saturating_add(
                cost.saturating_mul(i64::try_from(requests.len()).unwrap_or(i64::MAX)),
            );
            let can_wait = group.iter().all(|i| yields_to_care(i));
            let kept = match can_wait && quota::running_out(&standing) {
                true => quota::care_first_hold(&standing, planned, self.quota.kept_back().await),
                false => None,
            };
            if let Decision::Hold(reason) =
                quota::decide([kept, quota::quota_hold(&standing, planned)])
            {
                tracing::warn!(to, ?reason, items = group.len(), "push held");
                self.hold(&group, &payloads, &mut settled).await?;
                for (_, later, _) in rest.by_ref() {
                    self.hold(&later, &payloads, &mut settled).await?;
                }
                break;
            }
            if fresh {
                for item in &group {
                    self.store().outbox().set_request(&self.owner, item.id, &key).await?;
                }
            }
            let silent = group.iter().all(|i| i.silent);
            let mut answer = Ok(());
            let mut not_ours = None;
            for (index, messages) in requests.iter().enumerate() {
                let request = request_key(&key, index);
                match self.quota.line.push_with_retry(to, messages, request, silent).await {
                    Ok(sent) if !told(&sent, !fresh) => {
                        not_ours = Some(request);
                        break;
                    }
                    Ok(_) => self.quota.record_push(to, cost).await,
                    Err(e) => {
                        answer = Err(e);
                        break;
                    }
                }
            }
            if let Some(request) = not_ours {
                tracing::warn!(
                    to,
                    key = %request,
                    items = group.len(),
                    "LINE answered 409 for a retry key hearth never sent: not delivered; held for the chat's next reply"
                );
                crate::platform::metrics::retry_key_conflicts(group.len() as u64);
                self.hold(&group, &payloads, &mut settled).await?;
                continue;
            }
            match answer {
                Ok(()) => self.settle(&group, "sent", Outcome::Sent, &mut settled).await?,
                Err(LineError::QuotaExhausted) => {
                    // What LINE accepted before stays sent; this request and the rest wait.
                    self.quota.exhausted().await;
                    self.hold(&group, &payloads, &mut settled).await?;
                    for (_, later, _) in rest.by_ref() {
                        self.hold(&later, &payloads, &mut settled).await?;
                    }
                    break;
                }
                Err(e @ LineError::Rejected { .. }) if !e.refuses_the_channel() => {
                    tracing::error!(to, error = %e, "LINE refused the push");
                    self.settle(&group, "failed", Outcome::Refused, &mut settled).await?;
                }
                Err(e) => {
                    if e.refuses_the_channel() {
                        tracing::error!(to, error = %e, "LINE refused hearth's channel (check the access token with `hearth doctor`); the push waits and is tried again with the same key");
                    } else {
                        tracing::warn!(to, error = %e, "push failed; will retry with the same key");
                    }
                    let retry_at =
                        now.saturating_add(self.outbox.retry_after).unwrap_or(now).as_millisecond();
                    let unknown = e.outcome_unknown();
                    let outbox = self.store().outbox();
                    outbox.retry(&self.owner, &group, now_ms, retry_at, unknown).await?;
                    settled.extend(group.iter().map(|i| Settled {
                        kind: PushKind::named(&i.kind),
                        outcome: Outcome::RetryLater,
                    }));
                    for (_, later, _) in rest.by_ref() {
                        for item in later {
                            self.store().outbox().defer(&self.owner, item.id, item.due_at).await?;
                        }
                    }
                    break;
                }
            }
        }
        Ok(settled)
    }

    /// Settles `items` as `status` and says so in `settled`.
    async fn settle(
        &self,
        items: &[&OutboxItem],
        status: &str,
        outcome: Outcome,
        settled: &mut Vec<Settled>,
    ) -> Result<(), StoreError> {
        let now = self.now().as_millisecond();
        self.store().outbox().settle(&self.owner, items, status, now).await?;
        settled.extend(items.iter().map(|i| Settled { kind: PushKind::named(&i.kind), outcome }));
        Ok(())
    }

    /// Keeps `items` for their chats' next replies.
    async fn hold(
        &self,
        items: &[&OutboxItem],
        payloads: &BTreeMap<i64, Value>,
        settled: &mut Vec<Settled>,
    ) -> Result<(), StoreError> {
        let now = self.now().as_millisecond();
        crate::platform::metrics::pushes_held(items.len() as u64);
        for item in items {
            let summary = payloads.get(&item.id).map_or_else(|| "🔔".into(), batch::summary);
            self.store().quota().hold_push(&item.conversation_id, &summary, now).await?;
        }
        self.settle(items, "held", Outcome::Held, settled).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: i64, key: &str, request_key: Option<&str>) -> OutboxItem {
        OutboxItem {
            id,
            conversation_id: "Cgroup".into(),
            target: "Cgroup".into(),
            kind: "alert".into(),
            retry_key: key.into(),
            line_key: Some(Uuid::new_v4().to_string()),
            payload: "[]".into(),
            silent: false,
            due_at: 0,
            status: "pending".into(),
            request_key: request_key.map(str::to_string),
            attempts: 0,
            first_attempt_at: None,
        }
    }

    fn card(n: i64) -> Value {
        serde_json::json!([{"type": "flex", "altText": n.to_string(), "contents": {"type": "bubble", "body": {}}}])
    }

    #[test]
    fn an_item_alone_keeps_the_random_key_it_was_recorded_with_and_a_group_gets_new_random_ones() {
        let a = item(1, "reminder:1:5", None);
        let own = a.line_key.clone().expect("recorded with a key");
        assert_eq!(group_keys(&[&a], 1), own);
        assert_eq!(request_key(&own, 0).to_string(), own);
        let b = item(2, "reminder:2:5", None);
        let group = group_keys(&[&a, &b], 1);
        assert_ne!(group, own);
        assert_ne!(group, group_keys(&[&a, &b], 1), "random, never computed from the items");
        let two = group_keys(&[&a], 2);
        assert_eq!(request_key(&two, 0).to_string(), own);
        assert_ne!(request_key(&two, 0), request_key(&two, 1));
        for key in [request_key(&group, 0), request_key(&two, 1)] {
            assert_eq!(key.get_version_num(), 4, "{key}");
        }
    }

    #[test]
    fn a_group_stored_before_keys_were_random_repeats_the_keys_it_was_sent_with() {
        let old = occurrence_key("batch:a,b").to_string();
        assert_eq!(request_key(&old, 0).to_string(), old);
        assert_eq!(request_key(&old, 1), occurrence_key(&format!("{old}:1")));
    }

    #[test]
    fn a_409_is_told_only_for_a_key_hearth_sent_before() {
        let accepted = Sent::default();
        let repeat = Sent { repeated: true, ..Sent::default() };
        let after_timeout = Sent { repeated: true, after_unknown: true, ..Sent::default() };
        assert!(told(&accepted, false));
        assert!(told(&repeat, true), "attempted in an earlier round");
        assert!(told(&after_timeout, false), "its own earlier attempt timed out");
        assert!(!told(&repeat, false), "a key hearth never sent: not delivered");
    }

    #[test]
    fn a_request_attempted_before_is_repeated_as_it_was_and_new_items_go_in_their_own() {
        let (a, b, c) = (item(1, "a", Some("K")), item(2, "b", Some("K")), item(3, "c", None));
        let payloads: BTreeMap<i64, Value> = [(1, card(1)), (2, card(2)), (3, card(3))].into();
        let out = groups(&[&a, &b, &c], &payloads);
        let shape: Vec<(&str, Vec<i64>, bool)> = out
            .iter()
            .map(|(k, g, f)| (k.as_str(), g.iter().map(|i| i.id).collect(), *f))
            .collect();
        let own = c.line_key.as_deref().expect("recorded with a key");
        assert_eq!(shape, vec![("K", vec![1, 2], false), (own, vec![3], true)]);
        let (d, e) = (item(4, "d", None), item(5, "e", None));
        let fresh = groups(&[&d, &e], &[(4, card(4)), (5, card(5))].into());
        assert_eq!(fresh.len(), 1, "items due together go in one request");
        assert!(Uuid::parse_str(&fresh[0].0).is_ok_and(|k| k.get_version_num() == 4));
    }

    #[test]
    fn quiet_hours_hold_an_alert_but_never_a_request_already_attempted_nor_a_reminder() {
        let tz = jiff::tz::TimeZone::get("Asia/Taipei").expect("zone");
        let night = QuietHours::new(jiff::civil::time(22, 0, 0, 0), jiff::civil::time(7, 0, 0, 0))
            .expect("window");
        let quiet = Some((night, tz));
        let at_2330: jiff::Timestamp = "2026-11-30T15:30:00Z".parse().expect("t");
        let morning: jiff::Timestamp = "2026-11-30T23:00:00Z".parse().expect("t");
        assert_eq!(
            quiet_reason(&item(1, "a", None), at_2330, quiet.as_ref()),
            Some(HoldReason::QuietUntil(morning.as_millisecond()))
        );
        assert_eq!(quiet_reason(&item(1, "a", Some("K")), at_2330, quiet.as_ref()), None);
        let reminder = OutboxItem { kind: "reminder".into(), ..item(2, "r", None) };
        assert_eq!(quiet_reason(&reminder, at_2330, quiet.as_ref()), None);
        assert_eq!(quiet_reason(&item(1, "a", None), at_2330, None), None);
    }

    #[test]
    fn digests_and_every_time_alerts_firing_again_give_way_to_care_and_nothing_else_does() {
        let with = |kind: &str, silent: bool| OutboxItem {
            kind: kind.into(),
            silent,
            ..item(1, "k", None)
        };
        assert!(yields_to_care(&with("digest", false)));
        assert!(yields_to_care(&with("alert", true)), "an every-time alert firing again");
        assert!(!yields_to_care(&with("alert", false)), "a first fire, or a typhoon warning");
        for kind in ["care", "reminder", "urgent"] {
            assert!(!yields_to_care(&with(kind, false)), "{kind}");
        }
    }
}
