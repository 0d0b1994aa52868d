//! An in-process imitation of the LINE Messaging API for integration tests.
//!
//! It checks the bearer token, enforces the reply-token and retry-key rules, counts pushes
//! against a monthly quota (one message per person reached; `GET /v2/bot/message/quota`,
//! `/quota/consumption`, `members/count`), serves the channel's bot info, webhook endpoint and
//! webhook test (`hearth doctor`), keeps rich menus (their images, aliases, the default and
//! per-user links), can be switched into
//! failure modes, records every request for assertions, and writes each reply, push and loading
//! body, and each rich menu and alias body, to `$CARGO_TARGET_TMPDIR/line-requests/` so CI can
//! validate them with LINE's own SDK.

mod richmenus;
mod rules;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, Uri};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use serde_json::Value;
use tokio::net::TcpListener;

/// Source of `x-line-request-id` values, shared by every fake in the process.
static NEXT_REQUEST_ID: AtomicU64 = AtomicU64::new(1);

const REPLY_PATH: &str = "/v2/bot/message/reply";
const PUSH_PATH: &str = "/v2/bot/message/push";
const LOADING_PATH: &str = "/v2/bot/chat/loading/start";

/// One request received by [`FakeLine`].
#[derive(Clone, Debug)]
pub struct Recorded {
    /// HTTP method, upper case (`"POST"`).
    pub method: String,
    /// Request path without the query string.
    pub path: String,
    /// Every header as `(lower-case name, value)`.
    pub headers: Vec<(String, String)>,
    /// The parsed JSON body; `Null` when empty, a JSON string holding the raw text when invalid.
    pub body: Value,
    /// Status code the fake answered with; `0` while the request is still being handled.
    pub status: u16,
    /// The JSON body the fake answered with (`Null` until answered).
    pub response: Value,
    /// When the request arrived.
    pub received_at: Instant,
}

impl Recorded {
    /// True for an answer LINE accepted: a reply or a push answered `200`.
    pub fn is_accepted_answer(&self) -> bool {
        (self.path.ends_with("/reply") || self.path.ends_with("/push")) && self.status == 200
    }

    /// The value of header `name` (case-insensitive), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// How `POST /v2/bot/message/reply` behaves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReplyMode {
    /// Normal token checks and a `200` on success.
    #[default]
    Ok,
    /// Every reply gets `500`; the token is not consumed.
    ServerError,
    /// The next `times` replies get the rate-limit `429` (with `Retry-After: retry_after` when
    /// given; the token is not consumed), after which the mode switches back to `Ok`.
    RateLimitedTimes {
        /// How many replies are refused.
        times: u32,
        /// The `Retry-After` seconds sent with each refusal.
        retry_after: Option<u64>,
    },
    /// The reply is processed at once (delivered, token consumed) but the answer is held back
    /// for this long: the "outcome unknown" case when the client times out first.
    Stall(Duration),
}

/// How `POST /v2/bot/message/push` behaves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PushMode {
    /// `200`, or `409` for a retry key that was already accepted.
    #[default]
    Ok,
    /// `429` with the monthly-limit message; nothing is delivered.
    QuotaExhausted,
    /// `429` with the rate-limit message; nothing is delivered.
    RateLimited,
    /// `500`; nothing is delivered.
    ServerError,
    /// The next `n` pushes get `400` (LINE refusing them for good: the bot is not in the chat),
    /// after which the mode switches back to `Ok`.
    RefuseTimes(u32),
    /// The next `n` pushes get `500`, after which the mode switches back to `Ok`.
    FailTimes(u32),
    /// The next `times` pushes get the rate-limit `429` with `Retry-After: retry_after`, after
    /// which the mode switches back to `Ok`.
    RateLimitedTimes {
        /// How many pushes are refused.
        times: u32,
        /// The `Retry-After` seconds sent with each refusal.
        retry_after: u64,
    },
    /// Processed as `Ok` at once (delivered, retry key registered) but the answer is held back
    /// for this long.
    Stall(Duration),
}

/// Handle to a running fake LINE API; clones share the same server and state.
#[derive(Clone)]
pub struct FakeLine {
    inner: Arc<Inner>,
}

