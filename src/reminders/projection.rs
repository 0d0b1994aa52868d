//! What the scheduled reminders will spend of LINE's monthly quota: each chat's pushes between
//! two instants (occurrences due at the same instant for the same chat go in one push, so they
//! count once) times what a push into that chat costs.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;

use super::recurrence::Schedule;
use crate::calendar::WorkCalendar;
use crate::delivery::Allowance;
use crate::store::StoreError;

/// The most reminders looked at for a projection.
const MAX_REMINDERS: i64 = 10_000;

/// What one chat's scheduled reminders will spend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatProjection {
    /// The chat pushed to.
    pub chat: String,
    /// Push requests.
    pub pushes: i64,
    /// Messages of the quota.
    pub cost: i64,
}

/// The occurrences of `schedule` in `[from, to)`.
pub fn occurrences_between(schedule: &Schedule, from: Timestamp, to: Timestamp) -> Vec<Timestamp> {
    schedule.occurrences().map(|(_, t)| t).take_while(|t| *t < to).filter(|t| *t >= from).collect()
}

/// The pushes each chat gets from `(chat, instant)` occurrences: one per distinct instant.
pub fn pushes_by_chat(occurrences: &[(String, Timestamp)]) -> BTreeMap<String, i64> {
    let mut instants: BTreeMap<String, BTreeSet<Timestamp>> = BTreeMap::new();
    for (chat, at) in occurrences {
        instants.entry(chat.clone()).or_default().insert(*at);
    }
    instants.into_iter().map(|(chat, at)| (chat, at.len() as i64)).collect()
}

/// What every active reminder will spend in `[from, to)`, by chat, the costliest first; with
/// `extra` occurrences added (a reminder about to be created). Workday reminders follow
/// `work_calendar`.
pub async fn scheduled(
    allowance: &Allowance,
    work_calendar: &WorkCalendar,
    from: Timestamp,
    to: Timestamp,
    extra: &[(String, Timestamp)],
) -> Result<Vec<ChatProjection>, StoreError> {
    let rows = allowance.store().scheduled_reminders(to.as_millisecond(), MAX_REMINDERS).await?;
    let mut occurrences: Vec<(String, Timestamp)> = extra.to_vec();
    for row in &rows {
        let Some(schedule) = row.schedule(work_calendar) else { continue };
        for at in occurrences_between(&schedule, from, to) {
            occurrences.push((row.target().to_string(), at));
        }
    }
    let mut out = Vec::new();
    for (chat, pushes) in pushes_by_chat(&occurrences) {
        let cost = pushes * allowance.cost_of(&chat).await;
        out.push(ChatProjection { chat, pushes, cost });
    }
    out.sort_by(|a, b| b.cost.cmp(&a.cost).then_with(|| a.chat.cmp(&b.chat)));
    Ok(out)
}

/// What every active reminder will spend from now to the end of the month, all chats together
/// (`/metrics` shows it added to what is used).
pub async fn rest_of_month(
    allowance: &Allowance,
    work_calendar: &WorkCalendar,
    now: Timestamp,
) -> Result<i64, StoreError> {
    let end = allowance.month().end(allowance.tz());
    Ok(scheduled(allowance, work_calendar, now, end, &[]).await?.iter().map(|c| c.cost).sum())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reminders::recurrence::Freq;

    fn daily_at_eight() -> Schedule {
        let tz = jiff::tz::TimeZone::get("Asia/Taipei").expect("zone");
        let mut s = Schedule::once(tz, "2026-12-01T08:00".parse().expect("anchor"));
        s.freq = Freq::Daily;
        s
    }

    #[test]
    fn a_daily_reminder_fires_once_a_day_within_the_window() {
        let from: Timestamp = "2026-12-01T00:00:00Z".parse().expect("t");
        let to: Timestamp = "2026-12-31T16:00:00Z".parse().expect("t");
        assert_eq!(occurrences_between(&daily_at_eight(), from, to).len(), 31);
        let later: Timestamp = "2026-12-20T00:00:00Z".parse().expect("t");
        assert_eq!(occurrences_between(&daily_at_eight(), later, to).len(), 12);
    }

    #[test]
    fn occurrences_at_one_instant_for_one_chat_are_one_push() {
        let at: Timestamp = "2026-12-02T11:00:00Z".parse().expect("t");
        let later: Timestamp = "2026-12-03T11:00:00Z".parse().expect("t");
        let pushes = pushes_by_chat(&[
            ("C1".into(), at),
            ("C1".into(), at),
            ("C1".into(), later),
            ("U1".into(), at),
        ]);
        assert_eq!(pushes.get("C1"), Some(&2));
        assert_eq!(pushes.get("U1"), Some(&1));
    }
}
