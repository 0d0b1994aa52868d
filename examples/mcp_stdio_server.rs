//! The stdio MCP server the MCP tests start as a child process: the test server of
//! `tests/it/mcp_support` over stdin and stdout. While the file named by `HEARTH_TEST_MCP_DOWN`
//! exists it exits at once (status 4), adding a `.` to that file; each start it serves adds one
//! to the file beside it named `.starts`. So a test can take it down, see it tried, bring it
//! back, and count how often it was started.
//!
//! Built by `cargo test` with the other examples, or by the first MCP test that needs it (a
//! filtered run builds no example); not for use outside the tests.

#[path = "../tests/it/mcp_support/mod.rs"]
mod mcp_support;

#[tokio::main]
async fn main() {
    if let Some(down) = std::env::var_os("HEARTH_TEST_MCP_DOWN") {
        let down = std::path::PathBuf::from(down);
        if down.exists() {
            mark(&down);
            std::process::exit(4);
        }
        mark(&down.with_extension("starts"));
    }
    mcp_support::serve_stdio().await;
}

/// Adds a `.` to `file`: each start, refused or served, is counted where a test can read it.
fn mark(file: &std::path::Path) {
    use std::io::Write;
    if let Ok(mut marks) = std::fs::OpenOptions::new().create(true).append(true).open(file) {
        let _ = marks.write_all(b".");
    }
}
