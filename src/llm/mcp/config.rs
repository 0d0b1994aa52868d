//! The MCP configuration file (`HEARTH_MCP_CONFIG`): the `mcpServers` JSON that Claude Desktop,
//! Cursor and VS Code write (VS Code's `servers` key is read too), so an existing file can be
//! pointed at as it is. A server is a child process (`command`, `args`, `env`) or a streamable
//! HTTP endpoint (`url`, `headers`). hearth's own keys sit beside those, all optional:
//! `allowedTools` (only these tools), `prefix` (default: the server's name), `trustedOutput`
//! (default false: output is fenced as untrusted), `shareLineIds` (default false: the server
//! never receives the LINE ids of the chat or person), `timeoutSecs` (one call's limit).
//!
//! `${VAR}` in any string value reads the environment, so tokens stay out of the file; a
//! variable that is not set stops start-up with an error naming it (never any value).

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;

/// The longest a prefix may be: tool names are at most 64 characters, and the server's own tool
/// name needs most of them.
const MAX_PREFIX_LEN: usize = 20;
/// A call's time limit unless the server's `timeoutSecs` says otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);
/// The longest `timeoutSecs` allowed.
const MAX_TIMEOUT_SECS: u64 = 300;

/// Why the MCP configuration cannot be used. None of the messages carries a value from the file
/// or the environment that could be a secret.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum McpConfigError {
    /// The file could not be read.
    #[error("cannot read the MCP configuration file (HEARTH_MCP_CONFIG): {0}")]
    Read(String),
    /// The file is not the expected JSON.
    #[error("the MCP configuration file (HEARTH_MCP_CONFIG) is not valid: {0}")]
    Json(String),
    /// A `${VAR}` names a variable that is not set.
    #[error("MCP server {server:?} uses ${{{variable}}}, which is not set in the environment")]
    MissingVariable {
        /// The server whose entry names it.
        server: String,
        /// The variable.
        variable: String,
    },
    /// A `${` without its `}`.
    #[error("MCP server {server:?} has an unclosed ${{ in {field}")]
    Unclosed {
        /// The server.
        server: String,
        /// Which field.
        field: &'static str,
    },
    /// Something about one server is wrong.
    #[error("MCP server {server:?}: {problem}")]
    Server {
        /// The server.
        server: String,
        /// What is wrong.
        problem: String,
    },
}

/// The file as written: the servers by name, under `mcpServers` (or VS Code's `servers`).
#[derive(Debug, Deserialize)]
struct File {
    #[serde(rename = "mcpServers", alias = "servers", default)]
    servers: BTreeMap<String, RawServer>,
}

/// One server as written; unknown keys (other clients' own) are ignored.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawServer {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    disabled: bool,
    allowed_tools: Option<Vec<String>>,
    prefix: Option<String>,
    #[serde(default)]
    trusted_output: bool,
    #[serde(default)]
    share_line_ids: bool,
    timeout_secs: Option<u64>,
}

/// How hearth reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking MCP on its standard input and output.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables set for it (it inherits only a few of hearth's own: see `connection`).
        env: BTreeMap<String, String>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint.
        url: String,
        /// Headers sent with every request (an `Authorization` bearer token, typically).
        headers: BTreeMap<String, String>,
    },
}

/// One configured server, checked and with its variables expanded.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The server's name in the file.
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
    /// Only these of its tools are offered (all when `None`).
    pub allowed_tools: Option<Vec<String>>,
    /// What its tools' names start with: `{prefix}_{tool}`.
    pub prefix: String,
    /// Its output is shown to the LLM as is, not fenced as untrusted.
    pub trusted_output: bool,
    /// It may receive the LINE ids of the chat and the person asking.
    pub share_line_ids: bool,
    /// How long one call may take.
    pub timeout: Duration,
}

/// Only names: the transport's values may hold tokens.
impl std::fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerConfig")
            .field("name", &self.name)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// Reads and checks the file at `path`, expanding `${VAR}` from the process environment.
pub fn load(path: &std::path::Path) -> Result<Vec<ServerConfig>, McpConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| McpConfigError::Read(e.to_string()))?;
    parse(&text, |name| std::env::var(name).ok())
}

