//! One call of a tool, run so that it never fails: arguments that do not parse, a tool error, a
//! timeout and a panic all become a [`ToolReply`] carrying `{"error": {"kind", "message"}}` for
//! the LLM to explain; a card or chips that panic are left out. The registry erases its typed
//! tools through [`ErasedTool`] and calls tools known only at run time with [`call_dynamic`].

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::{Value, json};

use super::DynamicTool;
use crate::contract::egress::Outgoing;
use crate::contract::{Card, Chip, ErrorKind, Tool, ToolCtx, ToolError};

/// How a call ended, for logs and metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The tool returned a result.
    Ok,
    /// The call ended in an error of this kind (`unknown_tool`, `invalid_arguments`, `timeout`,
    /// `internal`, or the tool's own kind).
    Error(ErrorKind),
    /// Not run: held for the family to confirm (a state-changing call after untrusted content).
    NeedsConfirmation,
}

/// The result of one dispatched call.
#[derive(Debug, Clone)]
pub struct ToolReply {
    /// What the LLM reads: the tool's output, or [`CallError::envelope`].
    pub content: Value,
    /// The card, if the tool made one.
    pub card: Option<Card>,
    /// The chips, if any.
    pub chips: Vec<Chip>,
    /// How the call ended.
    pub outcome: Outcome,
    /// Links the output offers to read next ([`Tool::links`]).
    pub links: Vec<String>,
    /// The error the call ended in, typed (`content` holds its envelope); `None` otherwise.
    pub error: Option<CallError>,
    /// The reply itself carries outside words beyond what the tool's flag says: a search
    /// through the finder that shows an untrusted server's tools (their descriptions). It taints
    /// the turn like [`super::ToolTraits::untrusted_output`].
    pub untrusted: bool,
}

impl ToolReply {
    /// A result the LLM reads as it is, with no card, chips or links.
    pub fn ok(content: Value) -> Self {
        Self {
            content,
            card: None,
            chips: Vec::new(),
            outcome: Outcome::Ok,
            links: Vec::new(),
            error: None,
            untrusted: false,
        }
    }

    /// An error result: the LLM reads its [`CallError::envelope`].
    pub fn error(kind: ErrorKind, message: impl Into<String>) -> Self {
        let error = CallError { kind, message: message.into() };
        Self {
            content: error.envelope(),
            card: None,
            chips: Vec::new(),
            outcome: Outcome::Error(kind),
            links: Vec::new(),
            error: Some(error),
            untrusted: false,
        }
    }
}

/// Why a call produced no result: a kind and a short message the LLM can explain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What the LLM reads (free of internals; the cause chain goes to the log).
    pub message: String,
}

impl CallError {
    /// What the LLM reads: `{"error": {"kind", "message"}}`. The one place the envelope is built.
    pub fn envelope(&self) -> Value {
        json!({ "error": self })
    }
}

/// The object-safe face of a [`Tool`]; the only place where tools are erased.
pub(super) trait ErasedTool: Send + Sync {
    fn call<'a>(&'a self, ctx: &'a ToolCtx, args: &'a str) -> BoxFuture<'a, ToolReply>;
    fn outgoing(&self, args: &str) -> Option<Outgoing>;
    fn check(&self, ctx: &ToolCtx, args: &str) -> Result<(), CallError>;
    fn changes_state(&self, args: &str) -> bool;
}

impl<T: Tool> ErasedTool for T {
    fn call<'a>(&'a self, ctx: &'a ToolCtx, args: &'a str) -> BoxFuture<'a, ToolReply> {
        Box::pin(call_typed(self, ctx, args))
    }

    fn changes_state(&self, args: &str) -> bool {
        // Arguments that do not parse change nothing, but are judged as the tool's kind.
        match serde_json::from_str::<T::Args>(normalized_args(args)) {
            Ok(args) => Tool::changes_state(self, &args),
            Err(_) => T::CHANGES_STATE,
        }
    }

    fn check(&self, ctx: &ToolCtx, args: &str) -> Result<(), CallError> {
        let args = parse_args::<T>(args)?;
        let checked = guarded(T::NAME, "check", || Tool::check(self, ctx, &args));
        match checked {
            Some(Ok(())) => Ok(()),
            Some(Err(e)) => {
                log_tool_error(T::NAME, &e);
                Err(CallError { kind: e.kind(), message: e.to_string() })
            }
            None => Err(CallError {
                kind: ErrorKind::Internal,
                message: "the tool failed unexpectedly".into(),
            }),
        }
    }

    fn outgoing(&self, args: &str) -> Option<Outgoing> {
        let args: T::Args = serde_json::from_str(normalized_args(args)).ok()?;
        Tool::outgoing(self, &args)
    }
}

/// The raw arguments, with "nothing" read as an empty object.
pub(super) fn normalized_args(raw_args: &str) -> &str {
    let trimmed = raw_args.trim();
    if trimmed.is_empty() || trimmed == "null" { "{}" } else { trimmed }
}

