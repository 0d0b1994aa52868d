//! The buttons of price-alert cards: ❌ cancel and 🔕 mute for 24 hours. The postback was verified
//! against this conversation; the verbs are [`super::ops`]'s, scoped to it, so an id from
//! another conversation finds nothing.

use super::describe::condition;
use super::ops::{Cancel, PriceAlertOps, Which};
pub use super::taps::{CancelPriceAlert, MutePriceAlert};
use crate::contract::Answer;
use crate::contract::ToolCtx;
use crate::features::button::{Action, text};
use crate::features::deps::Deps;
use crate::platform::i18n::Lang;
use crate::store::AlertRow;

impl Action for CancelPriceAlert {
    const NAME: &'static str = "cancel_price_alert";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        text(cancel(deps, ctx, self.id).await)
    }
}

impl Action for MutePriceAlert {
    const NAME: &'static str = "mute_price_alert";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        text(mute(deps, ctx, self.id).await)
    }
}

fn not_found(ctx: &ToolCtx) -> String {
    ctx.lang.pick("找不到這個價格通知。", "No such price alert.").into()
}

fn sorry(ctx: &ToolCtx) -> String {
    ctx.lang
        .pick(
            "抱歉，現在沒辦法變更，請再試一次。",
            "Sorry, I couldn't change it; please try again.",
        )
        .into()
}

/// ❌: cancels the alert, through the price alerts' one cancel.
async fn cancel(deps: &Deps, ctx: &ToolCtx, id: i64) -> String {
    let lang = ctx.lang;
    let what =
        |row: &AlertRow| format!("{} {}", row.symbol, condition(row.direction, row.level, lang));
    match PriceAlertOps::from_deps(deps).cancel(ctx, Which::Id(id)).await {
        Ok(Cancel::Cancelled(rows)) => {
            let all = rows.iter().map(what).collect::<Vec<_>>().join(lang.pick("、", ", "));
            format!("{}{all}", lang.pick("❌ 已取消價格通知：", "❌ Cancelled: "))
        }
        Ok(Cancel::Ended(row)) => format!(
            "{}{}",
            lang.pick("這個價格通知已經結束或取消了：", "Already finished or cancelled: "),
            what(&row)
        ),
        Ok(Cancel::NotFound) => not_found(ctx),
        Err(e) => {
            tracing::error!(error = %e, "alert cancel failed");
            sorry(ctx)
        }
    }
}

/// 🔕: no fires for the next 24 hours, through the price alerts' one mute.
async fn mute(deps: &Deps, ctx: &ToolCtx, id: i64) -> String {
    match PriceAlertOps::from_deps(deps).mute(ctx, id).await {
        Ok(Some(until)) => {
            let local = until.to_zoned_datetime(ctx.tz.clone()).strftime("%m/%d %H:%M").to_string();
            match ctx.lang {
                Lang::ZhTw => format!("🔕 好的，{local} 前不再通知"),
                Lang::En => format!("🔕 OK, muted until {local}"),
            }
        }
        Ok(None) => not_found(ctx),
        Err(e) => {
            tracing::error!(error = %e, "alert mute failed");
            sorry(ctx)
        }
    }
}
