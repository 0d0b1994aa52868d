//! The web: the search providers and the fetcher of pages to summarise.

use clap::Args;

use super::Secret;

/// Web search and page fetching.
#[derive(Debug, Clone, Args)]
pub struct WebSettings {
    /// Base URL of a SearXNG instance with the JSON format enabled (e.g. http://searxng:8080);
    /// the self-hosted search provider, used first when set. With no search provider configured
    /// the web_search tool is not offered.
    #[arg(
        long,
        env = "HEARTH_SEARXNG_URL",
        default_value = "",
        hide_default_value = true,
        global = true
    )]
    pub searxng_url: String,
    /// Tavily API key (tvly-…); Tavily is the search provider when set and SearXNG is not.
    #[arg(
        long,
        env = "HEARTH_TAVILY_API_KEY",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub tavily_api_key: Secret,
    /// Base URL of the Tavily API.
    #[arg(
        long,
        env = "HEARTH_TAVILY_URL",
        default_value = "https://api.tavily.com",
        global = true
    )]
    pub tavily_url: String,
    /// Brave Search API key; Brave is the search provider when set and neither SearXNG nor Tavily is.
    #[arg(
        long,
        env = "HEARTH_BRAVE_API_KEY",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub brave_api_key: Secret,
    /// Base URL of the Brave Search API.
    #[arg(
        long,
        env = "HEARTH_BRAVE_URL",
        default_value = "https://api.search.brave.com",
        global = true
    )]
    pub brave_url: String,
    /// Let summarize_url (and photos or voice from an external content provider) fetch private,
    /// loopback and link-local addresses and any port. Unsafe: for tests against local fakes
    /// only; keep it off in production.
    #[arg(long, env = "HEARTH_ALLOW_PRIVATE_FETCH", default_value_t = false, action = clap::ArgAction::Set, global = true)]
    pub allow_private_fetch: bool,
    /// Most bytes of a web page summarize_url downloads; the rest of a larger page is not read.
    #[arg(long, env = "HEARTH_FETCH_MAX_BYTES", default_value_t = 2_000_000, global = true)]
    pub fetch_max_bytes: usize,
    /// Seconds summarize_url waits for a page, redirects included.
    #[arg(long, env = "HEARTH_FETCH_TIMEOUT_SECS", default_value_t = 10, global = true)]
    pub fetch_timeout_secs: u64,
}
