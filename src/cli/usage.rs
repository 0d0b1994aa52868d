//! `hearth usage`: what each chat cost in a month — its turns, its LLM tokens (input, of which
//! cached by the provider, and output) and, when the prices are set (`HEARTH_LLM_PRICE_INPUT`,
//! `HEARTH_LLM_PRICE_CACHED`, `HEARTH_LLM_PRICE_OUTPUT`, US$ per million tokens), the money. `hearth
//! doctor` shows the month so far with [`month_line`].

use crate::features::budget::Spent;
use crate::platform::config::Config;
use crate::platform::conversation::Conversation;
use crate::store::{ChatUsage, SERVICE_SCOPE, StoreError, TokenParts};

/// What the LLM charges, in US$ per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prices {
    /// Input tokens not served from the cache.
    pub input: f64,
    /// Input tokens served from the provider's prompt cache.
    pub cached: f64,
    /// Output tokens.
    pub output: f64,
}

impl Prices {
    /// The configured prices, when all three are set.
    pub fn from_config(config: &Config) -> Option<Self> {
        Some(Self {
            input: config.llm.llm_price_input?,
            cached: config.llm.llm_price_cached?,
            output: config.llm.llm_price_output?,
        })
    }

    /// What `parts` cost, in US$: the uncached input, the cached input and the output, each at
    /// its price.
    pub fn cost(&self, parts: &TokenParts) -> f64 {
        let uncached = parts.input.saturating_sub(parts.cached) as f64;
        (uncached * self.input
            + parts.cached as f64 * self.cached
            + parts.output as f64 * self.output)
            / 1_000_000.0
    }
}

/// A month as `hearth usage --month` takes it: `YYYY-MM`, month 01 to 12.
pub fn month(value: &str) -> Result<String, String> {
    let bad = || format!("{value:?} is not a month like 2026-12");
    let (year, month) = value.split_once('-').ok_or_else(bad)?;
    let year_ok = year.len() == 4 && year.bytes().all(|b| b.is_ascii_digit());
    let month_ok = month.len() == 2 && month.parse::<u8>().is_ok_and(|m| (1..=12).contains(&m));
    if year_ok && month_ok { Ok(value.to_string()) } else { Err(bad()) }
}

/// The share of the input served from the cache, as a whole percentage.
fn cached_share(parts: &TokenParts) -> u64 {
    (parts.cached * 100).checked_div(parts.input).unwrap_or(0)
}

/// The table `hearth usage` prints for `month`: one line a chat (the busiest first), then the
/// total; a cost column when `prices` are known.
pub fn render(month: &str, rows: &[ChatUsage], prices: Option<Prices>) -> String {
    let mut chats: Vec<&ChatUsage> = rows.iter().filter(|r| r.scope != SERVICE_SCOPE).collect();
    if chats.is_empty() {
        return format!("no LLM use recorded in {month}\n");
    }
    chats.sort_by(|a, b| b.parts.input.cmp(&a.parts.input).then(a.scope.cmp(&b.scope)));
    let total =
        rows.iter().find(|r| r.scope == SERVICE_SCOPE).map(|r| r.parts).unwrap_or_else(|| {
            let mut sum = TokenParts::default();
            chats.iter().for_each(|c| sum.add(c.parts));
            sum
        });
    let money = |parts: &TokenParts| match prices {
        Some(p) => format!(" {:>9}", format!("${:.4}", p.cost(parts))),
        None => String::new(),
    };
    let mut out = format!(
        "{:<35} {:<5} {:>6} {:>12} {:>12} {:>7} {:>10}{}\n",
        format!("chat ({month})"),
        "kind",
        "turns",
        "input",
        "cached",
        "cached%",
        "output",
        if prices.is_some() { format!(" {:>9}", "US$") } else { String::new() },
    );
    let line = |name: &str, kind: &str, p: &TokenParts| {
        format!(
            "{name:<35} {kind:<5} {:>6} {:>12} {:>12} {:>6}% {:>10}{}\n",
            p.turns,
            p.input,
            p.cached,
            cached_share(p),
            p.output,
            money(p)
        )
    };
    for chat in chats {
        let kind =
            if Conversation::from_id(&chat.scope).is_multi_person() { "group" } else { "1:1" };
        out.push_str(&line(&chat.scope, kind, &chat.parts));
    }
    out.push_str(&line("all chats", "", &total));
    if prices.is_none() {
        out.push_str(
            "(set HEARTH_LLM_PRICE_INPUT, HEARTH_LLM_PRICE_CACHED and HEARTH_LLM_PRICE_OUTPUT, US$ per million tokens, to see the cost)\n",
        );
    }
    out
}

