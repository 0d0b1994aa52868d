//! The verbs on a chat's reminders, each a typed operation run for the chat and member of its
//! context: cancel one (by id: ❌ on a card or the page; or by words from its text, in the
//! chat), and the changes the chat has no words for (a new text, a pause, a resume at its next
//! time). The `reminders` tool, the ❌ button and the family page call these (scoped to their
//! chat), never the store around them; a cancel is recorded in the feed of changes.

pub mod create;
pub mod month_ahead;
pub mod projection;
pub mod quota_cost;
pub mod scheduler;

use std::sync::Arc;

use jiff::{SignedDuration, Timestamp};
use tokio::sync::Notify;

use super::describe::{local_time, repetition};
use crate::contract::ToolCtx;
use crate::features::deps::Deps;
use crate::features::{changes, verbs};
use crate::platform::text::grapheme_len;
use crate::sources::calendar::WorkCalendar;
use crate::store::{MovedRule, ReminderRow, ReminderStatus, Store, StoreError};
use projection::occurrences_between;

/// The longest reminder text.
pub const MAX_TEXT: usize = 500;

/// How far ahead a resumed reminder's next time is looked for.
const RESUME_HORIZON: SignedDuration = SignedDuration::from_hours(24 * 800);

/// What a change to a reminder came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Changed {
    /// Done.
    Done,
    /// The chat has no such reminder (or, resuming, it has no time left to come).
    NotFound,
    /// The request was not valid (an empty or over-long text).
    Refused,
}

impl From<bool> for Changed {
    fn from(done: bool) -> Self {
        if done { Self::Done } else { Self::NotFound }
    }
}

/// Which reminder a cancel names.
#[derive(Debug, Clone, Copy)]
pub enum Which<'a> {
    /// By its id (a button, the page, or the model passing it).
    Id(i64),
    /// By words from its text ("倒垃圾").
    Words(&'a str),
}

/// What a cancel came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cancel {
    /// Cancelled: its id and text.
    Cancelled {
        /// Its id.
        id: i64,
        /// Its text.
        text: String,
    },
    /// It had already finished or been cancelled.
    Ended {
        /// Its text.
        text: String,
    },
    /// The chat has no such reminder (or none its words fit).
    NotFound,
    /// The words fit several: each one's id and text; nothing was cancelled.
    Several(Vec<(i64, String)>),
}

/// One reminder of a chat, as the family reads it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Listed {
    /// Its id (to cancel it).
    pub id: i64,
    /// What it is about.
    pub text: String,
    /// The next time, local.
    pub next: Option<String>,
    /// The repetition in words.
    pub repeats: Option<String>,
    /// Paused reminders are not delivered.
    pub paused: bool,
}

/// The reminders of every chat, over the store; workday reminders follow `work_calendar`, and
/// a change that makes one due sooner wakes the scheduler (`nudge`).
#[derive(Clone)]
pub struct Reminders {
    store: Store,
    work_calendar: WorkCalendar,
    nudge: Arc<Notify>,
}

/// What a snooze came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Snoozed {
    /// Asked again at this time (`HH:MM` in the reminder's zone).
    At(String),
    /// This occurrence was snoozed already.
    Already,
    /// No such reminder in the chat.
    NotFound,
}

impl Reminders {
    /// The reminders kept in `deps`' store, waking `deps`' reminder scheduler.
    pub fn from_deps(deps: &Deps) -> Self {
        Self {
            store: deps.store.clone(),
            work_calendar: deps.work_calendar.clone(),
            nudge: deps.reminder_nudge.clone(),
        }
    }

    /// Reminder `id` of `ctx`'s chat, as kept.
    pub async fn one(&self, ctx: &ToolCtx, id: i64) -> Result<Option<ReminderRow>, StoreError> {
        self.store.reminders().get(&ctx.conversation.id, id).await
    }

    /// Moves `occurrence` of reminder `id` of `ctx`'s chat to `at` (`local` in its zone),
    /// once, and wakes the scheduler: false when there is no such occurrence to move.
    pub async fn reschedule_occurrence(
        &self,
        ctx: &ToolCtx,
        id: i64,
        occurrence: i64,
        local: &str,
        at: Timestamp,
    ) -> Result<bool, StoreError> {
        let moved = self
            .store
            .reminders()
            .reschedule_occurrence(
                &ctx.conversation.id,
                id,
                occurrence,
                local,
                at.as_millisecond(),
                ctx.now().as_millisecond(),
            )
            .await?;
        self.nudge.notify_one();
        Ok(moved.is_some())
    }

    /// Gives reminder `id` of `ctx`'s chat the moved `rule`, and wakes the scheduler: false
    /// when it is gone.
    pub async fn move_rule(
        &self,
        ctx: &ToolCtx,
        id: i64,
        rule: &MovedRule<'_>,
    ) -> Result<bool, StoreError> {
        let moved = self.store.reminders().move_rule(&ctx.conversation.id, id, rule).await?;
        self.nudge.notify_one();
        Ok(moved)
    }

