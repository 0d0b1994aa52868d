//! What is scheduled to spend LINE's monthly quota — the reminders, the daily digests and the
//! expected fires of the price alerts: each chat's pushes between two instants (items due at the
//! same instant for the same chat go in one push through the outbox, so they count once) times
//! what a push into that chat costs.
//!
//! An alert's fires cannot be known ahead: an every-time alert is expected to fire at its own
//! observed rate, and at least [`EXPECTED_FIRES_PER_MONTH`] times a month (conservative: the
//! warning should come before the month runs out, not after); a once alert not yet fired, once.

use std::collections::{BTreeMap, BTreeSet};

use jiff::civil::Time;
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};

use crate::features::reminders::recurrence::Schedule;
use crate::push::quota::QuotaTracker;
use crate::sources::calendar::WorkCalendar;
use crate::store::{AlertRow, Frequency, StoreError};

/// The most reminders (and alerts, and digests) looked at for a projection.
const MAX_REMINDERS: i64 = 10_000;
/// Fires a month expected of an every-time alert with no longer history.
pub const EXPECTED_FIRES_PER_MONTH: i64 = 4;
/// An alert's own rate counts once it has been watched this long.
const HISTORY: SignedDuration = SignedDuration::from_hours(7 * 24);
/// A month, for rates.
const MONTH: SignedDuration = SignedDuration::from_hours(30 * 24);

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

/// How many fires of an alert to expect in `[from, to)`: a once alert not yet fired, one; an
/// every-time alert, at its observed rate once it has a week of history (`fires` since
/// `created_at`), and at least [`EXPECTED_FIRES_PER_MONTH`] a month.
pub fn expected_fires(
    frequency: Frequency,
    fires: i64,
    created_at: Timestamp,
    from: Timestamp,
    to: Timestamp,
) -> i64 {
    let span = to.duration_since(from);
    if span <= SignedDuration::ZERO {
        return 0;
    }
    match frequency {
        Frequency::Once => i64::from(fires == 0),
        Frequency::EveryTime => {
            let age = from.duration_since(created_at);
            let month = MONTH.as_secs_f64();
            let observed =
                if age >= HISTORY { fires as f64 * month / age.as_secs_f64() } else { 0.0 };
            let per_month = observed.max(EXPECTED_FIRES_PER_MONTH as f64);
            (per_month * span.as_secs_f64() / month).ceil() as i64
        }
    }
}

/// `n` instants spread evenly over `[from, to)` (expected fires are apart, one push each).
pub fn spread(from: Timestamp, to: Timestamp, n: i64) -> Vec<Timestamp> {
    let span = to.duration_since(from).as_secs_f64();
    (0..n.max(0))
        .filter_map(|i| {
            let offset = span * i as f64 / n as f64;
            from.checked_add(SignedDuration::from_secs_f64(offset)).ok()
        })
        .collect()
}

/// The instants in `[from, to)` of a daily push at local `time` in `tz`, the first not before
/// `next_at`.
pub fn daily_between(
    time: Time,
    tz: &TimeZone,
    next_at: Timestamp,
    from: Timestamp,
    to: Timestamp,
) -> Vec<Timestamp> {
    let start = next_at.max(from);
    let mut date = start.to_zoned_datetime(tz.clone()).date();
    let mut out = Vec::new();
    while let Ok(at) = date.to_datetime(time).to_zoned_datetime(tz.clone()).map(|z| z.timestamp()) {
        if at >= to {
            break;
        }
        if at >= start {
            out.push(at);
        }
        match date.tomorrow() {
            Ok(next) => date = next,
            Err(_) => break,
        }
    }
    out
}

/// Where an alert's fires are pushed.
fn alert_target(row: &AlertRow) -> &str {
    row.deliver_to.as_deref().unwrap_or(&row.conversation_id)
}

/// The pushes expected of the active alerts and the digests in `[from, to)`.
async fn alerts_and_digests(
    quota: &QuotaTracker,
    from: Timestamp,
    to: Timestamp,
) -> Result<Vec<(String, Timestamp)>, StoreError> {
    let mut out = alert_pushes(quota, from, to).await?;
    out.extend(digest_pushes(quota, from, to).await?);
    Ok(out)
}

/// The pushes expected of the active price alerts in `[from, to)`.
async fn alert_pushes(
    quota: &QuotaTracker,
    from: Timestamp,
    to: Timestamp,
) -> Result<Vec<(String, Timestamp)>, StoreError> {
    let mut out = Vec::new();
    for row in quota.store().price_alerts().scheduled(MAX_REMINDERS).await? {
        let created = Timestamp::from_millisecond(row.created_at).unwrap_or(from);
        let n = expected_fires(row.frequency, row.fire_seq, created, from, to);
        out.extend(spread(from, to, n).into_iter().map(|t| (alert_target(&row).to_string(), t)));
    }
    Ok(out)
}

/// The digests due in `[from, to)`.
async fn digest_pushes(
    quota: &QuotaTracker,
    from: Timestamp,
    to: Timestamp,
) -> Result<Vec<(String, Timestamp)>, StoreError> {
    let mut out = Vec::new();
    for row in quota.store().digests().due(to.as_millisecond(), MAX_REMINDERS).await? {
        let Ok(time) = crate::platform::clock::parse_local_time(&row.local_time) else { continue };
        let Ok(tz) = TimeZone::get(&row.tz) else { continue };
        let next_at = Timestamp::from_millisecond(row.next_at).unwrap_or(from);
        let days = daily_between(time, &tz, next_at, from, to);
        out.extend(days.into_iter().map(|t| (row.conversation_id.clone(), t)));
    }
    Ok(out)
}

