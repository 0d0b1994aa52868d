//! The sender of the per-chat outbox. Every loop hands its rendered items (each with its own
//! retry key) to the outbox; this pushes everything due for one chat within a short window in
//! one request — at most five message objects, cards gathered into a carousel, more requests
//! only beyond that ([`crate::features::quota::batch`]). One decision per item says push, hold until the
//! chat's quiet hours end, or hold for the chat's next reply when the month's quota cannot pay
//! ([`crate::features::quota::decide`]).
//!
//! Before anything is pushed, the door ([`crate::features::door`]) is asked for each item's chat: what a
//! loop would push for a chat not served (revoked) is settled as withheld — not sent, not
//! charged. The guarantees of the loops are kept: a chat's due items are claimed under a lease (one
//! replica pushes them); which items go in which request, and that request's retry key, are
//! recorded before its first attempt, so every attempt from any replica sends the same items
//! with the same key (LINE answers a repeat with `409`, which counts as accepted); each request
//! is settled as LINE answers it, so a quota `429` after some requests were accepted holds only
//! the rest; an attempt of unknown outcome is tried again later, and abandoned after the grace.

use std::collections::BTreeMap;

use serde_json::Value;
use uuid::Uuid;

use super::{HANDOVER_LAG, Outcome, Pusher, kind_of, retry_key};
use crate::features::quiet::{self, PushKind, QuietHours};
use crate::features::quota::{self, Decision, HoldReason, batch};
use crate::line::client::LineError;
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

/// The request key of a group of items pushed together: an item alone keeps its own key; a
/// group gets a key of its own, from its items' keys (the same on every attempt).
fn group_key(keys: &[&str]) -> String {
    match keys {
        [only] => (*only).to_string(),
        _ => retry_key(&format!("batch:{}", keys.join(","))).to_string(),
    }
}

/// The retry key of request `index` of `count` carrying a group keyed `key`.
fn request_key(key: &str, index: usize, count: usize) -> Uuid {
    if count == 1 {
        Uuid::parse_str(key).unwrap_or_else(|_| retry_key(key))
    } else {
        retry_key(&format!("{key}:{index}"))
    }
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
    match quiet::decide(kind_of(&item.kind), now, tz, Some(hours)) {
        quiet::Decision::Now => None,
        quiet::Decision::HoldUntil(end) => Some(HoldReason::QuietUntil(end.as_millisecond())),
    }
}

