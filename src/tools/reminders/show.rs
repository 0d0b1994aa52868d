//! `reminders` with `action: "show"`: this conversation's reminders ("有哪些提醒"), as a card
//! where every row has a cancel button. Read only.

use jiff::Timestamp;
use serde::Serialize;

use crate::contract::list::{Keep, ListCard, cancel_button, plus_more};
use crate::contract::{Card, CardRow, ToolCtx, ToolError};
use crate::features::button::Action;
use crate::features::reminders::actions::CancelReminder;
use crate::features::reminders::describe::{local_time, repetition};
use crate::sources::calendar::WorkCalendar;
use crate::store::{ReminderStatus, Store};

/// The most rows shown on the card.
const MAX_ROWS: usize = 10;

/// One reminder in the list.
#[derive(Debug, Clone, Serialize)]
pub struct Item {
    /// Its id (for `reminders` with `action: "cancel"`).
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

/// The result of `show`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The reminders, soonest first.
    pub reminders: Vec<Item>,
}

/// The `show` action.
pub struct ShowReminders {
    store: Store,
    work_calendar: WorkCalendar,
}

impl ShowReminders {
    /// The action over the store; workday reminders follow `work_calendar`.
    pub fn new(store: Store, work_calendar: WorkCalendar) -> Self {
        Self { store, work_calendar }
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx) -> Result<Output, ToolError> {
        let rows = self.store.reminders().list(&ctx.conversation.id).await?;
        let reminders = rows
            .into_iter()
            .map(|r| {
                let schedule = r.schedule(&self.work_calendar);
                let next = r
                    .next_fire_at
                    .and_then(|ms| Timestamp::from_millisecond(ms).ok())
                    .zip(schedule.as_ref())
                    .map(|(t, s)| local_time(t, &s.tz, ctx.lang));
                Item {
                    id: r.id,
                    repeats: schedule.as_ref().and_then(|s| repetition(s, ctx.lang)),
                    text: r.text,
                    next,
                    paused: r.status == ReminderStatus::Paused,
                }
            })
            .collect();
        Ok(Output { reminders })
    }

    /// The reminders' card, a cancel button on each row.
    pub fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let list = ListCard {
            title: lang.pick("⏰ 提醒清單", "⏰ Reminders").into(),
            empty: Some(lang.pick("目前沒有提醒", "No reminders").into()),
            max_rows: MAX_ROWS,
            keep: Keep::First,
        };
        let row = |item: &Item| {
            let when = item.repeats.clone().or_else(|| item.next.clone()).unwrap_or_default();
            let paused = if item.paused { lang.pick("（暫停）", " (paused)") } else { "" };
            CardRow::new(item.text.clone(), format!("{when}{paused}")).with_button(cancel_button(
                lang,
                &item.text,
                |label, text| CancelReminder { id: item.id }.button(label, text),
            ))
        };
        list.build(&out.reminders, out.reminders.len(), row, plus_more)
    }
}