/// `hearth usage`: the table for `month` from the tokens `spent`.
pub async fn report(
    spent: &Spent,
    month: &str,
    prices: Option<Prices>,
) -> Result<String, StoreError> {
    Ok(render(month, &spent.month(month).await?, prices))
}

/// One line for `hearth doctor`: the month so far, all chats together.
pub fn month_line(month: &str, rows: &[ChatUsage], prices: Option<Prices>) -> String {
    let mut total = TokenParts::default();
    rows.iter().filter(|r| r.scope != SERVICE_SCOPE).for_each(|r| total.add(r.parts));
    let cost = prices.map(|p| format!(", US${:.2}", p.cost(&total))).unwrap_or_default();
    format!(
        "{month} so far: {} turns, {} input tokens ({}% cached), {} output{cost}",
        total.turns,
        total.input,
        cached_share(&total),
        total.output
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(scope: &str, turns: u64, input: u64, cached: u64, output: u64) -> ChatUsage {
        ChatUsage { scope: scope.into(), parts: TokenParts { turns, input, cached, output } }
    }

    const MINI: Prices = Prices { input: 0.15, cached: 0.075, output: 0.60 };

    #[test]
    fn the_cost_charges_cached_input_at_its_own_price() {
        let parts = TokenParts { turns: 1, input: 1_000_000, cached: 800_000, output: 100_000 };
        let cost = MINI.cost(&parts);
        assert!((cost - (0.03 + 0.06 + 0.06)).abs() < 1e-9, "{cost}");
    }

    #[test]
    fn each_chat_has_a_line_the_busiest_first_then_the_total_with_money_only_when_priced() {
        let rows = [
            row("Uaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 10, 50_000, 40_000, 800),
            row("C0123456789abcdef0123456789abcdef", 20, 120_000, 100_000, 2_000),
            row(SERVICE_SCOPE, 30, 170_000, 140_000, 2_800),
        ];
        let priced = render("2026-12", &rows, Some(MINI));
        let lines: Vec<&str> = priced.lines().collect();
        assert!(lines[0].contains("chat (2026-12)") && lines[0].contains("US$"), "{priced}");
        assert!(lines[1].starts_with("C0123") && lines[1].contains("group"), "{priced}");
        assert!(lines[2].starts_with("Uaaaa") && lines[2].contains("1:1"), "{priced}");
        assert!(lines[3].starts_with("all chats") && lines[3].contains("170000"), "{priced}");
        assert!(lines[3].contains("82%") && lines[3].contains("$0.0167"), "{priced}");
        let unpriced = render("2026-12", &rows, None);
        let header = unpriced.lines().next().unwrap_or_default();
        assert!(
            !header.contains("US$") && unpriced.contains("HEARTH_LLM_PRICE_INPUT"),
            "{unpriced}"
        );
        assert_eq!(render("2026-11", &[], None), "no LLM use recorded in 2026-11\n");
    }

    #[test]
    fn a_month_is_four_digits_a_dash_and_01_to_12() {
        assert_eq!(month("2026-12").as_deref(), Ok("2026-12"));
        for bad in ["2026-13", "2026-1", "26-12", "2026/12", "2026-00", "december", ""] {
            assert!(month(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_doctor_line_sums_the_chats() {
        let rows = [row("Ua", 2, 1000, 500, 10), row("Cb", 1, 1000, 0, 10)];
        assert_eq!(
            month_line("2026-12", &rows, None),
            "2026-12 so far: 3 turns, 2000 input tokens (25% cached), 20 output"
        );
        assert!(month_line("2026-12", &rows, Some(MINI)).ends_with(", US$0.00"));
    }
}
