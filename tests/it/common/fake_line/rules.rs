//! The decisions of the fake LINE API: which status and body a request earns, given the current
//! state (used reply tokens, accepted retry keys, failure modes, profiles).
//!
//! Everything here is synchronous and runs under the state lock, so a request is processed
//! completely before any stall delays its answer.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};

use super::{LineState, PushMode, ReplyMode};

/// Source of `sentMessages[].id` values, shared by every fake in the process.
static NEXT_MESSAGE_ID: AtomicU64 = AtomicU64::new(600_000_000_000_000_001);

const RETRY_KEY: &str = "x-line-retry-key";

/// What the fake answers, and how long it waits before answering.
pub(super) struct Outcome {
    pub(super) status: StatusCode,
    pub(super) body: Value,
    pub(super) headers: Vec<(&'static str, String)>,
    pub(super) delay: Option<Duration>,
}

impl Outcome {
    pub(super) fn new(status: StatusCode, body: Value) -> Self {
        Self { status, body, headers: Vec::new(), delay: None }
    }

    fn with_header(mut self, name: &'static str, value: String) -> Self {
        self.headers.push((name, value));
        self
    }

    fn delayed(mut self, delay: Option<Duration>) -> Self {
        self.delay = delay;
        self
    }
}

/// Decides the answer to one request; `request_id` is the `x-line-request-id` it will carry.
pub(super) fn dispatch(
    state: &mut LineState,
    method: &str,
    path: &str,
    headers: &HeaderMap,
    body: &Value,
    request_id: &str,
) -> Outcome {
    // LINE Login's ID token verification takes no channel access token.
    if method == "POST" && path == "/oauth2/v2.1/verify" {
        return verify_id_token(state, body);
    }
    let authorized = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|token| {
            !token.trim().is_empty()
                && state.channel.valid_token.as_ref().is_none_or(|t| t == token)
        });
    if !authorized {
        return Outcome::new(StatusCode::UNAUTHORIZED, json!({"message": "Authentication failed"}));
    }
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    if let Some(outcome) =
        super::richmenus::dispatch(&mut state.richmenus, method, &segments, headers, body)
    {
        return outcome;
    }
    match (method, segments.as_slice()) {
        ("POST", ["v2", "bot", "message", "reply"]) => {
            check_json(headers, body).unwrap_or_else(|| reply(state, headers, body))
        }
        ("POST", ["v2", "bot", "message", "push"]) => {
            check_json(headers, body).unwrap_or_else(|| push(state, headers, body, request_id))
        }
        ("POST", ["v2", "bot", "chat", "loading", "start"]) => {
            check_json(headers, body).unwrap_or_else(|| loading(body))
        }
        ("GET", ["v2", "bot", "profile", user]) if state.non_friends.contains(*user) => not_found(),
        ("GET", ["v2", "bot", "profile", user]) => profile(state, user, true),
        ("GET", ["v2", "bot", "group" | "room", _, "member", user]) => profile(state, user, false),
        ("GET", ["v2", "bot", "message", "quota"]) => match state.quota_limit {
            Some(limit) => Outcome::new(StatusCode::OK, json!({"type": "limited", "value": limit})),
            None => Outcome::new(StatusCode::OK, json!({"type": "none"})),
        },
        ("GET", ["v2", "bot", "message", "quota", "consumption"]) => {
            Outcome::new(StatusCode::OK, json!({"totalUsage": state.quota_used}))
        }
        ("GET", ["v2", "bot", "info"]) => Outcome::new(StatusCode::OK, bot_info()),
        ("GET", ["v2", "bot", "channel", "webhook", "endpoint"]) => Outcome::new(
            StatusCode::OK,
            json!({"endpoint": state.channel.webhook, "active": state.channel.webhook_active}),
        ),
        ("PUT", ["v2", "bot", "channel", "webhook", "endpoint"]) => {
            check_json(headers, body).unwrap_or_else(|| set_webhook(&mut state.channel, body))
        }
        ("POST", ["v2", "bot", "channel", "webhook", "test"]) => {
            check_json(headers, body).unwrap_or_else(|| webhook_test(&state.channel))
        }
        ("GET", ["v2", "bot", "group" | "room", chat, "members", "count"]) => {
            let count = state.chat_sizes.get(*chat).copied().unwrap_or(1);
            Outcome::new(StatusCode::OK, json!({"count": count}))
        }
        _ => not_found(),
    }
}

