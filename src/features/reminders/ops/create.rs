//! Creating a reminder, a typed operation run for the member and chat of its context: the text
//! and the time are checked, the member to @mention found, the push routed (a personal reminder
//! set in a group goes to its person's 1:1 chat when they are a friend), what a repeating one
//! will spend of LINE's monthly quota told — one that would go over is not created until the
//! family accepts — and the scheduler woken for one due soon.

use std::sync::Arc;

use jiff::Timestamp;
use tokio::sync::Notify;

use super::MAX_TEXT;
use super::quota_cost::{self, Plan, QuotaCost};
use crate::contract::{ToolCtx, ToolError};
use crate::features::reminders::recurrence::{Freq, Schedule};
use crate::features::reminders::request::{ReminderRequest, schedule_of};
use crate::platform::text::grapheme_len;
use crate::push::quota::QuotaTracker;
use crate::sources::calendar::WorkCalendar;
use crate::store::{NewReminder, Store};

/// What creating a reminder came to.
#[derive(Debug, Clone)]
pub struct Created {
    /// The reminder's id; `None` when it was not created because it would go over this month's
    /// LINE message quota and the family has not accepted that.
    pub id: Option<i64>,
    /// Its text, trimmed.
    pub text: String,
    /// Its schedule.
    pub schedule: Schedule,
    /// Its first occurrence.
    pub first: Timestamp,
    /// The name @mentioned on delivery, in a group.
    pub mention: Option<String>,
    /// Set in a group but pushed to its person's 1:1 chat with hearth.
    pub delivered_privately: bool,
    /// A repeating reminder: what it will spend of the monthly quota.
    pub spend: Option<QuotaCost>,
}

/// The reminders that can be created, over the store; `nudge` wakes the scheduler for one due
/// soon, `quota` tells what pushes cost and who has hearth as a friend, and workday
/// reminders follow `work_calendar`.
#[derive(Clone)]
pub struct ReminderCreation {
    store: Store,
    nudge: Arc<Notify>,
    quota: QuotaTracker,
    work_calendar: WorkCalendar,
}

fn invalid(msg: impl Into<String>) -> ToolError {
    ToolError::InvalidArgs(msg.into())
}

impl ReminderCreation {
    /// Creation over `store`, waking the scheduler with `nudge`.
    pub fn new(
        store: Store,
        nudge: Arc<Notify>,
        quota: QuotaTracker,
        work_calendar: WorkCalendar,
    ) -> Self {
        Self { store, nudge, quota, work_calendar }
    }

    /// Checks `request` for `ctx`'s chat without creating anything; returns its schedule.
    pub fn check(&self, ctx: &ToolCtx, request: &ReminderRequest) -> Result<Schedule, ToolError> {
        let text = request.text.trim();
        if text.is_empty() {
            return Err(invalid("the reminder needs a text"));
        }
        if grapheme_len(text) > MAX_TEXT {
            return Err(invalid(format!(
                "the reminder text is too long (at most {MAX_TEXT} characters)"
            )));
        }
        if let Some(other) = someone_else_in_a_1to1_chat(ctx, request) {
            return Err(invalid(format!(
                "in this 1:1 chat a reminder can only be for the person speaking; to remind {other}, set it in the family group, where hearth can @mention them"
            )));
        }
        schedule_of(&request.when, ctx.now(), &ctx.tz, &self.work_calendar)
    }

    /// Creates `request` in `ctx`'s chat, as set by its member.
    pub async fn create(
        &self,
        ctx: &ToolCtx,
        request: &ReminderRequest,
    ) -> Result<Created, ToolError> {
        let schedule = self.check(ctx, request)?;
        let text = request.text.trim();
        let now = ctx.now();
        let everyone = request.for_everyone && ctx.conversation.is_multi_person();
        let (mention_id, mention_name) = match everyone {
            true => (None, None),
            false => self.mention(ctx, request.for_member.as_deref()).await?,
        };
        let deliver_to = self.quota.route(&ctx.conversation, mention_id.as_deref(), everyone).await;
        let target = deliver_to.as_deref().unwrap_or(&ctx.conversation.id);
        let spend = match schedule.rule.freq {
            Freq::Once => None,
            _ => {
                let plan = Plan::Reminder(&schedule);
                Some(
                    quota_cost::estimate(&self.quota, plan, &self.work_calendar, target, now)
                        .await?,
                )
            }
        };
        let (_, first) = schedule.occurrences().next().ok_or_else(|| invalid("no occurrence"))?;
        let mut created = Created {
            id: None,
            text: text.to_string(),
            schedule,
            first,
            mention: mention_name,
            delivered_privately: deliver_to.is_some(),
            spend,
        };
        if spend.is_some_and(|s| s.over_quota) && !request.accept_cost {
            return Ok(created);
        }
        let schedule = &created.schedule;
        let tz_name = schedule.tz.iana_name().unwrap_or("UTC").to_string();
        let anchor_local = schedule.anchor.strftime("%Y-%m-%dT%H:%M").to_string();
        let row = self
            .store
            .reminders()
            .create(&NewReminder {
                conversation_id: &ctx.conversation.id,
                created_by: ctx.user_id.as_deref(),
                mention_user_id: mention_id.as_deref(),
                mention_name: created.mention.as_deref(),
                text,
                tz: &tz_name,
                anchor_local: &anchor_local,
                rule: schedule.rule,
                first_fire_at: first.as_millisecond(),
                created_at: now.as_millisecond(),
                deliver_to: deliver_to.as_deref(),
            })
            .await?;
        self.nudge.notify_one();
        created.id = Some(row.id);
        Ok(created)
    }

    /// Who to @mention on delivery: only in groups; the named member or the asker.
    async fn mention(
        &self,
        ctx: &ToolCtx,
        for_member: Option<&str>,
    ) -> Result<(Option<String>, Option<String>), ToolError> {
        if !ctx.conversation.is_multi_person() {
            return Ok((None, None));
        }
        let name = for_member
            .map(str::trim)
            .filter(|n| !n.is_empty() && !matches!(*n, "me" | "我" | "自己"));
        match name {
            None => Ok((ctx.user_id.clone(), ctx.display_name.clone())),
            Some(name) => {
                let found = self
                    .store
                    .reminders()
                    .find_member(&ctx.conversation.id, name.trim_start_matches('@'))
                    .await?;
                let (id, display) = found.ok_or_else(|| {
                    invalid(format!(
                        "I don't know a member called {name:?} in this group yet; they need to have written here once"
                    ))
                })?;
                Ok((Some(id), Some(display)))
            }
        }
    }
}

/// The other person a reminder asked for in a 1:1 chat is for (a model not shown that the
/// argument is for groups may still pass it): nobody there but the person speaking can be
/// reminded. `None` for a group, for no name, or for the speaker themselves.
fn someone_else_in_a_1to1_chat<'a>(ctx: &ToolCtx, request: &'a ReminderRequest) -> Option<&'a str> {
    if ctx.conversation.is_multi_person() {
        return None;
    }
    let name = request.for_member.as_deref().map(str::trim).map(|n| n.trim_start_matches('@'))?;
    let speaker = ctx.display_name.as_deref().map(str::trim);
    let own = name.is_empty()
        || matches!(name, "me" | "myself" | "我" | "自己" | "我自己" | "本人")
        || Some(name) == speaker;
    (!own).then_some(name)
}
