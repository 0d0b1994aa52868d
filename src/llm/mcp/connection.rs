//! One configured MCP server kept connected: a background task connects (spawning the process
//! or opening the HTTP session), lists its tools, watches the connection, and when the server is
//! down — at start, or dying later — withdraws its tools and tries again with a growing wait
//! ([`describe::backoff`]). Its tools come back when it does.
//!
//! A stdio server's process gets only the variables its configuration sets plus a few harmless
//! ones (`PATH`, `HOME`, locale, time zone): hearth's own secrets are never passed on.

use std::collections::HashMap;
use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, MetaObject, RequestMetaObject};
use rmcp::service::{Peer, RoleClient, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Map, Value};
use tokio::sync::{Notify, watch};

use super::config::{ServerConfig, Transport};
use super::describe;
use crate::contract::registry::{DynamicTool, ToolDefinition, ToolSource, ToolTraits};
use crate::contract::{ToolCtx, ToolError};

/// Variables of hearth's environment a stdio server inherits.
const INHERITED_VARS: &[&str] = &["PATH", "HOME", "USER", "LANG", "LC_ALL", "TZ", "TMPDIR"];
/// The largest JSON answer read from an HTTP server.
const MAX_HTTP_RESPONSE_BYTES: usize = 1 << 20;
/// The most tools one server may offer: a bound on what a server makes hearth keep and search,
/// not on the prompt (a request carries at most `HEARTH_MAX_TOOLS`; the rest are found through
/// `find_tools`). Home Assistant brings about forty.
const MAX_TOOLS_PER_SERVER: usize = 128;
/// The largest argument schema sent to the LLM, in bytes of JSON.
const MAX_SCHEMA_BYTES: usize = 8 * 1024;
/// How long connecting and listing the tools may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);
/// The `_meta` keys carrying the LINE ids, sent only to servers allowed to receive them.
const META_CONVERSATION: &str = "hearth/conversation";
const META_USER: &str = "hearth/user";

/// One server: its configuration, and what it offers while it is up.
pub struct Server {
    config: ServerConfig,
    state: RwLock<State>,
    up: watch::Sender<Option<bool>>,
}

/// A connected server: its session, the tools hearth can use, and (stdio) its process group.
struct Connected {
    running: RunningService<RoleClient, ()>,
    tools: Vec<Arc<dyn DynamicTool>>,
    _group: Option<Group>,
}

/// The process group of a stdio server (its leader's id): ended, every process in it, when
/// this is dropped — the server and whatever it started (`npx` and its `node`, a shell's
/// children), even when hearth gave up waiting for its answer.
struct Group(u32);

impl Drop for Group {
    fn drop(&mut self) {
        use nix::sys::signal::{Signal, killpg};
        let Ok(leader) = i32::try_from(self.0) else { return };
        // Already gone (it exited and was reaped) is fine.
        let _ = killpg(nix::unistd::Pid::from_raw(leader), Signal::SIGKILL);
    }
}

#[derive(Default)]
struct State {
    peer: Option<Link>,
    tools: Vec<Arc<dyn DynamicTool>>,
}

/// One connection's session, and the signal that a call found that connection gone: each
/// connection has its own, so a call failing on a dead connection never ends the next one.
#[derive(Clone)]
struct Link {
    peer: Peer<RoleClient>,
    broken: Arc<Notify>,
}

impl Server {
    /// The server, not yet connected; [`Server::run`] keeps it connected.
    pub fn new(config: ServerConfig) -> Arc<Self> {
        Arc::new(Self { config, state: RwLock::new(State::default()), up: watch::channel(None).0 })
    }

    /// The server's name in the configuration.
    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// Whether it is up: `None` until the first attempt ended.
    pub fn status(&self) -> watch::Receiver<Option<bool>> {
        self.up.subscribe()
    }

    fn peer(&self) -> Option<Link> {
        self.state.read().ok()?.peer.clone()
    }

    fn set(&self, state: State) {
        let up = state.peer.is_some();
        if let Ok(mut current) = self.state.write() {
            *current = state;
        }
        self.up.send_replace(Some(up));
    }

    /// Connects once, without retrying, and disconnects: how many tools hearth would offer from
    /// it, or why it could not be reached (`hearth doctor`).
    pub async fn probe(config: ServerConfig) -> Result<usize, String> {
        let server = Self::new(config);
        match tokio::time::timeout(CONNECT_TIMEOUT, server.connect()).await {
            Ok(Ok(connected)) => {
                let count = connected.tools.len();
                let _ = connected.running.cancel().await;
                Ok(count)
            }
            // Errors quote the URLs they failed on: without their credentials.
            Ok(Err(e)) => Err(crate::platform::config::redact_urls_in(&e.to_string())),
            Err(_) => Err(format!("no answer within {} s", CONNECT_TIMEOUT.as_secs())),
        }
    }

