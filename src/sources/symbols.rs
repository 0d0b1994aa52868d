//! What the family calls an instrument, turned into the Yahoo symbol the quote source knows.
//! Shared by `get_quote`, `price_alert` and `price_alerts`.
//!
//! [`resolve_symbol`] is a pure function of the input and the [Taiwan securities
//! table](super::securities), tried in this order: a hand-kept name (indices, crypto, US
//! companies in Chinese, English nicknames of Taiwan companies); a Taiwan code with or without its
//! suffix (the table knows its market: "8069" is 8069.TWO); a Taiwan security's exact name
//! ("元太"); a near name ("台積" → 台積電); a symbol as Yahoo spells it ("AAPL", "^TWII"). A
//! name that fits several securities is not guessed: the error lists them for the model to ask.

use super::securities::{Securities, Security, normalise};

/// The most candidates an ambiguous name lists.
const MAX_CANDIDATES: usize = 5;
/// Longer input is no name or symbol.
const MAX_INPUT_CHARS: usize = 40;

/// Input that names no instrument, or several.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SymbolError {
    /// Neither a known name nor a plausible symbol.
    #[error(
        "{0:?} is not a symbol or a known name; pass a Yahoo symbol such as 2330.TW, 8069.TWO, AAPL or BTC-USD, or a Taiwan stock or ETF by its code or name"
    )]
    Unknown(String),
    /// A name several securities fit.
    #[error(
        "{input:?} fits several securities: {}{}; ask the user which one they mean",
        candidates.join(", "),
        if *more > 0 { format!(" and {more} more") } else { String::new() }
    )]
    Ambiguous {
        /// What was asked.
        input: String,
        /// The first few, as "國泰金 (2882.TW)".
        candidates: Vec<String>,
        /// How many more fit.
        more: usize,
    },
}

/// Names the table cannot know, mapped to a Yahoo symbol or a Taiwan code.
const NAMES: &[(&[&str], &str)] = &[
    (&["tsmc"], "2330"),
    (&["foxconn", "hon hai"], "2317"),
    (&["mediatek"], "2454"),
    (&["中華電信", "cht"], "2412"),
    (&["台灣50"], "0050"),
    (&["高股息"], "0056"),
    (&["台股", "加權指數", "大盤", "台灣加權指數"], "^TWII"),
    (&["櫃買指數", "櫃買", "otc指數"], "^TWOII"),
    (&["蘋果", "apple"], "AAPL"),
    (&["特斯拉", "tesla"], "TSLA"),
    (&["輝達", "nvidia"], "NVDA"),
    (&["微軟", "microsoft"], "MSFT"),
    (&["谷歌", "google", "alphabet"], "GOOGL"),
    (&["亞馬遜", "amazon"], "AMZN"),
    (&["臉書", "meta", "facebook"], "META"),
    (&["道瓊", "dow jones"], "^DJI"),
    (&["那斯達克", "nasdaq"], "^IXIC"),
    (&["費半", "費城半導體"], "^SOX"),
    (&["標普", "標普500", "s&p 500", "s&p500"], "^GSPC"),
    (&["日經", "日經225"], "^N225"),
    (&["比特幣", "bitcoin", "btc"], "BTC-USD"),
    (&["以太幣", "ethereum", "eth"], "ETH-USD"),
    (&["sol", "solana"], "SOL-USD"),
    (&["狗狗幣", "doge", "dogecoin"], "DOGE-USD"),
    (&["xrp", "瑞波幣"], "XRP-USD"),
];