/// The channel as the console sets it: which token is valid, the webhook URL, and what LINE's
/// test request to it gets.
pub(crate) struct Channel {
    /// The only token accepted, when set (any non-empty one otherwise).
    pub(crate) valid_token: Option<String>,
    /// The registered webhook URL (empty: none).
    pub(crate) webhook: String,
    /// "Use webhook".
    pub(crate) webhook_active: bool,
    /// The status the webhook URL answers LINE's test with (`0`: no answer).
    pub(crate) webhook_test_status: i64,
}

impl Default for Channel {
    fn default() -> Self {
        Self {
            valid_token: None,
            webhook: String::new(),
            webhook_active: false,
            webhook_test_status: 200,
        }
    }
}

/// `GET /v2/bot/info`, in the shape of LINE's example.
fn bot_info() -> Value {
    json!({
        "userId": "U8e742f61d673b39c7fff3cecb7536ef0",
        "basicId": "@216ruodb",
        "displayName": "小幫手",
        "pictureUrl": "https://profile.line-scdn.net/abcdefghijklmn",
        "chatMode": "bot",
        "markAsReadMode": "auto",
    })
}

/// `PUT /v2/bot/channel/webhook/endpoint`: an `https://` URL of at most 500 characters becomes
/// the webhook URL ("Use webhook" is left as it was: no request changes it).
fn set_webhook(channel: &mut Channel, body: &Value) -> Outcome {
    let endpoint = body.get("endpoint").and_then(Value::as_str).unwrap_or_default();
    if !endpoint.starts_with("https://") || endpoint.chars().count() > 500 {
        return bad_request("Invalid webhook endpoint URL", "endpoint");
    }
    channel.webhook = endpoint.to_owned();
    Outcome::new(StatusCode::OK, json!({}))
}

/// `POST /v2/bot/channel/webhook/test`: what LINE reports its test request got.
fn webhook_test(channel: &Channel) -> Outcome {
    let status = channel.webhook_test_status;
    let (reason, detail) = match status {
        200 => ("OK", "200".to_string()),
        0 => ("COULD_NOT_CONNECT", "Connection refused".to_string()),
        s => ("ERROR_STATUS_CODE", s.to_string()),
    };
    Outcome::new(
        StatusCode::OK,
        json!({
            "success": status == 200,
            "timestamp": "2026-11-30T12:00:00.000Z",
            "statusCode": status,
            "reason": reason,
            "detail": detail,
        }),
    )
}

fn reply(state: &mut LineState, headers: &HeaderMap, body: &Value) -> Outcome {
    if headers.contains_key(RETRY_KEY) {
        let detail = "X-Line-Retry-Key is not supported for this endpoint";
        return bad_request(detail, "X-Line-Retry-Key");
    }
    let Some(token) = body.get("replyToken").and_then(Value::as_str).filter(|t| !t.is_empty())
    else {
        return bad_request("May not be empty", "replyToken");
    };
    let messages = match messages_of(body) {
        Ok(messages) => messages,
        Err(outcome) => return outcome,
    };
    let delay = match state.reply_mode {
        ReplyMode::Ok => None,
        ReplyMode::ServerError => return server_error(),
        ReplyMode::RateLimitedTimes { times: 0, .. } => {
            state.reply_mode = ReplyMode::Ok;
            None
        }
        ReplyMode::RateLimitedTimes { times, retry_after } => {
            state.reply_mode = ReplyMode::RateLimitedTimes { times: times - 1, retry_after };
            return rate_limited(retry_after);
        }
        ReplyMode::Stall(delay) => Some(delay),
    };
    let rejected = state.expire_all
        || state.expired_tokens.contains(token)
        || !state.used_tokens.insert(token.to_owned());
    let outcome = if rejected {
        Outcome::new(StatusCode::BAD_REQUEST, json!({"message": "Invalid reply token"}))
    } else {
        Outcome::new(StatusCode::OK, json!({"sentMessages": sent_messages(messages)}))
    };
    outcome.delayed(delay)
}