/// Runs a tool's work with its time limit, catching a panic; every failure becomes the reply.
async fn run_guarded<O>(
    name: &str,
    timeout: Duration,
    work: impl Future<Output = Result<O, ToolError>>,
) -> Result<O, ToolReply> {
    let run = AssertUnwindSafe(work).catch_unwind();
    match tokio::time::timeout(timeout, run).await {
        Err(_) => {
            tracing::warn!(tool = name, "tool timed out");
            Err(ToolReply::error(ErrorKind::Timeout, "the tool took too long; try again later"))
        }
        Ok(Err(panic)) => {
            tracing::error!(tool = name, panic = panic_message(&panic), "tool panicked");
            Err(ToolReply::error(ErrorKind::Internal, "the tool failed unexpectedly"))
        }
        Ok(Ok(Err(e))) => {
            log_tool_error(name, &e);
            Err(ToolReply::error(e.kind(), e.to_string()))
        }
        Ok(Ok(Ok(output))) => Ok(output),
    }
}

/// The typed arguments of `T`, or why they do not parse.
fn parse_args<T: Tool>(raw_args: &str) -> Result<T::Args, CallError> {
    serde_json::from_str(normalized_args(raw_args)).map_err(|e| {
        tracing::warn!(tool = T::NAME, error = %e, "tool arguments did not parse");
        CallError { kind: ErrorKind::InvalidArguments, message: format!("invalid arguments: {e}") }
    })
}

async fn call_typed<T: Tool>(tool: &T, ctx: &ToolCtx, raw_args: &str) -> ToolReply {
    let args = match parse_args::<T>(raw_args) {
        Ok(args) => args,
        Err(e) => return ToolReply::error(e.kind, e.message),
    };
    let output = match run_guarded(T::NAME, tool.timeout(), tool.run(ctx, args)).await {
        Ok(output) => output,
        Err(reply) => return reply,
    };
    let content = match serde_json::to_value(&output) {
        Ok(v) => v,
        Err(e) => {
            tracing::error!(tool = T::NAME, error = %e, "tool output did not serialise");
            return ToolReply::error(ErrorKind::Internal, "the tool failed unexpectedly");
        }
    };
    let card = guarded(T::NAME, "card", || tool.card(ctx, &output)).flatten();
    let chips =
        guarded(T::NAME, "quick_replies", || tool.quick_replies(ctx, &output)).unwrap_or_default();
    let links = guarded(T::NAME, "links", || tool.links(&output)).unwrap_or_default();
    ToolReply { card, chips, links, ..ToolReply::ok(content) }
}

pub(super) async fn call_dynamic(
    tool: &dyn DynamicTool,
    ctx: &ToolCtx,
    raw_args: &str,
) -> ToolReply {
    let name = tool.definition().name.as_ref();
    let args = match serde_json::from_str::<Value>(normalized_args(raw_args)) {
        Ok(Value::Object(args)) => args,
        Ok(_) => {
            return ToolReply::error(
                ErrorKind::InvalidArguments,
                "invalid arguments: not an object",
            );
        }
        Err(e) => {
            tracing::warn!(tool = name, error = %e, "tool arguments did not parse");
            return ToolReply::error(
                ErrorKind::InvalidArguments,
                format!("invalid arguments: {e}"),
            );
        }
    };
    match run_guarded(name, tool.timeout(), tool.run(ctx, args)).await {
        Ok(content) => ToolReply::ok(content),
        Err(reply) => reply,
    }
}

/// Runs a presentation builder; a panic is logged and treated as "nothing to show".
fn guarded<R>(tool: &str, what: &str, build: impl FnOnce() -> R) -> Option<R> {
    match std::panic::catch_unwind(AssertUnwindSafe(build)) {
        Ok(r) => Some(r),
        Err(panic) => {
            tracing::error!(tool, what, panic = panic_message(&panic), "presentation panicked");
            None
        }
    }
}

fn log_tool_error(tool: &str, error: &ToolError) {
    let mut chain = String::new();
    let mut source = std::error::Error::source(error);
    while let Some(s) = source {
        chain.push_str(&format!(": {s}"));
        source = s.source();
    }
    tracing::warn!(tool, kind = error.kind().as_str(), error = %error, cause = %chain, "tool returned an error");
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic".into())
}

/// The `outcome` label of the tool-call metric.
pub(super) fn outcome_label(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Ok => "ok",
        Outcome::NeedsConfirmation => "needs_confirmation",
        Outcome::Error(kind) => kind.as_str(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{CallError, Outcome, ToolReply};
    use crate::contract::ErrorKind;

    #[test]
    fn an_error_reply_carries_its_envelope_and_the_typed_error() {
        let reply = ToolReply::error(ErrorKind::UpstreamUnavailable, "the quote service is down");
        assert_eq!(
            reply.content,
            json!({"error": {"kind": "upstream_unavailable", "message": "the quote service is down"}})
        );
        assert_eq!(reply.outcome, Outcome::Error(ErrorKind::UpstreamUnavailable));
        let expected = CallError {
            kind: ErrorKind::UpstreamUnavailable,
            message: "the quote service is down".into(),
        };
        assert_eq!(reply.error, Some(expected));
        assert!(reply.card.is_none() && reply.chips.is_empty() && reply.links.is_empty());
    }
}