/// Parses and checks a configuration, reading variables through `env`.
pub fn parse(
    text: &str,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Vec<ServerConfig>, McpConfigError> {
    // Only where and what kind: serde's own message may quote a value from the file.
    let file: File = serde_json::from_str(text).map_err(|e| {
        McpConfigError::Json(format!(
            "{:?} error at line {} column {}",
            e.classify(),
            e.line(),
            e.column()
        ))
    })?;
    let mut servers = Vec::new();
    for (name, raw) in file.servers {
        if raw.disabled {
            continue;
        }
        servers.push(server(name, raw, &env)?);
    }
    let mut prefixes = std::collections::HashSet::new();
    for server in &servers {
        if !prefixes.insert(server.prefix.as_str()) {
            return Err(McpConfigError::Server {
                server: server.name.clone(),
                problem: format!("the prefix {:?} is used by another server too", server.prefix),
            });
        }
    }
    Ok(servers)
}

fn server(
    name: String,
    raw: RawServer,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<ServerConfig, McpConfigError> {
    let bad = |problem: String| McpConfigError::Server { server: name.clone(), problem };
    let expand = |field: &'static str, value: &str| expand(&name, field, value, env);
    let transport = match (raw.command, raw.url, raw.kind.as_deref()) {
        (_, _, Some("sse")) => {
            return Err(bad("the old SSE transport is not supported; use streamable HTTP".into()));
        }
        (Some(command), None, None | Some("stdio")) => Transport::Stdio {
            command: expand("command", &command)?,
            args: raw.args.iter().map(|a| expand("args", a)).collect::<Result<_, _>>()?,
            env: expand_map(&raw.env, |v| expand("env", v))?,
        },
        (None, Some(url), None | Some("http" | "streamable-http" | "streamableHttp")) => {
            let url = expand("url", &url)?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(bad("the url must start with http:// or https://".into()));
            }
            Transport::Http { url, headers: expand_map(&raw.headers, |v| expand("headers", v))? }
        }
        (Some(_), Some(_), _) => return Err(bad("give either command or url, not both".into())),
        (None, None, _) => return Err(bad("give a command (stdio) or a url (HTTP)".into())),
        (_, _, Some(other)) => return Err(bad(format!("unknown type {other:?}"))),
    };
    let prefix = raw.prefix.unwrap_or_else(|| name.clone());
    if prefix.is_empty()
        || prefix.len() > MAX_PREFIX_LEN
        || !prefix.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(bad(format!(
            "the prefix {prefix:?} must be 1-{MAX_PREFIX_LEN} of a-z A-Z 0-9 _ - (set \"prefix\" when the name is not)"
        )));
    }
    let timeout = match raw.timeout_secs {
        None => DEFAULT_TIMEOUT,
        Some(secs @ 1..=MAX_TIMEOUT_SECS) => Duration::from_secs(secs),
        Some(_) => return Err(bad(format!("timeoutSecs must be 1-{MAX_TIMEOUT_SECS}"))),
    };
    Ok(ServerConfig {
        name: name.clone(),
        transport,
        allowed_tools: raw.allowed_tools,
        prefix,
        trusted_output: raw.trusted_output,
        share_line_ids: raw.share_line_ids,
        timeout,
    })
}

fn expand_map(
    map: &BTreeMap<String, String>,
    expand: impl Fn(&str) -> Result<String, McpConfigError>,
) -> Result<BTreeMap<String, String>, McpConfigError> {
    map.iter().map(|(k, v)| Ok((k.clone(), expand(v)?))).collect()
}

