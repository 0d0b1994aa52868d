//! What the family calls an instrument, turned into the Yahoo symbol the quote source knows:
//! well-known names ("台積電", "Apple", "比特幣"), bare Taiwan stock codes ("2330") and symbols.
//! Shared by `get_quote`, `price_alert` and `cancel_price_alert`.

/// Input that is neither a known name nor a plausible symbol.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a symbol; pass a Yahoo symbol such as 2330.TW, AAPL or BTC-USD")]
pub struct SymbolError(pub String);

/// Well-known names, mapped to symbols.
const NAMES: &[(&[&str], &str)] = &[
    (&["台積電", "臺積電", "tsmc"], "2330.TW"),
    (&["鴻海", "foxconn"], "2317.TW"),
    (&["聯發科", "mediatek"], "2454.TW"),
    (&["台達電"], "2308.TW"),
    (&["中華電", "中華電信"], "2412.TW"),
    (&["富邦金"], "2881.TW"),
    (&["國泰金"], "2882.TW"),
    (&["元大台灣50", "台灣50"], "0050.TW"),
    (&["高股息", "元大高股息"], "0056.TW"),
    (&["台股", "加權指數", "大盤"], "^TWII"),
    (&["蘋果", "apple"], "AAPL"),
    (&["特斯拉", "tesla"], "TSLA"),
    (&["輝達", "nvidia"], "NVDA"),
    (&["微軟", "microsoft"], "MSFT"),
    (&["谷歌", "google", "alphabet"], "GOOGL"),
    (&["亞馬遜", "amazon"], "AMZN"),
    (&["道瓊", "dow jones"], "^DJI"),
    (&["那斯達克", "nasdaq"], "^IXIC"),
    (&["標普", "標普500", "s&p 500", "s&p500"], "^GSPC"),
    (&["比特幣", "bitcoin", "btc"], "BTC-USD"),
    (&["以太幣", "ethereum", "eth"], "ETH-USD"),
    (&["sol", "solana"], "SOL-USD"),
    (&["狗狗幣", "doge", "dogecoin"], "DOGE-USD"),
    (&["xrp", "瑞波幣"], "XRP-USD"),
];

/// Turns what the LLM passed into a Yahoo symbol.
pub fn resolve_symbol(input: &str) -> Result<String, SymbolError> {
    let trimmed = input.trim();
    let lower = trimmed.to_lowercase();
    if let Some((_, symbol)) = NAMES.iter().find(|(names, _)| names.contains(&lower.as_str())) {
        return Ok((*symbol).to_string());
    }
    if (4..=6).contains(&trimmed.len()) && trimmed.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(format!("{trimmed}.TW"));
    }
    let valid = !trimmed.is_empty()
        && trimmed.len() <= 20
        && trimmed.bytes().all(|b| b.is_ascii_alphanumeric() || b"^.=-".contains(&b));
    if !valid {
        return Err(SymbolError(trimmed.to_string()));
    }
    Ok(trimmed.to_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_resolve_to_yahoo_symbols() {
        assert_eq!(resolve_symbol("台積電").ok().as_deref(), Some("2330.TW"));
        assert_eq!(resolve_symbol("Apple").ok().as_deref(), Some("AAPL"));
        assert_eq!(resolve_symbol("BTC").ok().as_deref(), Some("BTC-USD"));
        assert_eq!(resolve_symbol("2330").ok().as_deref(), Some("2330.TW"));
        assert_eq!(resolve_symbol("6488.two").ok().as_deref(), Some("6488.TWO"));
        assert_eq!(resolve_symbol("^twii").ok().as_deref(), Some("^TWII"));
    }

    #[test]
    fn junk_symbols_are_refused() {
        assert!(resolve_symbol("").is_err());
        assert!(resolve_symbol("a/../../etc").is_err());
        assert!(resolve_symbol(&"A".repeat(30)).is_err());
    }
}
