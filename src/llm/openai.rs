//! A thin client for OpenAI-compatible `/chat/completions` with tool calls. The response types
//! are tolerant of the quirks of compatible servers: unknown fields ignored, `finish_reason`
//! free or missing, `arguments` as a string, an object or nothing, `content` empty next to calls.

use std::time::Duration;

use reqwest::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::endpoint::Endpoint;
pub use super::usage::Usage;
use crate::contract::registry::ToolDefinition;
use crate::platform::config::Secret;

/// Room in a request's buffer for the messages, beyond the tool list.
const REQUEST_HEADROOM: usize = 16 * 1024;
/// One message of the conversation sent to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum ChatMessage {
    /// Instructions.
    System {
        /// The text.
        content: String,
    },
    /// Something a person said.
    User {
        /// The text.
        content: String,
    },
    /// Something a person said with pictures or a document beside it: the words first, then
    /// the rest (OpenAI-style content parts).
    #[serde(rename = "user")]
    UserParts {
        /// The parts.
        content: Vec<ContentPart>,
    },
    /// hearth's own note about the chat or the turn (what the chat is and remembers; the time,
    /// the speaker, the language), sent as a user message so that no chat template gathers it
    /// with the instructions before the tool definitions. Not the family's words.
    #[serde(rename = "user")]
    Note {
        /// The text.
        content: String,
    },
    /// Something the model said, possibly with tool calls.
    Assistant {
        /// The text, if any.
        content: Option<String>,
        /// The calls the model made.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call.
    Tool {
        /// The id of the call this answers.
        tool_call_id: String,
        /// The result as JSON text.
        content: String,
    },
}

impl ChatMessage {
    /// True when the message carries a picture (the turn then needs a vision model).
    pub fn has_image(&self) -> bool {
        matches!(self, ChatMessage::UserParts { content }
            if content.iter().any(|p| matches!(p, ContentPart::ImageUrl { .. })))
    }

    /// What the family wrote in a user message (for `UserParts`, the first text part only: the
    /// rest is content they shared, not their words); `None` for other roles.
    pub fn family_words(&self) -> Option<&str> {
        match self {
            ChatMessage::User { content } => Some(content),
            ChatMessage::UserParts { content } => content.iter().find_map(|p| match p {
                ContentPart::Text { text } => Some(text.as_str()),
                ContentPart::ImageUrl { .. } => None,
            }),
            _ => None,
        }
    }
}

/// One part of a user message with pictures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// A picture, by URL (a `data:` URL here).
    ImageUrl {
        /// The picture.
        image_url: ImageUrl,
    },
}

/// A picture of a content part.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImageUrl {
    /// The URL.
    pub url: String,
    /// `high`: read at full resolution (notices and labels have small print).
    pub detail: &'static str,
}

/// A tool call made by the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCall {
    /// The call id.
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Which function, with which arguments.
    pub function: FunctionCall,
}

/// The function part of a tool call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionCall {
    /// The tool name.
    pub name: String,
    /// The arguments as the JSON string the model produced.
    pub arguments: String,
}

#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    messages: &'a [ChatMessage],
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_key: Option<&'a str>,
}

/// The `tools` of a request, serialised once: a turn's requests (and, while the tools do not
/// change, every turn's) send the same JSON without building it again.
#[derive(Debug, Clone)]
pub struct ToolList {
    /// The JSON array; `None` when there are no tools (the field is then left out).
    json: Option<Box<RawValue>>,
}

/// A tool as the request's `tools` list describes it:
/// `{"type": "function", "function": {name, description, parameters, strict}}`.
#[derive(Debug, Serialize)]
pub struct ToolSpec<'a> {
    /// Always `function`.
    #[serde(rename = "type")]
    kind: &'static str,
    /// The function's definition.
    function: FunctionSpec<'a>,
}

#[derive(Debug, Serialize)]
struct FunctionSpec<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    strict: bool,
}

/// The `tools` of a request, exactly as sent: each definition wrapped as a function, with
/// `strict: true` when strict schemas are on and the tool's schema is strict (omitted otherwise). `hearth tools` prints this.
pub fn tool_specs(tools: &[ToolDefinition], strict: bool) -> Vec<ToolSpec<'_>> {
    tools
        .iter()
        .map(|t| ToolSpec {
            kind: "function",
            function: FunctionSpec {
                name: &t.name,
                description: &t.description,
                parameters: &t.parameters,
                strict: strict && t.strict,
            },
        })
        .collect()
}

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    message: Option<WireMessage>,
}

#[derive(Deserialize, Default)]
struct WireMessage {
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    tool_calls: Option<Vec<WireToolCall>>,
}

#[derive(Deserialize)]
struct WireToolCall {
    #[serde(default)]
    id: Option<String>,
    function: WireFunction,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    #[serde(default)]
    arguments: Value,
}