/// True for a push that gives way to care plans when the month runs out: a digest, or a price
/// alert firing again (an every-time alert's later fires, the ones sent without a sound).
fn yields_to_care(item: &OutboxItem) -> bool {
    match kind_of(&item.kind) {
        PushKind::Digest => true,
        PushKind::Alert => item.silent,
        PushKind::Reminder | PushKind::Urgent | PushKind::Care => false,
    }
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
        let keys: Vec<&str> = group.iter().map(|i| i.retry_key.as_str()).collect();
        out.push((group_key(&keys), group, true));
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

    /// [`Self::flush_due`] for the items recorded at least `lag` ago.
    async fn flush_overdue(&self, lag: std::time::Duration) -> Result<Vec<Settled>, StoreError> {
        let now = self.now();
        let oldest_by = now.saturating_sub(self.outbox.window).unwrap_or(now).as_millisecond();
        let recorded_by = now.saturating_sub(lag).unwrap_or(now).as_millisecond();
        let targets = self
            .store()
            .outbox_due_targets(now.as_millisecond(), oldest_by, recorded_by, CHATS_PER_ROUND)
            .await?;
        let mut settled = Vec::new();
        for target in targets {
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
        let Some(oldest) = self.store().outbox_oldest_due(to, now_ms).await? else {
            return Ok(Vec::new());
        };
        let window_ms = i64::try_from(self.outbox.window.as_millis()).unwrap_or(i64::MAX);
        if oldest.saturating_add(window_ms) > now_ms {
            return Ok(Vec::new());
        }
        let lease_until = now.saturating_add(self.outbox.lease).unwrap_or(now).as_millisecond();
        let claimed =
            self.store().claim_outbox(&self.owner, to, now_ms, lease_until, recorded_by_ms).await?;
        if claimed.is_empty() {
            return Ok(Vec::new());
        }
        let mut settled = Vec::new();
        let grace_start = now.saturating_sub(self.outbox.grace).unwrap_or(now).as_millisecond();
        let quiet = self.quiet_hours(to).await?;
        let mut payloads = BTreeMap::new();
        let mut live = Vec::new();
        let mut doors: BTreeMap<&str, crate::features::door::Verdict> = BTreeMap::new();
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
                // An attempt this old has an unknown outcome: abandon it, never resend.
                tracing::warn!(to, key = item.retry_key, "outbox: stale attempt abandoned");
                self.settle(&[item], "abandoned", Outcome::Refused, &mut settled).await?;
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
                self.store().defer_outbox(&self.owner, item.id, until).await?;
                continue;
            }
            payloads.insert(item.id, payload);
            live.push(item);
        }
        if live.is_empty() {
            return Ok(settled);
        }
        let cost = self.allowance.cost_of(to).await;
        let standing = self.allowance.standing().await.unwrap_or_default();
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
                true => {
                    quota::care_first_hold(&standing, planned, self.allowance.kept_back().await)
                }
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
                    self.store().set_outbox_request(&self.owner, item.id, &key).await?;
                }
            }
            let silent = group.iter().all(|i| i.silent);
            let mut answer = Ok(());
            for (index, messages) in requests.iter().enumerate() {
                let request = request_key(&key, index, requests.len());
                match self.allowance.line.push_with_retry(to, messages, request, silent).await {
                    Ok(_) => self.allowance.record_push(to, cost).await,
                    Err(e) => {
                        answer = Err(e);
                        break;
                    }
                }
            }
            match answer {
                Ok(()) => self.settle(&group, "sent", Outcome::Sent, &mut settled).await?,
                Err(LineError::QuotaExhausted) => {
                    // What LINE accepted before stays sent; this request and the rest wait.
                    self.allowance.exhausted().await;
                    self.hold(&group, &payloads, &mut settled).await?;
                    for (_, later, _) in rest.by_ref() {
                        self.hold(&later, &payloads, &mut settled).await?;
                    }
                    break;
                }
                Err(LineError::Rejected { status, message }) => {
                    tracing::error!(to, %status, message, "LINE refused the push");
                    self.settle(&group, "failed", Outcome::Refused, &mut settled).await?;
                }
                Err(e) => {
                    tracing::warn!(to, error = %e, "push failed; will retry with the same key");
                    let retry_at =
                        now.saturating_add(self.outbox.retry_after).unwrap_or(now).as_millisecond();
                    self.store().retry_outbox(&self.owner, &group, now_ms, retry_at).await?;
                    settled.extend(
                        group.iter().map(|i| Settled {
                            kind: kind_of(&i.kind),
                            outcome: Outcome::RetryLater,
                        }),
                    );
                    for (_, later, _) in rest.by_ref() {
                        for item in later {
                            self.store().defer_outbox(&self.owner, item.id, item.due_at).await?;
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
        self.store().settle_outbox(&self.owner, items, status, now).await?;
        settled.extend(items.iter().map(|i| Settled { kind: kind_of(&i.kind), outcome }));
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
            self.store().hold_push(&item.conversation_id, &summary, now).await?;
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
    fn an_item_alone_keeps_its_key_and_a_group_gets_the_same_key_on_every_attempt() {
        let own = retry_key("reminder:1:5").to_string();
        assert_eq!(group_key(&[own.as_str()]), own);
        assert_eq!(request_key(&own, 0, 1).to_string(), own);
        let group = group_key(&[own.as_str(), "b"]);
        assert_ne!(group, own);
        assert_eq!(group, group_key(&[own.as_str(), "b"]));
        assert_ne!(request_key(&group, 0, 2), request_key(&group, 1, 2));
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
        assert_eq!(shape, vec![("K", vec![1, 2], false), ("c", vec![3], true)]);
        let (d, e) = (item(4, "d", None), item(5, "e", None));
        let fresh = groups(&[&d, &e], &[(4, card(4)), (5, card(5))].into());
        assert_eq!(fresh.len(), 1, "items due together go in one request");
        assert_eq!(fresh[0].0, group_key(&["d", "e"]));
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
