//! `reminders`: this conversation's reminders in one tool whose `action` says what to do: show
//! them as a card with a cancel button on each ([`show`]) or cancel one by id or by words from
//! its text ([`cancel`]). Setting one is the `reminder` tool,
//! [`set`], kept beside them. One tool instead of two keeps the
//! definitions the model reads on every round short.

pub mod cancel;
pub mod set;
pub mod show;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::contract::show_or_cancel::{self, Action, ShowOrCancel, ShowOrCancelArgs};
use crate::contract::{Card, ToolCtx, ToolError};
use crate::features::family_page;
use crate::features::reminders::ops;

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
    /// The tool over the reminders' operations.
    pub fn new(reminders: ops::Reminders) -> Self {
        Self {
            show: show::ShowReminders::new(reminders.clone()),
            cancel: cancel::CancelReminder::new(reminders),
        }
    }
}

impl ShowOrCancelArgs for Args {
    fn action(&self) -> Action {
        self.action
    }
}

impl ShowOrCancel for Reminders {
    const NAME: &'static str = "reminders";
    const DESCRIPTION: &'static str = "This chat's reminders: show (a card with cancel buttons), or cancel by id or by words from its text; if several match, ask which.";
    type Args = Args;
    type Shown = show::Output;
    type Cancelled = cancel::Output;

    fn check_cancel(&self, args: &Args) -> Result<(), ToolError> {
        match args.id.is_none() && cancel::described(args.description.as_deref()).is_none() {
            true => Err(cancel::unnamed()),
            false => Ok(()),
        }
    }

    async fn show(&self, ctx: &ToolCtx) -> Result<show::Output, ToolError> {
        self.show.run(ctx).await
    }

    async fn cancel(&self, ctx: &ToolCtx, args: Args) -> Result<cancel::Output, ToolError> {
        self.cancel.run(ctx, cancel::Args { id: args.id, description: args.description }).await
    }

    fn show_card(&self, ctx: &ToolCtx, out: &show::Output) -> Option<Card> {
        self.show.card(ctx, out).map(|c| family_page::with_open_button(c, ctx.lang))
    }
}
