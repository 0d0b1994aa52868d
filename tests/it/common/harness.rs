//! Starts the real hearth server on `127.0.0.1` against the fakes, and sends it signed webhooks.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hearth::contract::registry::Registry;
use hearth::features::deps::Deps;
use hearth::line::signature;
use hearth::platform::clock::ManualClock;
use hearth::platform::config::Config;
use hearth::server::app::Hearth;
use hearth::store::Store;
use jiff::Timestamp;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::{FakeLine, FakeLlm, FakeUpstreams};

/// The channel secret the harness signs with.
pub const SECRET: &str = "8c570fa6dd201bb328f1c1eac23a96d8";
/// The bot's own user id (`destination`).
pub const BOT_ID: &str = "U8e742f61d673b39c7fff3cecb7536ef0";
/// A family member.
pub const MOM: &str = "U0123456789abcdef0123456789abcdef";
/// Another family member.
pub const DAD: &str = "Ufedcba9876543210fedcba9876543210";
/// The family group.
pub const FAMILY: &str = "C0123456789abcdef0123456789abcdef";
/// Another group.
pub const OTHER_GROUP: &str = "Cfedcba9876543210fedcba9876543210";
/// The harness clock's starting instant (20:00 in Taipei).
pub const START: &str = "2026-11-30T12:00:00Z";

static NEXT_EVENT: AtomicU64 = AtomicU64::new(1);

/// A running hearth with its fakes.
pub struct Harness {
    /// The fake LINE API.
    pub line: FakeLine,
    /// The fake LLM.
    pub llm: FakeLlm,
    /// The fake data sources.
    pub upstreams: FakeUpstreams,
    /// The application (for `wait_idle`).
    pub app: Arc<Hearth>,
    /// The clock hearth reads.
    pub clock: Arc<ManualClock>,
    /// Base URL of the hearth server.
    pub url: String,
    /// The configuration used.
    pub config: Config,
    http: reqwest::Client,
    _shutdown: oneshot::Sender<()>,
}

impl Harness {
    /// hearth with the production tools.
    pub async fn start() -> Self {
        Self::start_with(|_| {}, None).await
    }

    /// hearth with configuration tweaks and, optionally, the test's own tools (built over the
    /// final configuration, so they can use the fake data sources).
    pub async fn start_with(
        tweak: impl FnOnce(&mut Config),
        tools: Option<fn(&Deps) -> Registry>,
    ) -> Self {
        // Warnings by default: a test's output is shown only when it fails, and then hearth's
        // warnings (an event taken over, a write retried, a lease lost) say what happened.
        let filter = tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_ansi(false)
            .with_test_writer()
            .try_init();
        let line = FakeLine::start().await;
        let llm = FakeLlm::start().await;
        let upstreams = FakeUpstreams::start().await;
        let mut config = Config::defaults();
        config.line.line_channel_secret = SECRET.into();
        config.line.line_channel_access_token = "test-access-token".into();
        config.line.line_api_base = line.url();
        config.llm.openai_base_url = llm.url();
        config.llm.openai_api_key = "sk-test".into();
        config.llm.model = "fake-model".into();
        config.store.database_url = super::db::harness_database().await;
        config.turns.trigger_keywords = vec!["小幫手".into(), "hearth".into()];
        config.family.timezone = "Asia/Taipei".into();
        config.sources.open_meteo_url = upstreams.url();
        config.sources.geocoding_url = upstreams.url();
        config.sources.fx_url = upstreams.url();
        config.sources.yahoo_url = upstreams.url();
        config.llm.llm_timeout_secs = 3;
        config.sources.upstream_timeout_secs = 2;
        // Tests send many turns at one instant of the manual clock: the turn rates are off
        // unless a test sets them (tests/limits.rs). The other limits keep their defaults.
        config.limits.chat_turns_per_minute = 0;
        config.limits.user_turns_per_minute = 0;
        // Tests tick the loops one at a time on the manual clock: what is due is pushed by the
        // tick that hands it over, unless a test sets a window (tests/outbox.rs).
        config.push.outbox_window_secs = 0;
        // Untrusted content is parsed by this build's `hearth` (the test binary is not one).
        config.media.parser_program = Some(super::hearth_exe());
        // Every chat is served unless a test is about who is (tests/limits.rs, tests/access.rs).
        config.access.open = true;
        // The official alerts feed is on the internet: off unless a test serves a fake one
        // (tests/official_alerts.rs).
        config.loops.official_alerts_feed_url = String::new();
        // The care loop is ticked by hand on the manual clock (tests/care.rs).
        config.loops.care_tick_secs = 0;
        // So is the calendar server's sync (tests/caldav.rs).
        config.calendar.caldav_sync_secs = 0;
        tweak(&mut config);
        let clock = Arc::new(ManualClock::new(START.parse::<Timestamp>().expect("start instant")));
        let store = Store::connect(&config.store.database_url).await.expect("store");
        let mcp = hearth::llm::mcp::McpServers::start(&config).await.expect("MCP configuration");
        let app =
            Hearth::with_tools_and_mcp(&config, clock.clone(), store, &mcp, |deps| match tools {
                Some(build) => Ok(build(deps)),
                None => hearth::tools::registry(deps),
            })
            .expect("hearth");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind hearth");
        let url = format!("http://{}", listener.local_addr().expect("address"));
        let (tx, rx) = oneshot::channel::<()>();
        let server = app.clone();
        tokio::spawn(async move {
            let shutdown = async move {
                let _ = rx.await;
            };
            hearth::server::serve(listener, server, shutdown).await.expect("hearth server");
        });
        Self {
            line,
            llm,
            upstreams,
            app,
            clock,
            url,
            config,
            http: hearth::platform::tls::client_builder().build().expect("HTTP client"),
            _shutdown: tx,
        }
    }

