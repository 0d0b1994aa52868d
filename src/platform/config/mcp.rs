//! MCP servers whose tools hearth offers too: where they are listed and how they are reached.

use clap::Args;

/// The MCP servers hearth connects to.
#[derive(Debug, Clone, Args)]
pub struct McpSettings {
    /// A JSON file of MCP servers whose tools hearth offers too, in the `mcpServers` format of
    /// Claude Desktop, Cursor and VS Code (see the README); `${VAR}` in it reads the environment.
    #[arg(long, env = "HEARTH_MCP_CONFIG", global = true)]
    pub mcp_config: Option<std::path::PathBuf>,
    /// Longest wait, in seconds, between attempts to reach an MCP server that is down (the wait
    /// doubles from one second up to this).
    #[arg(long, env = "HEARTH_MCP_RETRY_MAX_SECS", default_value_t = 60, global = true)]
    pub mcp_retry_max_secs: u64,
    /// Seconds `hearth serve` waits at start for each MCP server's first answer before going on
    /// without it (it keeps trying in the background).
    #[arg(long, env = "HEARTH_MCP_START_SECS", default_value_t = 10, global = true)]
    pub mcp_start_secs: u64,
}
