//! The checks of the LLM: the endpoint answers and offers the model, the model accepts a
//! request with a tool exactly as hearth sends them (and calls it), and the optional models
//! (vision, transcription), when set, are offered too.

use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::json;

use super::{Check, Finding, Probe};
use crate::contract::registry::ToolDefinition;
use crate::llm::models;
use crate::llm::openai::{ChatMessage, LlmClient, LlmError};
use crate::platform::config::{Config, Secret};

/// The name of the tool the tiny request offers.
const PING: &str = "ping";

/// What a failed request to the LLM endpoint means for the operator.
fn llm_error(base: &str, e: &LlmError) -> Finding {
    match e {
        LlmError::Unauthorized(status) => Finding::fail(
            format!("{base} refused the API key (HTTP {})", status.as_u16()),
            "check OPENAI_API_KEY",
        ),
        LlmError::RateLimited => Finding::fail(
            format!("{base} answered 429: rate-limited or out of credit"),
            "check the account's credit and rate limits at the provider",
        ),
        LlmError::Timeout | LlmError::Connect(_) => Finding::fail(
            format!("cannot reach {base}: {e}"),
            "check OPENAI_BASE_URL (with its version, e.g. http://localhost:11434/v1 for Ollama) and that the server is running",
        ),
        LlmError::Garbage => Finding::fail(
            format!("{base} did not answer like an OpenAI-compatible API"),
            "check OPENAI_BASE_URL: it must include the version (…/v1, or …/v1beta/openai for Gemini)",
        ),
        LlmError::Status { .. } => {
            Finding::fail(format!("{base}: {e}"), "check OPENAI_BASE_URL and the provider's status")
        }
    }
}

/// Whether `model` (the value of `setting`) is among those the endpoint lists.
pub fn model_listed(
    listed: Result<Vec<String>, LlmError>,
    setting: &str,
    model: &str,
    base: &str,
) -> Finding {
    match listed {
        Ok(ids) if models::is_listed(&ids, model) => {
            Finding::pass(format!("{base} offers {model}"))
        }
        Ok(ids) => {
            let some: Vec<&str> = ids.iter().take(8).map(String::as_str).collect();
            let offered = if some.is_empty() { "none".to_string() } else { some.join(", ") };
            Finding::fail(
                format!("{base} does not offer {model} ({setting}); it offers: {offered}"),
                format!(
                    "set {setting} to a model the endpoint offers (for Ollama: ollama pull {model})"
                ),
            )
        }
        Err(LlmError::Status { status, .. }) if status.is_client_error() => Finding::warn(
            format!(
                "{base} does not list its models (HTTP {}); {model} could not be looked up",
                status.as_u16()
            ),
            "nothing to do if the tool-call check passes; otherwise check the model name",
        ),
        Err(e) => llm_error(base, &e),
    }
}

/// The endpoint answers and offers the configured model.
pub struct Endpoint;

impl Check for Endpoint {
    fn name(&self) -> &'static str {
        "LLM model"
    }

    fn run<'a>(&'a self, probe: &'a Probe) -> BoxFuture<'a, Vec<Finding>> {
        Box::pin(async move {
            let c = &probe.config;
            let listed =
                models::list(&c.llm.openai_base_url, &c.llm.openai_api_key, probe.options.timeout)
                    .await;
            vec![model_listed(listed, "HEARTH_MODEL", &c.llm.model, &c.llm.openai_base_url)]
        })
    }
}

/// The model accepts a request with a tool, sent as hearth sends its own, and calls it.
pub struct Tools;

impl Check for Tools {
    fn name(&self) -> &'static str {
        "LLM tool calls"
    }

    fn run<'a>(&'a self, probe: &'a Probe) -> BoxFuture<'a, Vec<Finding>> {
        Box::pin(async move { vec![tool_call(probe).await] })
    }
}

