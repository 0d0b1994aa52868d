//! `price_alert`: watches a symbol for this conversation and pushes a card when the price rises
//! to or falls to a level — once, or every time it crosses again. The symbol is checked against
//! the quote source first; if the condition already holds, the reply says so and the alert waits
//! for a fresh cross. An every-time alert's confirmation says what it will cost a month of LINE's
//! quota; one that would push the month over what is left is not created until the family accepts
//! or picks a cheaper way (the same rule as a repeating reminder, [`crate::features::reminders::spend`]).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Card, CardRow, Chip, Styled, Tone, Tool, ToolCtx, ToolError};
use crate::features::alerts::actions::CancelPriceAlert;
use crate::features::alerts::cheaper::{self, Cheaper};
use crate::features::alerts::crossing::{Direction, Frequency, Side};
use crate::features::alerts::describe::{condition, frequency};
use crate::features::alerts::render::tone_of;
use crate::features::button::Action;
use crate::features::reminders::spend::{self, Plan, Spend};
use crate::platform::format::money;
use crate::platform::i18n::Lang;
use crate::push::quota::QuotaTracker;
use crate::sources::calendar::WorkCalendar;
use crate::sources::quotes::{Quote, QuoteError, QuoteSource};
use crate::sources::securities::{Securities, TaiwanName};
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

/// Which way the price must go.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Way {
    /// The price rises to (or above) the level: 漲到、漲破、突破、站上.
    RisesTo,
    /// The price falls to (or below) the level: 跌到、跌破、低於.
    FallsTo,
}

/// How often to alert.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Often {
    /// Once, then the alert ends (the default).
    Once,
    /// Every time the price crosses the level again (at most once an hour).
    EveryTime,
}

/// Arguments of `price_alert`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// As for get_quote ("台積電", "BTC-USD").
    pub symbol: String,
    /// rises_to (漲到, 突破) or falls_to (跌到, 跌破).
    pub direction: Way,
    /// In the instrument's currency (TWD for Taiwan, USD for US and crypto).
    pub level: f64,
    /// once (default), or every_time (每次): on each re-cross, at most hourly.
    pub frequency: Option<Often>,
    /// true when it is for everyone (通知大家): pushed to the group; null for the asker's own, pushed to their 1:1 chat.
    #[schemars(extend("x-group-only" = true))]
    pub everyone: Option<bool>,
    /// true only after the user accepted a quota warning.
    pub accept_cost: Option<bool>,
}

/// The result of `price_alert`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The alert's id (for `price_alerts` cancel); `null` when it was not created because it would exceed this month's LINE message quota (see `spend`): tell the user and offer the `cheaper` ways or `accept_cost`.
    pub id: Option<i64>,
    /// The symbol watched.
    pub symbol: String,
    /// The instrument's name.
    pub name: Option<String>,
    /// A Taiwan security's Chinese short name and market.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taiwan: Option<TaiwanName>,
    /// `up` or `down`.
    pub direction: Direction,
    /// The level.
    pub level: f64,
    /// `once` or `every_time`.
    pub frequency: Frequency,
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
    pub spend: Option<Spend>,
    /// Not created: the cheaper ways to offer.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cheaper: Vec<Cheaper>,
    /// Set when the chat has quiet hours: a fire inside them waits until this local time
    /// (`07:00`); say so in the confirmation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quiet_hours_end: Option<String>,
}

/// The alert-creating tool.
pub struct PriceAlert {
    store: Store,
    quotes: QuoteSource,
    securities: Arc<Securities>,
    quota: QuotaTracker,
    work_calendar: WorkCalendar,
}

impl PriceAlert {
    /// The tool over the store, the shared quote source and the Taiwan securities table;
    /// `quota` tells what a push into the chat costs and what is left this month (workday
    /// reminders in the projection follow `work_calendar`).
    pub fn new(
        store: Store,
        quotes: QuoteSource,
        securities: Arc<Securities>,
        quota: QuotaTracker,
        work_calendar: WorkCalendar,
    ) -> Self {
        Self { store, quotes, securities, quota, work_calendar }
    }

    /// What an every-time alert pushed to `target` costs a fire and is expected to spend.
    async fn spend(
        &self,
        freq: Frequency,
        target: &str,
        now: jiff::Timestamp,
    ) -> Result<(Option<i64>, Option<Spend>), ToolError> {
        if freq == Frequency::Once {
            return Ok((None, None));
        }
        let plan = Plan::EveryTimeAlert;
        let spend = spend::estimate(&self.quota, plan, &self.work_calendar, target, now).await?;
        Ok((Some(self.quota.cost_of(target).await), Some(spend)))
    }

