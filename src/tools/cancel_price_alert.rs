//! `cancel_price_alert`: cancels this conversation's price alerts, by id or by symbol.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Tool, ToolCtx, ToolError};
use crate::features::alerts::describe::AlertItem;
use crate::sources::securities::Securities;
use crate::sources::symbols::resolve_symbol;
use crate::store::{AlertStatus, Store};

/// Arguments of `cancel_price_alert`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// From list_price_alerts or the confirmation.
    pub id: Option<i64>,
    /// Or a symbol or name ("台積電", "BTC").
    pub symbol: Option<String>,
}

/// The result of `cancel_price_alert`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The alerts cancelled.
    pub cancelled: Vec<AlertItem>,
}

/// The cancel tool.
pub struct CancelPriceAlert {
    store: Store,
    securities: Arc<Securities>,
}

impl CancelPriceAlert {
    /// The tool over the store and the Taiwan securities table.
    pub fn new(store: Store, securities: Arc<Securities>) -> Self {
        Self { store, securities }
    }
}

impl Tool for CancelPriceAlert {
    const NAME: &'static str = "cancel_price_alert";
    const CHANGES_STATE: bool = true;
    const DESCRIPTION: &'static str =
        "Cancel a price alert of this chat by id, or every alert on a symbol.";
    type Args = Args;
    type Output = Output;

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let conversation = &ctx.conversation.id;
        if let Some(id) = args.id {
            let row = self.store.alert(conversation, id).await?;
            let Some(row) = row.filter(|r| r.status == AlertStatus::Active) else {
                return Err(ToolError::NotFound(format!(
                    "this chat has no active price alert #{id}; list_price_alerts shows the ids"
                )));
            };
            if !self.store.cancel_alert(conversation, id).await? {
                return Err(ToolError::NotFound(format!("price alert #{id} already ended")));
            }
            return Ok(Output {
                cancelled: vec![AlertItem::from_row(&row, &self.securities, ctx.now(), &ctx.tz)],
            });
        }
        let Some(symbol) = args.symbol else {
            return Err(ToolError::InvalidArgs(
                "give the alert's id or a symbol; list_price_alerts shows them".into(),
            ));
        };
        let symbol = resolve_symbol(&symbol, &self.securities)?;
        let active = self.store.list_alerts(conversation).await?;
        let ids = self.store.cancel_alerts_on(conversation, &symbol).await?;
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
