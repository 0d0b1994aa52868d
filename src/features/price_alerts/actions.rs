//! The buttons of price-alert cards: ❌ cancel and 🔕 mute for 24 hours. The postback was verified
//! against this conversation; every store call is also scoped to it, so an id from another
//! conversation finds nothing.

use jiff::SignedDuration;
use serde::{Deserialize, Serialize};

use super::describe::condition;
use crate::contract::Answer;
use crate::contract::ToolCtx;
use crate::features::button::{Action, text};
use crate::features::deps::Deps;
use crate::store::Store;

/// How long 🔕 mutes an every-time alert.
pub const MUTE: SignedDuration = SignedDuration::from_hours(24);

/// ❌: cancel price alert `id` (fired alerts, the list, the confirmation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CancelPriceAlert {
    /// The alert.
    pub id: i64,
}

/// 🔕: mute every-time alert `id` for [`MUTE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MutePriceAlert {
    /// The alert.
    pub id: i64,
}

impl Action for CancelPriceAlert {
    const NAME: &'static str = "cancel_price_alert";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        text(cancel(&deps.store, ctx, self.id).await)
    }
}

impl Action for MutePriceAlert {
    const NAME: &'static str = "mute_price_alert";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        text(mute(&deps.store, ctx, self.id).await)
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

/// ❌: cancels the alert.
async fn cancel(store: &Store, ctx: &ToolCtx, id: i64) -> String {
    let lang = ctx.lang;
    let conversation = &ctx.conversation.id;
    let Ok(Some(row)) = store.price_alerts().get(conversation, id).await else {
        return not_found(ctx);
    };
    let what = format!("{} {}", row.symbol, condition(row.direction, row.level, lang));
    match store.price_alerts().cancel(conversation, id).await {
        Ok(true) => format!("{}{what}", lang.pick("❌ 已取消價格通知：", "❌ Cancelled: ")),
        Ok(false) => format!(
            "{}{what}",
            lang.pick("這個價格通知已經結束或取消了：", "Already finished or cancelled: ")
        ),
        Err(e) => {
            tracing::error!(error = %e, "alert cancel failed");
            sorry(ctx)
        }
    }
}

/// 🔕: no fires for the next 24 hours; crosses in that time are not replayed.
async fn mute(store: &Store, ctx: &ToolCtx, id: i64) -> String {
    let lang = ctx.lang;
    let now = ctx.now();
    let until = now.saturating_add(MUTE).unwrap_or(now);
    match store.price_alerts().mute(&ctx.conversation.id, id, until.as_millisecond()).await {
        Ok(true) => {
            let local = until.to_zoned_datetime(ctx.tz.clone()).strftime("%m/%d %H:%M").to_string();
            match lang {
                crate::platform::i18n::Lang::ZhTw => format!("🔕 好的，{local} 前不再通知"),
                crate::platform::i18n::Lang::En => format!("🔕 OK, muted until {local}"),
            }
        }
        Ok(false) => not_found(ctx),
        Err(e) => {
            tracing::error!(error = %e, "alert mute failed");
            sorry(ctx)
        }
    }
}
