//! A scripted OpenAI-compatible chat-completions server for integration tests.
//!
//! `GET /models` lists `fake-model` (or what [`FakeLlm::set_models`] says).
//! Tests queue the answers the "model" should give ([`Step`]s); each request to
//! `POST /chat/completions` (or `/v1/chat/completions`) consumes the next one. With the script
//! empty, a responder set by [`FakeLlm::respond_with`] answers from the request itself. Request bodies and
//! `authorization` headers are recorded so tests can inspect the tools, messages and tool results
//! the client sent.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};
use tokio::net::TcpListener;

use super::prompt_cache::{CacheTotals, PromptCache};

/// Source of completion ids (`chatcmpl-fake-N`).
static NEXT_COMPLETION: AtomicU64 = AtomicU64::new(1);

/// One scripted answer.
#[derive(Clone, Debug)]
pub enum Step {
    /// `200` with this JSON body (typically from [`FakeLlm::text`] or [`FakeLlm::tool_calls`]).
    Json(Value),
    /// This status with this raw body (`application/json` if it parses as JSON, else `text/plain`).
    Status(u16, String),
    /// Wait this long, then `200` with a plain text completion.
    Stall(Duration),
    /// `200` with `content-type: text/html` and body `<html>oops</html>`.
    Garbage,
    /// Wait this long, then `200` with this JSON body: a slow model.
    Slow(Duration, Value),
}

/// Handle to a running fake LLM; clones share the same server, script and records.
#[derive(Clone)]
pub struct FakeLlm {
    inner: Arc<Inner>,
}

struct Inner {
    port: u16,
    state: Mutex<LlmState>,
}

/// Answers a request body with a completion body (see [`FakeLlm::respond_with`]).
type Responder = Arc<dyn Fn(&Value) -> Value + Send + Sync>;

#[derive(Default)]
struct LlmState {
    script: VecDeque<Step>,
    responder: Option<Responder>,
    requests: Vec<Value>,
    auth_headers: Vec<Option<String>>,
    /// The model ids `GET /models` lists (`None`: just `fake-model`).
    models: Option<Vec<String>>,
    /// When set, every `200` answer reports the usage a provider's prompt cache would
    /// ([`FakeLlm::cache_prompts`]).
    cache: Option<PromptCache>,
}

impl FakeLlm {
    /// Binds `127.0.0.1:0` and serves the fake on a background task.
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind fake LLM");
        let port = listener.local_addr().expect("fake LLM local address").port();
        let llm = Self { inner: Arc::new(Inner { port, state: Mutex::default() }) };
        let router = Router::new()
            .route("/chat/completions", post(complete))
            .route("/v1/chat/completions", post(complete))
            .route("/models", get(models))
            .route("/v1/models", get(models))
            .with_state(llm.clone());
        tokio::spawn(async move {
            axum::serve(listener, router).await.expect("fake LLM server");
        });
        llm
    }

    /// Base URL, e.g. `http://127.0.0.1:41234` (no trailing slash, no `/v1`).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.inner.port)
    }

    /// Appends a step to the script.
    pub fn push(&self, step: Step) {
        self.lock().script.push_back(step);
    }

    /// Appends a final text answer: `push(Step::Json(FakeLlm::text(content)))`.
    pub fn reply_text(&self, content: &str) {
        self.push(Step::Json(Self::text(content)));
    }

    /// Appends a tool-call answer: `push(Step::Json(FakeLlm::tool_calls(calls)))`.
    pub fn reply_tool_calls(&self, calls: &[(&str, Value)]) {
        self.push(Step::Json(Self::tool_calls(calls)));
    }

    /// Sets the model ids `GET /models` lists.
    pub fn set_models(&self, ids: &[&str]) {
        self.lock().models = Some(ids.iter().map(|id| id.to_string()).collect());
    }

    /// Answers every request the script does not with `answer(request body)`: a model that
    /// reads the request (for runs too long or too concurrent to script in order).
    pub fn respond_with(&self, answer: impl Fn(&Value) -> Value + Send + Sync + 'static) {
        self.lock().responder = Some(Arc::new(answer));
    }

    /// From now on, every `200` answer reports the usage of a provider with a prompt cache:
    /// the request's o200k tokens, those of a prefix seen before as
    /// `prompt_tokens_details.cached_tokens` ([`PromptCache`]), and the answer's tokens.
    pub fn cache_prompts(&self) {
        self.lock().cache = Some(PromptCache::default());
    }

    /// What the prompt cache counted so far (zero when it is off).
    pub fn cache_totals(&self) -> CacheTotals {
        self.lock().cache.as_ref().map(|c| c.totals).unwrap_or_default()
    }

    /// Number of scripted steps not consumed yet.
    pub fn remaining(&self) -> usize {
        self.lock().script.len()
    }

    /// Every request body received so far (a JSON string holding the raw text if it was not JSON).
    pub fn requests(&self) -> Vec<Value> {
        self.lock().requests.clone()
    }

    /// The `authorization` header of every request so far (`None` when absent), in order.
    pub fn auth_headers(&self) -> Vec<Option<String>> {
        self.lock().auth_headers.clone()
    }

    /// Polls every 10 ms until at least `n` requests arrived and returns all of them; panics when
    /// `timeout` passes first.
    pub async fn wait_requests(&self, n: usize, timeout: Duration) -> Vec<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let requests = self.requests();
            if requests.len() >= n {
                return requests;
            }
            if Instant::now() >= deadline {
                panic!(
                    "FakeLlm::wait_requests: expected {n} requests within {timeout:?}, got {}",
                    requests.len()
                );
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// A complete final answer: assistant `content`, `finish_reason: "stop"`.
    pub fn text(content: &str) -> Value {
        let message = json!({"role": "assistant", "content": content, "refusal": null});
        completion(message, "stop")
    }

    /// A complete tool-call answer: `content: null`, one call per `(name, arguments)` with ids
    /// `call_1`, `call_2`, … and `arguments` serialised to a JSON string;
    /// `finish_reason: "tool_calls"`.
    pub fn tool_calls(calls: &[(&str, Value)]) -> Value {
        let calls: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (name, arguments))| {
                json!({
                    "id": format!("call_{}", i + 1),
                    "type": "function",
                    "function": {"name": name, "arguments": arguments.to_string()},
                })
            })
            .collect();
        let message = json!({
            "role": "assistant",
            "content": null,
            "refusal": null,
            "tool_calls": calls,
        });
        completion(message, "tool_calls")
    }

    /// `body` (a completion from [`FakeLlm::text`] or [`FakeLlm::tool_calls`]) reporting this
    /// usage instead of the default 42 + 7 tokens, as the real API does: prompt, completion and
    /// their total.
    pub fn with_usage(mut body: Value, prompt_tokens: u64, completion_tokens: u64) -> Value {
        body["usage"] = json!({
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        });
        body
    }

    /// `body` reporting this usage with `cached` of the prompt tokens served from the
    /// provider's prompt cache, as OpenAI reports it (`prompt_tokens_details.cached_tokens`).
    pub fn with_cached_usage(body: Value, prompt: u64, cached: u64, completion: u64) -> Value {
        let mut body = Self::with_usage(body, prompt, completion);
        body["usage"]["prompt_tokens_details"] = json!({"cached_tokens": cached});
        body
    }

    fn lock(&self) -> MutexGuard<'_, LlmState> {
        self.inner.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Wraps an assistant message in the chat-completion envelope.
