//! `list_price_alerts`: this conversation's active price alerts, as a card where every row has a
//! cancel button.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::alerts::crossing::{Direction, Frequency};
use crate::alerts::describe::condition;
use crate::alerts::render::CANCEL_ACTION;
use crate::store::{AlertRow, Store};
use crate::tool::{Card, CardButton, CardRow, Tool, ToolCtx, ToolError};
use crate::tools::reminder::store_error;

/// The most rows shown on the card.
const MAX_ROWS: usize = 10;

/// Arguments of `list_price_alerts` (none).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {}

/// One alert in the list.
#[derive(Debug, Clone, Serialize)]
pub struct Item {
    /// Its id (for cancel_price_alert).
    pub id: i64,
    /// The symbol.
    pub symbol: String,
    /// The instrument's name.
    pub name: Option<String>,
    /// `up` or `down`.
    pub direction: Direction,
    /// The level.
    pub level: f64,
    /// `once` or `every_time`.
    pub frequency: Frequency,
    /// Muted (by its 🔕 button) until this local time.
    pub muted_until: Option<String>,
}

impl Item {
    /// The list entry of a stored alert.
    pub fn from_row(row: &AlertRow, ctx: &ToolCtx) -> Self {
        let muted_until = row
            .muted_until
            .filter(|until| *until > ctx.now().as_millisecond())
            .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
            .map(|t| t.to_zoned_datetime(ctx.tz.clone()).strftime("%Y-%m-%d %H:%M").to_string());
        Self {
            id: row.id,
            symbol: row.symbol.clone(),
            name: row.name.clone(),
            direction: row.direction,
            level: row.level,
            frequency: row.frequency,
            muted_until,
        }
    }
}

/// The result of `list_price_alerts`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The active alerts, by symbol and level.
    pub alerts: Vec<Item>,
}

/// The list tool.
pub struct ListPriceAlerts {
    store: Store,
}

impl ListPriceAlerts {
    /// The tool over the store.
    pub fn new(store: Store) -> Self {
        Self { store }
    }
}

impl Tool for ListPriceAlerts {
    const NAME: &'static str = "list_price_alerts";
    const DESCRIPTION: &'static str = "List the active price alerts of this chat (ids, symbols, levels, once or every time), shown as a card with a cancel button on each row.";
    type Args = Args;
    type Output = Output;

    async fn run(&self, ctx: &ToolCtx, _args: Args) -> Result<Output, ToolError> {
        let rows = self.store.list_alerts(&ctx.conversation.id).await.map_err(store_error)?;
        Ok(Output { alerts: rows.iter().map(|r| Item::from_row(r, ctx)).collect() })
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let mut card = Card::new(lang.pick("🔔 價格通知", "🔔 Price alerts"));
        if out.alerts.is_empty() {
            card.subtitle = Some(lang.pick("目前沒有價格通知", "No price alerts").into());
            return Some(card);
        }
        for item in out.alerts.iter().take(MAX_ROWS) {
            let every = match item.frequency {
                Frequency::EveryTime => lang.pick("（每次）", " (every time)"),
                Frequency::Once => "",
            };
            let muted = if item.muted_until.is_some() { " 🔕" } else { "" };
            let value = format!("{}{every}{muted}", condition(item.direction, item.level, lang));
            card.rows.push(CardRow::new(item.symbol.clone(), value).with_button(
                CardButton::Postback {
                    label: lang.pick("取消", "Cancel").into(),
                    action: CANCEL_ACTION.into(),
                    id: item.id.to_string(),
                    display_text: format!("{} {}", lang.pick("❌ 取消", "❌ Cancel"), item.symbol),
                },
            ));
        }
        if out.alerts.len() > MAX_ROWS {
            card.footnote = Some(format!("+{}", out.alerts.len() - MAX_ROWS));
        }
        Some(card)
    }
}
