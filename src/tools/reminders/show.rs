//! `reminders` with `action: "show"`: this conversation's reminders ("有哪些提醒"), as a card
//! where every row has a cancel button. Read only.

use serde::Serialize;

use crate::contract::list::{Keep, ListCard, cancel_button, plus_more};
use crate::contract::{Card, CardRow, ToolCtx, ToolError};
use crate::features::button::Action;
use crate::features::reminders::actions::CancelReminder;
use crate::features::reminders::ops::{Listed, Reminders};

/// The most rows shown on the card.
const MAX_ROWS: usize = 10;

/// One reminder in the list.
pub type Item = Listed;

/// The result of `show`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The reminders, soonest first.
    pub reminders: Vec<Item>,
}

/// The `show` action.
pub struct ShowReminders {
    reminders: Reminders,
}

impl ShowReminders {
    /// The action over the reminders' operations.
    pub fn new(reminders: Reminders) -> Self {
        Self { reminders }
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx) -> Result<Output, ToolError> {
        Ok(Output { reminders: self.reminders.of_chat(ctx).await? })
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
