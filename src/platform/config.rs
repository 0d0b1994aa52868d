//! Every setting, from the command line or the environment, documented in `--help`.
//!
//! Tests build a [`Config`] with [`Config::defaults`] and set the fields they need.

use std::fmt;
use std::net::SocketAddr;

use clap::{Args, ValueEnum};

use crate::platform::ip_range::IpRanges;

/// A secret: shown as `[redacted]` in logs and debug output.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// The secret itself, for the one place that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True when no secret was given.
    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }
}

impl From<String> for Secret {
    fn from(s: String) -> Self {
        Secret(s)
    }
}

impl From<&str> for Secret {
    fn from(s: &str) -> Self {
        Secret(s.to_string())
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_empty() { "[empty]" } else { "[redacted]" })
    }
}

/// How price changes are coloured on cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum PriceColors {
    /// Taiwan and East Asia: up is red, down is green.
    #[default]
    Tw,
    /// US and Europe: up is green, down is red.
    Us,
}

/// Log output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// All settings.
#[derive(Debug, Clone, Args)]
pub struct Config {
    /// LINE channel secret (Messaging API tab of the LINE Developers console); verifies webhooks.
    #[arg(
        long,
        env = "LINE_CHANNEL_SECRET",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub line_channel_secret: Secret,
    /// LINE channel access token (long-lived); authorises replies and pushes.
    #[arg(
        long,
        env = "LINE_CHANNEL_ACCESS_TOKEN",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub line_channel_access_token: Secret,
    /// Key that signs the data of buttons that change state (cancel, done…); derived from the
    /// channel secret when not set. Changing it invalidates the buttons of earlier cards.
    #[arg(
        long,
        env = "HEARTH_POSTBACK_KEY",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub postback_key: Secret,
    /// Most pushes per second (LINE allows 2,000 per channel); bursts of reminders are paced to it.
    #[arg(long, env = "HEARTH_PUSH_RATE", default_value_t = 1900, global = true)]
    pub push_rate: u32,
    /// Push a personal reminder or price alert set in a group ("提醒我…") to that person's 1:1
    /// chat with hearth when they have added it as a friend: it costs one message of the monthly
    /// quota instead of one per group member. "提醒大家" keeps it in the group either way.
    #[arg(long, env = "HEARTH_PERSONAL_REMINDERS_1TO1", default_value_t = true, action = clap::ArgAction::Set, global = true)]
    pub personal_reminders_1to1: bool,
    /// Reminders, price-alert fires and the digest due for one chat within this many seconds of
    /// each other go out in one push (a group is charged once per push). 0 pushes each as soon as
    /// it is due.
    #[arg(long, env = "HEARTH_OUTBOX_WINDOW_SECS", default_value_t = 3, global = true)]
    pub outbox_window_secs: u64,
    /// Base URL of the LINE Messaging API.
    #[arg(long, env = "LINE_API_BASE", default_value = "https://api.line.me", global = true)]
    pub line_api_base: String,
    /// Base URL of LINE's content API (photos, voice messages and files sent to hearth).
    #[arg(
        long,
        env = "LINE_DATA_API_BASE",
        default_value = "https://api-data.line.me",
        global = true
    )]
    pub line_data_api_base: String,

    /// Base URL of an OpenAI-compatible API, including the version (e.g. http://localhost:11434/v1 for Ollama).
    #[arg(
        long,
        env = "OPENAI_BASE_URL",
        default_value = "https://api.openai.com/v1",
        global = true
    )]
    pub openai_base_url: String,
    /// API key for the LLM; may be empty for local servers.
    #[arg(
        long,
        env = "OPENAI_API_KEY",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub openai_api_key: Secret,
    /// The model name sent to the LLM API.
    #[arg(long, env = "HEARTH_MODEL", default_value = "gpt-4o-mini", global = true)]
    pub model: String,
    /// The model asked when a turn carries photos; empty: HEARTH_MODEL (which must read images).
    #[arg(long, env = "HEARTH_VISION_MODEL", default_value = "", global = true)]
    pub vision_model: String,
    /// The model that transcribes voice messages (`/audio/transcriptions`); empty: voice off.
    #[arg(long, env = "HEARTH_TRANSCRIBE_MODEL", default_value = "whisper-1", global = true)]
    pub transcribe_model: String,
    /// Base URL of the OpenAI-compatible transcription API, with the version (a local Whisper
    /// server, say); empty: OPENAI_BASE_URL with OPENAI_API_KEY.
    #[arg(long, env = "HEARTH_TRANSCRIBE_URL", default_value = "", global = true)]
    pub transcribe_url: String,
    /// API key for HEARTH_TRANSCRIBE_URL (OPENAI_API_KEY is never sent to another server); may
    /// be empty for local servers.
    #[arg(
        long,
        env = "HEARTH_TRANSCRIBE_API_KEY",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub transcribe_api_key: Secret,
    /// Longest voice message transcribed, in seconds; longer ones get a polite refusal.
    #[arg(long, env = "HEARTH_VOICE_MAX_SECS", default_value_t = 120, global = true)]
    pub voice_max_secs: u64,
    /// Transcribe voice messages in groups too, to find the trigger keyword in them (every voice
    /// message of the group then goes to the transcription server); off: voice in groups is
    /// ignored.
    #[arg(long, env = "HEARTH_GROUP_VOICE", default_value_t = false, action = clap::ArgAction::Set, global = true)]
    pub group_voice: bool,
    /// The model that speaks answers (an OpenAI-compatible `/audio/speech`, e.g. gpt-4o-mini-tts
    /// or tts-1): a chat that asks for spoken answers, and a voice message, get the answer as
    /// text and as a voice message. Empty: answers are never spoken. Needs HEARTH_PUBLIC_URL
    /// (LINE fetches the audio from there).
    #[arg(long, env = "HEARTH_TTS_MODEL", default_value = "", global = true)]
    pub tts_model: String,
    /// The voice HEARTH_TTS_MODEL speaks with (OpenAI: alloy, nova, shimmer, …).
    #[arg(long, env = "HEARTH_TTS_VOICE", default_value = "nova", global = true)]
    pub tts_voice: String,
    /// Base URL of the OpenAI-compatible speech API, with the version (a local server, say);
    /// empty: OPENAI_BASE_URL with OPENAI_API_KEY.
    #[arg(long, env = "HEARTH_TTS_URL", default_value = "", global = true)]
    pub tts_url: String,
    /// API key for HEARTH_TTS_URL (OPENAI_API_KEY is never sent to another server); may be
    /// empty for local servers.
    #[arg(
        long,
        env = "HEARTH_TTS_API_KEY",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub tts_api_key: Secret,
    /// Answer a voice message with a spoken answer too (besides the text), whatever the chat
    /// asked for; off: only chats that asked for spoken answers get them.
    #[arg(long, env = "HEARTH_TTS_FOR_VOICE", default_value_t = true, action = clap::ArgAction::Set, global = true)]
    pub tts_for_voice: bool,
    /// Most bytes of a photo, voice message or file downloaded from LINE; larger ones are refused.
    #[arg(long, env = "HEARTH_MEDIA_MAX_BYTES", default_value_t = 10_000_000, global = true)]
    pub media_max_bytes: usize,
    /// Most child processes parsing untrusted content (PDFs, photos, text files, web pages) at
    /// once; more wait their turn, one chat at a time.
    #[arg(long, env = "HEARTH_PARSERS", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=64), global = true)]
    pub parsers: u64,
    /// Address space of one parsing child, in MiB: a file that needs more is refused politely.
    #[arg(long, env = "HEARTH_PARSER_MEMORY_MB", default_value_t = 512, value_parser = clap::value_parser!(u64).range(128..=65_536), global = true)]
    pub parser_memory_mb: u64,
    /// Seconds one parsing child may run (wall clock and CPU time) before it is killed.
    #[arg(long, env = "HEARTH_PARSER_SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=600), global = true)]
    pub parser_secs: u64,
    /// The executable started as a parsing child (default: this one).
    #[arg(long, env = "HEARTH_PARSER_PROGRAM", hide = true, global = true)]
    pub parser_program: Option<std::path::PathBuf>,
    /// Send tool schemas with `strict: true` (turn off for servers that reject it).
    #[arg(long, env = "HEARTH_LLM_STRICT", default_value_t = true, action = clap::ArgAction::Set, global = true)]
    pub llm_strict: bool,
    /// Sent with every LLM request as `prompt_cache_key` (OpenAI routes requests with the same
    /// key and prefix to the same prompt cache); unset: not sent. For OpenAI: other servers may
    /// refuse a field they do not know.
    #[arg(long, env = "HEARTH_PROMPT_CACHE_KEY", global = true)]
    pub prompt_cache_key: Option<String>,
    /// US$ per million input tokens the LLM costs (`hearth usage` and `hearth doctor` show the
    /// money when the three prices are set).
    #[arg(long, env = "HEARTH_PRICE_INPUT", value_parser = price, global = true)]
    pub price_input: Option<f64>,
    /// US$ per million input tokens served from the provider's prompt cache.
    #[arg(long, env = "HEARTH_PRICE_CACHED", value_parser = price, global = true)]
    pub price_cached: Option<f64>,
    /// US$ per million output tokens.
    #[arg(long, env = "HEARTH_PRICE_OUTPUT", value_parser = price, global = true)]
    pub price_output: Option<f64>,
    /// Seconds to wait for one LLM response.
    #[arg(long, env = "HEARTH_LLM_TIMEOUT_SECS", default_value_t = 60, global = true)]
    pub llm_timeout_secs: u64,
    /// Most LLM rounds with tools in one turn; after that the model must answer.
    #[arg(long, env = "HEARTH_MAX_TOOL_ROUNDS", default_value_t = 4, global = true)]
    pub max_tool_rounds: usize,

    /// Most turns worked on at once; further events wait their turn (bounds memory and the load
    /// on the LLM provider during a burst).
    #[arg(long, env = "HEARTH_MAX_CONCURRENT_TURNS", default_value_t = 32, global = true)]
    pub max_concurrent_turns: usize,

    /// Seconds a claim on a webhook event lasts unless renewed. A live process renews its claims
    /// three times per lease, however long a turn takes; a dead process's events are taken over
    /// by another process (or this one, restarted) within about this long.
    #[arg(
        long,
        env = "HEARTH_INBOX_LEASE_SECS",
        default_value_t = 15,
        value_parser = clap::value_parser!(u64).range(1..=3600),
        global = true
    )]
    pub inbox_lease_secs: u64,
    /// Most webhook events held in memory (waiting for their conversation or a turn, or being
    /// handled); more wait in the database and are taken as room frees, so a flood does not
    /// grow memory.
    #[arg(long, env = "HEARTH_MAX_QUEUED_EVENTS", default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=100_000), global = true)]
    pub max_queued_events: u64,
    /// Seconds a webhook event's time stamp may run ahead of hearth's clock; an event stamped
    /// further in the future is refused like one older than a day (logged, counted as `ahead`).
    #[arg(long, env = "HEARTH_EVENT_MAX_SKEW_SECS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(0..=1800), global = true)]
    pub event_max_skew_secs: u64,
    /// Seconds a process holds a due reminder it claimed.
    #[arg(long, env = "HEARTH_REMINDER_LEASE_SECS", default_value_t = 120, global = true)]
    pub reminder_lease_secs: u64,
    /// Seconds shutdown waits for turns in hand before handing them back.
    #[arg(long, env = "HEARTH_SHUTDOWN_GRACE_SECS", default_value_t = 20, global = true)]
    pub shutdown_grace_secs: u64,

    /// Database: sqlite://path (created on first run) or postgres://user@host/db (several replicas).
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://hearth.db",
        hide_env_values = true,
        global = true
    )]
    pub database_url: String,
    /// Address the webhook server listens on.
    #[arg(long, env = "HEARTH_LISTEN", default_value = "0.0.0.0:8080", global = true)]
    pub listen: SocketAddr,
    /// Words that wake the bot in groups, comma-separated (e.g. 小幫手,hearth); stripped before the LLM sees the text.
    #[arg(
        long,
        env = "HEARTH_TRIGGER_KEYWORDS",
        default_value = "小幫手,hearth",
        value_delimiter = ',',
        global = true
    )]
    pub trigger_keywords: Vec<String>,
    /// IANA time zone of the family: the prompt's date and time, reminders.
    #[arg(long, env = "HEARTH_TIMEZONE", default_value = "Asia/Taipei", global = true)]
    pub timezone: String,
    /// The family's home place (a city, e.g. 台北 or Kaohsiung): the weather when no place is
    /// named and none was asked about in the chat before. Default: the city of HEARTH_TIMEZONE
    /// where it names one (Asia/Taipei: 台北).
    #[arg(long, env = "HEARTH_HOME_LOCATION", global = true)]
    pub home_location: Option<String>,
    /// A newer Taiwan working calendar (JSON, the format of the built-in
    /// data/taiwan-calendar.json, made by scripts/taiwan_calendar.py): its years replace or
    /// extend the built-in ones (2024–2027). Workday reminders and the TWSE trading days follow
    /// it; past its last year every weekday counts as a workday.
    #[arg(long, env = "HEARTH_WORK_CALENDAR", global = true)]
    pub work_calendar: Option<std::path::PathBuf>,
    /// Earlier messages of the conversation given to the LLM as context.
    #[arg(long, env = "HEARTH_HISTORY_MESSAGES", default_value_t = 20, global = true)]
    pub history_messages: usize,
    /// Most characters of history given to the LLM.
    #[arg(long, env = "HEARTH_HISTORY_CHARS", default_value_t = 6000, global = true)]
    pub history_chars: usize,
    /// Days the chat log (what recap and history read) is kept; older messages are deleted.
    #[arg(
        long,
        env = "HEARTH_LOG_RETENTION_DAYS",
        default_value_t = 14,
        value_parser = clap::value_parser!(u32).range(1..=3650),
        global = true
    )]
    pub log_retention_days: u32,
    /// Days a settled push is remembered (outbox items sent, held or given up, and the records
    /// of delivered reminder occurrences, alert fires and digests); older ones are deleted.
    #[arg(
        long,
        env = "HEARTH_DELIVERY_RETENTION_DAYS",
        default_value_t = 30,
        value_parser = clap::value_parser!(u32).range(1..=3650),
        global = true
    )]
    pub delivery_retention_days: u32,
    /// Colour convention for price changes on cards.
    #[arg(long, env = "HEARTH_PRICE_COLORS", value_enum, default_value_t = PriceColors::Tw, global = true)]
    pub price_colors: PriceColors,
    /// The public HTTPS address of this server (the base of its webhook URL, e.g.
    /// <https://hearth.example.com>): quote, alert and weather cards then carry a chart that LINE
    /// fetches from here. Without it, cards have no chart.
    #[arg(long, env = "HEARTH_PUBLIC_URL", value_parser = public_url, global = true)]
    pub public_url: Option<String>,
    /// A LIFF app (its ID, `1234567890-AbCdEfGh`) whose endpoint is HEARTH_PUBLIC_URL/family/liff:
    /// the family page's links then open inside LINE, and LINE's ID token of whoever opens one
    /// is verified before the page counts them as that member. Empty: plain links.
    #[arg(long, env = "HEARTH_LIFF_ID", default_value = "", value_parser = liff_id, global = true)]
    pub liff_id: String,
    /// Reverse proxies whose `X-Forwarded-For` is believed: comma-separated addresses or CIDR
    /// blocks (`127.0.0.1,10.0.0.0/8`). A request from one of them is counted, by the family
    /// page's limit on requests without a session, as the right-most address of that header
    /// not itself listed; every other request as the address it came from. Empty: nobody's.
    #[arg(
        long,
        env = "HEARTH_TRUSTED_PROXIES",
        default_value = "",
        value_parser = trusted_proxies,
        hide_default_value = true,
        global = true
    )]
    pub trusted_proxies: IpRanges,

    /// Base URL of the Open-Meteo forecast API.
    #[arg(
        long,
        env = "HEARTH_OPEN_METEO_URL",
        default_value = "https://api.open-meteo.com",
        global = true
    )]
    pub open_meteo_url: String,
    /// Base URL of the Open-Meteo geocoding API.
    #[arg(
        long,
        env = "HEARTH_GEOCODING_URL",
        default_value = "https://geocoding-api.open-meteo.com",
        global = true
    )]
    pub geocoding_url: String,
    /// Base URL of the exchange-rate API (open.er-api.com shape).
    #[arg(long, env = "HEARTH_FX_URL", default_value = "https://open.er-api.com", global = true)]
    pub fx_url: String,
    /// Base URL of the Yahoo Finance chart API.
    #[arg(
        long,
        env = "HEARTH_YAHOO_URL",
        default_value = "https://query1.finance.yahoo.com",
        global = true
    )]
    pub yahoo_url: String,
    /// A table of Taiwan securities (code, name, market, kind) newer than the one built in, in
    /// the same tab-separated format (see scripts/tw_securities.py). A file that does not parse
    /// stops start-up.
    #[arg(long, env = "HEARTH_TW_SECURITIES_FILE", global = true)]
    pub tw_securities_file: Option<std::path::PathBuf>,
    /// User-Agent sent to data sources (Yahoo refuses non-browser agents).
    #[arg(
        long,
        env = "HEARTH_USER_AGENT",
        default_value = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
        hide_default_value = true,
        global = true
    )]
    pub user_agent: String,
    /// Seconds to wait for a data source.
    #[arg(long, env = "HEARTH_UPSTREAM_TIMEOUT_SECS", default_value_t = 8, global = true)]
    pub upstream_timeout_secs: u64,
    /// Seconds between price-alert polls (each watched symbol is fetched on its own cadence:
    /// 30 s near a level, up to 10 min far from one); 0 turns the poller off. Its former name,
    /// `HEARTH_ALERT_POLL_SECS` (`--alert-poll-secs`), is still read when this is not set.
    #[arg(
        long,
        alias = "alert-poll-secs",
        env = "HEARTH_PRICE_POLL_SECS",
        default_value_t = price_poll_default(std::env::var(FORMER_PRICE_POLL).ok()),
        global = true
    )]
    pub price_poll_secs: u64,
    /// `HEARTH_PRICE_POLL_SECS`'s former name, read only as its default (and checked here).
    #[arg(long = "former-alert-poll-secs", env = FORMER_PRICE_POLL, hide = true, global = true)]
    pub former_alert_poll_secs: Option<u64>,
    /// The feed of Taiwan's official alerts: an Atom feed of CAP 1.2 documents (NCDR's public
    /// alert platform); work/school suspensions, typhoon, heavy-rain and earthquake alerts for
    /// the chats that follow them. Empty turns the alerts off.
    #[arg(
        long,
        env = "HEARTH_ALERTS_FEED_URL",
        default_value = "https://alerts.ncdr.nat.gov.tw/RssAtomFeed.ashx",
        global = true
    )]
    pub alerts_feed_url: String,
    /// Seconds between reads of the official alerts feed (one replica reads it, with
    /// conditional requests); 0 turns the reading off.
    #[arg(long, env = "HEARTH_ALERTS_POLL_SECS", default_value_t = 60, global = true)]
    pub alerts_poll_secs: u64,
    /// Milliseconds between two requests to the alerts feed's host (NCDR refuses requests
    /// less than 3 s apart).
    #[arg(long, env = "HEARTH_ALERTS_REQUEST_GAP_MS", default_value_t = 3000, global = true)]
    pub alerts_request_gap_ms: u64,
    /// Hosts besides the feed's own that alert documents may come from (and redirect to),
    /// comma-separated: `cdn.example` (the feed's scheme, its default port), `cdn.example:8443`
    /// or `https://cdn.example`. Any other host is refused and logged.
    #[arg(long, env = "HEARTH_ALERTS_EXTRA_HOSTS", value_delimiter = ',', global = true)]
    pub alerts_extra_hosts: Vec<String>,
    /// Seconds between rounds of the care loop (doses asked, caregivers told, weekly reports);
    /// 0 turns it off.
    #[arg(long, env = "HEARTH_CARE_TICK_SECS", default_value_t = 15, global = true)]
    pub care_tick_secs: u64,
    /// Days care plans' readings and doses are kept (then deleted).
    #[arg(
        long,
        env = "HEARTH_CARE_RETENTION_DAYS",
        default_value_t = 365,
        value_parser = clap::value_parser!(u32).range(7..=3650),
        global = true
    )]
    pub care_retention_days: u32,

    /// Base URL of a SearXNG instance with the JSON format enabled (e.g. http://searxng:8080);
    /// the self-hosted search provider, used first when set. With no search provider configured
    /// the web_search tool is not offered.
    #[arg(
        long,
        env = "HEARTH_SEARXNG_URL",
        default_value = "",
        hide_default_value = true,
        global = true
    )]
    pub searxng_url: String,
    /// Tavily API key (tvly-…); Tavily is the search provider when set and SearXNG is not.
    #[arg(
        long,
        env = "HEARTH_TAVILY_API_KEY",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub tavily_api_key: Secret,
    /// Base URL of the Tavily API.
    #[arg(
        long,
        env = "HEARTH_TAVILY_URL",
        default_value = "https://api.tavily.com",
        global = true
    )]
    pub tavily_url: String,
    /// Brave Search API key; Brave is the search provider when set and neither SearXNG nor Tavily is.
    #[arg(
        long,
        env = "HEARTH_BRAVE_API_KEY",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub brave_api_key: Secret,
    /// Base URL of the Brave Search API.
    #[arg(
        long,
        env = "HEARTH_BRAVE_URL",
        default_value = "https://api.search.brave.com",
        global = true
    )]
    pub brave_url: String,
    /// Let summarize_url (and photos or voice from an external content provider) fetch private,
    /// loopback and link-local addresses and any port. Unsafe: for tests against local fakes
    /// only; keep it off in production.
    #[arg(long, env = "HEARTH_ALLOW_PRIVATE_FETCH", default_value_t = false, action = clap::ArgAction::Set, global = true)]
    pub allow_private_fetch: bool,
    /// Most bytes of a web page summarize_url downloads; the rest of a larger page is not read.
    #[arg(long, env = "HEARTH_FETCH_MAX_BYTES", default_value_t = 2_000_000, global = true)]
    pub fetch_max_bytes: usize,
    /// Seconds summarize_url waits for a page, redirects included.
    #[arg(long, env = "HEARTH_FETCH_TIMEOUT_SECS", default_value_t = 10, global = true)]
    pub fetch_timeout_secs: u64,

    /// Log format.
    #[arg(long, env = "HEARTH_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,

    /// Seconds a client has to send the headers of a request; slower connections are closed.
    #[arg(long, env = "HEARTH_HEADER_READ_TIMEOUT_SECS", default_value_t = 10, global = true)]
    pub header_read_timeout_secs: u64,
    /// Seconds a client has to send the body of a request once its headers are in; slower
    /// requests get 408 and their connection is closed.
    #[arg(long, env = "HEARTH_BODY_READ_TIMEOUT_SECS", default_value_t = 10, global = true)]
    pub body_read_timeout_secs: u64,
    /// When set, `GET /metrics` requires `Authorization: Bearer <this token>` (401 otherwise).
    /// Unset (and without HEARTH_METRICS_LISTEN) the metrics are public on the webhook port.
    #[arg(
        long,
        env = "HEARTH_METRICS_TOKEN",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub metrics_token: Secret,
    /// When set (e.g. 127.0.0.1:9090), `/metrics` is served only on this address, not on the
    /// webhook port.
    #[arg(long, env = "HEARTH_METRICS_LISTEN", global = true)]
    pub metrics_listen: Option<SocketAddr>,
    /// Chats approved from the start, comma-separated LINE ids: a user id (`U…`) for a 1:1 chat,
    /// a group (`C…`) or room (`R…`) id for a group. Other chats wait for approval (see
    /// HEARTH_OPEN): they are told once, politely, and nothing of theirs reaches the LLM.
    #[arg(
        long,
        env = "HEARTH_ALLOWED_CHATS",
        default_value = "",
        value_delimiter = ',',
        hide_default_value = true,
        global = true
    )]
    pub allowed_chats: Vec<String>,
    /// Serve every chat that adds the bot, without approval (anyone who finds the bot then
    /// spends your LLM budget). Off: a new chat waits until `hearth approve`, a pairing code
    /// from `hearth pair`, HEARTH_ALLOWED_CHATS, or (for a group) an approved member.
    #[arg(long, env = "HEARTH_OPEN", default_value_t = false, action = clap::ArgAction::Set, global = true)]
    pub open: bool,
    /// Most pairing codes the whole service checks per minute, across chats and replicas
    /// (counted in the database; 0: no limit). Codes sent beyond it are not checked, and the
    /// sender is told to wait a minute and send it again; `hearth doctor` warns when it was
    /// reached in the last day (someone guessing codes).
    #[arg(long, env = "HEARTH_PAIRING_GUESSES_PER_MIN", default_value_t = 30, global = true)]
    pub pairing_guesses_per_min: u32,
    /// Most turns per minute in one chat (0: no limit); more get one short notice per minute.
    /// Counted per process.
    #[arg(long, env = "HEARTH_CHAT_TURNS_PER_MINUTE", default_value_t = 20, global = true)]
    pub chat_turns_per_minute: u32,
    /// Most turns per minute for one person, across chats (0: no limit); more get one short
    /// notice per minute. Counted per process.
    #[arg(long, env = "HEARTH_USER_TURNS_PER_MINUTE", default_value_t = 10, global = true)]
    pub user_turns_per_minute: u32,
    /// LLM tokens (prompt and completion) one chat may use per day, in HEARTH_TIMEZONE
    /// (0: no limit); once reached the chat gets a short notice until midnight.
    #[arg(long, env = "HEARTH_DAILY_TOKENS_PER_CHAT", default_value_t = 500_000, global = true)]
    pub daily_tokens_per_chat: u64,
    /// LLM tokens the whole service may use per day, in HEARTH_TIMEZONE, counted across
    /// replicas (0: no limit); once reached every chat gets a short notice until midnight.
    #[arg(long, env = "HEARTH_DAILY_TOKENS_TOTAL", default_value_t = 5_000_000, global = true)]
    pub daily_tokens_total: u64,
    /// Most tool calls run from one LLM round; the model's further calls are not run and get an
    /// error result it can explain.
    #[arg(long, env = "HEARTH_MAX_TOOL_CALLS_PER_ROUND", default_value_t = 8, global = true)]
    pub max_tool_calls_per_round: usize,

    /// A folder for the daily backup of the SQLite database `serve` takes: one per calendar day
    /// in `HEARTH_TIMEZONE`, taken when today's is missing (none: no backups).
    #[arg(long, env = "HEARTH_BACKUP_DIR", global = true)]
    pub backup_dir: Option<std::path::PathBuf>,
    /// How many days' backups are kept in `HEARTH_BACKUP_DIR` (the newest days; only files hearth
    /// wrote are removed).
    #[arg(long, env = "HEARTH_BACKUP_KEEP", default_value_t = 7, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=366), global = true)]
    pub backup_keep: usize,

    /// Most tool definitions sent in one request: when MCP servers would pass it, the tools that
    /// do not fit are found and called through one tool (`find_tools`).
    #[arg(long, env = "HEARTH_MAX_TOOLS", default_value_t = DEFAULT_MAX_TOOLS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..=128), global = true)]
    pub max_tools: usize,

    /// A JSON file of MCP servers whose tools hearth offers too, in the `mcpServers` format of
    /// Claude Desktop, Cursor and VS Code (see the README); `${VAR}` in it reads the environment.
    #[arg(long, env = "HEARTH_MCP_CONFIG", global = true)]
    pub mcp_config: Option<std::path::PathBuf>,
    /// Longest wait, in seconds, between attempts to reach an MCP server that is down (the wait
    /// doubles from one second up to this).
    #[arg(long, env = "HEARTH_MCP_RETRY_MAX_SECS", default_value_t = 60, global = true)]
    pub mcp_retry_max_secs: u64,
    /// Seconds `hearth serve` waits at start for each MCP server's first answer before going on
    /// without it (it keeps trying in the background).
    #[arg(long, env = "HEARTH_MCP_START_SECS", default_value_t = 10, global = true)]
    pub mcp_start_secs: u64,
}

