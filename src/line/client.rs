//! The LINE Messaging API client: reply, push (with `X-Line-Retry-Key`), the loading animation
//! and profiles. Errors are typed so the caller can tell a definite rejection (safe to fall back
//! to push) from an unknown outcome (never blindly repeated).

use std::time::Duration;

use reqwest::StatusCode;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::message::Message;
use super::retry::{self, PUSH_RETRIES, REPLY_RETRIES};
use crate::platform::config::Secret;
use crate::platform::conversation::{ChatKind, Conversation};
use crate::platform::retry::Again;

/// Why LINE did not accept a request.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// The reply token is expired, used or unknown: definitely not delivered.
    #[error("invalid reply token")]
    InvalidReplyToken,
    /// The monthly message quota is used up: nothing is sent until next month.
    #[error("monthly message quota reached")]
    QuotaExhausted,
    /// Too many requests right now.
    #[error("rate limited")]
    RateLimited {
        /// How long LINE asked to wait (`Retry-After`, seconds form), if it said.
        retry_after: Option<Duration>,
    },
    /// LINE refused the request (a bad message, a bad target; or hearth's channel, see
    /// [`LineError::refuses_the_channel`]).
    #[error("LINE rejected the request (HTTP {status}): {message}")]
    Rejected {
        /// The status.
        status: StatusCode,
        /// LINE's message.
        message: String,
    },
    /// LINE answered, with a success, something hearth cannot read: not LINE's refusal, but
    /// an answer this build does not understand.
    #[error("LINE's answer to {path} (HTTP {status}) could not be read by this build of hearth")]
    Unreadable {
        /// The status.
        status: StatusCode,
        /// What was asked.
        path: String,
    },
    /// A server error: the outcome is unknown.
    #[error("LINE server error (HTTP {0})")]
    Server(StatusCode),
    /// No answer in time: the outcome is unknown.
    #[error("LINE did not answer in time")]
    Timeout,
    /// The connection failed.
    #[error("could not reach LINE")]
    Connect(#[source] reqwest::Error),
}

impl LineError {
    /// True if the request may have been accepted (so it must not be sent again without a key).
    pub fn outcome_unknown(&self) -> bool {
        matches!(self, LineError::Server(_) | LineError::Timeout | LineError::Connect(_))
    }

    /// True when LINE refused hearth's channel rather than what was sent: `401` (the channel
    /// access token is wrong, revoked or expired) or `403` (the channel may not use this API).
    /// Nothing was delivered, and the same request goes through once the operator has fixed
    /// the channel: not a reason to give up on the message.
    pub fn refuses_the_channel(&self) -> bool {
        matches!(
            self,
            LineError::Rejected { status, .. }
                if *status == StatusCode::UNAUTHORIZED || *status == StatusCode::FORBIDDEN
        )
    }
}

/// What LINE answers when messages are sent.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sent {
    /// One entry per message sent.
    #[serde(default)]
    pub sent_messages: Vec<SentMessage>,
    /// LINE answered `409`: a request with this retry key was accepted before.
    #[serde(skip)]
    pub repeated: bool,
    /// An earlier attempt within this push had an unknown outcome, so a `409` may be its own.
    #[serde(skip)]
    pub after_unknown: bool,
}

impl Sent {
    /// The ids of the messages sent.
    pub fn ids(&self) -> Vec<String> {
        self.sent_messages.iter().filter_map(|m| m.id.clone()).collect()
    }
}

/// One sent message.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SentMessage {
    /// The message id (a string, or a number in some answers).
    #[serde(default, deserialize_with = "string_or_number")]
    pub id: Option<String>,
}

fn string_or_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match serde_json::Value::deserialize(d)? {
        serde_json::Value::String(s) => Some(s),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}

#[derive(Deserialize)]
struct ErrorBody {
    #[serde(default)]
    message: String,
}

/// What LINE's profile says of a user.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    /// Their display name.
    pub display_name: String,
    /// Their language (a BCP 47 tag: `en`, `zh-TW`), in the profile of a 1:1 chat only, and
    /// only once they consented to LINE's privacy policy.
    #[serde(default)]
    pub language: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReplyBody<'a> {
    reply_token: &'a str,
    messages: &'a [Message],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PushBody<'a, M: Serialize + ?Sized> {
    to: &'a str,
    messages: &'a M,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    notification_disabled: bool,
}

