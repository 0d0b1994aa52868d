//! `price_alerts` with `action: "show"`: this conversation's active price alerts
//! ("我設了哪些價格通知"), as a card where every row has a cancel button. Read only. Taiwan
//! securities are named the way the family says them ("台積電 2330").

use std::sync::Arc;

use serde::Serialize;

use crate::contract::list::{Keep, ListCard, cancel_button, plus_more};
use crate::contract::{Card, CardRow, ToolCtx, ToolError};
use crate::features::button::Action;
use crate::features::price_alerts::actions::CancelPriceAlert;
use crate::features::price_alerts::crossing::Frequency;
use crate::features::price_alerts::describe::{AlertItem, condition};
use crate::features::price_alerts::ops::PriceAlertOps;
use crate::sources::securities::Securities;

/// The most rows shown on the card.
const MAX_ROWS: usize = 10;

/// The result of `show`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The active alerts, by symbol and level.
    pub alerts: Vec<AlertItem>,
}

/// The `show` action.
pub struct ShowPriceAlerts {
    ops: PriceAlertOps,
    securities: Arc<Securities>,
}

impl ShowPriceAlerts {
    /// The action over the price alerts' operations and the Taiwan securities table.
    pub fn new(ops: PriceAlertOps, securities: Arc<Securities>) -> Self {
        Self { ops, securities }
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx) -> Result<Output, ToolError> {
        let rows = self.ops.of_chat(&ctx.conversation.id).await?;
        Ok(Output {
            alerts: rows
                .iter()
                .map(|r| AlertItem::from_row(r, &self.securities, ctx.now(), &ctx.tz))
                .collect(),
        })
    }

    /// The alerts' card, a cancel button on each row.
    pub fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let list = ListCard {
            title: lang.pick("🔔 價格通知", "🔔 Price alerts").into(),
            empty: Some(lang.pick("目前沒有價格通知", "No price alerts").into()),
            max_rows: MAX_ROWS,
            keep: Keep::First,
        };
        let row = |item: &AlertItem| {
            let muted = if item.muted_until.is_some() { " 🔕" } else { "" };
            let (id, item) = (item.id, &item.terms);
            let every = match item.frequency {
                Frequency::EveryTime => lang.pick("（每次）", " (every time)"),
                Frequency::Once => "",
            };
            let value = format!("{}{every}{muted}", condition(item.direction, item.level, lang));
            let title = self.securities.title(&item.symbol, item.name.as_deref(), lang);
            CardRow::new(title.clone(), value).with_button(cancel_button(
                lang,
                &title,
                |label, text| CancelPriceAlert { id }.button(label, text),
            ))
        };
        list.build(&out.alerts, out.alerts.len(), row, plus_more)
    }
}