async fn tool_call(probe: &Probe) -> Finding {
    let c = &probe.config;
    let timeout = Duration::from_secs(c.llm.llm_timeout_secs).min(probe.options.timeout);
    let client = match LlmClient::new(
        &c.llm.openai_base_url,
        c.llm.openai_api_key.clone(),
        &c.llm.model,
        c.llm.llm_strict,
        timeout,
    ) {
        Ok(client) => client,
        Err(e) => {
            return Finding::fail(
                format!("cannot build the HTTP client: {e}"),
                "report this as a bug",
            );
        }
    };
    let tool = ToolDefinition {
        name: PING.into(),
        description: "Answers pong. Call it whenever you are asked to ping.".into(),
        parameters: json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false}),
        strict: true,
    };
    let messages = [
        ChatMessage::System { content: "You are a health check. Call the ping tool.".into() },
        ChatMessage::User { content: "ping".into() },
    ];
    match client.complete(&messages, std::slice::from_ref(&tool), true).await {
        Ok(answer) if answer.tool_calls.iter().any(|call| call.function.name == PING) => {
            Finding::pass(format!("{} called the tool it was given", c.llm.model))
        }
        Ok(_) => Finding::warn(
            format!(
                "{} accepted a request with a tool but answered in text instead of calling it",
                c.llm.model
            ),
            "a model that calls tools reliably routes the family's requests better: consider another HEARTH_MODEL",
        ),
        Err(e @ LlmError::Status { .. }) => Finding::fail(
            format!("{} refused a request with a tool: {e}", c.llm.model),
            "use a model with tool calling; if the server rejects strict schemas, set HEARTH_LLM_STRICT=false",
        ),
        Err(e) => llm_error(&c.llm.openai_base_url, &e),
    }
}

/// What an optional model's feature does when its setting is not set.
#[derive(Debug, Clone, Copy)]
pub enum Unset {
    /// The feature is off; the text says what the family then misses.
    Off(&'static str),
    /// `HEARTH_MODEL` does the work.
    MainModel,
}

/// A model for an optional feature, named by a setting: offered by the endpoint when set.
pub struct OptionalModel {
    /// The check's name in the report.
    pub name: &'static str,
    /// The setting that names the model.
    pub setting: &'static str,
    /// The model, as configured (empty: not set).
    pub model: fn(&Config) -> &str,
    /// The endpoint (base URL and key) that serves the model.
    pub endpoint: fn(&Config) -> (&str, &Secret),
    /// What happens without it.
    pub unset: Unset,
}

impl Check for OptionalModel {
    fn name(&self) -> &'static str {
        self.name
    }

    fn run<'a>(&'a self, probe: &'a Probe) -> BoxFuture<'a, Vec<Finding>> {
        Box::pin(async move {
            let c = &probe.config;
            let model = (self.model)(c).trim();
            if model.is_empty() {
                return vec![match self.unset {
                    Unset::Off(missed) => Finding::warn(
                        format!("{} is not set: {missed}", self.setting),
                        format!(
                            "set {} to a model your endpoint offers to turn it on",
                            self.setting
                        ),
                    ),
                    Unset::MainModel => Finding::pass(format!(
                        "{} is not set: HEARTH_MODEL ({}) is used",
                        self.setting, c.llm.model
                    )),
                }];
            }
            let (base, key) = (self.endpoint)(c);
            let listed = models::list(base, key, probe.options.timeout).await;
            vec![model_listed(listed, self.setting, model, base)]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::doctor::Status;

    #[test]
    fn a_model_not_offered_fails_naming_the_setting_and_what_is_offered() {
        let listed = || Ok(vec!["gpt-4o-mini".to_string(), "gpt-4.1".to_string()]);
        let found =
            model_listed(listed(), "HEARTH_VISION_MODEL", "gpt-5", "https://api.example/v1");
        assert_eq!(found.status, Status::Fail);
        assert!(found.message.contains("gpt-4o-mini, gpt-4.1"), "{}", found.message);
        assert!(found.fix.as_deref().unwrap_or_default().contains("HEARTH_VISION_MODEL"));
        assert_eq!(model_listed(listed(), "HEARTH_MODEL", "gpt-4.1", "b").status, Status::Pass);
        let unlisted =
            Err(LlmError::Status { status: reqwest::StatusCode::NOT_FOUND, detail: String::new() });
        assert_eq!(model_listed(unlisted, "HEARTH_MODEL", "m", "b").status, Status::Warn);
        let refused = model_listed(
            Err(LlmError::Unauthorized(reqwest::StatusCode::UNAUTHORIZED)),
            "HEARTH_MODEL",
            "m",
            "b",
        );
        assert_eq!(refused.fix.as_deref(), Some("check OPENAI_API_KEY"));
    }
}
