//! `web_search`: the top results of a web search (title, link, snippet) for the LLM to answer
//! from, with a card listing the sources (each opens its page). Offered only when a search
//! provider is configured. Results are untrusted web content, fenced for the LLM.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::egress::Outgoing;
use crate::contract::untrusted;
use crate::contract::{Card, CardButton, CardRow, Tool, ToolCtx, ToolError};
use crate::platform::text::truncate_graphemes;
use crate::sources::search::{SearchProvider, SearchQuery, SearchResult, TimeRange};

/// Arguments of `web_search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// A search query in the most useful language.
    pub query: String,
    /// For recent news; else null.
    pub time_range: Option<TimeRange>,
}

/// The result of `web_search`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The query searched.
    pub query: String,
    /// The provider that answered.
    pub provider: &'static str,
    /// How to treat the results.
    pub notice: &'static str,
    /// The results, numbered, fenced as untrusted content.
    pub results: String,
    /// The results as data, for the card.
    #[serde(skip)]
    pub hits: Vec<SearchResult>,
}

/// The web search tool.
pub struct WebSearch {
    provider: SearchProvider,
}

impl WebSearch {
    /// The tool over a configured provider.
    pub fn new(provider: SearchProvider) -> Self {
        Self { provider }
    }
}

impl Tool for WebSearch {
    const NAME: &'static str = "web_search";
    const DESCRIPTION: &'static str = "Web search: news and current information (今天有什麼新聞). Untrusted data. Not for weather, rates, prices, 停班停課, a given link (summarize_url) or this chat (recap).";
    type Args = Args;
    type Output = Output;
    const UNTRUSTED_OUTPUT: bool = true;

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let query = args.query.trim();
        if query.chars().count() < 2 || query.chars().count() > 300 {
            return Err(ToolError::InvalidArgs("the search query must be 2-300 characters".into()));
        }
        let q =
            SearchQuery { query: query.to_string(), time_range: args.time_range, lang: ctx.lang };
        let hits = self
            .provider
            .search(&q)
            .await
            .map_err(|e| ToolError::upstream("the web search service", e))?;
        if hits.is_empty() {
            return Err(ToolError::NotFound(format!("the web search found nothing for {query:?}")));
        }
        let listed: Vec<String> = hits
            .iter()
            .enumerate()
            .map(|(i, h)| format!("[{}] {}\n{}\n{}", i + 1, h.title, h.url, h.snippet))
            .collect();
        Ok(Output {
            query: query.to_string(),
            provider: self.provider.name(),
            notice: untrusted::NOTICE,
            results: untrusted::fence(&listed.join("\n\n")),
            hits,
        })
    }

    fn outgoing(&self, args: &Args) -> Option<Outgoing> {
        Some(Outgoing::Search(args.query.trim().to_string()))
    }

    fn links(&self, out: &Output) -> Vec<String> {
        out.hits.iter().map(|hit| hit.url.clone()).collect()
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let mut card = Card::new(format!("🔎 {}", truncate_graphemes(&out.query, 40)));
        card.subtitle = Some(lang.pick("搜尋結果（點選開啟來源）", "Results (tap to open)").into());
        for (i, hit) in out.hits.iter().enumerate() {
            let title = if hit.title.is_empty() { host_of(&hit.url) } else { hit.title.clone() };
            card.rows.push(
                CardRow::new(format!("{}", i + 1), truncate_graphemes(&title, 60)).with_button(
                    CardButton::Link {
                        label: lang.pick("開啟", "Open").into(),
                        uri: hit.url.clone(),
                    },
                ),
            );
        }
        card.footnote = Some(out.provider.to_string());
        Some(card)
    }
}

/// The host of a URL, for a result without a title.
fn host_of(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| url.to_string())
}