/// What the model answered.
#[derive(Debug, Clone, Default)]
pub struct Completion {
    /// The text, if any (empty strings are treated as none).
    pub content: Option<String>,
    /// The tool calls, if any; their presence, not `finish_reason`, means "call tools".
    pub tool_calls: Vec<ToolCall>,
    /// Token counts.
    pub usage: Option<Usage>,
}

/// Why the model did not answer.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// No answer in time.
    #[error("the LLM timed out")]
    Timeout,
    /// Rate-limited or out of credit.
    #[error("the LLM is rate-limited (HTTP 429)")]
    RateLimited,
    /// The key was refused.
    #[error("the LLM refused the API key (HTTP {0})")]
    Unauthorized(StatusCode),
    /// Any other error status; the body is for the log only.
    #[error("the LLM answered HTTP {status}: {detail}")]
    Status {
        /// The status.
        status: StatusCode,
        /// The provider's message, shortened.
        detail: String,
    },
    /// Could not connect.
    #[error("could not reach the LLM")]
    Connect(#[source] reqwest::Error),
    /// The body was not a chat completion.
    #[error("the LLM answered something that is not a chat completion")]
    Garbage,
}

/// The client.
#[derive(Clone)]
pub struct LlmClient {
    endpoint: Endpoint,
    model: String,
    strict: bool,
    prompt_cache_key: Option<String>,
}

impl LlmClient {
    /// A client for `base_url` (which includes the version, e.g. `…/v1`); fails when the HTTP
    /// client cannot be built (there is no client without time limits to fall back on).
    pub fn new(
        base_url: &str,
        api_key: Secret,
        model: &str,
        strict: bool,
        timeout: Duration,
    ) -> Result<Self, reqwest::Error> {
        Ok(Self {
            endpoint: Endpoint::new(base_url, "chat/completions", api_key, timeout)?,
            model: model.to_string(),
            strict,
            prompt_cache_key: None,
        })
    }

    /// The same client sending `key` as every request's `prompt_cache_key`
    /// (`HEARTH_PROMPT_CACHE_KEY`; `None` or empty: not sent).
    pub fn with_prompt_cache_key(mut self, key: Option<String>) -> Self {
        self.prompt_cache_key = key.filter(|k| !k.trim().is_empty());
        self
    }

    /// The same client asking `model` instead (the vision model for turns with pictures).
    pub fn with_model(&self, model: &str) -> Self {
        Self { model: model.to_string(), ..self.clone() }
    }

    /// The `tools` of requests describing `tools`, as this client sends them.
    pub fn tool_list(&self, tools: &[ToolDefinition]) -> ToolList {
        let specs = tool_specs(tools, self.strict);
        let json = if specs.is_empty() {
            None
        } else {
            // Serialising plain structs of strings and JSON values cannot fail.
            serde_json::value::to_raw_value(&specs).ok()
        };
        ToolList { json }
    }

    /// Asks the model. With `allow_tools` false the tools are still described (the history may
    /// contain calls) but the model is told not to call any.
    pub async fn complete(
        &self,
        messages: &[ChatMessage],
        tools: &[ToolDefinition],
        allow_tools: bool,
    ) -> Result<Completion, LlmError> {
        self.complete_with(messages, &self.tool_list(tools), allow_tools).await
    }

    /// [`LlmClient::complete`] with the tools already serialised ([`LlmClient::tool_list`]).
    pub async fn complete_with(
        &self,
        messages: &[ChatMessage],
        tools: &ToolList,
        allow_tools: bool,
    ) -> Result<Completion, LlmError> {
        let tools = tools.json.as_deref();
        let tool_choice = match (tools.is_none(), allow_tools) {
            (true, _) => None,
            (false, true) => Some("auto"),
            (false, false) => Some("none"),
        };
        let body = Request {
            model: &self.model,
            messages,
            tools,
            tool_choice,
            prompt_cache_key: self.prompt_cache_key.as_deref(),
        };
        let span = tracing::info_span!("llm", model = %self.model, outcome = tracing::field::Empty);
        let result = crate::platform::timing::timed(span, self.send(&body), outcome_of).await;
        let usage = result.as_ref().ok().and_then(|c| c.usage).unwrap_or_default();
        let outcome = outcome_of(&result);
        crate::platform::metrics::llm_call(
            outcome,
            usage.prompt_tokens,
            usage.cached_tokens,
            usage.completion_tokens,
        );
        result
    }

