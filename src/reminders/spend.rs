//! What a repeating reminder will cost of LINE's monthly quota, told before it is created: a
//! month of its pushes into its chat, what is left this month, and whether everything scheduled
//! for the rest of the month (with it) would spend more than is left.

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

use super::projection::{self, occurrences_between};
use super::recurrence::Schedule;
use crate::delivery::Allowance;
use crate::quota;
use crate::store::StoreError;

/// A month, for "about N a month".
const MONTH: SignedDuration = SignedDuration::from_hours(30 * 24);

/// What a reminder will spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Spend {
    /// Messages of the quota a month (its pushes in 30 days times the chat's cost per push).
    pub per_month: i64,
    /// What is left of this month's quota (`None`: no known limit).
    pub left_this_month: Option<i64>,
    /// What everything scheduled, this one included, will spend for the rest of the month.
    pub rest_of_month: i64,
    /// True when that is more than is left.
    pub over_quota: bool,
}

/// What `schedule`, pushed to `target`, will spend, from `now`.
pub async fn estimate(
    allowance: &Allowance,
    schedule: &Schedule,
    target: &str,
    now: Timestamp,
) -> Result<Spend, StoreError> {
    let cost = allowance.cost_of(target).await;
    let month_later = now.saturating_add(MONTH).unwrap_or(now);
    let per_month = occurrences_between(schedule, now, month_later).len() as i64 * cost;
    let end = allowance.month().end(allowance.tz());
    let scheduled = projection::scheduled(allowance, now, end, &[]).await?;
    let before: i64 = scheduled.iter().map(|c| c.cost).sum();
    let extra: Vec<(String, Timestamp)> = occurrences_between(schedule, now, end)
        .into_iter()
        .map(|t| (target.to_string(), t))
        .collect();
    let with_it: i64 =
        projection::scheduled(allowance, now, end, &extra).await?.iter().map(|c| c.cost).sum();
    let standing = allowance.standing().await?;
    Ok(Spend {
        per_month,
        left_this_month: standing.left(),
        rest_of_month: with_it,
        over_quota: quota::standing::over_budget(&standing, before, with_it - before),
    })
}
