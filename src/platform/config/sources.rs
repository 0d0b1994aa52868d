//! Data sources: weather, exchange rates, quotes and the securities table, and how they are asked.

use clap::Args;

/// The data sources of weather, rates and quotes.
#[derive(Debug, Clone, Args)]
pub struct SourceSettings {
    /// Base URL of the Open-Meteo forecast API.
    #[arg(
        long,
        env = "HEARTH_OPEN_METEO_URL",
        default_value = "https://api.open-meteo.com",
        global = true
    )]
    pub open_meteo_url: String,
    /// Base URL of the Open-Meteo geocoding API.
    #[arg(
        long,
        env = "HEARTH_GEOCODING_URL",
        default_value = "https://geocoding-api.open-meteo.com",
        global = true
    )]
    pub geocoding_url: String,
    /// Base URL of the exchange-rate API (open.er-api.com shape).
    #[arg(long, env = "HEARTH_FX_URL", default_value = "https://open.er-api.com", global = true)]
    pub fx_url: String,
    /// Base URL of the Yahoo Finance chart API.
    #[arg(
        long,
        env = "HEARTH_YAHOO_URL",
        default_value = "https://query1.finance.yahoo.com",
        global = true
    )]
    pub yahoo_url: String,
    /// A table of Taiwan securities (code, name, market, kind) newer than the one built in, in
    /// the same tab-separated format (see scripts/tw_securities.py). A file that does not parse
    /// stops start-up.
    #[arg(long, env = "HEARTH_TW_SECURITIES_FILE", global = true)]
    pub tw_securities_file: Option<std::path::PathBuf>,
    /// User-Agent sent to data sources (Yahoo refuses non-browser agents).
    #[arg(
        long,
        env = "HEARTH_USER_AGENT",
        default_value = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
        hide_default_value = true,
        global = true
    )]
    pub user_agent: String,
    /// Seconds to wait for a data source.
    #[arg(long, env = "HEARTH_UPSTREAM_TIMEOUT_SECS", default_value_t = 8, global = true)]
    pub upstream_timeout_secs: u64,
}
