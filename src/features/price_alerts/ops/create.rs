//! Creating a price alert, a typed operation run for the member and chat of its context: the
//! symbol is checked against the quote source first (which also gives the price now); a level
//! implausible or too far from that price is refused as a mistake; if the condition already
//! holds, the answer says so and the alert waits for a fresh cross. An every-time alert's answer
//! says what it will cost a month of LINE's quota; one that would push the month over what is
//! left is not created until the family accepts or picks a cheaper way (the same rule as a
//! repeating reminder, [`crate::features::reminders::ops::quota_cost`]).

use std::sync::Arc;

use serde::Serialize;

use crate::contract::{ToolCtx, ToolError};
use crate::features::price_alerts::cheaper::{self, Cheaper};
use crate::features::price_alerts::crossing::{Direction, Frequency, Side};
use crate::features::price_alerts::describe::{AlertTerms, condition};
use crate::features::reminders::ops::quota_cost::{self, Plan, QuotaCost};
use crate::platform::format::money;
use crate::platform::i18n::Lang;
use crate::push::quota::QuotaTracker;
use crate::sources::calendar::WorkCalendar;
use crate::sources::quotes::{Quote, QuoteError, QuoteSource};
use crate::sources::securities::Securities;
use crate::sources::symbols::{resolve_symbol, unknown_symbol_hint};
use crate::store::{NewAlert, Store};

/// The dead band around a level, percent of it.
pub const BAND_PCT: f64 = 0.2;
/// Least time between two fires of an every-time alert.
pub const COOLDOWN_S: i64 = 3600;
/// The highest level accepted.
const MAX_LEVEL: f64 = 1e9;
/// A level further than this factor from the current price is refused as a mistake.
const MAX_FACTOR: f64 = 10.0;

/// A price alert to create in the chat of its context.
#[derive(Debug, Clone, PartialEq)]
pub struct PriceAlertRequest {
    /// The symbol or name as said ("2330", "台積電", "AAPL").
    pub symbol: String,
    /// Which way the price must go.
    pub direction: Direction,
    /// The level, in the instrument's currency.
    pub level: f64,
    /// Once, or every time it crosses again.
    pub frequency: Frequency,
    /// For everyone: pushed to the group (else the asker's own, pushed to their 1:1 chat).
    pub everyone: bool,
    /// The family accepted going over this month's LINE message quota.
    pub accept_cost: bool,
}

/// What creating a price alert came to (what the model reads and the card is drawn from).
#[derive(Debug, Clone, Serialize)]
pub struct CreatedAlert {
    /// The alert's id (for `price_alerts` cancel); `null` when it was not created because it would exceed this month's LINE message quota (see `spend`): tell the user and offer the `cheaper` ways or `accept_cost`.
    pub id: Option<i64>,
    /// What it watches for.
    #[serde(flatten)]
    pub terms: AlertTerms,
    /// The price now.
    pub current_price: f64,
    /// Its currency.
    pub currency: Option<String>,
    /// True if the price is already past the level: the alert waits for a fresh cross.
    pub already_past_level: bool,
    /// A sentence to relay.
    pub note: String,
    /// Set in a group but pushed to the asker's 1:1 chat with hearth (tell them it arrives there).
    pub delivered_privately: bool,
    /// Every-time alerts: what each fire costs of the monthly LINE message quota (one per person in this chat).
    pub messages_per_fire: Option<i64>,
    /// Every-time alerts: what they are expected to cost a month of the LINE message quota, what is left, and whether that goes over.
    pub spend: Option<QuotaCost>,
    /// Not created: the cheaper ways to offer.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cheaper: Vec<Cheaper>,
    /// Set when the chat has quiet hours: a fire inside them waits until this local time
    /// (`07:00`); say so in the confirmation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quiet_hours_end: Option<String>,
}

/// The price alerts that can be created, over the store, the shared quote source and the Taiwan
/// securities table; `quota` tells what a push into the chat costs and what is left this
/// month (workday reminders in the projection follow `work_calendar`).
#[derive(Clone)]
pub struct PriceAlertCreation {
    store: Store,
    quotes: QuoteSource,
    securities: Arc<Securities>,
    quota: QuotaTracker,
    work_calendar: WorkCalendar,
}

fn invalid(msg: impl Into<String>) -> ToolError {
    ToolError::InvalidArgs(msg.into())
}

impl PriceAlertCreation {
    /// Creation over `store`, checking symbols with `quotes` and `securities`.
    pub fn new(
        store: Store,
        quotes: QuoteSource,
        securities: Arc<Securities>,
        quota: QuotaTracker,
        work_calendar: WorkCalendar,
    ) -> Self {
        Self { store, quotes, securities, quota, work_calendar }
    }

    /// The Taiwan securities table the alerts' symbols are named from.
    pub fn securities(&self) -> &Securities {
        &self.securities
    }