    /// The cheaper ways for an alert that would go to `ctx`'s chat unless `private`.
    async fn cheaper(&self, ctx: &ToolCtx, private: bool) -> Result<Vec<Cheaper>, ToolError> {
        let conversation = &ctx.conversation;
        let multi = conversation.is_multi_person();
        let direct = multi
            && !private
            && self.quota.route(conversation, ctx.user_id.as_deref(), false).await.is_some();
        let has_digest = self.store.digest(&conversation.id).await?.is_some();
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

fn invalid(msg: impl Into<String>) -> ToolError {
    ToolError::InvalidArgs(msg.into())
}

impl Tool for PriceAlert {
    const NAME: &'static str = "price_alert";
    const CHANGES_STATE: bool = true;
    const DESCRIPTION: &'static str = "Push a message when a stock, ETF, index or crypto rises to or falls to a level (台積電漲到1500通知我, BTC 跌破 80000 跟我說). Once, or every_time it crosses again. Current price: get_quote.";
    type Args = Args;
    type Output = Output;

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let symbol = resolve_symbol(&args.symbol, &self.securities)?;
        let level = checked_level(args.level)?;
        let quote = self.quote(&symbol).await?;
        let price = quote.price;
        near_price(&symbol, level, price)?;
        let conversation = &ctx.conversation.id;
        let (direction, freq) = rule(&args);
        let side = Side::initial(price, level);
        let already = side == direction.target();
        let deliver_to = self
            .quota
            .route(&ctx.conversation, ctx.user_id.as_deref(), args.everyone == Some(true))
            .await;
        let target = deliver_to.as_deref().unwrap_or(conversation);
        let now = ctx.now();
        let (messages_per_fire, spend) = self.spend(freq, target, now).await?;
        let what = condition(direction, level, crate::platform::i18n::Lang::En);
        let out = Output {
            id: None,
            name: quote.name.clone(),
            taiwan: self.securities.taiwan_name(&symbol),
            symbol: symbol.clone(),
            direction,
            level,
            frequency: freq,
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
            quiet_hours_end: self.store.quiet_hours(target).await?.map(|q| q.end_local),
        };
        if spend.is_some_and(|s| s.over_quota) && args.accept_cost != Some(true) {
            let note = "Not created: its expected fires would exceed what is left of this month's LINE message quota. Tell the user and offer the cheaper ways, or accept_cost if they still want it.".to_string();
            let cheaper = self.cheaper(ctx, deliver_to.is_some()).await?;
            return Ok(Output { note, cheaper, ..out });
        }
        let created = self
            .store
            .create_alert(&NewAlert {
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
        Ok(Output { id: Some(id), ..out })
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let Some(id) = out.id else {
            return Some(spend::over_quota_card(
                lang.pick(
                    "⚠️ 這個價格通知會超過本月訊息額度",
                    "⚠️ This alert would exceed this month's messages",
                ),
                &self.what(out, lang),
                out.spend.as_ref(),
                &cheaper::line(&out.cheaper, lang),
                lang,
            ));
        };
        let mut card = Card::new(lang.pick("🔔 價格通知已設定", "🔔 Price alert set"));
        card.subtitle = Some(self.securities.label(&out.symbol, out.name.as_deref(), lang));
        card.headline =
            Some(Styled { text: condition(out.direction, out.level, lang), tone: None });
        let currency = out.currency.as_deref().unwrap_or("");
        card.rows.push(
            CardRow::new(
                lang.pick("現價", "Now"),
                format!("{} {currency}", money(out.current_price)).trim().to_string(),
            )
            .toned(tone_of(out.current_price - out.level).filter(|_| out.already_past_level)),
        );
        card.rows.push(CardRow::new(
            lang.pick("頻率", "Repeats"),
            frequency(out.frequency, COOLDOWN_S, lang),
        ));
        if out.delivered_privately {
            card.rows.push(CardRow::new(
                lang.pick("送到", "Arrives"),
                lang.pick("私訊（一對一聊天）", "in your 1:1 chat with me"),
            ));
        }
        if let (Some(cost), Some(spend)) = (out.messages_per_fire, &out.spend) {
            let each = match lang {
                Lang::ZhTw => format!("每次通知 {cost} 則，{}", spend::line(spend, lang)),
                Lang::En => format!("{cost} messages each time; {}", spend::line(spend, lang)),
            };
            card.rows.push(
                CardRow::new(lang.pick("額度", "Quota"), each)
                    .toned(spend.over_quota.then_some(Tone::Warning)),
            );
        }
        if out.already_past_level {
            card.rows.push(
                CardRow::new(
                    "⚠️",
                    lang.pick(
                        "現價已經超過這個價位，下次重新穿越時才會通知",
                        "Already past this level; I'll alert on the next cross",
                    ),
                )
                .toned(Some(Tone::Warning)),
            );
        }
        if let Some(until) = &out.quiet_hours_end {
            card.rows.push(CardRow::new(
                "🌙",
                match lang {
                    crate::platform::i18n::Lang::ZhTw => {
                        format!("勿擾時段內觸發時，會等到 {until} 再通知")
                    }
                    crate::platform::i18n::Lang::En => {
                        format!("Inside quiet hours it waits until {until}")
                    }
                },
            ));
        }
        card.buttons.push(CancelPriceAlert { id }.button(
            lang.pick("❌ 取消通知", "❌ Cancel alert"),
            format!("{} {}", lang.pick("❌ 取消價格通知", "❌ Cancel alert"), out.symbol),
        ));
        Some(card)
    }

    fn quick_replies(&self, ctx: &ToolCtx, out: &Output) -> Vec<Chip> {
        match out.id {
            Some(_) => Vec::new(),
            None => cheaper::chips(&out.cheaper, &self.what(out, ctx.lang), ctx.lang),
        }
    }
}

impl PriceAlert {
    /// The alert in words: "台積電 漲到 1,500".
    fn what(&self, out: &Output, lang: Lang) -> String {
        let label = self.securities.label(&out.symbol, out.name.as_deref(), lang);
        format!("{label} {}", condition(out.direction, out.level, lang))
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

/// The direction and frequency asked for.
fn rule(args: &Args) -> (Direction, Frequency) {
    let direction = match args.direction {
        Way::RisesTo => Direction::Up,
        Way::FallsTo => Direction::Down,
    };
    let freq = match args.frequency {
        Some(Often::EveryTime) => Frequency::EveryTime,
        _ => Frequency::Once,
    };
    (direction, freq)
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