struct Inner {
    port: u16,
    state: Mutex<LineState>,
    /// Write request bodies out for the conformance check (off in benchmarks).
    dump: std::sync::atomic::AtomicBool,
    /// When set, the webhook test really posts to the webhook URL with this client, signed
    /// with this channel secret, as LINE does; else it reports a set status.
    webhook_caller: Mutex<Option<(reqwest::Client, String)>>,
}

#[derive(Default)]
struct LineState {
    requests: Vec<Recorded>,
    used_tokens: HashSet<String>,
    expired_tokens: HashSet<String>,
    expire_all: bool,
    reply_mode: ReplyMode,
    push_mode: PushMode,
    /// Retry key → (request id of the accepted push, its `sentMessages`).
    accepted_keys: HashMap<String, (String, Value)>,
    /// User id → display name.
    profiles: HashMap<String, String>,
    /// User id → the language their 1:1 profile gives (`zh-TW` when not set).
    languages: HashMap<String, String>,
    /// LINE's per-channel push rate limit, when enforced.
    push_bucket: Option<TokenBucket>,
    /// Keep only `to` of request bodies in `requests()` (benchmarks, to save memory).
    drop_bodies: bool,
    /// The month's message quota, when limited: pushes beyond it get the monthly-limit 429.
    quota_limit: Option<i64>,
    /// Messages counted against the quota this month (one per person a push reaches).
    quota_used: i64,
    /// Group or room id → members count (a chat not listed has one member).
    chat_sizes: HashMap<String, i64>,
    /// Users with a profile who have not added the bot as a friend (their profile is `404`).
    non_friends: HashSet<String>,
    /// The channel's webhook settings and LINE's test of them (`hearth doctor`).
    pub(crate) channel: rules::Channel,
    /// LIFF ID tokens LINE would verify: token → (user, LINE Login channel).
    id_tokens: HashMap<String, (String, String)>,
    /// Rich menus, their images, aliases, the default and per-user links.
    richmenus: richmenus::RichMenus,
}

/// A token bucket: `rate` tokens a second, at most `rate` stored (one second of burst).
struct TokenBucket {
    rate: f64,
    tokens: f64,
    last: Instant,
}

impl TokenBucket {
    fn take(&mut self) -> bool {
        let now = Instant::now();
        self.tokens =
            (self.tokens + now.duration_since(self.last).as_secs_f64() * self.rate).min(self.rate);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

impl FakeLine {
    /// Binds `127.0.0.1:0` and serves the fake on a background task.
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind fake LINE API");
        let port = listener.local_addr().expect("fake LINE local address").port();
        let line = Self {
            inner: Arc::new(Inner {
                port,
                state: Mutex::default(),
                dump: std::sync::atomic::AtomicBool::new(true),
                webhook_caller: Mutex::default(),
            }),
        };
        let router = Router::new().fallback(handle).with_state(line.clone());
        tokio::spawn(async move {
            axum::serve(listener, router).await.expect("fake LINE API server");
        });
        line
    }

    /// Turns writing request bodies for the conformance check on or off (benchmarks turn it off).
    pub fn set_dump(&self, on: bool) {
        self.inner.dump.store(on, Ordering::Relaxed);
    }

    /// Enforces LINE's push rate limit: at most `per_second` pushes a second (a token bucket
    /// holding one second's worth); beyond it pushes get the rate-limit 429.
    pub fn set_push_rate_limit(&self, per_second: u32) {
        let rate = f64::from(per_second);
        self.lock().push_bucket = Some(TokenBucket { rate, tokens: rate, last: Instant::now() });
    }

    /// Stops keeping request bodies (benchmarks with very many requests).
    pub fn set_keep_bodies(&self, keep: bool) {
        self.lock().drop_bodies = !keep;
    }

    /// Forgets the recorded requests (benchmarks, to keep memory flat).
    pub fn clear(&self) {
        self.lock().requests.clear();
    }

    /// Base URL, e.g. `http://127.0.0.1:41234` (no trailing slash).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.inner.port)
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.lock().requests.clone()
    }

    /// What was sent towards a chat (every `POST`: replies, pushes, loading animations), not
    /// the reads (profiles, the quota, member counts).
    pub fn sends(&self) -> Vec<Recorded> {
        self.lock().requests.iter().filter(|r| r.method == "POST").cloned().collect()
    }

    /// Requests to `POST /v2/bot/message/reply`, whatever their outcome.
    pub fn replies(&self) -> Vec<Recorded> {
        self.posts_to(REPLY_PATH)
    }

