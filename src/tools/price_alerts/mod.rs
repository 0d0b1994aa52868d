//! `price_alerts`: this conversation's price alerts in one tool whose `action` says what to do:
//! show the active ones as a card with a cancel button on each ([`show`]) or cancel one by id or
//! every alert on a symbol ([`cancel`]). Setting one is the `price_alert`
//! tool, [`set`], kept beside them. One tool instead
//! of two keeps the definitions the model reads on every round short.

pub mod cancel;
pub mod set;
pub mod show;

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::contract::show_or_cancel::{self, Action, ShowOrCancel, ShowOrCancelArgs};
use crate::contract::{Card, ToolCtx, ToolError};
use crate::features::family_page;
use crate::features::price_alerts::ops::PriceAlertOps;
use crate::sources::securities::Securities;

/// Arguments of `price_alerts`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// What to do.
    pub action: Action,
    /// cancel: from the card or the confirmation; else null.
    pub id: Option<i64>,
    /// cancel without an id: a symbol or name ("台積電", "BTC"); else null.
    pub symbol: Option<String>,
}

/// The result of `price_alerts`: the action's own.
pub type Output = show_or_cancel::Output<show::Output, cancel::Output>;

/// The price alerts tool.
pub struct PriceAlerts {
    show: show::ShowPriceAlerts,
    cancel: cancel::CancelPriceAlert,
}

impl PriceAlerts {
    /// The tool over the price alerts' operations and the Taiwan securities table.
    pub fn new(ops: PriceAlertOps, securities: Arc<Securities>) -> Self {
        Self {
            show: show::ShowPriceAlerts::new(ops.clone(), securities.clone()),
            cancel: cancel::CancelPriceAlert::new(ops, securities),
        }
    }
}

impl ShowOrCancelArgs for Args {
    fn action(&self) -> Action {
        self.action
    }
}

impl ShowOrCancel for PriceAlerts {
    const NAME: &'static str = "price_alerts";
    const DESCRIPTION: &'static str = "This chat's price alerts: show (a card with cancel buttons), or cancel one by id or every alert on a symbol.";
    type Args = Args;
    type Shown = show::Output;
    type Cancelled = cancel::Output;

    fn check_cancel(&self, args: &Args) -> Result<(), ToolError> {
        match args.id.is_none() && args.symbol.is_none() {
            true => Err(cancel::unnamed()),
            false => Ok(()),
        }
    }

    async fn show(&self, ctx: &ToolCtx) -> Result<show::Output, ToolError> {
        self.show.run(ctx).await
    }

    async fn cancel(&self, ctx: &ToolCtx, args: Args) -> Result<cancel::Output, ToolError> {
        self.cancel.run(ctx, cancel::Args { id: args.id, symbol: args.symbol }).await
    }

    fn show_card(&self, ctx: &ToolCtx, out: &show::Output) -> Option<Card> {
        self.show.card(ctx, out).map(|c| family_page::with_open_button(c, ctx.lang))
    }
}