impl Config {
    /// The defaults (plus whatever the environment sets): what `hearth` with no flags would use.
    pub fn defaults() -> Self {
        #[derive(clap::Parser)]
        struct Only {
            #[command(flatten)]
            config: Config,
        }
        <Only as clap::Parser>::parse_from(["hearth"]).config
    }

    /// Whether answers can be spoken: a speech model, and a public address to serve the audio.
    pub fn speaks(&self) -> bool {
        !self.tts_model.trim().is_empty() && self.public_url.is_some()
    }

    /// Where speech is asked for: `HEARTH_TTS_URL` with its key, else the LLM's endpoint.
    pub fn tts_endpoint(&self) -> (&str, &Secret) {
        match self.tts_url.trim() {
            "" => (&self.openai_base_url, &self.openai_api_key),
            _ => (&self.tts_url, &self.tts_api_key),
        }
    }

    /// The settings `hearth serve` cannot run without that are missing, by environment name.
    pub fn missing_for_serve(&self) -> Vec<&'static str> {
        let mut missing = self.missing_for_llm();
        if self.line_channel_secret.is_empty() {
            missing.push("LINE_CHANNEL_SECRET");
        }
        if self.line_channel_access_token.is_empty() {
            missing.push("LINE_CHANNEL_ACCESS_TOKEN");
        }
        missing
    }

    /// The LLM settings that are missing: a key is needed for OpenAI itself.
    pub fn missing_for_llm(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if self.openai_base_url.contains("api.openai.com") && self.openai_api_key.is_empty() {
            missing.push("OPENAI_API_KEY");
        }
        if self.model.trim().is_empty() {
            missing.push("HEARTH_MODEL");
        }
        missing
    }

    /// The family's home place: `HEARTH_HOME_LOCATION`, else the city `HEARTH_TIMEZONE` names.
    pub fn home(&self) -> Option<String> {
        match self.home_location.as_deref().map(str::trim) {
            Some(home) if !home.is_empty() => Some(home.to_string()),
            _ => zone_city(&self.timezone),
        }
    }

    /// The trigger keywords, trimmed, empty ones dropped.
    pub fn keywords(&self) -> Vec<String> {
        self.trigger_keywords
            .iter()
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty())
            .collect()
    }
}