    /// Connects, and reconnects whenever the server goes away; runs until the process ends.
    pub async fn run(self: Arc<Self>, retry_max: Duration) {
        let mut attempt = 0;
        loop {
            match tokio::time::timeout(CONNECT_TIMEOUT, self.connect()).await {
                Ok(Ok(Connected { running, tools, _group })) => {
                    tracing::info!(
                        server = self.name(),
                        tools = tools.len(),
                        "MCP server connected"
                    );
                    attempt = 0;
                    let link = Link { peer: running.peer().clone(), broken: Arc::default() };
                    self.set(State { peer: Some(link.clone()), tools });
                    self.watch(running, &link.broken, retry_max).await;
                    self.set(State::default());
                    tracing::warn!(
                        server = self.name(),
                        "MCP server went away; its tools are withdrawn until it is back"
                    );
                }
                Ok(Err(e)) => {
                    tracing::warn!(server = self.name(), error = %e, "MCP server unavailable");
                    self.set(State::default());
                }
                Err(_) => {
                    tracing::warn!(server = self.name(), "MCP server did not answer in time");
                    self.set(State::default());
                }
            }
            tokio::time::sleep(describe::backoff(attempt, retry_max)).await;
            attempt = attempt.saturating_add(1);
        }
    }

    /// Waits until the connection ends: the transport closes (the process died), or a call
    /// found it broken, or a periodic listing fails. Refreshes the tools on each listing.
    async fn watch(
        self: &Arc<Self>,
        running: RunningService<RoleClient, ()>,
        broken: &Notify,
        every: Duration,
    ) {
        let token = running.cancellation_token();
        let peer = running.peer().clone();
        let waiting = running.waiting();
        tokio::pin!(waiting);
        let every = every.max(Duration::from_secs(1));
        loop {
            tokio::select! {
                _ = &mut waiting => return,
                // A call found the connection gone: no listing could say otherwise (it may
                // come from the client's cache).
                _ = broken.notified() => break,
                _ = tokio::time::sleep(every) => {}
            }
            match tokio::time::timeout(CONNECT_TIMEOUT, peer.list_all_tools()).await {
                Ok(Ok(listed)) => {
                    let tools = self.tools_from(listed);
                    if let Ok(mut state) = self.state.write() {
                        state.tools = tools;
                    }
                }
                _ => break,
            }
        }
        token.cancel();
        let _ = tokio::time::timeout(Duration::from_secs(5), waiting).await;
    }

    async fn connect(self: &Arc<Self>) -> Result<Connected, ConnectError> {
        // Whatever happens from here on (a failure, a timeout dropping this future), a stdio
        // server's whole process group ends with this guard.
        let mut group = None;
        let running = match &self.config.transport {
            Transport::Stdio { command, args, env } => {
                let mut cmd = tokio::process::Command::new(command);
                // Its own process group, so everything it starts can be ended with it.
                cmd.args(args).env_clear().process_group(0);
                for var in INHERITED_VARS {
                    if let Ok(value) = std::env::var(var) {
                        cmd.env(var, value);
                    }
                }
                cmd.envs(env);
                let (transport, _) = TokioChildProcess::builder(cmd)
                    .stderr(std::process::Stdio::inherit())
                    .spawn()
                    .map_err(|e| ConnectError::Spawn(e.to_string()))?;
                group = transport.id().map(Group);
                ().serve(transport).await.map_err(|e| ConnectError::Handshake(e.to_string()))?
            }
            Transport::Http { url, headers } => {
                let mut custom = HashMap::new();
                for (name, value) in headers {
                    let name = reqwest::header::HeaderName::try_from(name.as_str())
                        .map_err(|_| ConnectError::Header(name.clone()))?;
                    let value = reqwest::header::HeaderValue::try_from(value.as_str())
                        .map_err(|_| ConnectError::Header(name.to_string()))?;
                    custom.insert(name, value);
                }
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(custom)
                    .max_json_response_size(MAX_HTTP_RESPONSE_BYTES);
                let client = crate::platform::tls::client_builder()
                    .connect_timeout(Duration::from_secs(10))
                    .build()
                    .map_err(|e| ConnectError::Spawn(e.to_string()))?;
                let transport = StreamableHttpClientTransport::with_client(client, config);
                ().serve(transport).await.map_err(|e| ConnectError::Handshake(e.to_string()))?
            }
        };
        let listed =
            running.peer().list_all_tools().await.map_err(|e| ConnectError::List(e.to_string()))?;
        let tools = self.tools_from(listed);
        Ok(Connected { running, tools, _group: group })
    }