/// Turns what the LLM passed into a Yahoo symbol, using the Taiwan securities `table`.
pub fn resolve_symbol(input: &str, table: &Securities) -> Result<String, SymbolError> {
    let trimmed = input.trim();
    if trimmed.is_empty() || trimmed.chars().count() > MAX_INPUT_CHARS {
        return Err(SymbolError::Unknown(trimmed.chars().take(MAX_INPUT_CHARS).collect()));
    }
    let key = normalise(trimmed);
    if let Some((_, target)) =
        NAMES.iter().find(|(names, _)| names.iter().any(|name| normalise(name) == key))
    {
        return Ok(taiwan_code(target, table).unwrap_or_else(|| (*target).to_string()));
    }
    if let Some(symbol) = taiwan_code(&key, table) {
        return Ok(symbol);
    }
    let named = table.by_name(trimmed);
    if !named.is_empty() {
        return one_of(trimmed, named);
    }
    if !trimmed.is_ascii() {
        return one_of(trimmed, table.near(trimmed));
    }
    let plausible = trimmed.len() <= 20
        && trimmed.bytes().all(|b| b.is_ascii_alphanumeric() || b"^.=-".contains(&b));
    if !plausible {
        return Err(SymbolError::Unknown(trimmed.to_string()));
    }
    Ok(trimmed.to_ascii_uppercase())
}

/// A Taiwan code, with or without its suffix (`key` normalised: lower case), as a symbol on the
/// market the table knows it on ("8069.tw" is 8069.TWO). A code the table does not know keeps
/// the suffix it came with; a bare one of digits is guessed listed (`.TW`).
fn taiwan_code(key: &str, table: &Securities) -> Option<String> {
    let (code, suffix) = match key.rsplit_once('.') {
        Some((code, suffix)) if matches!(suffix, "tw" | "two") => (code, Some(suffix)),
        Some(_) => return None,
        None => (key, None),
    };
    let code = code.to_ascii_uppercase();
    let shaped = (4..=6).contains(&code.len())
        && code.starts_with(|c: char| c.is_ascii_digit())
        && code.bytes().all(|b| b.is_ascii_digit() || b.is_ascii_uppercase());
    if !shaped {
        return None;
    }
    if let Some(security) = table.by_code(&code) {
        return Some(security.symbol());
    }
    match suffix {
        Some(suffix) => Some(format!("{code}.{}", suffix.to_ascii_uppercase())),
        None => code.bytes().all(|b| b.is_ascii_digit()).then(|| format!("{code}.TW")),
    }
}

/// What to suggest when the quote source does not know `symbol`: a Taiwan code the table does
/// not know (a listing newer than the table) was guessed listed, so it may trade over the counter.
pub fn unknown_symbol_hint(symbol: &str, table: &Securities) -> String {
    let unknown_listed_code = symbol
        .strip_suffix(".TW")
        .filter(|code| code.bytes().all(|b| b.is_ascii_digit()) && table.by_code(code).is_none());
    match unknown_listed_code {
        Some(code) => format!("if it trades over the counter (TPEx), try {code}.TWO"),
        None => "check the symbol (e.g. 2330.TW, 8069.TWO, AAPL, BTC-USD)".to_string(),
    }
}