/// `GET /v2/bot/message/quota`.
#[derive(Deserialize)]
struct QuotaBody {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    value: Option<i64>,
}

/// `GET /v2/bot/message/quota/consumption`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ConsumptionBody {
    total_usage: i64,
}

/// `GET /v2/bot/{group|room}/{id}/members/count`.
#[derive(Deserialize)]
struct CountBody {
    count: i64,
}

/// The month's quota as LINE reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// The month's limit (`None`: no limit).
    pub limit: Option<i64>,
    /// Messages used this month (LINE says approximate).
    pub used: i64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LoadingBody<'a> {
    chat_id: &'a str,
    loading_seconds: u32,
}

/// The client.
#[derive(Clone)]
pub struct LineClient {
    http: reqwest::Client,
    base: String,
    token: Secret,
    pacer: Pacer,
}

/// Spaces pushes evenly so a burst stays under LINE's per-channel rate limit instead of
/// collecting 429s: each push takes the next free slot.
#[derive(Clone)]
struct Pacer {
    interval: Duration,
    next: std::sync::Arc<std::sync::Mutex<tokio::time::Instant>>,
}

impl Pacer {
    fn new(per_second: u32) -> Self {
        Self {
            interval: Duration::from_secs(1) / per_second.max(1),
            next: std::sync::Arc::new(std::sync::Mutex::new(tokio::time::Instant::now())),
        }
    }

    async fn wait(&self) {
        let slot = {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            let now = tokio::time::Instant::now();
            let slot = (*next).max(now);
            *next = slot + self.interval;
            slot
        };
        tokio::time::sleep_until(slot).await;
    }
}

impl LineClient {
    /// A client for `base` (`https://api.line.me`) with the channel access token, pushing at
    /// most `pushes_per_second`; fails when the HTTP client cannot be built (there is no client
    /// without time limits to fall back on).
    pub fn new(base: &str, token: Secret, pushes_per_second: u32) -> Result<Self, reqwest::Error> {
        let http = crate::platform::tls::client_builder()
            .timeout(Duration::from_secs(10))
            .connect_timeout(Duration::from_secs(5))
            .build()?;
        Ok(Self {
            http,
            base: base.trim_end_matches('/').to_string(),
            token,
            pacer: Pacer::new(pushes_per_second),
        })
    }

    fn post(&self, path: &str) -> reqwest::RequestBuilder {
        self.http.post(format!("{}{path}", self.base)).bearer_auth(self.token.expose())
    }

    /// Replies with a reply token (free, single use, short-lived) that is still good for
    /// `token_left`. A rate-limited reply was not delivered and its token is unused, so it is
    /// sent again after LINE's `Retry-After` (else a second) while the token outlives the wait,
    /// as often as [`REPLY_RETRIES`] allows; a `RateLimited` error left over means the caller
    /// should push instead.
    pub async fn reply(
        &self,
        reply_token: &str,
        messages: &[Message],
        token_left: Duration,
    ) -> Result<Sent, LineError> {
        let started = tokio::time::Instant::now();
        let mut tries = REPLY_RETRIES.tries();
        loop {
            let result = self.reply_once(reply_token, messages).await;
            crate::platform::metrics::line_send("reply", outcome_label(&result));
            let again = match &result {
                Err(LineError::RateLimited { retry_after }) => {
                    let left = token_left.saturating_sub(started.elapsed());
                    retry::reply_retry_wait(*retry_after, left).map_or(Again::No, Again::After)
                }
                _ => Again::No,
            };
            match result {
                Err(e) if tries.again("reply rate limited", &e, again).await => continue,
                done => return done,
            }
        }
    }