    async fn send(&self, body: &Request<'_>) -> Result<Completion, LlmError> {
        // Written once into a buffer big enough for the tool list and a turn's messages (grown
        // from empty, the tens of kilobytes were copied over and over as it doubled).
        let mut json =
            Vec::with_capacity(body.tools.map_or(0, |t| t.get().len()) + REQUEST_HEADROOM);
        // Serialising plain structs of strings and JSON values cannot fail.
        let _ = serde_json::to_writer(&mut json, body);
        let request = |request: reqwest::RequestBuilder| {
            request.header(reqwest::header::CONTENT_TYPE, "application/json").body(json)
        };
        let (status, bytes) =
            self.endpoint.post(request).await.map_err(|e| {
                if e.is_timeout() { LlmError::Timeout } else { LlmError::Connect(e) }
            })?;
        match status {
            s if s.is_success() => parse_completion(&bytes),
            StatusCode::TOO_MANY_REQUESTS => Err(LlmError::RateLimited),
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Err(LlmError::Unauthorized(status)),
            _ => Err(LlmError::Status { status, detail: error_detail(&bytes) }),
        }
    }
}

/// How a call to the model ended, for its span and metrics.
fn outcome_of(result: &Result<Completion, LlmError>) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(LlmError::Timeout) => "timeout",
        Err(LlmError::RateLimited) => "rate_limited",
        Err(_) => "error",
    }
}

/// Parses a completion body, normalising the quirks of compatible servers.
fn parse_completion(bytes: &[u8]) -> Result<Completion, LlmError> {
    let response: Response = serde_json::from_slice(bytes).map_err(|_| LlmError::Garbage)?;
    let message =
        response.choices.into_iter().next().ok_or(LlmError::Garbage)?.message.unwrap_or_default();
    let content = message.content.and_then(text_of).filter(|t| !t.trim().is_empty());
    let tool_calls = message
        .tool_calls
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, call)| ToolCall {
            id: call.id.filter(|id| !id.is_empty()).unwrap_or_else(|| format!("call_{i}")),
            kind: "function",
            function: FunctionCall {
                name: call.function.name,
                arguments: match call.function.arguments {
                    Value::String(s) => s,
                    Value::Null => "{}".into(),
                    other => other.to_string(),
                },
            },
        })
        .collect();
    Ok(Completion { content, tool_calls, usage: response.usage })
}

/// Content is a string, or (on some servers) an array of text parts.
fn text_of(content: Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(""),
        ),
        _ => None,
    }
}

/// The provider's error message for the log: OpenAI's envelope when it matches, else the raw
/// text, shortened.
fn error_detail(bytes: &[u8]) -> String {
    let parsed: Option<Value> = serde_json::from_slice(bytes).ok();
    let message = parsed
        .as_ref()
        .and_then(|v| v.pointer("/error/message").or_else(|| v.get("detail")))
        .map(|m| m.as_str().map(str::to_string).unwrap_or_else(|| m.to_string()));
    let text = message.unwrap_or_else(|| String::from_utf8_lossy(bytes).into_owned());
    text.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_as_an_object_are_turned_into_a_string() {
        let body = br#"{"choices":[{"message":{"role":"assistant","content":"","tool_calls":[
            {"id":"a","type":"function","function":{"name":"fx","arguments":{"from":"USD"}}}]},
            "finish_reason":"stop"}]}"#;
        let c = parse_completion(body).expect("parses");
        assert_eq!(c.content, None, "empty content next to calls is no content");
        assert_eq!(c.tool_calls[0].function.arguments, r#"{"from":"USD"}"#);
    }

    #[test]
    fn missing_ids_finish_reason_and_usage_are_tolerated() {
        let body = br#"{"choices":[{"message":{"tool_calls":[{"function":{"name":"weather"}}]}}],
            "service_tier":"on_demand","usage":{}}"#;
        let c = parse_completion(body).expect("parses");
        assert_eq!(c.tool_calls[0].id, "call_0");
        assert_eq!(c.tool_calls[0].function.arguments, "{}");
    }

    #[test]
    fn usage_is_read_with_its_total() {
        let body = br#"{"choices":[{"message":{"content":"hi"}}],
            "usage":{"prompt_tokens":42,"completion_tokens":7,"total_tokens":60}}"#;
        let usage = parse_completion(body).expect("parses").usage.expect("usage");
        assert_eq!((usage.prompt_tokens, usage.completion_tokens, usage.tokens()), (42, 7, 60));
    }

    #[test]
    fn content_parts_are_joined() {
        let body = r#"{"choices":[{"message":{"content":[{"type":"text","text":"你"},{"type":"text","text":"好"}]},"finish_reason":""}]}"#;
        assert_eq!(
            parse_completion(body.as_bytes()).expect("parses").content.as_deref(),
            Some("你好")
        );
    }

    #[test]
    fn html_or_empty_choices_are_garbage() {
        assert!(matches!(parse_completion(b"<html>oops</html>"), Err(LlmError::Garbage)));
        assert!(matches!(parse_completion(br#"{"choices":[]}"#), Err(LlmError::Garbage)));
    }

    #[test]
    fn error_envelope_detail_is_extracted_for_the_log() {
        let body =
            br#"{"error":{"message":"Unsupported parameter","type":"invalid_request_error"}}"#;
        assert_eq!(error_detail(body), "Unsupported parameter");
        assert_eq!(error_detail(b"plain failure"), "plain failure");
    }
}
