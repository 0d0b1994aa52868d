//! An event's ⏰: a reminder the evening before (20:00 the day before, for a day event too) or
//! two hours before, set as the reminders' own (it is pushed, snoozed and cancelled like any),
//! and kept with the event: moved when the event moves, cancelled when it is cancelled. Only a
//! one-off event has them.

use jiff::ToSpan;
use jiff::civil::{DateTime, Time};
use serde::Serialize;

use super::CalendarOps;
use crate::contract::{ToolCtx, ToolError};
use crate::features::calendar::{Event, Moment};
use crate::features::reminders::ops::Which;
use crate::features::reminders::request::{ReminderRequest, WhenRequest};
use crate::store::{Freq, MovedRule, Recurrence};

/// ⏰ the evening before (20:00 the day before).
pub const DAY_BEFORE: i64 = 24 * 60;
/// ⏰ two hours before.
pub const TWO_HOURS: i64 = 120;

/// What a ⏰ set.
#[derive(Debug, Clone, Serialize)]
pub struct Reminded {
    /// The reminder's number.
    pub reminder: i64,
    /// When it comes, local "YYYY-MM-DDTHH:MM".
    pub at: String,
    /// What it says.
    pub text: String,
}

/// When the reminder `minutes` before `start` comes (local), if it can: the evening before at
/// 20:00 for [`DAY_BEFORE`], else that many minutes before a time (a day event has no time).
pub fn reminder_time(start: Moment, minutes: i64) -> Option<DateTime> {
    match (start, minutes) {
        (_, DAY_BEFORE) => {
            start.date().yesterday().ok().map(|d| d.to_datetime(Time::constant(20, 0, 0, 0)))
        }
        (Moment::At(at), TWO_HOURS) => at.checked_sub(minutes.minutes()).ok(),
        _ => None,
    }
}

/// What the reminder says: 「明天：阿公生日聚餐」 (no time in it, so it is still right after a move).
fn text(event: &Event, minutes: i64, lang: crate::platform::i18n::Lang) -> String {
    let when = match minutes {
        DAY_BEFORE => lang.pick("明天", "Tomorrow"),
        _ => lang.pick("兩小時後", "In two hours"),
    };
    let place = if event.place.is_empty() { String::new() } else { format!(" @ {}", event.place) };
    format!("{when}：{}{place}", event.title)
}

impl CalendarOps {
    /// Sets the ⏰ `minutes` before event `id` of `ctx`'s chat (again: the earlier one goes).
    pub async fn remind_before(
        &self,
        ctx: &ToolCtx,
        id: i64,
        minutes: i64,
    ) -> Result<Reminded, ToolError> {
        let event = self.live_event(ctx, id).await?;
        if event.rule.freq != Freq::Once {
            return Err(ToolError::InvalidArgs(
                "a repeating event has no ⏰: set a reminder".into(),
            ));
        }
        let at = reminder_time(event.start, minutes).ok_or_else(|| {
            ToolError::InvalidArgs("a day event is reminded the evening before".into())
        })?;
        for (old, before) in
            self.store.calendar().linked_reminders(&ctx.conversation.id, id).await?
        {
            if before == minutes {
                self.reminders.cancel(ctx, Which::Id(old)).await?;
            }
        }
        let request = ReminderRequest {
            text: text(&event, minutes, ctx.lang),
            when: WhenRequest {
                at: Some(at.strftime("%Y-%m-%dT%H:%M").to_string()),
                ..WhenRequest::default()
            },
            for_member: None,
            for_everyone: ctx.conversation.is_multi_person(),
            accept_cost: false,
        };
        let created = self.creation.create(ctx, &request).await?;
        let reminder = created.id.ok_or_else(|| {
            ToolError::InvalidArgs("this month's LINE messages would not cover it".into())
        })?;
        self.store.calendar().link_reminder(&ctx.conversation.id, id, reminder, minutes).await?;
        Ok(Reminded { reminder, at: at.strftime("%Y-%m-%dT%H:%M").to_string(), text: created.text })
    }

    /// Moves event `event`'s ⏰ reminders with it; one whose time has passed is cancelled.
    pub(super) async fn follow(&self, ctx: &ToolCtx, event: &Event) -> Result<(), ToolError> {
        let linked = self.store.calendar().linked_reminders(&ctx.conversation.id, event.id).await?;
        for (reminder, minutes) in linked {
            let at = reminder_time(event.start, minutes)
                .and_then(|at| ctx.tz.to_timestamp(at).ok())
                .filter(|t| *t > ctx.now());
            let Some(at) = at else {
                self.reminders.cancel(ctx, Which::Id(reminder)).await?;
                continue;
            };
            let local = ctx.tz.to_datetime(at).strftime("%Y-%m-%dT%H:%M").to_string();
            let rule = MovedRule {
                anchor_local: &local,
                rule: Recurrence::once(),
                next_fire_at: at.as_millisecond(),
            };
            self.reminders.move_rule(ctx, reminder, &rule).await?;
        }
        Ok(())
    }

    /// Cancels event `id`'s ⏰ reminders (it was cancelled).
    pub(super) async fn drop_reminders(&self, ctx: &ToolCtx, id: i64) -> Result<(), ToolError> {
        let chat = &ctx.conversation.id;
        for (reminder, _) in self.store.calendar().linked_reminders(chat, id).await? {
            self.reminders.cancel(ctx, Which::Id(reminder)).await?;
        }
        self.store.calendar().unlink_reminders(chat, id).await?;
        Ok(())
    }

    /// Event `id` of `ctx`'s chat, not cancelled.
    async fn live_event(&self, ctx: &ToolCtx, id: i64) -> Result<Event, ToolError> {
        let row = self.store.calendar().get(&ctx.conversation.id, id).await?;
        row.filter(|r| r.cancelled_at.is_none())
            .as_ref()
            .and_then(Event::of)
            .ok_or_else(|| ToolError::NotFound(format!("no event {id} in this chat's calendar")))
    }
}