    async fn reply_once(&self, reply_token: &str, messages: &[Message]) -> Result<Sent, LineError> {
        let request = self.post("/v2/bot/message/reply").json(&ReplyBody { reply_token, messages });
        let answer = send(request).await?;
        if answer.status.is_success() {
            return Ok(serde_json::from_slice(&answer.body).unwrap_or_default());
        }
        let message = error_message(&answer.body);
        if answer.status == StatusCode::BAD_REQUEST
            && message.to_lowercase().contains("reply token")
        {
            return Err(LineError::InvalidReplyToken);
        }
        Err(answer.error_with(message))
    }

    /// Pushes once with `retry_key`; a 409 (the key was already accepted) counts as sent, marked
    /// [`Sent::repeated`] so a caller that never sent the key before can tell it was not.
    /// `messages` serialises to the `messages` array (built messages, or a stored payload);
    /// `quiet` sends it without a notification sound (`notificationDisabled`).
    pub async fn push<M: Serialize + ?Sized>(
        &self,
        to: &str,
        messages: &M,
        retry_key: Uuid,
        quiet: bool,
    ) -> Result<Sent, LineError> {
        self.pacer.wait().await;
        let result = self.push_once(to, messages, retry_key, quiet).await;
        crate::platform::metrics::line_send("push", outcome_label(&result));
        result
    }

    async fn push_once<M: Serialize + ?Sized>(
        &self,
        to: &str,
        messages: &M,
        retry_key: Uuid,
        quiet: bool,
    ) -> Result<Sent, LineError> {
        let request = self
            .post("/v2/bot/message/push")
            .header("X-Line-Retry-Key", retry_key.to_string())
            .json(&PushBody { to, messages, notification_disabled: quiet });
        let answer = send(request).await?;
        if answer.status.is_success() || answer.status == StatusCode::CONFLICT {
            let sent: Sent = serde_json::from_slice(&answer.body).unwrap_or_default();
            return Ok(Sent { repeated: answer.status == StatusCode::CONFLICT, ..sent });
        }
        Err(answer.error())
    }

    /// Pushes, retrying server errors, timeouts and rate limits with the same key and backoff
    /// (waiting longer when LINE's `Retry-After` asks for it: [`PUSH_RETRIES`]).
    pub async fn push_with_retry<M: Serialize + ?Sized>(
        &self,
        to: &str,
        messages: &M,
        retry_key: Uuid,
        quiet: bool,
    ) -> Result<Sent, LineError> {
        let mut tries = PUSH_RETRIES.tries();
        let mut after_unknown = false;
        loop {
            let error = match self.push(to, messages, retry_key, quiet).await {
                Err(e) => e,
                Ok(sent) => return Ok(Sent { after_unknown, ..sent }),
            };
            after_unknown |= error.outcome_unknown();
            let again = match &error {
                LineError::RateLimited { retry_after } => Again::Backoff { asked: *retry_after },
                e if e.outcome_unknown() => Again::Backoff { asked: None },
                _ => Again::No,
            };
            if !tries.again("push failed (sent again with the same key)", &error, again).await {
                return Err(error);
            }
        }
    }

    /// Shows the typing animation in a 1:1 chat (LINE refuses it for groups and rooms).
    pub async fn show_loading(&self, user_id: &str, seconds: u32) -> Result<(), LineError> {
        let seconds = (seconds.clamp(5, 60) / 5) * 5;
        let request = self
            .post("/v2/bot/chat/loading/start")
            .json(&LoadingBody { chat_id: user_id, loading_seconds: seconds });
        let answer = send(request).await?;
        if answer.status.is_success() { Ok(()) } else { Err(answer.error()) }
    }

    /// A user's profile, through the profile API that fits the conversation (a group's or
    /// room's has no language).
    pub async fn profile(
        &self,
        conversation: &Conversation,
        user_id: &str,
    ) -> Result<Profile, LineError> {
        let path = match conversation.kind {
            ChatKind::User => format!("/v2/bot/profile/{user_id}"),
            ChatKind::Group => format!("/v2/bot/group/{}/member/{user_id}", conversation.id),
            ChatKind::Room => format!("/v2/bot/room/{}/member/{user_id}", conversation.id),
        };
        let request =
            self.http.get(format!("{}{path}", self.base)).bearer_auth(self.token.expose());
        let answer = send(request).await?;
        if !answer.status.is_success() {
            return Err(answer.error());
        }
        let status = answer.status;
        serde_json::from_slice(&answer.body)
            .map_err(|_| LineError::Rejected { status, message: "unreadable profile".into() })
    }
}

