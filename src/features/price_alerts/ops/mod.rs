//! The verbs on a chat's price alerts, each a typed operation run for the chat and member of
//! its context: cancel (one by id — ❌ on a card or the page, or the model passing it — or
//! every active one on a symbol, in the chat) and mute an every-time alert for a day (🔕). The
//! `price_alerts` tool, the buttons and the family page call these, never the store around
//! them; a cancel is recorded in the feed of changes.

pub mod create;
pub mod poller;

use jiff::SignedDuration;

use crate::contract::ToolCtx;
use crate::features::deps::Deps;
use crate::features::{changes, verbs};
use crate::platform::i18n::Lang;
use crate::store::{AlertRow, AlertStatus, Store, StoreError};

use super::describe::condition;

/// How long 🔕 mutes an every-time alert.
pub const MUTE: SignedDuration = SignedDuration::from_hours(24);

/// Which alerts a cancel names.
#[derive(Debug, Clone, Copy)]
pub enum Which<'a> {
    /// One, by its id.
    Id(i64),
    /// Every active one on a symbol, already resolved (`2330.TW`, `BTC-USD`).
    Symbol(&'a str),
}

/// What a cancel came to.
#[derive(Debug, Clone)]
pub enum Cancel {
    /// Cancelled: the alerts as they were.
    Cancelled(Vec<AlertRow>),
    /// The one named had already fired for good or been cancelled.
    Ended(Box<AlertRow>),
    /// The chat has no such alert (or no active one on the symbol).
    NotFound,
}

/// The price alerts of every chat, over the store.
#[derive(Clone)]
pub struct PriceAlertOps {
    store: Store,
}

/// An alert as the feed reads it: 「2330.TW ≥ 1500」.
fn described(row: &AlertRow, lang: Lang) -> String {
    format!("{} {}", row.symbol, condition(row.direction, row.level, lang))
}

impl PriceAlertOps {
    /// The verbs over `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// The verbs over `deps`' store.
    pub fn from_deps(deps: &Deps) -> Self {
        Self::new(deps.store.clone())
    }

    /// The price alerts of `chat` (active and muted ones).
    pub async fn of_chat(&self, chat: &str) -> Result<Vec<AlertRow>, StoreError> {
        self.store.price_alerts().list(chat).await
    }

    /// Cancels the alerts of `ctx`'s chat that `which` names.
    pub async fn cancel(&self, ctx: &ToolCtx, which: Which<'_>) -> Result<Cancel, StoreError> {
        let chat = &ctx.conversation.id;
        let cancelled = match which {
            Which::Id(id) => {
                let Some(row) = self.store.price_alerts().get(chat, id).await? else {
                    return Ok(Cancel::NotFound);
                };
                if row.status != AlertStatus::Active
                    || !self.store.price_alerts().cancel(chat, id).await?
                {
                    return Ok(Cancel::Ended(Box::new(row)));
                }
                vec![row]
            }
            Which::Symbol(symbol) => {
                let active = self.store.price_alerts().list(chat).await?;
                let ids = self.store.price_alerts().cancel_on(chat, symbol).await?;
                active.into_iter().filter(|r| ids.contains(&r.id)).collect()
            }
        };
        if cancelled.is_empty() {
            return Ok(Cancel::NotFound);
        }
        for row in &cancelled {
            let what = described(row, ctx.lang);
            changes::record(&self.store, ctx, &verbs::PRICE_ALERT_CANCEL, &what).await;
        }
        Ok(Cancel::Cancelled(cancelled))
    }

    /// Mutes every-time alert `id` of `ctx`'s chat for [`MUTE`]: no fires until the instant
    /// returned (crosses in that time are not replayed); none when the chat has no such alert.
    pub async fn mute(
        &self,
        ctx: &ToolCtx,
        id: i64,
    ) -> Result<Option<jiff::Timestamp>, StoreError> {
        let now = ctx.now();
        let until = now.saturating_add(MUTE).unwrap_or(now);
        let muted = self
            .store
            .price_alerts()
            .mute(&ctx.conversation.id, id, until.as_millisecond())
            .await?;
        Ok(muted.then_some(until))
    }
}
