//! The checks of the optional services: the search provider answers a tiny query, and each
//! configured MCP server starts (or is reached), answers the handshake and lists its tools.

use std::time::Duration;

use futures::future::BoxFuture;

use super::{Check, Finding, Probe};
use crate::llm::mcp::connection::Server;
use crate::platform::i18n::Lang;
use crate::sources::search::{SearchProvider, SearchQuery};

/// The search provider answers.
pub struct Search;

impl Check for Search {
    fn name(&self) -> &'static str {
        "search"
    }

    fn run<'a>(&'a self, probe: &'a Probe) -> BoxFuture<'a, Vec<Finding>> {
        Box::pin(async move { vec![search(probe).await] })
    }
}

/// The settings of the provider that answered, for the fix.
fn settings_of(provider: &SearchProvider) -> &'static str {
    match provider {
        SearchProvider::Searxng(_) => {
            "HEARTH_SEARXNG_URL (and that its settings.yml enables the json format)"
        }
        SearchProvider::Tavily(_) => "HEARTH_TAVILY_API_KEY and HEARTH_TAVILY_URL",
        SearchProvider::Brave(_) => "HEARTH_BRAVE_API_KEY and HEARTH_BRAVE_URL",
    }
}

async fn search(probe: &Probe) -> Finding {
    let c = &probe.config;
    let timeout = Duration::from_secs(c.sources.upstream_timeout_secs.max(1));
    let http = match crate::sources::http_client(&c.sources.user_agent, timeout) {
        Ok(http) => http,
        Err(e) => {
            return Finding::fail(
                format!("cannot build the HTTP client: {e}"),
                "check HEARTH_USER_AGENT",
            );
        }
    };
    let Some(provider) = SearchProvider::from_config(c, http) else {
        return Finding::warn(
            "no search provider: web_search (news, 「幫我查」) is not offered",
            "set HEARTH_SEARXNG_URL, HEARTH_TAVILY_API_KEY or HEARTH_BRAVE_API_KEY",
        );
    };
    let query = SearchQuery { query: "LINE".into(), time_range: None, lang: Lang::ZhTw };
    match provider.search(&query).await {
        Ok(results) => {
            Finding::pass(format!("{} answered ({} results)", provider.name(), results.len()))
        }
        Err(e) => Finding::fail(
            format!("{} did not answer a search: {e}", provider.name()),
            format!("check {}", settings_of(&provider)),
        ),
    }
}

/// Each configured MCP server is reached and lists tools hearth can offer.
pub struct Mcp;

impl Check for Mcp {
    fn name(&self) -> &'static str {
        "MCP servers"
    }

    fn run<'a>(&'a self, probe: &'a Probe) -> BoxFuture<'a, Vec<Finding>> {
        Box::pin(async move {
            let Some(path) = &probe.config.mcp.mcp_config else {
                return vec![Finding::pass("none configured (HEARTH_MCP_CONFIG is not set)")];
            };
            let servers = match crate::llm::mcp::config::load(path) {
                Ok(servers) => servers,
                Err(e) => {
                    return vec![Finding::fail(
                        e.to_string(),
                        "fix HEARTH_MCP_CONFIG as the message says",
                    )];
                }
            };
            if servers.is_empty() {
                return vec![Finding::warn(
                    "HEARTH_MCP_CONFIG lists no server",
                    "add servers under mcpServers, or unset HEARTH_MCP_CONFIG",
                )];
            }
            let probes = servers.into_iter().map(|server| async move {
                let name = server.name.clone();
                match Server::probe(server).await {
                    Ok(0) => Finding::warn(
                        format!("{name}: reached, but it offers no tool hearth can use"),
                        "check its allowedTools and the log for the tools left out",
                    ),
                    Ok(n) => Finding::pass(format!("{name}: reached, {n} tools")),
                    Err(why) => Finding::fail(
                        format!("{name}: {why}"),
                        format!("check the entry {name:?} in HEARTH_MCP_CONFIG (command or url) and that the server runs"),
                    ),
                }
            });
            futures::future::join_all(probes).await
        })
    }
}