fn completion(message: Value, finish_reason: &str) -> Value {
    let n = NEXT_COMPLETION.fetch_add(1, Ordering::Relaxed);
    json!({
        "id": format!("chatcmpl-fake-{n}"),
        "object": "chat.completion",
        "created": 1_764_460_800,
        "model": "fake-model",
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": finish_reason,
        }],
        "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49},
    })
}

/// `GET /models` in OpenAI's list shape.
async fn models(State(llm): State<FakeLlm>) -> Json<Value> {
    let ids = llm.lock().models.clone().unwrap_or_else(|| vec!["fake-model".to_string()]);
    let data: Vec<Value> = ids
        .iter()
        .map(
            |id| json!({"id": id, "object": "model", "created": 1_764_460_800, "owned_by": "fake"}),
        )
        .collect();
    Json(json!({"object": "list", "data": data}))
}

/// Records the request, then plays the next step of the script.
async fn complete(State(llm): State<FakeLlm>, headers: HeaderMap, raw: Bytes) -> Response {
    let body = serde_json::from_slice(&raw)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&raw).into()));
    let auth =
        headers.get("authorization").map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let (step, responder) = {
        let mut state = llm.lock();
        state.requests.push(body.clone());
        state.auth_headers.push(auth);
        (state.script.pop_front(), state.responder.clone())
    };
    let step = step.or_else(|| responder.map(|answer| Step::Json(answer(&body))));
    let request = body;
    match step {
        Some(Step::Json(mut body)) => {
            if let Some(cache) = llm.lock().cache.as_mut() {
                body["usage"] = cache.usage(&request, &body);
            }
            Json(body).into_response()
        }
        Some(Step::Status(code, body)) => {
            let status =
                StatusCode::from_u16(code).expect("Step::Status needs a valid status code");
            let content_type = if serde_json::from_str::<Value>(&body).is_ok() {
                "application/json"
            } else {
                "text/plain; charset=utf-8"
            };
            (status, [(CONTENT_TYPE, content_type)], body).into_response()
        }
        Some(Step::Stall(delay)) => {
            tokio::time::sleep(delay).await;
            Json(FakeLlm::text("(fake llm: stalled)")).into_response()
        }
        Some(Step::Slow(delay, body)) => {
            tokio::time::sleep(delay).await;
            Json(body).into_response()
        }
        Some(Step::Garbage) => {
            (StatusCode::OK, [(CONTENT_TYPE, "text/html")], "<html>oops</html>").into_response()
        }
        None => Json(FakeLlm::text("(fake llm: script exhausted)")).into_response(),
    }
}
