//! `fx`: converts an amount between fiat currencies. Crypto belongs to `get_quote`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Card, CardRow, Chip, Styled, Tool, ToolCtx, ToolError};
use crate::platform::format::money;
use crate::platform::i18n::Lang;
use crate::sources::fx::FxSource;

/// Arguments of `fx`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// Default 1.
    pub amount: Option<f64>,
    /// ISO code, e.g. "USD" (美金).
    pub from: String,
    /// ISO code; "TWD" when not said.
    pub to: String,
}

/// The result of `fx`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The amount converted.
    pub amount: f64,
    /// From this currency.
    pub from: String,
    /// To this currency.
    pub to: String,
    /// Units of `to` per one `from`.
    pub rate: f64,
    /// `amount × rate`.
    pub result: f64,
    /// When the provider last updated its rates, local time.
    pub rates_as_of: Option<String>,
    /// Where the rates come from.
    pub source: &'static str,
}

/// The currency conversion tool.
pub struct Fx {
    source: FxSource,
}

impl Fx {
    /// The tool over a rate source.
    pub fn new(source: FxSource) -> Self {
        Self { source }
    }
}

/// Everyday names for currencies, mapped to their codes (models sometimes pass the name).
const NAMES: &[(&str, &str)] = &[
    ("台幣", "TWD"),
    ("新台幣", "TWD"),
    ("臺幣", "TWD"),
    ("美金", "USD"),
    ("美元", "USD"),
    ("日圓", "JPY"),
    ("日幣", "JPY"),
    ("日元", "JPY"),
    ("歐元", "EUR"),
    ("人民幣", "CNY"),
    ("港幣", "HKD"),
    ("韓元", "KRW"),
    ("韓幣", "KRW"),
    ("英鎊", "GBP"),
    ("澳幣", "AUD"),
];

const CRYPTO: &[&str] = &["BTC", "ETH", "USDT", "USDC", "SOL", "XRP", "DOGE", "BNB", "ADA"];

fn currency_code(input: &str) -> Result<String, ToolError> {
    let trimmed = input.trim();
    if let Some((_, code)) = NAMES.iter().find(|(name, _)| *name == trimmed) {
        return Ok((*code).to_string());
    }
    let code = trimmed.to_ascii_uppercase();
    if CRYPTO.contains(&code.as_str()) {
        return Err(ToolError::InvalidArgs(format!(
            "{code} is a cryptocurrency; use get_quote (e.g. {code}-USD) instead"
        )));
    }
    if code.len() != 3 || !code.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(ToolError::InvalidArgs(format!(
            "{trimmed:?} is not an ISO 4217 currency code"
        )));
    }
    Ok(code)
}

impl Tool for Fx {
    const NAME: &'static str = "fx";
    const DESCRIPTION: &'static str = "Convert fiat currencies (USD, TWD, JPY, EUR…) at today's rate. Does NOT handle cryptocurrencies (BTC, USDT…): get_quote.";
    type Args = Args;
    type Output = Output;

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let amount = args.amount.unwrap_or(1.0);
        if !amount.is_finite() || amount <= 0.0 || amount > 1e15 {
            return Err(ToolError::InvalidArgs("amount must be a positive number".into()));
        }
        let from = currency_code(&args.from)?;
        let to = currency_code(&args.to)?;
        let table = self
            .source
            .rates()
            .await
            .map_err(|e| ToolError::upstream("the exchange-rate service", e))?;
        let rate = table.rate(&from, &to).ok_or_else(|| {
            let unknown = if table.rates.contains_key(&from) { &to } else { &from };
            ToolError::NotFound(format!("no exchange rate is available for {unknown}"))
        })?;
        let rates_as_of = table.time_last_update_unix.and_then(|s| {
            let ts = jiff::Timestamp::from_second(s).ok()?;
            Some(ts.to_zoned_datetime(ctx.tz.clone()).strftime("%Y-%m-%d %H:%M").to_string())
        });
        Ok(Output {
            amount,
            from,
            to,
            rate,
            result: amount * rate,
            rates_as_of,
            source: "ExchangeRate-API",
        })
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let mut card = Card::new(lang.pick("匯率換算", "Currency conversion"));
        card.subtitle = Some(format!("{} → {}", out.from, out.to));
        card.headline = Some(Styled {
            text: format!("{} {} = {} {}", money(out.amount), out.from, money(out.result), out.to),
            tone: None,
        });
        card.rows.push(CardRow::new(
            lang.pick("匯率", "Rate"),
            format!("1 {} = {} {}", out.from, precise(out.rate), out.to),
        ));
        if let Some(asof) = &out.rates_as_of {
            card.rows.push(CardRow::new(lang.pick("更新時間", "As of"), asof.clone()));
        }
        card.footnote = Some(format!("Rates by {}", out.source));
        Some(card)
    }

    fn quick_replies(&self, ctx: &ToolCtx, out: &Output) -> Vec<Chip> {
        match ctx.lang {
            Lang::ZhTw => vec![Chip::new(
                format!("1 {} 換 {}", out.to, out.from),
                format!("1 {} 可以換多少 {}？", out.to, out.from),
            )],
            Lang::En => vec![Chip::new(
                format!("1 {} in {}", out.to, out.from),
                format!("How much is 1 {} in {}?", out.to, out.from),
            )],
        }
    }
}

fn precise(rate: f64) -> String {
    if rate >= 100.0 { format!("{rate:.2}") } else { format!("{rate:.4}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn currency_names_and_codes_are_accepted() {
        assert_eq!(currency_code("美金").ok().as_deref(), Some("USD"));
        assert_eq!(currency_code("twd").ok().as_deref(), Some("TWD"));
    }

    #[test]
    fn crypto_is_refused_with_a_pointer_to_get_quote() {
        let err = currency_code("BTC").expect_err("crypto is not fiat");
        assert!(err.to_string().contains("get_quote"));
        assert!(currency_code("dollars").is_err());
    }
}