    /// Posts `body` with a correct signature; returns the status.
    pub async fn post_signed(&self, body: &str) -> u16 {
        let sig = signature::sign(SECRET, body.as_bytes());
        self.post_raw(body, Some(&sig)).await
    }

    /// Posts `body` with the given signature header (or none).
    pub async fn post_raw(&self, body: &str, signature: Option<&str>) -> u16 {
        let mut request = self
            .http
            .post(format!("{}/callback", self.url))
            .header("content-type", "application/json; charset=utf-8")
            .body(body.to_string());
        if let Some(sig) = signature {
            request = request.header("X-Line-Signature", sig);
        }
        request.send().await.expect("webhook request").status().as_u16()
    }

    /// Sends these events in one signed webhook, then waits until hearth has handled them.
    pub async fn send(&self, events: Vec<Value>) -> u16 {
        let body = json!({"destination": BOT_ID, "events": events}).to_string();
        let status = self.post_signed(&body).await;
        self.settle().await;
        // Settled means handled: an event still pending here was dropped from memory while
        // its claim stayed in the store, and would wait there for its lease to lapse.
        let pending = self.app.store.inbox().pending_events().await.expect("count pending events");
        assert_eq!(pending, 0, "events still pending after hearth settled");
        status
    }

    /// The text `/metrics` serves.
    pub async fn metrics_text(&self) -> String {
        let response = self.http.get(format!("{}/metrics", self.url)).send().await;
        response.expect("metrics").text().await.expect("body")
    }

    /// Waits until hearth's background work is done. The limit only catches a hang: thousands
    /// of events on PostgreSQL, on a loaded machine, take well over ten seconds.
    pub async fn settle(&self) {
        tokio::time::timeout(Duration::from_secs(90), self.app.wait_idle())
            .await
            .expect("hearth did not settle within 90 s");
    }

    /// The clock's current time in Unix ms.
    pub fn now_ms(&self) -> i64 {
        use hearth::platform::clock::Clock;
        self.clock.now().as_millisecond()
    }

    /// A text message event from `user` in a 1:1 chat.
    pub fn dm(&self, user: &str, text: &str) -> Value {
        self.event(json!({"type": "user", "userId": user}), text_message(text))
    }

    /// A text message event from `user` in `group`.
    pub fn group_text(&self, group: &str, user: &str, text: &str) -> Value {
        self.event(json!({"type": "group", "groupId": group, "userId": user}), text_message(text))
    }

    /// A message event with the given source and message object.
    pub fn event(&self, source: Value, message: Value) -> Value {
        let n = NEXT_EVENT.fetch_add(1, Ordering::SeqCst);
        json!({
            "type": "message", "mode": "active", "timestamp": self.now_ms(),
            "webhookEventId": format!("01KB3Q7E5V8W9X0Y1Z2A{n:06}"),
            "deliveryContext": {"isRedelivery": false},
            "replyToken": format!("reply-token-{n}"),
            "source": source,
            "message": message,
        })
    }
}

impl Harness {
    /// An event of `kind` with no message (`leave`, `unfollow`, `memberLeft`…), from `source`.
    pub fn bare(&self, kind: &str, source: Value) -> Value {
        let mut event = self.event(source, json!({}));
        event["type"] = json!(kind);
        if let Some(o) = event.as_object_mut() {
            o.remove("message");
            o.remove("replyToken");
        }
        event
    }

    /// A postback event (a button tap) with `data`, from `source`.
    pub fn postback(&self, source: Value, data: &str) -> Value {
        let n = NEXT_EVENT.fetch_add(1, Ordering::SeqCst);
        json!({
            "type": "postback", "mode": "active", "timestamp": self.now_ms(),
            "webhookEventId": format!("01KB3Q7E5V8W9X0Y1Z2B{n:06}"),
            "deliveryContext": {"isRedelivery": false},
            "replyToken": format!("reply-token-{n}"),
            "source": source,
            "postback": {"data": data},
        })
    }

