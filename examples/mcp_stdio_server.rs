//! The stdio MCP server the MCP tests start as a child process: the test server of
//! `tests/it/mcp_support` over stdin and stdout. While the file named by `HEARTH_TEST_MCP_DOWN`
//! exists it exits at once (status 4), so a test can take it down and bring it back.
//!
//! Built by `cargo test` with the other examples, or by the first MCP test that needs it (a
//! filtered run builds no example); not for use outside the tests.

#[path = "../tests/it/mcp_support/mod.rs"]
mod mcp_support;

#[tokio::main]
async fn main() {
    if let Some(down) = std::env::var_os("HEARTH_TEST_MCP_DOWN")
        && std::path::Path::new(&down).exists()
    {
        std::process::exit(4);
    }
    mcp_support::serve_stdio().await;
}