fn push(state: &mut LineState, headers: &HeaderMap, body: &Value, request_id: &str) -> Outcome {
    let retry_key = match headers.get(RETRY_KEY) {
        None => None,
        Some(value) => match value.to_str().ok().filter(|k| uuid::Uuid::parse_str(k).is_ok()) {
            Some(key) => Some(key.to_ascii_lowercase()),
            None => {
                let message = "The value of X-Line-Retry-Key header is invalid";
                return Outcome::new(StatusCode::BAD_REQUEST, json!({"message": message}));
            }
        },
    };
    if body.get("to").and_then(Value::as_str).is_none_or(str::is_empty) {
        return bad_request("May not be empty", "to");
    }
    let messages = match messages_of(body) {
        Ok(messages) => messages,
        Err(outcome) => return outcome,
    };
    if let Some(bucket) = state.push_bucket.as_mut()
        && !bucket.take()
    {
        let message = "The API rate limit has been exceeded. Try again later.";
        return Outcome::new(StatusCode::TOO_MANY_REQUESTS, json!({"message": message}));
    }
    let delay = match state.push_mode {
        PushMode::Ok => None,
        PushMode::Stall(delay) => Some(delay),
        PushMode::QuotaExhausted => {
            let message = "You have reached your monthly limit.";
            return Outcome::new(StatusCode::TOO_MANY_REQUESTS, json!({"message": message}));
        }
        PushMode::RateLimited => {
            let message = "The API rate limit has been exceeded. Try again later.";
            return Outcome::new(StatusCode::TOO_MANY_REQUESTS, json!({"message": message}));
        }
        PushMode::ServerError => return server_error(),
        PushMode::RefuseTimes(0) => {
            state.push_mode = PushMode::Ok;
            None
        }
        PushMode::RefuseTimes(n) => {
            state.push_mode = PushMode::RefuseTimes(n - 1);
            let message = "Failed to send messages";
            return Outcome::new(StatusCode::BAD_REQUEST, json!({"message": message}));
        }
        PushMode::FailTimes(0) => {
            state.push_mode = PushMode::Ok;
            None
        }
        PushMode::FailTimes(n) => {
            state.push_mode = PushMode::FailTimes(n - 1);
            return server_error();
        }
        PushMode::RateLimitedTimes { times: 0, .. } => {
            state.push_mode = PushMode::Ok;
            None
        }
        PushMode::RateLimitedTimes { times, retry_after } => {
            state.push_mode = PushMode::RateLimitedTimes { times: times - 1, retry_after };
            return rate_limited(Some(retry_after));
        }
    };
    if let Some((accepted_id, sent)) = retry_key.as_ref().and_then(|k| state.accepted_keys.get(k)) {
        let message = "The retry key is already accepted";
        return Outcome::new(
            StatusCode::CONFLICT,
            json!({"message": message, "sentMessages": sent}),
        )
        .with_header("x-line-accepted-request-id", accepted_id.clone())
        .delayed(delay);
    }
    let to = body.get("to").and_then(Value::as_str).unwrap_or_default();
    let cost = if to.starts_with('U') { 1 } else { state.chat_sizes.get(to).copied().unwrap_or(1) };
    if state.quota_limit.is_some_and(|limit| state.quota_used + cost > limit) {
        let message = "You have reached your monthly limit.";
        return Outcome::new(StatusCode::TOO_MANY_REQUESTS, json!({"message": message}));
    }
    state.quota_used += cost;
    let sent = Value::from(sent_messages(messages));
    if let Some(key) = retry_key {
        state.accepted_keys.insert(key, (request_id.to_owned(), sent.clone()));
    }
    Outcome::new(StatusCode::OK, json!({"sentMessages": sent})).delayed(delay)
}

/// The rate-limit `429`, with `Retry-After` when given.
fn rate_limited(retry_after: Option<u64>) -> Outcome {
    let message = "The API rate limit has been exceeded. Try again later.";
    let outcome = Outcome::new(StatusCode::TOO_MANY_REQUESTS, json!({"message": message}));
    match retry_after {
        Some(seconds) => outcome.with_header("retry-after", seconds.to_string()),
        None => outcome,
    }
}

fn loading(body: &Value) -> Outcome {
    let user_chat =
        body.get("chatId").and_then(Value::as_str).is_some_and(|id| id.starts_with('U'));
    if !user_chat {
        let detail = "Only user id is acceptable, please confirm if there are any group/room ids \
                      or illegal ids.";
        return bad_request(detail, "chatId");
    }
    let seconds = match body.get("loadingSeconds") {
        None => Some(20),
        Some(value) => value.as_u64(),
    };
    match seconds {
        Some(s) if (5..=60).contains(&s) && s % 5 == 0 => {
            Outcome::new(StatusCode::ACCEPTED, json!({}))
        }
        _ => bad_request("Must be a multiple of five between 5 and 60", "loadingSeconds"),
    }
}

