//! Tools from MCP servers, by configuration (`HEARTH_MCP_CONFIG`): the family's smart home, a
//! calendar or a notes service joins the registry without a rebuild and behaves like a tool of
//! the list. The official Rust SDK (`rmcp`) is the client, over a child process's stdio or
//! streamable HTTP.
//!
//! - [`config`]: the `mcpServers` file, hearth's keys beside each server, `${VAR}` expansion.
//! - [`connection`]: one server kept connected in the background; its tools withdrawn while it
//!   is down and back when it returns.
//! - [`describe`]: the pure decisions: names, bounded descriptions, schemas, annotations,
//!   results, and the wait between attempts.
//!
//! Calls go through the registry's dispatch like any tool's (time limit, failures as data); a
//! server's output is fenced as untrusted and taints the turn unless it is trusted; a tool it
//! declares destructive waits for a confirm tap; and it never receives the LINE ids of the
//! chat or person unless its configuration allows it.

pub mod config;
pub mod connection;
pub mod describe;

use std::sync::Arc;
use std::time::Duration;

use crate::contract::registry::ToolSource;
use crate::platform::config::Config;
use connection::Server;

pub use config::McpConfigError;

/// The configured servers, each kept connected by a background task.
#[derive(Clone, Default)]
pub struct McpServers {
    servers: Vec<Arc<Server>>,
}

impl McpServers {
    /// No servers.
    pub fn none() -> Self {
        Self::default()
    }

    /// Reads `HEARTH_MCP_CONFIG` (none set: no servers), starts a task per server, and waits up
    /// to `HEARTH_MCP_START_SECS` for each first attempt, so the tools of the servers that are
    /// up are known (and their names checked) at start. The others keep being tried.
    pub async fn start(config: &Config) -> Result<Self, McpConfigError> {
        let Some(path) = &config.mcp.mcp_config else { return Ok(Self::none()) };
        let servers = config::load(path)?;
        Ok(Self::spawn(servers, config).await)
    }

    /// Starts the servers of a checked configuration (see [`McpServers::start`]).
    pub async fn spawn(servers: Vec<config::ServerConfig>, config: &Config) -> Self {
        let retry_max = Duration::from_secs(config.mcp.mcp_retry_max_secs);
        let servers: Vec<Arc<Server>> = servers.into_iter().map(Server::new).collect();
        for server in &servers {
            tokio::spawn(server.clone().run(retry_max));
        }
        let first = Duration::from_secs(config.mcp.mcp_start_secs);
        for server in &servers {
            let mut status = server.status();
            let answered = tokio::time::timeout(first, status.wait_for(Option::is_some)).await;
            if answered.is_err() {
                tracing::warn!(
                    server = server.name(),
                    "MCP server not up at start; trying in the background"
                );
            }
        }
        Self { servers }
    }

    /// The servers as tool sources for the registry.
    pub fn sources(&self) -> Vec<Arc<dyn ToolSource>> {
        self.servers.iter().map(|s| s.clone() as Arc<dyn ToolSource>).collect()
    }
}
