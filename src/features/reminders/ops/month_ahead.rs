//! The month of LINE's message quota as it stands and as the scheduled pushes will leave it:
//! used, left, projected to the month's end, and what each chat spent and will spend. The
//! `quota` tool and the family page's 額度 both read this one report.

use jiff::Timestamp;

use super::projection;
use crate::push::quota::QuotaTracker;
use crate::sources::calendar::WorkCalendar;
use crate::store::StoreError;

/// What one chat spends of the month.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatCost {
    /// The chat's id.
    pub chat: String,
    /// Push requests.
    pub pushes: i64,
    /// Messages of the quota.
    pub messages: i64,
}

/// The month's quota, reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MonthAhead {
    /// The month (YYYY-MM).
    pub month: String,
    /// The month's limit (`None`: no limit known).
    pub limit: Option<i64>,
    /// Messages used so far.
    pub used: i64,
    /// Messages left (`None`: no limit known).
    pub left: Option<i64>,
    /// Used plus what the scheduled pushes will spend for the rest of the month.
    pub projected: i64,
    /// What each chat's pushes cost so far, most first.
    pub spent: Vec<ChatCost>,
    /// What the scheduled pushes will spend for the rest of the month, by chat.
    pub scheduled: Vec<ChatCost>,
}

/// The month of `quota`'s quota at `now`; workday reminders follow `calendar`.
pub async fn month_ahead(
    quota: &QuotaTracker,
    calendar: &WorkCalendar,
    now: Timestamp,
) -> Result<MonthAhead, StoreError> {
    let month = quota.month();
    let standing = quota.standing().await?;
    let spent = quota.store().quota().cost_by_chat(&month.key()).await?;
    let end = month.end(quota.tz());
    let scheduled = projection::scheduled(quota, calendar, now, end, &[]).await?;
    let rest: i64 = scheduled.iter().map(|c| c.cost).sum();
    Ok(MonthAhead {
        month: month.key(),
        limit: standing.limit,
        used: standing.used,
        left: standing.left(),
        projected: standing.used + rest,
        spent: spent
            .into_iter()
            .map(|c| ChatCost { chat: c.conversation_id, pushes: c.pushes, messages: c.cost })
            .collect(),
        scheduled: scheduled
            .into_iter()
            .map(|c| ChatCost { chat: c.chat, pushes: c.pushes, messages: c.cost })
            .collect(),
    })
}