/// The most tool definitions one request carries unless `HEARTH_MAX_TOOLS` says otherwise:
/// OpenAI's function-calling guide suggests fewer than 20 at a time for accuracy, and smaller
/// models suffer first.
pub const DEFAULT_MAX_TOOLS: usize = 20;

/// Query parameters whose values are credentials, by what their names contain.
const CREDENTIAL_PARAMS: [&str; 7] = ["pass", "pwd", "token", "key", "secret", "auth", "sig"];

/// `url` with its credentials replaced by `***`: its whole `user:password@` part (a user name
/// alone may be a key) and
/// the values of query parameters named like credentials (`?password=`, `api_key=`,
/// `access_token=`…). For everything that shows a URL setting: `--help`, `hearth doctor`, logs
/// and errors. Anything that is not a URL comes back unchanged.
pub fn redact_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_string();
    };
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    // The whole `user:password@` part: a user name alone is often a key (`https://KEY@host`).
    let authority = match rest[..authority_end].rfind('@') {
        Some(at) => format!("***{}", &rest[at..authority_end]),
        None => rest[..authority_end].to_string(),
    };
    let tail = &rest[authority_end..];
    let (before_query, query_and_fragment) = match tail.find('?') {
        Some(q) => (&tail[..q], &tail[q + 1..]),
        None => return format!("{}{authority}{tail}", &url[..scheme_end]),
    };
    let (query, fragment) = match query_and_fragment.find('#') {
        Some(f) => (&query_and_fragment[..f], &query_and_fragment[f..]),
        None => (query_and_fragment, ""),
    };
    let query: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if is_credential(name) => format!("{name}=***"),
            _ => pair.to_string(),
        })
        .collect();
    format!("{}{authority}{before_query}?{}{fragment}", &url[..scheme_end], query.join("&"))
}

