//! What a repeating reminder or an every-time price alert will cost of LINE's monthly quota,
//! told before it is created: a month of its pushes into its chat, what is left this month, and
//! whether everything scheduled for the rest of the month (with it) would spend more than is
//! left; and how the confirmation card says so when it would.

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

use super::projection::{self, expected_fires, occurrences_between, spread};
use crate::contract::{Card, CardRow, Styled, Tone};
use crate::features::reminders::recurrence::Schedule;
use crate::platform::i18n::Lang;
use crate::push::quota;
use crate::push::quota::QuotaTracker;
use crate::sources::calendar::WorkCalendar;
use crate::store::{Frequency, StoreError};

/// A month, for "about N a month".
const MONTH: SignedDuration = SignedDuration::from_hours(30 * 24);

/// What a repeating item about to be created will push.
#[derive(Debug, Clone, Copy)]
pub enum Plan<'a> {
    /// A repeating reminder: its occurrences.
    Reminder(&'a Schedule),
    /// A new every-time price alert: its expected fires (as the projection counts them).
    EveryTimeAlert,
}

impl Plan<'_> {
    /// The pushes of the item, created at `created`, in `[from, to)`.
    fn pushes(&self, created: Timestamp, from: Timestamp, to: Timestamp) -> Vec<Timestamp> {
        match self {
            Plan::Reminder(schedule) => occurrences_between(schedule, from, to),
            Plan::EveryTimeAlert => {
                spread(from, to, expected_fires(Frequency::EveryTime, 0, created, from, to))
            }
        }
    }
}

/// What a reminder or an alert will spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct QuotaCost {
    /// Messages of the quota a month (its pushes in 30 days times the chat's cost per push).
    pub per_month: i64,
    /// What is left of this month's quota (`None`: no known limit).
    pub left_this_month: Option<i64>,
    /// What everything scheduled, this one included, will spend for the rest of the month.
    pub rest_of_month: i64,
    /// True when that is more than is left.
    pub over_quota: bool,
}

/// What `plan`, pushed to `target`, will spend, from `now`; the reminders already scheduled on
/// workdays follow `work_calendar`.
pub async fn estimate(
    quota: &QuotaTracker,
    plan: Plan<'_>,
    work_calendar: &WorkCalendar,
    target: &str,
    now: Timestamp,
) -> Result<QuotaCost, StoreError> {
    let cost = quota.cost_of(target).await;
    let month_later = now.saturating_add(MONTH).unwrap_or(now);
    let per_month = plan.pushes(now, now, month_later).len() as i64 * cost;
    let end = quota.month().end(quota.tz());
    let scheduled = projection::scheduled(quota, work_calendar, now, end, &[]).await?;
    let before: i64 = scheduled.iter().map(|c| c.cost).sum();
    let extra: Vec<(String, Timestamp)> =
        plan.pushes(now, now, end).into_iter().map(|t| (target.to_string(), t)).collect();
    let with_it: i64 = projection::scheduled(quota, work_calendar, now, end, &extra)
        .await?
        .iter()
        .map(|c| c.cost)
        .sum();
    let standing = quota.standing().await?;
    Ok(QuotaCost {
        per_month,
        left_this_month: standing.left(),
        rest_of_month: with_it,
        over_quota: quota::standing::over_quota(&standing, before, with_it - before),
    })
}

/// "每月約 150 則，本月免費額度剩 120 則".
pub fn line(spend: &QuotaCost, lang: Lang) -> String {
    match (spend.left_this_month, lang) {
        (Some(left), Lang::ZhTw) => {
            format!("每月約 {} 則，本月免費額度剩 {left} 則", spend.per_month)
        }
        (None, Lang::ZhTw) => format!("每月約 {} 則訊息", spend.per_month),
        (Some(left), Lang::En) => {
            format!("about {} messages a month; {left} left this month", spend.per_month)
        }
        (None, Lang::En) => format!("about {} messages a month", spend.per_month),
    }
}

/// The card of a repeating reminder or alert (`title`, about `headline`) not created because the
/// month's quota cannot pay for what is scheduled: what it would cost, what is left, and the
/// `cheaper` ways (the tool's chips offer them).
pub fn over_quota_card(
    title: &str,
    headline: &str,
    spend: Option<&QuotaCost>,
    cheaper: &str,
    lang: Lang,
) -> Card {
    let mut card = Card::new(title);
    card.headline = Some(Styled { text: headline.to_string(), tone: Some(Tone::Warning) });
    if let Some(spend) = spend {
        card.rows.push(CardRow::new(lang.pick("額度", "Quota"), line(spend, lang)));
        card.rows.push(CardRow::new(
            lang.pick("本月預計", "Rest of month"),
            match lang {
                Lang::ZhTw => format!("已排定的推播還要用 {} 則", spend.rest_of_month),
                Lang::En => format!("{} messages scheduled", spend.rest_of_month),
            },
        ));
    }
    card.rows.push(CardRow::new(lang.pick("省的做法", "Cheaper"), cheaper));
    card
}
