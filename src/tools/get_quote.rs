//! `get_quote`: the price of a stock, ETF, index or cryptocurrency, with a card whose change is
//! coloured by the family's convention and a chip that converts the price to TWD. Taiwan
//! securities are found by code or name through the securities table and titled the way the
//! family says them ("台積電 2330").

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::chart::{ChartSpec, Period};
use crate::contract::{Card, CardRow, Chip, Styled, Tone, Tool, ToolCtx, ToolError};
use crate::platform::format::money;
use crate::platform::i18n::Lang;
use crate::sources::quotes::{QuoteError, QuoteSource};
use crate::sources::securities::{Securities, TaiwanName};
use crate::sources::symbols::{resolve_symbol, unknown_symbol_hint};

/// Arguments of `get_quote`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// A Taiwan code or name ("2330", "台積電"), else a Yahoo symbol: "AAPL"; indexes "^TWII" (加權指數, 大盤), "^GSPC"; crypto "BTC-USD" (比特幣), "ETH-USD".
    pub symbol: String,
    /// "month" for the recent trend (這個月走勢); null for today.
    pub chart: Option<ChartPeriod>,
}

/// The stretch a quote's chart covers.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChartPeriod {
    /// Today, every five minutes.
    #[default]
    Day,
    /// The last month, a point a trading day.
    Month,
}

/// The result of `get_quote`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The symbol.
    pub symbol: String,
    /// The instrument's name, from the quote source.
    pub name: Option<String>,
    /// A Taiwan security's Chinese short name ("台積電") and market (TWSE or TPEx).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taiwan: Option<TaiwanName>,
    /// The last price.
    pub price: f64,
    /// Its currency.
    pub currency: Option<String>,
    /// The change since the previous close.
    pub change: Option<f64>,
    /// The change in percent.
    pub change_pct: Option<f64>,
    /// Day low.
    pub day_low: Option<f64>,
    /// Day high.
    pub day_high: Option<f64>,
    /// When the price was set, local time of the conversation.
    pub as_of: Option<String>,
    /// Whether the market is in its regular session now (None for crypto, which never closes).
    pub market_open: Option<bool>,
    /// The stretch of the card's chart.
    #[serde(skip)]
    pub chart: Period,
}

/// The quote tool.
pub struct GetQuote {
    source: QuoteSource,
    securities: Arc<Securities>,
}

impl GetQuote {
    /// The tool over a quote source and the Taiwan securities table.
    pub fn new(source: QuoteSource, securities: Arc<Securities>) -> Self {
        Self { source, securities }
    }
}

impl Tool for GetQuote {
    const NAME: &'static str = "get_quote";
    const DESCRIPTION: &'static str = "Current price and today's change of a stock, ETF, index or crypto (Taiwan, US; crypto in USD): 股價, 指數, 比特幣. For another currency (0.1 BTC 換台幣) also call fx from USD (amount 1) in the same round and multiply.";
    type Args = Args;
    type Output = Output;

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let symbol = resolve_symbol(&args.symbol, &self.securities)?;
        let quote = self.source.quote(&symbol).await.map_err(|e| match e {
            QuoteError::UnknownSymbol(s) => {
                let hint = unknown_symbol_hint(&s, &self.securities);
                ToolError::NotFound(format!("no quote found for {s}; {hint}"))
            }
            QuoteError::Upstream(e) => ToolError::upstream("the quote service", e),
        })?;
        let change = quote.previous_close.map(|prev| quote.price - prev);
        let change_pct = quote
            .previous_close
            .filter(|prev| *prev != 0.0)
            .map(|prev| (quote.price - prev) / prev * 100.0);
        let now = ctx.now().as_second();
        let crypto = quote.instrument_type.as_deref() == Some("CRYPTOCURRENCY");
        let market_open =
            (!crypto).then(|| quote.session.is_some_and(|(start, end)| start <= now && now < end));
        let as_of = quote.market_time.and_then(|s| {
            let ts = jiff::Timestamp::from_second(s).ok()?;
            Some(ts.to_zoned_datetime(ctx.tz.clone()).strftime("%Y-%m-%d %H:%M").to_string())
        });
        let taiwan = self.securities.taiwan_name(&quote.symbol);
        Ok(Output {
            symbol: quote.symbol.clone(),
            name: quote.name.clone(),
            taiwan,
            price: quote.price,
            currency: quote.currency.clone(),
            change,
            change_pct,
            day_low: quote.day_range.map(|r| r.0),
            day_high: quote.day_range.map(|r| r.1),
            as_of,
            market_open,
            chart: match args.chart.unwrap_or_default() {
                ChartPeriod::Day => Period::Day,
                ChartPeriod::Month => Period::Month,
            },
        })
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let mut card = Card::new(self.securities.title(&out.symbol, out.name.as_deref(), lang));
        card.subtitle = Some(out.symbol.clone());
        let currency = out.currency.as_deref().unwrap_or("");
        let tone = out.change.and_then(|c| {
            if c > 0.0 {
                Some(Tone::Up)
            } else if c < 0.0 {
                Some(Tone::Down)
            } else {
                None
            }
        });
        card.headline = Some(Styled { text: format!("{} {currency}", money(out.price)), tone });
        if let (Some(c), Some(p)) = (out.change, out.change_pct) {
            let arrow = if c > 0.0 {
                "▲"
            } else if c < 0.0 {
                "▼"
            } else {
                "–"
            };
            card.rows.push(
                CardRow::new(
                    lang.pick("漲跌", "Change"),
                    format!("{arrow} {} ({p:+.2}%)", money(c.abs())),
                )
                .toned(tone),
            );
        }
        if let (Some(lo), Some(hi)) = (out.day_low, out.day_high) {
            card.rows.push(CardRow::new(
                lang.pick("今日區間", "Day range"),
                format!("{} – {}", money(lo), money(hi)),
            ));
        }
        if let Some(open) = out.market_open {
            let state = if open {
                lang.pick("交易中", "Open")
            } else {
                lang.pick("已收盤", "Closed")
            };
            card.rows.push(CardRow::new(lang.pick("市場", "Market"), state));
        }
        card.footnote =
            out.as_of.as_ref().map(|t| format!("{} {t}", lang.pick("資料時間", "As of")));
        card.chart =
            Some(ChartSpec::Price { symbol: out.symbol.clone(), period: out.chart, level: None });
        Some(card)
    }

    fn quick_replies(&self, ctx: &ToolCtx, out: &Output) -> Vec<Chip> {
        let Some(currency) = out.currency.as_deref().filter(|c| *c != "TWD") else {
            return Vec::new();
        };
        let price = money(out.price).replace(',', "");
        match ctx.lang {
            Lang::ZhTw => {
                vec![Chip::new("換算台幣", format!("{price} {currency} 換算台幣是多少？"))]
            }
            Lang::En => vec![Chip::new("In TWD", format!("Convert {price} {currency} to TWD"))],
        }
    }
}
