//! `price_alerts` with `action: "cancel"`: cancels one of this conversation's price alerts by id,
//! or every active alert on a symbol ("取消台積電的價格通知").

use std::sync::Arc;

use serde::Serialize;

use crate::contract::{ToolCtx, ToolError};
use crate::features::price_alerts::describe::AlertItem;
use crate::features::price_alerts::ops::{Cancel, PriceAlertOps, Which};
use crate::sources::securities::Securities;
use crate::sources::symbols::resolve_symbol;

/// What `cancel` reads of the arguments.
#[derive(Debug)]
pub struct Args {
    /// The alert's id, from the `show` card or the confirmation.
    pub id: Option<i64>,
    /// Or a symbol or name ("台積電", "BTC").
    pub symbol: Option<String>,
}

/// The result of `cancel`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The alerts cancelled.
    pub cancelled: Vec<AlertItem>,
}

/// The `cancel` action: an adapter of the price alerts' one cancel ([`PriceAlertOps::cancel`]).
pub struct CancelPriceAlert {
    ops: PriceAlertOps,
    securities: Arc<Securities>,
}

impl CancelPriceAlert {
    /// The action over the price alerts' verbs and the Taiwan securities table.
    pub fn new(ops: PriceAlertOps, securities: Arc<Securities>) -> Self {
        Self { ops, securities }
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let symbol = match (args.id, args.symbol) {
            (Some(_), _) => None,
            (None, Some(symbol)) => Some(resolve_symbol(&symbol, &self.securities)?),
            (None, None) => return Err(unnamed()),
        };
        let which = match (args.id, symbol.as_deref()) {
            (Some(id), _) => Which::Id(id),
            (None, Some(symbol)) => Which::Symbol(symbol),
            (None, None) => return Err(unnamed()),
        };
        match self.ops.cancel(ctx, which).await? {
            Cancel::Cancelled(rows) => Ok(Output {
                cancelled: rows
                    .iter()
                    .map(|r| AlertItem::from_row(r, &self.securities, ctx.now(), &ctx.tz))
                    .collect(),
            }),
            Cancel::Ended(_) | Cancel::NotFound => Err(ToolError::NotFound(match symbol {
                None => format!(
                    "this chat has no active price alert #{}; action show lists the ids",
                    args.id.unwrap_or_default()
                ),
                Some(symbol) => format!("this chat has no active price alert on {symbol}"),
            })),
        }
    }
}

/// The refusal of a cancel that names no alert.
pub fn unnamed() -> ToolError {
    ToolError::InvalidArgs("give the alert's id or a symbol; action show lists them".into())
}
