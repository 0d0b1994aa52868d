//! The changes to a reminder the chat has no words for, as typed operations run for the chat of
//! their context: a new text, a pause, a resume at its next time. The family page calls these
//! (scoped to its session's chat), never the store around them.

use jiff::{SignedDuration, Timestamp};

use super::projection::occurrences_between;
use crate::contract::ToolCtx;
use crate::platform::text::grapheme_len;
use crate::sources::calendar::WorkCalendar;
use crate::store::{Store, StoreError};

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

/// The reminders of every chat, over the store; workday reminders follow `work_calendar`.
#[derive(Clone)]
pub struct Reminders {
    store: Store,
    work_calendar: WorkCalendar,
}

impl Reminders {
    /// The reminders kept in `store`.
    pub fn new(store: Store, work_calendar: WorkCalendar) -> Self {
        Self { store, work_calendar }
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
                Ok(self.store.reminders().resume(chat, id, at.as_millisecond()).await?.into())
            }
            None => Ok(Changed::NotFound),
        }
    }
}