    /// Requests to `POST /v2/bot/message/push`, whatever their outcome.
    pub fn pushes(&self) -> Vec<Recorded> {
        self.posts_to(PUSH_PATH)
    }

    /// Pushes answered `200`: the ones a user would actually see (a `409` duplicate is excluded).
    pub fn accepted_pushes(&self) -> Vec<Recorded> {
        self.pushes().into_iter().filter(|r| r.status == 200).collect()
    }

    /// How many pushes were answered `200`, without copying the records (benchmarks).
    pub fn accepted_push_count(&self) -> usize {
        self.lock().requests.iter().filter(|r| r.path == PUSH_PATH && r.status == 200).count()
    }

    /// Requests to `POST /v2/bot/chat/loading/start`, whatever their outcome.
    pub fn loadings(&self) -> Vec<Recorded> {
        self.posts_to(LOADING_PATH)
    }

    /// Polls every 10 ms until `pred` holds for the recorded requests and returns them; panics
    /// with the list of recorded requests when `timeout` passes first.
    pub async fn wait_for(
        &self,
        pred: impl Fn(&[Recorded]) -> bool,
        timeout: Duration,
    ) -> Vec<Recorded> {
        let deadline = Instant::now() + timeout;
        loop {
            let requests = self.requests();
            if pred(&requests) {
                return requests;
            }
            if Instant::now() >= deadline {
                let seen: Vec<String> = requests
                    .iter()
                    .map(|r| format!("{} {} -> {}", r.method, r.path, r.status))
                    .collect();
                panic!("FakeLine::wait_for timed out after {timeout:?}; recorded: {seen:#?}");
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Waits until LINE accepted at least `n` answers (replies and pushes).
    pub async fn wait_for_answers(&self, n: usize, within: Duration) -> Vec<Recorded> {
        self.wait_for(|r| r.iter().filter(|r| r.is_accepted_answer()).count() >= n, within).await
    }

    /// Makes `token` answer `400 Invalid reply token` from now on.
    pub fn expire_reply_token(&self, token: &str) {
        self.lock().expired_tokens.insert(token.to_owned());
    }

    /// While `on`, every reply token is treated as expired.
    pub fn set_expire_all_reply_tokens(&self, on: bool) {
        self.lock().expire_all = on;
    }

    /// Switches how replies are answered.
    pub fn set_reply_mode(&self, mode: ReplyMode) {
        self.lock().reply_mode = mode;
    }

    /// Switches how pushes are answered.
    pub fn set_push_mode(&self, mode: PushMode) {
        self.lock().push_mode = mode;
    }

    /// Limits the month's quota to `limit` messages (`None`: no limit); pushes that do not fit
    /// get LINE's monthly-limit 429 and deliver nothing.
    pub fn set_quota(&self, limit: Option<i64>) {
        self.lock().quota_limit = limit;
    }

    /// Sets the messages counted this month (`0`: a new month begins).
    pub fn set_quota_used(&self, used: i64) {
        self.lock().quota_used = used;
    }

    /// Messages counted this month: one per person each accepted push reached.
    pub fn quota_used(&self) -> i64 {
        self.lock().quota_used
    }

    /// Sets how many people a group or room has (served by `members/count`, and what a push
    /// into it costs).
    pub fn set_chat_size(&self, chat_id: &str, members: i64) {
        self.lock().chat_sizes.insert(chat_id.to_owned(), members);
    }

    /// Makes a user with a profile a non-friend: `GET /v2/bot/profile/{id}` answers `404`.
    pub fn set_not_friend(&self, user_id: &str) {
        self.lock().non_friends.insert(user_id.to_owned());
    }

    /// Makes LINE verify `token` as a LIFF ID token of `user_id` for the LINE Login channel
    /// `channel_id`.
    pub fn set_id_token(&self, token: &str, user_id: &str, channel_id: &str) {
        self.lock().id_tokens.insert(token.to_owned(), (user_id.to_owned(), channel_id.to_owned()));
    }

    /// Registers a profile served by the user, group-member and room-member profile endpoints.
    pub fn set_profile(&self, user_id: &str, display_name: &str) {
        self.lock().profiles.insert(user_id.to_owned(), display_name.to_owned());
    }

    /// Sets the language `GET /v2/bot/profile/{id}` gives `user_id` (group and room member
    /// profiles have none).
    pub fn set_profile_language(&self, user_id: &str, language: &str) {
        self.lock().languages.insert(user_id.to_owned(), language.to_owned());
    }

    /// Accepts only this access token from now on; any other gets LINE's `401`.
    pub fn set_valid_token(&self, token: &str) {
        self.lock().channel.valid_token = Some(token.to_owned());
    }

    /// Sets the webhook URL registered in the console and whether "Use webhook" is on.
    pub fn set_webhook(&self, endpoint: &str, active: bool) {
        let channel = &mut self.lock().channel;
        channel.webhook = endpoint.to_owned();
        channel.webhook_active = active;
    }

    /// Makes LINE's webhook test really post to the webhook URL, as LINE does: a signed webhook
    /// with no events, sent with `client` (trusting the server's certificate), its status
    /// reported (`0`: no answer at all).
    pub fn call_webhook_in_tests(&self, client: reqwest::Client, channel_secret: &str) {
        *self.inner.webhook_caller.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((client, channel_secret.to_string()));
    }

    /// Sets the status LINE's webhook test gets from the webhook URL (`200`: success; `0`: no
    /// answer at all).
    pub fn set_webhook_test_status(&self, status: i64) {
        self.lock().channel.webhook_test_status = status;
    }

    /// The rich menus as LINE lists them (with their ids).
    pub fn rich_menus(&self) -> Vec<Value> {
        self.lock().richmenus.menus.values().cloned().collect()
    }

    /// What was uploaded as menu `id`'s image: bytes, contentType, width, height.
    pub fn rich_menu_image(&self, id: &str) -> Option<Value> {
        self.lock().richmenus.images.get(id).cloned()
    }

    /// The menu `alias` names.
    pub fn rich_menu_alias(&self, alias: &str) -> Option<String> {
        self.lock().richmenus.aliases.get(alias).cloned()
    }

    /// Every alias, with the menu it names.
    pub fn rich_menu_aliases(&self) -> Vec<(String, String)> {
        self.lock().richmenus.aliases.clone().into_iter().collect()
    }

    /// The default menu.
    pub fn default_rich_menu(&self) -> Option<String> {
        self.lock().richmenus.default.clone()
    }

    /// The menu linked to `user_id`.
    pub fn linked_rich_menu(&self, user_id: &str) -> Option<String> {
        self.lock().richmenus.links.get(user_id).cloned()
    }

    /// Creates a menu that is not hearth's (another tool's), with an image, as the default
    /// when `default`; its id.
    pub fn add_foreign_rich_menu(&self, name: &str, default: bool) -> String {
        let mut state = self.lock();
        let menus = &mut state.richmenus;
        let id = format!("richmenu-foreign{:016x}", menus.menus.len());
        // Made like LINE's own example: a postback area without a label, a link, a date picker.
        let bounds = |x: u32| serde_json::json!({"x": x, "y": 0, "width": 833, "height": 843});
        let menu = serde_json::json!({"richMenuId": id, "size": {"width": 2500, "height": 843},
        "selected": false, "name": name, "chatBarText": "Menu", "areas": [
            {"bounds": bounds(0), "action": {"type": "postback", "data": "action=buy&itemid=123"}},
            {"bounds": bounds(833), "action": {"type": "uri", "label": "Website", "uri": "https://example.com/"}},
            {"bounds": bounds(1666), "action": {"type": "datetimepicker", "data": "storeId=12345", "mode": "datetime"}}
        ]});
        menus.menus.insert(id.clone(), menu);
        menus.images.insert(id.clone(), serde_json::json!({"bytes": 1}));
        menus.aliases.insert("spring-sale".into(), id.clone());
        if default {
            menus.default = Some(id.clone());
        }
        id
    }

    fn lock(&self) -> MutexGuard<'_, LineState> {
        self.inner.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn posts_to(&self, path: &str) -> Vec<Recorded> {
        let state = self.lock();
        state.requests.iter().filter(|r| r.method == "POST" && r.path == path).cloned().collect()
    }

    /// Stores the request and returns its index.
    fn record(
        &self,
        method: &Method,
        path: &str,
        headers: &HeaderMap,
        body: Value,
        raw: &[u8],
    ) -> usize {
        let mut recorded = Recorded {
            method: method.as_str().to_owned(),
            path: path.to_owned(),
            headers: headers
                .iter()
                .map(|(n, v)| (n.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into()))
                .collect(),
            body,
            status: 0,
            response: Value::Null,
            received_at: Instant::now(),
        };
        let index = {
            let mut state = self.lock();
            if state.drop_bodies {
                recorded.body = serde_json::json!({"to": recorded.body.get("to")});
            }
            state.requests.push(recorded);
            state.requests.len() - 1
        };
        let kind = match path {
            REPLY_PATH => Some("reply"),
            PUSH_PATH => Some("push"),
            LOADING_PATH => Some("loading"),
            "/v2/bot/channel/webhook/endpoint" => Some("webhookendpoint"),
            "/v2/bot/channel/webhook/test" => Some("webhooktest"),
            _ => richmenus::dump_kind(path),
        };
        let sends = matches!(*method, Method::POST | Method::PUT) && !raw.is_empty();
        if let Some(kind) = kind.filter(|_| sends) {
            self.dump(kind, index + 1, raw);
        }
        index
    }

    /// Writes a request body, byte for byte, for the SDK conformance check.
    fn dump(&self, kind: &str, seq: usize, raw: &[u8]) {
        if !self.inner.dump.load(Ordering::Relaxed) {
            return;
        }
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("line-requests");
        std::fs::create_dir_all(&dir).expect("create line-requests dump directory");
        let name = format!("{}-{}-{seq:04}.{kind}.json", std::process::id(), self.inner.port);
        std::fs::write(dir.join(name), raw).expect("write LINE request dump");
    }
}

/// The single axum handler: records, dispatches, then answers (after any stall).
async fn handle(
    State(line): State<FakeLine>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    raw: Bytes,
) -> Response {
    let request_id = format!("req-{:06}", NEXT_REQUEST_ID.fetch_add(1, Ordering::Relaxed));
    let body = if method == Method::POST && uri.path().ends_with("/content") {
        richmenus::image_summary(&headers, &raw)
    } else {
        parse_body(&raw)
    };
    let index = line.record(&method, uri.path(), &headers, body.clone(), &raw);
    if uri.path() == "/v2/bot/channel/webhook/test" {
        line.call_webhook(&body).await;
    }
    let outcome = {
        let mut state = line.lock();
        let outcome =
            rules::dispatch(&mut state, method.as_str(), uri.path(), &headers, &body, &request_id);
        // `clear()` (benchmarks) may have emptied the log while this request was handled.
        if let Some(recorded) = state.requests.get_mut(index) {
            recorded.status = outcome.status.as_u16();
            recorded.response = outcome.body.clone();
        }
        outcome
    };
    if let Some(delay) = outcome.delay {
        tokio::time::sleep(delay).await;
    }
    let mut response = (outcome.status, Json(outcome.body)).into_response();
    let response_headers = response.headers_mut();
    response_headers.insert("x-line-request-id", header_value(&request_id));
    for (name, value) in outcome.headers {
        response_headers.insert(name, header_value(&value));
    }
    response
}

impl FakeLine {
    /// What LINE's webhook test does when [`FakeLine::call_webhook_in_tests`] was asked for:
    /// posts a signed webhook with no events to the endpoint asked for (or the webhook URL) and
    /// keeps the status it got for the test's answer.
    async fn call_webhook(&self, body: &Value) {
        let caller = self.inner.webhook_caller.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let Some((client, secret)) = caller else { return };
        let endpoint = match body.get("endpoint").and_then(Value::as_str) {
            Some(endpoint) => endpoint.to_string(),
            None => self.lock().channel.webhook.clone(),
        };
        let webhook =
            serde_json::json!({"destination": super::harness::BOT_ID, "events": []}).to_string();
        let signature = hearth::line::signature::sign(&secret, webhook.as_bytes());
        let sent = client
            .post(&endpoint)
            .header("content-type", "application/json")
            .header("x-line-signature", signature)
            .body(webhook)
            .send()
            .await;
        let status = sent.map(|r| i64::from(r.status().as_u16())).unwrap_or(0);
        self.lock().channel.webhook_test_status = status;
    }
}

fn header_value(value: &str) -> HeaderValue {
    HeaderValue::from_str(value).expect("fake LINE header values are ASCII")
}

fn parse_body(raw: &[u8]) -> Value {
    if raw.is_empty() {
        return Value::Null;
    }
    serde_json::from_slice(raw)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(raw).into()))
}