/// `value` with every `${VAR}` replaced by the variable's value.
fn expand(
    server: &str,
    field: &'static str,
    value: &str,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<String, McpConfigError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(McpConfigError::Unclosed { server: server.into(), field });
        };
        let variable = &after[..end];
        let value = env(variable).ok_or_else(|| McpConfigError::MissingVariable {
            server: server.into(),
            variable: variable.into(),
        })?;
        out.push_str(&value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HA_TOKEN" => Some("secret-token-value".into()),
            "NOTES_DIR" => Some("/srv/notes".into()),
            _ => None,
        }
    }

    const CLAUDE_DESKTOP: &str = r#"{
      "mcpServers": {
        "home": {
          "url": "http://homeassistant.local:8123/api/mcp",
          "headers": {"Authorization": "Bearer ${HA_TOKEN}"},
          "allowedTools": ["HassTurnOff", "HassTurnOn"],
          "timeoutSecs": 20
        },
        "notes": {
          "command": "npx",
          "args": ["-y", "notes-mcp", "${NOTES_DIR}"],
          "env": {"NOTES_READONLY": "1"},
          "prefix": "memo",
          "trustedOutput": true,
          "shareLineIds": true
        },
        "old": {"command": "x", "disabled": true}
      }
    }"#;

    #[test]
    fn a_claude_desktop_file_reads_as_is_with_hearths_keys_beside() {
        let servers = parse(CLAUDE_DESKTOP, env).expect("valid");
        assert_eq!(servers.len(), 2, "the disabled server is left out");
        let home = &servers[0];
        assert_eq!(home.name, "home");
        assert_eq!(home.prefix, "home");
        assert!(!home.trusted_output && !home.share_line_ids, "safe defaults");
        assert_eq!(home.timeout, Duration::from_secs(20));
        assert_eq!(
            home.allowed_tools.as_deref(),
            Some(&["HassTurnOff".into(), "HassTurnOn".into()][..])
        );
        let Transport::Http { url, headers } = &home.transport else { panic!("http") };
        assert_eq!(url, "http://homeassistant.local:8123/api/mcp");
        assert_eq!(headers["Authorization"], "Bearer secret-token-value");
        let notes = &servers[1];
        assert_eq!(notes.prefix, "memo");
        assert!(notes.trusted_output && notes.share_line_ids);
        assert_eq!(notes.timeout, DEFAULT_TIMEOUT);
        let Transport::Stdio { command, args, env } = &notes.transport else { panic!("stdio") };
        assert_eq!(command, "npx");
        assert_eq!(args, &["-y", "notes-mcp", "/srv/notes"]);
        assert_eq!(env["NOTES_READONLY"], "1");
    }

    #[test]
    fn vs_codes_servers_key_and_type_field_are_read_too() {
        let file = r#"{"servers": {"cal": {"type": "http", "url": "https://cal.example/mcp"},
                       "fs": {"type": "stdio", "command": "fs-mcp"}}}"#;
        let servers = parse(file, env).expect("valid");
        assert_eq!(servers.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["cal", "fs"]);
    }

    #[test]
    fn a_missing_variable_is_named_and_no_value_is_shown() {
        let file = r#"{"mcpServers": {"home": {"url": "http://h/api/mcp",
                       "headers": {"Authorization": "Bearer ${HA_TOKN} ${HA_TOKEN}"}}}}"#;
        let error = parse(file, env).expect_err("missing");
        assert_eq!(
            error,
            McpConfigError::MissingVariable { server: "home".into(), variable: "HA_TOKN".into() }
        );
        let text = error.to_string();
        assert!(text.contains("HA_TOKN") && !text.contains("secret-token-value"), "{text}");
    }

    #[test]
    fn an_unclosed_variable_is_an_error() {
        let file = r#"{"mcpServers": {"x": {"command": "run", "args": ["${OOPS"]}}}"#;
        assert!(matches!(parse(file, env), Err(McpConfigError::Unclosed { field: "args", .. })));
    }

    #[test]
    fn bad_servers_are_refused_with_the_reason() {
        let cases = [
            r#"{"mcpServers": {"x": {"command": "a", "url": "http://b"}}}"#,
            r#"{"mcpServers": {"x": {}}}"#,
            r#"{"mcpServers": {"x": {"url": "ftp://b"}}}"#,
            r#"{"mcpServers": {"x": {"type": "sse", "url": "http://b/sse"}}}"#,
            r#"{"mcpServers": {"my server": {"command": "a"}}}"#,
            r#"{"mcpServers": {"x": {"command": "a", "timeoutSecs": 0}}}"#,
            r#"{"mcpServers": {"x": {"command": "a"}, "y": {"command": "b", "prefix": "x"}}}"#,
        ];
        for file in cases {
            assert!(matches!(parse(file, env), Err(McpConfigError::Server { .. })), "{file}");
        }
        assert!(matches!(parse("not json", env), Err(McpConfigError::Json(_))));
    }

    #[test]
    fn the_debug_form_shows_no_token() {
        let servers = parse(CLAUDE_DESKTOP, env).expect("valid");
        assert!(!format!("{servers:?}").contains("secret-token-value"));
    }
}