impl LineClient {
    pub(super) async fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
    ) -> Result<T, LineError> {
        let request =
            self.http.get(format!("{}{path}", self.base)).bearer_auth(self.token.expose());
        read_json(send(request).await?, path)
    }

    /// Posts `body` as JSON to `path` and reads the JSON answer.
    pub(super) async fn post_json<B: Serialize, T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, LineError> {
        read_json(send(self.post(path).json(body)).await?, path)
    }

    /// A `method` request to `path`, or to a full URL (the data host), with the access token.
    pub(super) fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let url = if path.starts_with('/') { format!("{}{path}", self.base) } else { path.into() };
        self.http.request(method, url).bearer_auth(self.token.expose())
    }

    /// Sends `request`; any successful answer will do.
    pub(super) async fn succeed(&self, request: reqwest::RequestBuilder) -> Result<(), LineError> {
        let answer = send(request).await?;
        if answer.status.is_success() { Ok(()) } else { Err(answer.error()) }
    }

    /// The month's quota and what is used of it.
    pub async fn quota(&self) -> Result<Quota, LineError> {
        let quota: QuotaBody = self.get_json("/v2/bot/message/quota").await?;
        let used: ConsumptionBody = self.get_json("/v2/bot/message/quota/consumption").await?;
        let limit = if quota.kind == "limited" { quota.value } else { None };
        Ok(Quota { limit, used: used.total_usage })
    }

    /// How many people are in a group or room (the bot not counted); `None` for a 1:1 chat.
    pub async fn members_count(
        &self,
        conversation: &Conversation,
    ) -> Result<Option<i64>, LineError> {
        let path = match conversation.kind {
            ChatKind::User => return Ok(None),
            ChatKind::Group => format!("/v2/bot/group/{}/members/count", conversation.id),
            ChatKind::Room => format!("/v2/bot/room/{}/members/count", conversation.id),
        };
        let body: CountBody = self.get_json(&path).await?;
        Ok(Some(body.count))
    }

    /// Whether `user_id` has hearth as a friend: LINE serves the profile of friends only and
    /// answers `404` for anyone else.
    pub async fn is_friend(&self, user_id: &str) -> Result<bool, LineError> {
        match self.get_json::<Profile>(&format!("/v2/bot/profile/{user_id}")).await {
            Ok(_) => Ok(true),
            Err(LineError::Rejected { status: StatusCode::NOT_FOUND, .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// What LINE says of a LIFF ID token it verified.
#[derive(Debug, Clone, serde::Deserialize)]
struct VerifiedIdToken {
    /// The user it was issued to.
    sub: String,
    /// The LINE Login channel it was issued for.
    aud: String,
}

impl LineClient {
    /// Verifies a LIFF ID token with LINE (`POST /oauth2/v2.1/verify`) for the LINE Login
    /// channel `client_id`; the user it was issued to. A token LINE refuses, or one issued for
    /// another channel, is an error.
    pub async fn verify_id_token(
        &self,
        id_token: &str,
        client_id: &str,
    ) -> Result<String, LineError> {
        const PATH: &str = "/oauth2/v2.1/verify";
        let body = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("id_token", id_token)
            .append_pair("client_id", client_id)
            .finish();
        let request = self
            .http
            .post(format!("{}{PATH}", self.base))
            .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body);
        let verified: VerifiedIdToken = read_json(send(request).await?, PATH)?;
        if verified.aud != client_id {
            return Err(LineError::Rejected {
                status: StatusCode::BAD_REQUEST,
                message: "the ID token was issued for another channel".into(),
            });
        }
        Ok(verified.sub)
    }
}

/// The JSON of a successful answer to `path`; an unsuccessful or unreadable one is an error.
fn read_json<T: serde::de::DeserializeOwned>(answer: Answer, path: &str) -> Result<T, LineError> {
    if !answer.status.is_success() {
        return Err(answer.error());
    }
    let status = answer.status;
    serde_json::from_slice(&answer.body)
        .map_err(|_| LineError::Unreadable { status, path: path.to_string() })
}

/// What LINE answered: the status, the body and the `Retry-After` it asked for.
struct Answer {
    status: StatusCode,
    body: bytes::Bytes,
    retry_after: Option<Duration>,
}

impl Answer {
    /// The error this (unsuccessful) answer means.
    fn error(&self) -> LineError {
        self.error_with(error_message(&self.body))
    }

    /// The error this answer means, with LINE's message already read.
    fn error_with(&self, message: String) -> LineError {
        match classify(self.status, message) {
            LineError::RateLimited { .. } => {
                LineError::RateLimited { retry_after: self.retry_after }
            }
            other => other,
        }
    }
}

/// Sends one request to LINE in its span (`line`: the API's path and the outcome, its status
/// or why there was none).
async fn send(request: reqwest::RequestBuilder) -> Result<Answer, LineError> {
    let (client, request) = request.build_split();
    let request = request.map_err(transport)?;
    let api = request.url().path().to_owned();
    let span = tracing::info_span!("line", api, outcome = tracing::field::Empty);
    let outcome = |answer: &Result<Answer, LineError>| match answer {
        Ok(answer) => answer.status.as_u16().to_string(),
        Err(LineError::Timeout) => "timeout".to_string(),
        Err(_) => "connect_error".to_string(),
    };
    crate::platform::timing::timed(span, send_built(client, request), outcome).await
}

async fn send_built(
    client: reqwest::Client,
    request: reqwest::Request,
) -> Result<Answer, LineError> {
    let response = client.execute(request).await.map_err(transport)?;
    let status = response.status();
    if let Some(id) = response.headers().get("x-line-request-id").and_then(|v| v.to_str().ok()) {
        tracing::debug!(request_id = id, %status, "LINE answered");
    }
    let retry_after = retry::parse_retry_after(
        response.headers().get(reqwest::header::RETRY_AFTER).and_then(|v| v.to_str().ok()),
    );
    let body = response.bytes().await.map_err(transport)?;
    Ok(Answer { status, body, retry_after })
}

fn outcome_label(result: &Result<Sent, LineError>) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(LineError::InvalidReplyToken) => "invalid_reply_token",
        Err(LineError::QuotaExhausted) => "quota_exhausted",
        Err(LineError::RateLimited { .. }) => "rate_limited",
        Err(LineError::Rejected { .. }) => "rejected",
        Err(LineError::Unreadable { .. }) => "unreadable",
        Err(LineError::Server(_)) => "server_error",
        Err(LineError::Timeout) => "timeout",
        Err(LineError::Connect(_)) => "connect_error",
    }
}

fn transport(e: reqwest::Error) -> LineError {
    if e.is_timeout() { LineError::Timeout } else { LineError::Connect(e) }
}

fn error_message(body: &[u8]) -> String {
    serde_json::from_slice::<ErrorBody>(body).map(|b| b.message).unwrap_or_default()
}

fn classify(status: StatusCode, message: String) -> LineError {
    if status == StatusCode::TOO_MANY_REQUESTS {
        if message.to_lowercase().contains("monthly limit") {
            LineError::QuotaExhausted
        } else {
            LineError::RateLimited { retry_after: None }
        }
    } else if status.is_server_error() {
        LineError::Server(status)
    } else {
        LineError::Rejected { status, message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quota_and_rate_limit_429s_are_told_apart() {
        let quota =
            classify(StatusCode::TOO_MANY_REQUESTS, "You have reached your monthly limit.".into());
        assert!(matches!(quota, LineError::QuotaExhausted));
        let rate = classify(
            StatusCode::TOO_MANY_REQUESTS,
            "The API rate limit has been exceeded. Try again later.".into(),
        );
        assert!(matches!(rate, LineError::RateLimited { .. }));
    }

    #[test]
    fn sent_message_ids_may_be_numbers_or_strings() {
        let sent: Sent =
            serde_json::from_str(r#"{"sentMessages":[{"id":"461230966842064897"},{"id":12}]}"#)
                .expect("parses");
        assert_eq!(sent.ids(), vec!["461230966842064897".to_string(), "12".to_string()]);
    }
}