/// What one chat's scheduled pushes will spend in `[from, to)`, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ByKind {
    /// Its reminders.
    pub reminders: i64,
    /// Its price alerts' expected fires.
    pub alerts: i64,
    /// Its daily digest.
    pub digest: i64,
}

/// What the pushes to `chat` scheduled in `[from, to)` will spend, by kind (the family page's
/// chart). Workday reminders follow `work_calendar`.
pub async fn by_kind(
    quota: &QuotaTracker,
    work_calendar: &WorkCalendar,
    chat: &str,
    from: Timestamp,
    to: Timestamp,
) -> Result<ByKind, StoreError> {
    let cost = quota.cost_of(chat).await;
    let count = |pushes: &[(String, Timestamp)]| {
        pushes.iter().filter(|(to, _)| to == chat).count() as i64 * cost
    };
    let mut reminders = 0;
    for row in quota.store().reminders().scheduled(to.as_millisecond(), MAX_REMINDERS).await? {
        if row.target() != chat {
            continue;
        }
        let Some(schedule) = row.schedule(work_calendar) else { continue };
        reminders += occurrences_between(&schedule, from, to).len() as i64 * cost;
    }
    Ok(ByKind {
        reminders,
        alerts: count(&alert_pushes(quota, from, to).await?),
        digest: count(&digest_pushes(quota, from, to).await?),
    })
}

/// What every active reminder, digest and price alert (its expected fires) will spend in
/// `[from, to)`, by chat, the costliest first; with `extra` occurrences added (a reminder about
/// to be created). Workday reminders follow `work_calendar`.
pub async fn scheduled(
    quota: &QuotaTracker,
    work_calendar: &WorkCalendar,
    from: Timestamp,
    to: Timestamp,
    extra: &[(String, Timestamp)],
) -> Result<Vec<ChatProjection>, StoreError> {
    let rows = quota.store().reminders().scheduled(to.as_millisecond(), MAX_REMINDERS).await?;
    let mut occurrences: Vec<(String, Timestamp)> = extra.to_vec();
    occurrences.extend(alerts_and_digests(quota, from, to).await?);
    for row in &rows {
        let Some(schedule) = row.schedule(work_calendar) else { continue };
        for at in occurrences_between(&schedule, from, to) {
            occurrences.push((row.target().to_string(), at));
        }
    }
    let mut out = Vec::new();
    for (chat, pushes) in pushes_by_chat(&occurrences) {
        let cost = pushes * quota.cost_of(&chat).await;
        out.push(ChatProjection { chat, pushes, cost });
    }
    out.sort_by(|a, b| b.cost.cmp(&a.cost).then_with(|| a.chat.cmp(&b.chat)));
    Ok(out)
}

/// What everything scheduled will spend from now to the end of the month, all chats together
/// (`/metrics` shows it added to what is used).
pub async fn rest_of_month(
    quota: &QuotaTracker,
    work_calendar: &WorkCalendar,
    now: Timestamp,
) -> Result<i64, StoreError> {
    let end = quota.month().end(quota.tz());
    Ok(scheduled(quota, work_calendar, now, end, &[]).await?.iter().map(|c| c.cost).sum())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::reminders::recurrence::Freq;

    fn daily_at_eight() -> Schedule {
        let tz = jiff::tz::TimeZone::get("Asia/Taipei").expect("zone");
        let mut s = Schedule::once(tz, "2026-12-01T08:00".parse().expect("anchor"));
        s.rule.freq = Freq::Daily;
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
    fn an_every_time_alert_is_expected_to_fire_at_its_rate_and_at_least_four_times_a_month() {
        let t = |s: &str| s.parse::<Timestamp>().expect("t");
        let (from, to) = (t("2026-12-01T00:00:00Z"), t("2026-12-31T00:00:00Z"));
        assert_eq!(expected_fires(Frequency::EveryTime, 0, from, from, to), 4, "new");
        // Ten fires in the 15 days since it was set: twenty a month.
        assert_eq!(
            expected_fires(Frequency::EveryTime, 10, t("2026-11-16T00:00:00Z"), from, to),
            20
        );
        // Half the month left: half as many.
        assert_eq!(expected_fires(Frequency::EveryTime, 0, from, t("2026-12-16T00:00:00Z"), to), 2);
        assert_eq!(expected_fires(Frequency::Once, 0, from, from, to), 1);
        assert_eq!(expected_fires(Frequency::Once, 1, from, from, to), 0, "already fired");
        assert_eq!(expected_fires(Frequency::EveryTime, 3, from, to, from), 0, "no time left");
        let fires = spread(from, to, 3);
        assert_eq!(fires.len(), 3);
        assert!(fires.windows(2).all(|w| w[0] < w[1]) && fires[0] == from && fires[2] < to);
    }

    #[test]
    fn a_daily_digest_counts_once_a_local_day_from_its_next_time() {
        let tz = jiff::tz::TimeZone::get("Asia/Taipei").expect("zone");
        let seven = jiff::civil::time(7, 0, 0, 0);
        let from: Timestamp = "2026-12-01T00:00:00Z".parse().expect("t"); // 08:00 on 1 Dec
        let to: Timestamp = "2026-12-31T16:00:00Z".parse().expect("t");
        // 07:00 on 1 Dec is past: 2–31 December.
        assert_eq!(daily_between(seven, &tz, from, from, to).len(), 30);
        let later: Timestamp = "2026-12-29T23:00:00Z".parse().expect("t"); // 07:00 on 30 Dec
        assert_eq!(daily_between(seven, &tz, later, from, to).len(), 2);
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