    /// The offered tools hearth can use: allowed by the configuration, with a valid name and a
    /// usable schema; each left out is logged with the reason.
    fn tools_from(self: &Arc<Self>, listed: Vec<rmcp::model::Tool>) -> Vec<Arc<dyn DynamicTool>> {
        let config = &self.config;
        let mut tools: Vec<Arc<dyn DynamicTool>> = Vec::new();
        for tool in listed {
            let remote = tool.name.to_string();
            if let Some(allowed) = &config.allowed_tools
                && !allowed.contains(&remote)
            {
                continue;
            }
            if tools.len() == MAX_TOOLS_PER_SERVER {
                tracing::warn!(server = self.name(), tool = %remote, max = MAX_TOOLS_PER_SERVER, "MCP tool skipped: the server offers too many (use allowedTools)");
                continue;
            }
            let Some(name) = describe::tool_name(&config.prefix, &remote) else {
                tracing::warn!(server = self.name(), tool = %remote, "MCP tool skipped: its name cannot be a tool name");
                continue;
            };
            let schema = Value::Object((*tool.input_schema).clone());
            let (parameters, strict) = match describe::schema(&schema) {
                Ok(sent) if sent.0.to_string().len() > MAX_SCHEMA_BYTES => {
                    tracing::warn!(server = self.name(), tool = %remote, "MCP tool skipped: its argument schema is too large");
                    continue;
                }
                Ok(sent) => sent,
                Err(why) => {
                    tracing::warn!(server = self.name(), tool = %remote, why, "MCP tool skipped: unusable argument schema");
                    continue;
                }
            };
            if !strict {
                tracing::info!(server = self.name(), tool = %remote, "MCP tool schema cannot be strict; sent non-strict");
            }
            let annotations = tool.annotations.as_ref();
            let traits = describe::traits(
                annotations.and_then(|a| a.read_only_hint),
                annotations.and_then(|a| a.destructive_hint),
                config.trusted_output,
            );
            let description = describe::description(
                &config.name,
                tool.title.as_deref().or(annotations.and_then(|a| a.title.as_deref())),
                tool.description.as_deref(),
            );
            tools.push(Arc::new(McpTool {
                server: Arc::downgrade(self),
                remote,
                definition: ToolDefinition {
                    name: name.into(),
                    description: description.into(),
                    parameters,
                    strict,
                },
                traits,
            }));
        }
        tools
    }
}

/// The tools of a server that is up; none while it is down.
impl ToolSource for Server {
    fn tools(&self) -> Vec<Arc<dyn DynamicTool>> {
        match self.state.read() {
            Ok(state) if state.peer.is_some() => state.tools.clone(),
            _ => Vec::new(),
        }
    }
}

/// Why a server could not be reached (for the log).
#[derive(Debug, thiserror::Error)]
enum ConnectError {
    #[error("cannot start it: {0}")]
    Spawn(String),
    #[error("a header name or value is not valid HTTP: {0}")]
    Header(String),
    #[error("the MCP handshake failed: {0}")]
    Handshake(String),
    #[error("listing its tools failed: {0}")]
    List(String),
}

/// One tool of a server, as the registry dispatches it.
struct McpTool {
    server: Weak<Server>,
    remote: String,
    definition: ToolDefinition,
    traits: ToolTraits,
}

impl DynamicTool for McpTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn traits(&self) -> ToolTraits {
        self.traits
    }

    fn timeout(&self) -> Duration {
        self.server.upgrade().map(|s| s.config.timeout).unwrap_or(Duration::from_secs(1))
    }

    fn run<'a>(
        &'a self,
        ctx: &'a ToolCtx,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(self.call(ctx, args))
    }
}

impl McpTool {
    async fn call(&self, ctx: &ToolCtx, args: Map<String, Value>) -> Result<Value, ToolError> {
        let unavailable = |reason: &str| ToolError::Upstream {
            service: "the connected service",
            reason: reason.into(),
            source: None,
        };
        let server = self.server.upgrade().ok_or_else(|| unavailable("not configured"))?;
        let config = &server.config;
        let peer = server.peer().ok_or_else(|| unavailable("not reachable"))?;
        let mut args = Value::Object(args);
        if self.definition.strict {
            crate::contract::schema::drop_nulls(&mut args);
        }
        let Value::Object(args) = args else { unreachable!("still an object") };
        let mut params = CallToolRequestParams::new(self.remote.clone()).with_arguments(args);
        if config.share_line_ids {
            let mut meta = Map::new();
            meta.insert(META_CONVERSATION.into(), Value::from(ctx.conversation.id.clone()));
            if let Some(user) = &ctx.user_id {
                meta.insert(META_USER.into(), Value::from(user.clone()));
            }
            params.meta = Some(RequestMetaObject(MetaObject(meta)));
        }
        let result = match peer.peer.call_tool(params).await {
            Ok(result) => result,
            Err(e) => {
                if matches!(e, ServiceError::TransportClosed | ServiceError::TransportSend(_)) {
                    peer.broken.notify_one();
                }
                tracing::warn!(server = config.name, tool = self.remote, error = %e, "MCP call failed");
                return Err(unavailable(&call_failure(&e)));
            }
        };
        let texts: Vec<String> =
            result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.clone()).collect();
        if result.is_error == Some(true) {
            return Err(ToolError::InvalidArgs(describe::error_message(
                &config.name,
                &texts,
                config.trusted_output,
            )));
        }
        Ok(describe::result(&texts, result.structured_content.as_ref(), config.trusted_output))
    }
}

/// A short reason the LLM can repeat (never the server's own words).
fn call_failure(error: &ServiceError) -> String {
    match error {
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
            "the connection to it was lost".into()
        }
        ServiceError::Timeout { .. } => "timeout".into(),
        ServiceError::McpError(e) => format!("it refused the call (code {})", e.code.0),
        _ => "it answered with something unexpected".into(),
    }
}
