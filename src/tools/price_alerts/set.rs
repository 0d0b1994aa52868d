//! `price_alert`: watches a symbol for this conversation and pushes a card when the price rises
//! to or falls to a level — once, or every time it crosses again. What is checked and created is
//! [`crate::features::price_alerts::ops::create`]; this tool reads the model's arguments and draws the
//! confirmation card (or, when the quota would not pay, the refusal with the cheaper ways).

use schemars::JsonSchema;
use serde::Deserialize;

use crate::contract::{Card, CardRow, Chip, Styled, Tone, Tool, ToolCtx, ToolError};
use crate::features::button::Action;
use crate::features::price_alerts::actions::CancelPriceAlert;
use crate::features::price_alerts::cheaper;
use crate::features::price_alerts::crossing::{Direction, Frequency};
use crate::features::price_alerts::describe::{condition, frequency};
use crate::features::price_alerts::ops::create::{
    COOLDOWN_S, CreatedAlert, PriceAlertCreation, PriceAlertRequest,
};
use crate::features::price_alerts::render::tone_of;
use crate::features::reminders::ops::quota_cost;
use crate::platform::format::money;
use crate::platform::i18n::Lang;

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
pub type Output = CreatedAlert;

/// The alert-creating tool.
pub struct PriceAlert {
    creation: PriceAlertCreation,
}

impl PriceAlert {
    /// The tool over the price alerts' creation.
    pub fn new(creation: PriceAlertCreation) -> Self {
        Self { creation }
    }
}

impl From<&Args> for PriceAlertRequest {
    fn from(args: &Args) -> Self {
        Self {
            symbol: args.symbol.clone(),
            direction: match args.direction {
                Way::RisesTo => Direction::Up,
                Way::FallsTo => Direction::Down,
            },
            level: args.level,
            frequency: match args.frequency {
                Some(Often::EveryTime) => Frequency::EveryTime,
                _ => Frequency::Once,
            },
            everyone: args.everyone == Some(true),
            accept_cost: args.accept_cost == Some(true),
        }
    }
}

impl Tool for PriceAlert {
    const NAME: &'static str = "price_alert";
    const CHANGES_STATE: bool = true;
    const DESCRIPTION: &'static str = "Push a message when a stock, ETF, index or crypto rises to or falls to a level (台積電漲到1500通知我, BTC 跌破 80000 跟我說). Once, or every_time it crosses again. Current price: get_quote.";
    type Args = Args;
    type Output = Output;

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        self.creation.create(ctx, &PriceAlertRequest::from(&args)).await
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let Some(id) = out.id else {
            return Some(quota_cost::over_quota_card(
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
        card.subtitle = Some(self.creation.securities().label(
            &out.terms.symbol,
            out.terms.name.as_deref(),
            lang,
        ));
        card.headline = Some(Styled {
            text: condition(out.terms.direction, out.terms.level, lang),
            tone: None,
        });
        let currency = out.currency.as_deref().unwrap_or("");
        card.rows.push(
            CardRow::new(
                lang.pick("現價", "Now"),
                format!("{} {currency}", money(out.current_price)).trim().to_string(),
            )
            .toned(tone_of(out.current_price - out.terms.level).filter(|_| out.already_past_level)),
        );
        card.rows.push(CardRow::new(
            lang.pick("頻率", "Repeats"),
            frequency(out.terms.frequency, COOLDOWN_S, lang),
        ));
        if out.delivered_privately {
            card.rows.push(CardRow::new(
                lang.pick("送到", "Arrives"),
                lang.pick("私訊（一對一聊天）", "in your 1:1 chat with me"),
            ));
        }
        if let (Some(cost), Some(spend)) = (out.messages_per_fire, &out.spend) {
            let each = match lang {
                Lang::ZhTw => format!("每次通知 {cost} 則，{}", quota_cost::line(spend, lang)),
                Lang::En => format!("{cost} messages each time; {}", quota_cost::line(spend, lang)),
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
            format!("{} {}", lang.pick("❌ 取消價格通知", "❌ Cancel alert"), out.terms.symbol),
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
        let label =
            self.creation.securities().label(&out.terms.symbol, out.terms.name.as_deref(), lang);
        format!("{label} {}", condition(out.terms.direction, out.terms.level, lang))
    }
}
