//! What the tools that show a chat's kept things or cancel one of them (`reminders`,
//! `price_alerts`) share: the action, an output that is the action's own, and the tool itself —
//! a [`ShowOrCancel`] is a [`Tool`] that shows read-only, refuses a cancel naming nothing, and
//! draws a card only for what it shows.

use std::future::Future;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::contract::{Card, Tool, ToolCtx, ToolError};

/// What to do.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// List them, as a card with a cancel button on each.
    Show,
    /// Stop one.
    Cancel,
}

/// The result: the action's own output.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Output<S, C> {
    /// Of `show`.
    Show(S),
    /// Of `cancel`.
    Cancel(C),
}

/// The arguments of a show-or-cancel tool: the action, and what names the one to cancel.
pub trait ShowOrCancelArgs: DeserializeOwned + JsonSchema + Send {
    /// What to do.
    fn action(&self) -> Action;
}

/// A tool that shows a chat's kept things or cancels one; it is a [`Tool`] by being this.
pub trait ShowOrCancel: Send + Sync + 'static {
    /// The tool's wire name ([`Tool::NAME`]).
    const NAME: &'static str;
    /// What the LLM reads of it ([`Tool::DESCRIPTION`]).
    const DESCRIPTION: &'static str;
    /// Its arguments.
    type Args: ShowOrCancelArgs;
    /// What showing answers.
    type Shown: Serialize + Send + Sync;
    /// What cancelling answers.
    type Cancelled: Serialize + Send + Sync;

    /// Refuses a cancel that names nothing to cancel.
    fn check_cancel(&self, args: &Self::Args) -> Result<(), ToolError>;

    /// Shows them.
    fn show(&self, ctx: &ToolCtx) -> impl Future<Output = Result<Self::Shown, ToolError>> + Send;

    /// Cancels the one `args` names.
    fn cancel(
        &self,
        ctx: &ToolCtx,
        args: Self::Args,
    ) -> impl Future<Output = Result<Self::Cancelled, ToolError>> + Send;

    /// The card of what was shown.
    fn show_card(&self, ctx: &ToolCtx, out: &Self::Shown) -> Option<Card>;
}

impl<T: ShowOrCancel> Tool for T {
    const NAME: &'static str = <T as ShowOrCancel>::NAME;
    const DESCRIPTION: &'static str = <T as ShowOrCancel>::DESCRIPTION;
    type Args = T::Args;
    type Output = Output<T::Shown, T::Cancelled>;
    const CHANGES_STATE: bool = true;

    fn changes_state(&self, args: &T::Args) -> bool {
        args.action() != Action::Show
    }

    fn check(&self, _ctx: &ToolCtx, args: &T::Args) -> Result<(), ToolError> {
        match args.action() {
            Action::Show => Ok(()),
            Action::Cancel => self.check_cancel(args),
        }
    }

    async fn run(&self, ctx: &ToolCtx, args: T::Args) -> Result<Self::Output, ToolError> {
        Tool::check(self, ctx, &args)?;
        Ok(match args.action() {
            Action::Show => Output::Show(self.show(ctx).await?),
            Action::Cancel => Output::Cancel(self.cancel(ctx, args).await?),
        })
    }

    fn card(&self, ctx: &ToolCtx, out: &Self::Output) -> Option<Card> {
        match out {
            Output::Show(out) => self.show_card(ctx, out),
            Output::Cancel(_) => None,
        }
    }
}