fn is_credential(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    CREDENTIAL_PARAMS.iter().any(|c| name.contains(c))
}

/// `text` with every URL in it passed through [`redact_url`] (error messages quote the URL
/// they failed on).
pub fn redact_urls_in(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(found) = rest.find("://") {
        let start = rest[..found]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |i| i + 1);
        let end = rest[found..]
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | '"' | '\'' | '<' | '>' | '`'))
            .map_or(rest.len(), |i| found + i);
        out.push_str(&rest[..start]);
        out.push_str(&redact_url(&rest[start..end]));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A log writer that masks the credentials of every URL in what it writes
/// ([`redact_urls_in`]): errors quote the URLs they failed on.
pub struct Redacting<W>(pub W);

impl<W: std::io::Write> std::io::Write for Redacting<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) if text.contains("://") => {
                self.0.write_all(redact_urls_in(text).as_bytes())?;
            }
            _ => self.0.write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Parses `HEARTH_PUBLIC_URL`: an `https://` URL without query or fragment (LINE fetches images
/// over HTTPS only), kept without its trailing slash.
/// A price in US$ per million tokens: a number from 0 to 1,000.
fn price(value: &str) -> Result<f64, String> {
    match value.trim().parse::<f64>() {
        Ok(p) if (0.0..=1000.0).contains(&p) => Ok(p),
        _ => Err(format!("{value:?} is not a price in US$ per million tokens (like 0.15)")),
    }
}

fn liff_id(value: &str) -> Result<String, String> {
    let value = value.trim();
    let well_formed = value.split_once('-').is_some_and(|(channel, rest)| {
        !channel.is_empty()
            && channel.bytes().all(|b| b.is_ascii_digit())
            && !rest.is_empty()
            && rest.bytes().all(|b| b.is_ascii_alphanumeric())
    });
    if value.is_empty() || well_formed {
        Ok(value.to_string())
    } else {
        Err("a LIFF ID looks like 1234567890-AbCdEfGh".into())
    }
}

fn trusted_proxies(value: &str) -> Result<IpRanges, String> {
    value.parse().map_err(|e: crate::platform::ip_range::IpRangeError| e.to_string())
}

fn public_url(value: &str) -> Result<String, String> {
    let url = url::Url::parse(value).map_err(|e| format!("not a URL: {e}"))?;
    if url.scheme() != "https" || url.host_str().is_none() {
        return Err("must be an https:// address LINE can reach".into());
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("must not have a query or a fragment".into());
    }
    Ok(value.trim_end_matches('/').to_string())
}

/// The city an IANA zone is named after ("Asia/Taipei": 台北, "Europe/London": London), or
/// `None` for zones that name no city (UTC, Etc/GMT+8).
pub fn zone_city(zone: &str) -> Option<String> {
    let (area, city) = zone.trim().rsplit_once('/')?;
    if area.starts_with("Etc") || city.is_empty() || city.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let known = [("Taipei", "台北"), ("Hong_Kong", "香港"), ("Macau", "澳門")];
    match known.iter().find(|(name, _)| *name == city) {
        Some((_, local)) => Some((*local).to_string()),
        None => Some(city.replace('_', " ")),
    }
}

#[cfg(test)]
mod redact_tests {
    use super::{redact_url, redact_urls_in};

    #[test]
    fn a_password_in_a_url_is_masked_wherever_it_is() {
        assert_eq!(
            redact_url("mysql://hearth:hunter2@db.example:3306/hearth"),
            "mysql://***@db.example:3306/hearth"
        );
        assert_eq!(
            redact_url("postgres://u@h/db?sslmode=require&password=hunter2"),
            "postgres://***@h/db?sslmode=require&password=***"
        );
        assert_eq!(
            redact_url("https://s.example/search?api_key=k1&q=x&access_token=t#top"),
            "https://s.example/search?api_key=***&q=x&access_token=***#top"
        );
        assert_eq!(redact_url("https://api.line.me"), "https://api.line.me");
        assert_eq!(redact_url("sqlite://hearth.db"), "sqlite://hearth.db");
        assert_eq!(redact_url("not a url"), "not a url");
    }

    #[test]
    fn urls_quoted_in_an_error_are_masked() {
        let said = redact_urls_in(
            "error sending request for url (https://u:pw@searx.example/search?token=t): refused",
        );
        assert_eq!(
            said,
            "error sending request for url (https://***@searx.example/search?token=***): refused"
        );
        assert!(!said.contains("pw@") && !said.contains("u:"));
    }
}

#[cfg(test)]
mod public_url_tests {
    use super::public_url;

    #[test]
    fn the_public_url_must_be_https_without_query_and_loses_its_trailing_slash() {
        assert_eq!(
            public_url("https://hearth.example.com/").as_deref(),
            Ok("https://hearth.example.com")
        );
        assert_eq!(public_url("https://h.example/bot").as_deref(), Ok("https://h.example/bot"));
        assert!(public_url("http://hearth.example.com").is_err(), "LINE fetches over HTTPS only");
        assert!(public_url("https://hearth.example.com/?a=1").is_err());
        assert!(public_url("hearth.example.com").is_err());
    }
}

#[cfg(test)]
mod home_tests {
    use super::zone_city;

    #[test]
    fn the_home_defaults_to_the_city_the_time_zone_names() {
        assert_eq!(zone_city("Asia/Taipei").as_deref(), Some("台北"));
        assert_eq!(zone_city("America/New_York").as_deref(), Some("New York"));
        assert_eq!(zone_city("UTC"), None);
        assert_eq!(zone_city("Etc/GMT-8"), None);
    }
}

/// The former name of `HEARTH_PRICE_POLL_SECS`, from when the official alerts'
/// `HEARTH_ALERTS_POLL_SECS` was one letter away.
const FORMER_PRICE_POLL: &str = "HEARTH_ALERT_POLL_SECS";

/// `HEARTH_PRICE_POLL_SECS`'s default: the value of its former name when that is set (one that
/// is not a number is refused by its own argument), else 5 s.
fn price_poll_default(former: Option<String>) -> u64 {
    former.and_then(|v| v.trim().parse().ok()).unwrap_or(5)
}

#[cfg(test)]
mod trusted_proxies_tests {
    use super::Config;

    #[derive(clap::Parser)]
    struct Only {
        #[command(flatten)]
        config: Config,
    }

    fn parse(value: &str) -> Result<Config, clap::Error> {
        <Only as clap::Parser>::try_parse_from(["hearth", "--trusted-proxies", value])
            .map(|o| o.config)
    }

    #[test]
    fn trusted_proxies_are_none_by_default_and_a_bad_entry_stops_the_start() {
        assert!(Config::defaults().trusted_proxies.is_empty());
        let two = parse("127.0.0.1,10.0.0.0/8").expect("two ranges");
        assert!(two.trusted_proxies.contains("10.9.8.7".parse().expect("ip")));
        for bad in ["10.0.0.1/8", "proxy.internal", "10.0.0.0/8,", "127.0.0.1:8080"] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_price_poll_keeps_its_former_name_as_an_alias() {
        assert_eq!(super::price_poll_default(None), 5);
        assert_eq!(super::price_poll_default(Some("12".into())), 12);
        let flag = <Only as clap::Parser>::try_parse_from(["hearth", "--alert-poll-secs", "9"]);
        assert_eq!(flag.expect("the former flag").config.price_poll_secs, 9);
        let bad = ["hearth", "--former-alert-poll-secs", "often"];
        assert!(<Only as clap::Parser>::try_parse_from(bad).is_err());
    }
}
