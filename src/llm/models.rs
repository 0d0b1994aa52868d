//! `GET /models` of an OpenAI-compatible API: the model names the endpoint offers, read by
//! `hearth doctor`, and the pure rule for whether a configured name is among them (Gemini's
//! compatible endpoint lists `models/…`, Ollama `…:latest`).

use std::time::Duration;

use reqwest::StatusCode;
use serde::Deserialize;

use super::openai::LlmError;
use crate::platform::config::Secret;

#[derive(Deserialize)]
struct ModelList {
    #[serde(default)]
    data: Vec<ModelEntry>,
}

#[derive(Deserialize)]
struct ModelEntry {
    id: String,
}

/// The ids of the models the endpoint at `base_url` (with its version, `…/v1`) lists.
pub async fn list(
    base_url: &str,
    api_key: &Secret,
    timeout: Duration,
) -> Result<Vec<String>, LlmError> {
    let http = crate::platform::tls::client_builder()
        .timeout(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(10)))
        .build()
        .map_err(LlmError::Connect)?;
    let mut request = http.get(format!("{}/models", base_url.trim_end_matches('/')));
    if !api_key.is_empty() {
        request = request.bearer_auth(api_key.expose());
    }
    let transport = |e: reqwest::Error| {
        if e.is_timeout() { LlmError::Timeout } else { LlmError::Connect(e) }
    };
    let response = request.send().await.map_err(transport)?;
    let status = response.status();
    let body = response.bytes().await.map_err(transport)?;
    match status {
        s if s.is_success() => {
            let list: ModelList = serde_json::from_slice(&body).map_err(|_| LlmError::Garbage)?;
            Ok(list.data.into_iter().map(|m| m.id).collect())
        }
        StatusCode::TOO_MANY_REQUESTS => Err(LlmError::RateLimited),
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Err(LlmError::Unauthorized(status)),
        _ => Err(LlmError::Status { status, detail: String::new() }),
    }
}

/// True when `wanted` is one of `listed`, allowing the `models/` prefix some endpoints list
/// and Ollama's implicit `:latest` tag.
pub fn is_listed(listed: &[String], wanted: &str) -> bool {
    let wanted = wanted.trim();
    let bare = |id: &str| id.trim().trim_start_matches("models/").to_string();
    let wanted_bare = bare(wanted);
    listed.iter().any(|id| {
        let id = bare(id);
        id == wanted_bare
            || id.strip_suffix(":latest") == Some(wanted_bare.as_str())
            || wanted_bare.strip_suffix(":latest") == Some(id.as_str())
    })
}

#[cfg(test)]
mod tests {
    use super::is_listed;

    #[test]
    fn a_model_is_found_with_or_without_the_models_prefix_and_the_latest_tag() {
        let listed: Vec<String> =
            ["gpt-4o-mini", "models/gemini-2.5-flash", "llama3.2:latest", "qwen3:8b"]
                .map(String::from)
                .to_vec();
        assert!(is_listed(&listed, "gpt-4o-mini"));
        assert!(is_listed(&listed, "gemini-2.5-flash"));
        assert!(is_listed(&listed, "models/gemini-2.5-flash"));
        assert!(is_listed(&listed, "llama3.2"));
        assert!(is_listed(&listed, "qwen3:8b"));
        assert!(!is_listed(&listed, "qwen3"), "another tag is another model");
        assert!(!is_listed(&listed, "gpt-4o"));
    }
}