    /// Creates `request` in `ctx`'s chat, as set by its member.
    pub async fn create(
        &self,
        ctx: &ToolCtx,
        request: &PriceAlertRequest,
    ) -> Result<CreatedAlert, ToolError> {
        let symbol = resolve_symbol(&request.symbol, &self.securities)?;
        let level = checked_level(request.level)?;
        let quote = self.quote(&symbol).await?;
        let price = quote.price;
        near_price(&symbol, level, price)?;
        let conversation = &ctx.conversation.id;
        let (direction, freq) = (request.direction, request.frequency);
        let side = Side::initial(price, level);
        let already = side == direction.target();
        let deliver_to =
            self.quota.route(&ctx.conversation, ctx.user_id.as_deref(), request.everyone).await;
        let target = deliver_to.as_deref().unwrap_or(conversation);
        let now = ctx.now();
        let (messages_per_fire, spend) = self.spend(freq, target, now).await?;
        let what = condition(direction, level, Lang::En);
        let out = CreatedAlert {
            id: None,
            terms: AlertTerms {
                name: quote.name.clone(),
                taiwan: self.securities.taiwan_name(&symbol),
                symbol: symbol.clone(),
                direction,
                level,
                frequency: freq,
            },
            current_price: price,
            currency: quote.currency.clone(),
            already_past_level: already,
            note: note(&symbol, direction, level, price, already, &what),
            delivered_privately: deliver_to.is_some(),
            messages_per_fire,
            spend,
            cheaper: Vec::new(),
            // The quiet hours of the chat it is pushed to (a personal alert routed to its person's
            // 1:1 chat follows that chat's).
            quiet_hours_end: self.store.chats().quiet_hours(target).await?.map(|q| q.end_local),
        };
        if spend.is_some_and(|s| s.over_quota) && !request.accept_cost {
            let note = "Not created: its expected fires would exceed what is left of this month's LINE message quota. Tell the user and offer the cheaper ways, or accept_cost if they still want it.".to_string();
            let cheaper = self.cheaper(ctx, deliver_to.is_some()).await?;
            return Ok(CreatedAlert { note, cheaper, ..out });
        }
        let created = self
            .store
            .price_alerts()
            .create(&NewAlert {
                conversation_id: conversation,
                created_by: ctx.user_id.as_deref(),
                symbol: &symbol,
                name: quote.name.as_deref(),
                currency: quote.currency.as_deref(),
                direction,
                level,
                band_pct: BAND_PCT,
                frequency: freq,
                cooldown_s: COOLDOWN_S,
                initial_side: side,
                tz: ctx.tz.iana_name().unwrap_or("Asia/Taipei"),
                lang: ctx.lang,
                now_ms: now.as_millisecond(),
                deliver_to: deliver_to.as_deref(),
            })
            .await?;
        let Some(id) = created else {
            return Err(invalid(format!(
                "this chat already has an active alert for {symbol} when it {what}; nothing changed"
            )));
        };
        Ok(CreatedAlert { id: Some(id), ..out })
    }

    /// What an every-time alert pushed to `target` costs a fire and is expected to spend.
    async fn spend(
        &self,
        freq: Frequency,
        target: &str,
        now: jiff::Timestamp,
    ) -> Result<(Option<i64>, Option<QuotaCost>), ToolError> {
        if freq == Frequency::Once {
            return Ok((None, None));
        }
        let plan = Plan::EveryTimeAlert;
        let spend =
            quota_cost::estimate(&self.quota, plan, &self.work_calendar, target, now).await?;
        Ok((Some(self.quota.cost_of(target).await), Some(spend)))
    }

    /// The cheaper ways for an alert that would go to `ctx`'s chat unless `private`.
    async fn cheaper(&self, ctx: &ToolCtx, private: bool) -> Result<Vec<Cheaper>, ToolError> {
        let conversation = &ctx.conversation;
        let multi = conversation.is_multi_person();
        let direct = multi
            && !private
            && self.quota.route(conversation, ctx.user_id.as_deref(), false).await.is_some();
        let has_digest = self.store.digests().get(&conversation.id).await?.is_some();
        Ok(cheaper::ways(multi, !private, direct, has_digest))
    }

    /// The current quote of `symbol`, which also proves the symbol exists.
    async fn quote(&self, symbol: &str) -> Result<Arc<Quote>, ToolError> {
        self.quotes.quote(symbol).await.map_err(|e| match e {
            QuoteError::UnknownSymbol(s) => {
                let hint = unknown_symbol_hint(&s, &self.securities);
                ToolError::NotFound(format!("no quote found for {s}; {hint}"))
            }
            QuoteError::Upstream(e) => ToolError::upstream("the quote service", e),
        })
    }
}

/// `level`, if it is a plausible positive price.
fn checked_level(level: f64) -> Result<f64, ToolError> {
    if !level.is_finite() || level <= 0.0 {
        return Err(invalid("the level must be a positive price"));
    }
    if level > MAX_LEVEL {
        return Err(invalid(format!("{level} is not a plausible price level")));
    }
    Ok(level)
}

/// Refuses a level more than [`MAX_FACTOR`] times away from the current `price` (a typo).
fn near_price(symbol: &str, level: f64, price: f64) -> Result<(), ToolError> {
    if price > 0.0 && (level / price > MAX_FACTOR || price / level > MAX_FACTOR) {
        return Err(invalid(format!(
            "{} is more than {MAX_FACTOR}× away from {symbol}'s current price {}; check the level",
            money(level),
            money(price)
        )));
    }
    Ok(())
}

/// What the LLM is told about the new alert; `what` is its condition in English.
fn note(
    symbol: &str,
    direction: Direction,
    level: f64,
    price: f64,
    already: bool,
    what: &str,
) -> String {
    if already {
        let past = if direction == Direction::Up { "above" } else { "below" };
        format!(
            "{symbol} is already {past} {} (now {}); I'll alert on the next fresh cross, not now.",
            money(level),
            money(price)
        )
    } else {
        format!("I'll push a message to this chat when {symbol} {what}.")
    }
}
