//! `price_alerts` with `action: "cancel"`: cancels one of this conversation's price alerts by id,
//! or every active alert on a symbol ("取消台積電的價格通知").

use std::sync::Arc;

use serde::Serialize;

use crate::contract::{ToolCtx, ToolError};
use crate::features::price_alerts::describe::AlertItem;
use crate::sources::securities::Securities;
use crate::sources::symbols::resolve_symbol;
use crate::store::{AlertStatus, Store};

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

/// The `cancel` action.
pub struct CancelPriceAlert {
    store: Store,
    securities: Arc<Securities>,
}

impl CancelPriceAlert {
    /// The action over the store and the Taiwan securities table.
    pub fn new(store: Store, securities: Arc<Securities>) -> Self {
        Self { store, securities }
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let conversation = &ctx.conversation.id;
        if let Some(id) = args.id {
            let row = self.store.price_alerts().get(conversation, id).await?;
            let Some(row) = row.filter(|r| r.status == AlertStatus::Active) else {
                return Err(ToolError::NotFound(format!(
                    "this chat has no active price alert #{id}; action show lists the ids"
                )));
            };
            if !self.store.price_alerts().cancel(conversation, id).await? {
                return Err(ToolError::NotFound(format!("price alert #{id} already ended")));
            }
            return Ok(Output {
                cancelled: vec![AlertItem::from_row(&row, &self.securities, ctx.now(), &ctx.tz)],
            });
        }
        let Some(symbol) = args.symbol else { return Err(unnamed()) };
        let symbol = resolve_symbol(&symbol, &self.securities)?;
        let active = self.store.price_alerts().list(conversation).await?;
        let ids = self.store.price_alerts().cancel_on(conversation, &symbol).await?;
        if ids.is_empty() {
            return Err(ToolError::NotFound(format!(
                "this chat has no active price alert on {symbol}"
            )));
        }
        let cancelled = active
            .iter()
            .filter(|r| ids.contains(&r.id))
            .map(|r| AlertItem::from_row(r, &self.securities, ctx.now(), &ctx.tz))
            .collect();
        Ok(Output { cancelled })
    }
}

/// The refusal of a cancel that names no alert.
pub fn unnamed() -> ToolError {
    ToolError::InvalidArgs("give the alert's id or a symbol; action show lists them".into())
}