/// A user's profile; with their `language` in the 1:1 profile only (`UserProfileResponse`; a
/// group or room member's has none).
fn profile(state: &LineState, user_id: &str, language: bool) -> Outcome {
    match state.profiles.get(user_id) {
        Some(name) => {
            let mut body = json!({
                "userId": user_id,
                "displayName": name,
                "pictureUrl": "https://example.com/p.png",
            });
            if language {
                let said = state.languages.get(user_id).map_or("zh-TW", String::as_str);
                body["language"] = json!(said);
            }
            Outcome::new(StatusCode::OK, body)
        }
        None => not_found(),
    }
}

/// `415` unless the request declares JSON, `400` unless the body is a JSON object.
pub(super) fn check_json(headers: &HeaderMap, body: &Value) -> Option<Outcome> {
    let is_json = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    if !is_json {
        let body = json!({"message": "Unsupported Media Type"});
        return Some(Outcome::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, body));
    }
    if !body.is_object() {
        return Some(bad_request("The request body is not a JSON object", "body"));
    }
    None
}

/// The `messages` array, which must hold 1–5 objects that each have a string `type`.
fn messages_of(body: &Value) -> Result<&[Value], Outcome> {
    match body.get("messages").and_then(Value::as_array) {
        Some(list) if (1..=5).contains(&list.len()) => {
            if list.iter().all(|m| m.get("type").and_then(Value::as_str).is_some()) {
                Ok(list)
            } else {
                Err(bad_request("Every message needs a type", "messages"))
            }
        }
        _ => Err(bad_request("Size must be between 1 and 5", "messages")),
    }
}

/// One `sentMessages` entry per message; only quotable types get a `quoteToken`.
fn sent_messages(messages: &[Value]) -> Vec<Value> {
    messages
        .iter()
        .map(|message| {
            let id = NEXT_MESSAGE_ID.fetch_add(1, Ordering::Relaxed);
            let kind = message.get("type").and_then(Value::as_str).unwrap_or_default();
            if matches!(kind, "text" | "textV2" | "sticker") {
                json!({"id": id.to_string(), "quoteToken": format!("q-{id}")})
            } else {
                json!({"id": id.to_string()})
            }
        })
        .collect()
}

pub(super) fn bad_request(detail: &str, property: &str) -> Outcome {
    let body = json!({
        "message": "The request body has 1 error(s)",
        "details": [{"message": detail, "property": property}],
    });
    Outcome::new(StatusCode::BAD_REQUEST, body)
}

fn server_error() -> Outcome {
    Outcome::new(StatusCode::INTERNAL_SERVER_ERROR, json!({"message": "Internal server error"}))
}

pub(super) fn not_found() -> Outcome {
    Outcome::new(StatusCode::NOT_FOUND, json!({"message": "Not found"}))
}

/// `POST /oauth2/v2.1/verify` (form: `id_token`, `client_id`): the token's claims when it was
/// issued (`FakeLine::set_id_token`) for that channel, else LINE's `400`.
fn verify_id_token(state: &LineState, body: &Value) -> Outcome {
    let form: HashMap<String, String> =
        url::form_urlencoded::parse(body.as_str().unwrap_or("").as_bytes()).into_owned().collect();
    let token = form.get("id_token").map(String::as_str).unwrap_or("");
    let client = form.get("client_id").map(String::as_str).unwrap_or("");
    match state.id_tokens.get(token) {
        Some((user, channel)) if channel == client => Outcome::new(
            StatusCode::OK,
            json!({"iss": "https://access.line.me", "sub": user, "aud": channel, "exp": 4102444800_i64, "iat": 1764500000, "name": "媽媽", "amr": ["linesso"]}),
        ),
        Some(_) => Outcome::new(
            StatusCode::BAD_REQUEST,
            json!({"error": "invalid_request", "error_description": "Invalid IdToken Audience."}),
        ),
        None => Outcome::new(
            StatusCode::BAD_REQUEST,
            json!({"error": "invalid_request", "error_description": "Invalid IdToken."}),
        ),
    }
}
