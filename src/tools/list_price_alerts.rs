//! `list_price_alerts`: this conversation's active price alerts, as a card where every row has a
//! cancel button. Taiwan securities are named the way the family says them ("台積電 2330").

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::list::{Keep, ListCard, cancel_button, plus_more};
use crate::contract::{Card, CardRow, Tool, ToolCtx, ToolError};
use crate::features::alerts::actions::CancelPriceAlert;
use crate::features::alerts::crossing::Frequency;
use crate::features::alerts::describe::{AlertItem, condition};
use crate::features::button::Action;
use crate::sources::securities::Securities;
use crate::store::Store;

/// The most rows shown on the card.
const MAX_ROWS: usize = 10;

/// Arguments of `list_price_alerts` (none).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {}

/// The result of `list_price_alerts`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The active alerts, by symbol and level.
    pub alerts: Vec<AlertItem>,
}

/// The list tool.
pub struct ListPriceAlerts {
    store: Store,
    securities: Arc<Securities>,
}

impl ListPriceAlerts {
    /// The tool over the store and the Taiwan securities table.
    pub fn new(store: Store, securities: Arc<Securities>) -> Self {
        Self { store, securities }
    }
}

impl Tool for ListPriceAlerts {
    const NAME: &'static str = "list_price_alerts";
    const DESCRIPTION: &'static str =
        "List this chat's price alerts as a card with a cancel button on each.";
    type Args = Args;
    type Output = Output;

    async fn run(&self, ctx: &ToolCtx, _args: Args) -> Result<Output, ToolError> {
        let rows = self.store.list_alerts(&ctx.conversation.id).await?;
        Ok(Output {
            alerts: rows
                .iter()
                .map(|r| AlertItem::from_row(r, &self.securities, ctx.now(), &ctx.tz))
                .collect(),
        })
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let list = ListCard {
            title: lang.pick("🔔 價格通知", "🔔 Price alerts").into(),
            empty: Some(lang.pick("目前沒有價格通知", "No price alerts").into()),
            max_rows: MAX_ROWS,
            keep: Keep::First,
        };
        let row = |item: &AlertItem| {
            let every = match item.frequency {
                Frequency::EveryTime => lang.pick("（每次）", " (every time)"),
                Frequency::Once => "",
            };
            let muted = if item.muted_until.is_some() { " 🔕" } else { "" };
            let value = format!("{}{every}{muted}", condition(item.direction, item.level, lang));
            let title = self.securities.title(&item.symbol, item.name.as_deref(), lang);
            CardRow::new(title.clone(), value).with_button(cancel_button(
                lang,
                &title,
                |label, text| CancelPriceAlert { id: item.id }.button(label, text),
            ))
        };
        list.build(&out.alerts, out.alerts.len(), row, plus_more)
    }
}
