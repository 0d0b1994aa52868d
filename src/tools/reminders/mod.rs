//! `reminders`: this conversation's reminders in one tool whose `action` says what to do: show
//! them as a card with a cancel button on each ([`show`]) or cancel one by id or by words from
//! its text ([`cancel`]). Setting one is the `reminder` tool. One tool instead of two keeps the
//! definitions the model reads on every round short.

pub mod cancel;
pub mod show;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::contract::show_or_cancel::{self, Action};
use crate::contract::{Card, Tool, ToolCtx, ToolError};
use crate::features::family_page;
use crate::sources::calendar::WorkCalendar;
use crate::store::Store;

/// Arguments of `reminders`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// What to do.
    pub action: Action,
    /// cancel: from the card or the confirmation; else null.
    pub id: Option<i64>,
    /// cancel without an id: words from its text ("倒垃圾"); else null.
    pub description: Option<String>,
}

/// The result of `reminders`: the action's own.
pub type Output = show_or_cancel::Output<show::Output, cancel::Output>;

/// The reminders tool.
pub struct Reminders {
    show: show::ShowReminders,
    cancel: cancel::CancelReminder,
}

impl Reminders {
    /// The tool over the store; workday reminders follow `work_calendar`.
    pub fn new(store: Store, work_calendar: WorkCalendar) -> Self {
        Self {
            show: show::ShowReminders::new(store.clone(), work_calendar),
            cancel: cancel::CancelReminder::new(store),
        }
    }
}

impl Tool for Reminders {
    const NAME: &'static str = "reminders";
    const DESCRIPTION: &'static str = "This chat's reminders: show (a card with cancel buttons), or cancel by id or by words from its text; if several match, ask which.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    fn changes_state(&self, args: &Args) -> bool {
        args.action != Action::Show
    }

    fn check(&self, _ctx: &ToolCtx, args: &Args) -> Result<(), ToolError> {
        let unnamed = args.id.is_none() && cancel::described(args.description.as_deref()).is_none();
        if args.action == Action::Cancel && unnamed {
            return Err(cancel::unnamed());
        }
        Ok(())
    }

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        self.check(ctx, &args)?;
        Ok(match args.action {
            Action::Show => show_or_cancel::Output::Show(self.show.run(ctx).await?),
            Action::Cancel => {
                let args = cancel::Args { id: args.id, description: args.description };
                show_or_cancel::Output::Cancel(self.cancel.run(ctx, args).await?)
            }
        })
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        match out {
            show_or_cancel::Output::Show(out) => {
                self.show.card(ctx, out).map(|c| family_page::with_open_button(c, ctx.lang))
            }
            show_or_cancel::Output::Cancel(_) => None,
        }
    }
}