    /// One turn in `source` saying `text`, in which the model calls `tool` with `args` and then
    /// answers; returns the tool's result.
    pub async fn call_tool(&self, source: Value, text: &str, tool: &str, args: Value) -> Value {
        let before = self.llm.requests().len();
        self.llm.reply_tool_calls(&[(tool, args)]);
        self.llm.reply_text("好的");
        self.send(vec![self.event(source, text_message(text))]).await;
        last_tool_result(self, before + 1)
    }

    /// Sets the clock to `instant` (RFC 3339; the harness starts at 2026-11-30 20:00 in Taipei).
    pub fn set_clock(&self, instant: &str) {
        self.clock.set(instant.parse::<Timestamp>().expect("instant"));
    }

    /// Sets `symbol`'s price, with a provider timestamp of "now" on the harness clock.
    pub fn quote(&self, symbol: &str, price: f64) {
        use hearth::platform::clock::Clock;
        self.upstreams.set_price(symbol, price);
        self.upstreams.set_market_time(symbol, self.clock.now().as_second());
    }

    /// Another process on this harness's database and clock, not serving (its loops are
    /// ticked by hand): a restart, or a second replica.
    pub async fn second_process(&self, db: &str) -> Arc<Hearth> {
        let store = Store::connect(db).await.expect("reopen");
        Hearth::with_tools(&self.config, self.clock.clone(), store, hearth::tools::registry)
            .expect("second hearth")
    }

    /// Moves the clock and delivers the reminders due then.
    pub async fn advance_and_tick(
        &self,
        by: jiff::SignedDuration,
    ) -> hearth::features::reminders::ops::scheduler::TickReport {
        self.clock.advance(by);
        self.app.loops.reminders.tick().await.expect("tick")
    }
}

/// A group source.
pub fn in_group(group: &str, user: &str) -> Value {
    json!({"type": "group", "groupId": group, "userId": user})
}

/// A 1:1 source.
pub fn in_dm(user: &str) -> Value {
    json!({"type": "user", "userId": user})
}

/// The postback data of the first button with `action` anywhere in a recorded body.
pub fn postback_data(body: &Value, action: &str) -> Option<String> {
    let prefix = format!("a={action}&");
    match body {
        Value::String(s) if s.starts_with(&prefix) => Some(s.clone()),
        Value::Object(map) => map.values().find_map(|v| postback_data(v, action)),
        Value::Array(items) => items.iter().find_map(|v| postback_data(v, action)),
        _ => None,
    }
}

/// A text message object with a fresh id.
pub fn text_message(text: &str) -> Value {
    let n = NEXT_EVENT.fetch_add(1, Ordering::SeqCst);
    json!({"id": format!("59{n:016}"), "type": "text", "quoteToken": format!("q-{n}"), "text": text})
}

/// The tool results (parsed JSON) that a recorded LLM request carried back to the model.
pub fn tool_results(request: &Value) -> Vec<Value> {
    request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .map(|m| serde_json::from_str(m["content"].as_str().unwrap_or("null")).unwrap_or_default())
        .collect()
}

/// The last tool result carried back in the fake LLM's request number `n`.
pub fn last_tool_result(h: &Harness, n: usize) -> Value {
    tool_results(&h.llm.requests()[n]).pop().unwrap_or_default()
}

/// The `messages` of a recorded reply or push body.
pub fn messages_of(body: &Value) -> Vec<Value> {
    body["messages"].as_array().cloned().unwrap_or_default()
}

/// The concatenated texts of the text messages of a recorded body.
pub fn texts_of(body: &Value) -> String {
    messages_of(body)
        .iter()
        .filter_map(|m| m["text"].as_str().map(str::to_string))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The quick-reply texts of the last message of a recorded body.
pub fn chip_texts(body: &Value) -> Vec<String> {
    messages_of(body)
        .last()
        .and_then(|m| m["quickReply"]["items"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|i| i["action"]["text"].as_str().map(str::to_string))
        .collect()
}

/// A fresh SQLite database file named after `name`, for tests that open it from two processes.
pub fn temp_db(name: &str) -> String {
    let dir = super::scratch_dir(&format!("hearth-{name}"));
    format!("sqlite://{}", dir.join("hearth.db").display())
}

/// What a recorded LLM request told the model besides the conversation: the instructions (its
/// system message) and hearth's notes (the chat's part, the turn's note), joined.
pub fn instructions(request: &Value) -> String {
    let messages = request["messages"].as_array().into_iter().flatten();
    let note = |m: &&Value| {
        m["content"].as_str().is_some_and(|c| c.starts_with(hearth::llm::prompt::NOTE_MARK))
    };
    let system = messages.filter(|m| m["role"] == "system" || note(m));
    system.filter_map(|m| m["content"].as_str()).collect::<Vec<_>>().join("\n\n")
}