    /// Asks `occurrence` of reminder `id` of `ctx`'s chat again `after` from now, once per
    /// occurrence, and wakes the scheduler.
    pub async fn snooze(
        &self,
        ctx: &ToolCtx,
        id: i64,
        occurrence: i64,
        after: SignedDuration,
    ) -> Result<Snoozed, StoreError> {
        let Some(row) = self.one(ctx, id).await? else { return Ok(Snoozed::NotFound) };
        let now = ctx.now();
        let at = now.saturating_add(after).unwrap_or(now);
        let tz = row.time_zone().unwrap_or_else(|| ctx.tz.clone());
        let local = at.to_zoned_datetime(tz.clone()).strftime("%Y-%m-%dT%H:%M").to_string();
        let created = self
            .store
            .reminders()
            .snooze(
                &ctx.conversation.id,
                id,
                occurrence,
                &local,
                at.as_millisecond(),
                now.as_millisecond(),
            )
            .await?;
        self.nudge.notify_one();
        Ok(match created {
            Some(_) => Snoozed::At(at.to_zoned_datetime(tz).strftime("%H:%M").to_string()),
            None => Snoozed::Already,
        })
    }

    /// The active and paused reminders of `chat`, soonest first, as kept.
    pub async fn rows(&self, chat: &str) -> Result<Vec<ReminderRow>, StoreError> {
        self.store.reminders().list(chat).await
    }

    /// The active and paused reminders of `ctx`'s chat, soonest first, as the family reads
    /// them.
    pub async fn of_chat(&self, ctx: &ToolCtx) -> Result<Vec<Listed>, StoreError> {
        let rows = self.store.reminders().list(&ctx.conversation.id).await?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let schedule = r.schedule(&self.work_calendar);
                let next = r
                    .next_fire_at
                    .and_then(|ms| Timestamp::from_millisecond(ms).ok())
                    .zip(schedule.as_ref())
                    .map(|(t, s)| local_time(t, &s.tz, ctx.lang));
                Listed {
                    id: r.id,
                    repeats: schedule.as_ref().and_then(|s| repetition(s, ctx.lang)),
                    text: r.text,
                    next,
                    paused: r.status == ReminderStatus::Paused,
                }
            })
            .collect())
    }

    /// Cancels the reminder of `ctx`'s chat that `which` names.
    pub async fn cancel(&self, ctx: &ToolCtx, which: Which<'_>) -> Result<Cancel, StoreError> {
        let chat = &ctx.conversation.id;
        let row = match which {
            Which::Id(id) => self.store.reminders().get(chat, id).await?,
            Which::Words(words) => {
                let needle = words.trim().to_lowercase();
                let all = self.store.reminders().list(chat).await?;
                let mut fits: Vec<_> = all
                    .into_iter()
                    .filter(|r| r.status.is_live() && r.text.to_lowercase().contains(&needle))
                    .collect();
                if fits.len() > 1 {
                    return Ok(Cancel::Several(fits.into_iter().map(|r| (r.id, r.text)).collect()));
                }
                fits.pop()
            }
        };
        let Some(row) = row else { return Ok(Cancel::NotFound) };
        if !row.status.is_live() || !self.store.reminders().cancel(chat, row.id).await? {
            return Ok(Cancel::Ended { text: row.text });
        }
        changes::record(&self.store, ctx, &verbs::REMINDER_CANCEL, &row.text).await;
        Ok(Cancel::Cancelled { id: row.id, text: row.text })
    }

    /// Gives reminder `id` of `ctx`'s chat a new text (trimmed, 1–[`MAX_TEXT`] characters).
    pub async fn rename(&self, ctx: &ToolCtx, id: i64, text: &str) -> Result<Changed, StoreError> {
        let text = text.trim();
        if text.is_empty() || grapheme_len(text) > MAX_TEXT {
            return Ok(Changed::Refused);
        }
        Ok(self.store.reminders().rename(&ctx.conversation.id, id, text).await?.into())
    }

    /// Pauses reminder `id` of `ctx`'s chat: it fires no more until resumed.
    pub async fn pause(&self, ctx: &ToolCtx, id: i64) -> Result<Changed, StoreError> {
        Ok(self.store.reminders().pause(&ctx.conversation.id, id).await?.into())
    }

    /// Resumes reminder `id` of `ctx`'s chat at its next time from now (its kept time if that is
    /// still to come); not found when it has no time left to come.
    pub async fn resume(&self, ctx: &ToolCtx, id: i64) -> Result<Changed, StoreError> {
        let chat = &ctx.conversation.id;
        let Some(row) = self.store.reminders().get(chat, id).await? else {
            return Ok(Changed::NotFound);
        };
        let Some(schedule) = row.schedule(&self.work_calendar) else {
            return Ok(Changed::NotFound);
        };
        let now = ctx.now();
        let kept = row.next_fire_at.and_then(|at| Timestamp::from_millisecond(at).ok());
        let next = match kept {
            Some(at) if at > now => Some(at),
            _ => {
                let horizon = now.saturating_add(RESUME_HORIZON).unwrap_or(now);
                occurrences_between(&schedule, now, horizon).into_iter().find(|at| *at > now)
            }
        };
        match next {
            Some(at) => {
                let resumed = self.store.reminders().resume(chat, id, at.as_millisecond()).await?;
                self.nudge.notify_one();
                Ok(resumed.into())
            }
            None => Ok(Changed::NotFound),
        }
    }
}