/// The one security that fits `input`, or the error listing those that do (none: unknown).
fn one_of(input: &str, mut found: Vec<&Security>) -> Result<String, SymbolError> {
    match found.len() {
        0 => Err(SymbolError::Unknown(input.to_string())),
        1 => Ok(found[0].symbol()),
        n => {
            // Shares before funds, then the shortest (the oldest) codes.
            found.sort_by(|a, b| {
                (a.kind, a.code.len(), &a.code).cmp(&(b.kind, b.code.len(), &b.code))
            });
            let candidates = found
                .iter()
                .take(MAX_CANDIDATES)
                .map(|s| format!("{} ({})", s.name, s.symbol()))
                .collect();
            let more = n.saturating_sub(MAX_CANDIDATES);
            Err(SymbolError::Ambiguous { input: input.to_string(), candidates, more })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(input: &str) -> Result<String, SymbolError> {
        resolve_symbol(input, &Securities::built_in())
    }

    fn resolves(input: &str) -> String {
        resolve(input).unwrap_or_else(|e| panic!("{input}: {e}"))
    }

    #[test]
    fn codes_resolve_to_the_market_the_table_knows() {
        assert_eq!(resolves("2330"), "2330.TW");
        assert_eq!(resolves("8069"), "8069.TWO", "元太 trades over the counter");
        assert_eq!(resolves("00878"), "00878.TW");
        assert_eq!(resolves("6488.two"), "6488.TWO");
        assert_eq!(resolves("8069.TW"), "8069.TWO", "a wrong suffix is corrected");
        assert_eq!(resolves("２３３０"), "2330.TW", "full-width digits");
    }

    #[test]
    fn codes_the_table_does_not_know_keep_their_suffix_or_are_guessed_listed() {
        assert_eq!(resolves("9998"), "9998.TW");
        assert_eq!(resolves("9998.two"), "9998.TWO");
    }

    #[test]
    fn exact_chinese_names_resolve_through_the_table() {
        assert_eq!(resolves("元太"), "8069.TWO");
        assert_eq!(resolves("台積電"), "2330.TW");
        assert_eq!(resolves("臺積電"), "2330.TW");
        assert_eq!(resolves("聯發科"), "2454.TW");
        assert_eq!(resolves("國泰永續高股息"), "00878.TW");
        assert_eq!(resolves(" 環球晶 "), "6488.TWO");
    }

    #[test]
    fn a_near_name_that_fits_one_security_resolves() {
        assert_eq!(resolves("台積"), "2330.TW");
        assert_eq!(resolves("國泰永續"), "00878.TW");
    }

    #[test]
    fn a_name_that_fits_several_comes_back_as_a_short_list() {
        let Err(SymbolError::Ambiguous { input, candidates, more }) = resolve("國泰") else {
            panic!("國泰 fits several securities");
        };
        assert_eq!(input, "國泰");
        assert_eq!(candidates.len(), MAX_CANDIDATES);
        assert!(more > 0);
        assert_eq!(candidates[0], "國泰金 (2882.TW)", "shares first: {candidates:?}");
        let message = resolve("國泰").expect_err("ambiguous").to_string();
        assert!(message.contains("ask the user which one"), "{message}");
    }

    #[test]
    fn hand_kept_names_cover_indices_crypto_us_companies_and_nicknames() {
        assert_eq!(resolves("大盤"), "^TWII");
        assert_eq!(resolves("Apple"), "AAPL");
        assert_eq!(resolves("蘋果"), "AAPL");
        assert_eq!(resolves("BTC"), "BTC-USD");
        assert_eq!(resolves("S&P 500"), "^GSPC");
        assert_eq!(resolves("TSMC"), "2330.TW");
        assert_eq!(resolves("中華電信"), "2412.TW");
        assert_eq!(resolves("^twii"), "^TWII");
        assert_eq!(resolves("aapl"), "AAPL");
    }

    #[test]
    fn a_name_and_the_yahoo_code_the_tools_offer_for_it_resolve_alike() {
        for (forms, symbol) in [
            (["BTC", "比特幣", "BTC-USD"], "BTC-USD"),
            (["ETH", "以太幣", "ETH-USD"], "ETH-USD"),
            (["加權指數", "大盤", "^TWII"], "^TWII"),
        ] {
            for form in forms {
                assert_eq!(resolves(form), symbol, "{form}");
            }
        }
    }

    #[test]
    fn an_unknown_code_guessed_listed_is_suggested_over_the_counter_when_not_found() {
        let table = Securities::built_in();
        assert!(unknown_symbol_hint("9998.TW", &table).contains("try 9998.TWO"));
        assert!(unknown_symbol_hint("2330.TW", &table).starts_with("check"), "a known listing");
        assert!(unknown_symbol_hint("ZZZZ", &table).starts_with("check the symbol"));
    }

    #[test]
    fn every_security_in_the_table_resolves_to_itself_by_code_and_by_name() {
        let table = Securities::built_in();
        for security in table.iter() {
            let symbol = security.symbol();
            assert_eq!(resolve(&security.code).ok(), Some(symbol.clone()), "{security:?}");
            assert_eq!(resolve(&security.name).ok(), Some(symbol.clone()), "{security:?}");
            assert_eq!(resolve(&symbol.to_lowercase()).ok(), Some(symbol), "{security:?}");
        }
    }

    #[test]
    fn unknown_names_and_junk_are_refused() {
        assert!(matches!(resolve(""), Err(SymbolError::Unknown(_))));
        assert!(matches!(resolve("不存在的公司名"), Err(SymbolError::Unknown(_))));
        assert!(resolve("a/../../etc").is_err());
        assert!(resolve(&"A".repeat(30)).is_err());
        assert!(resolve(&"台".repeat(500)).is_err());
    }
}
