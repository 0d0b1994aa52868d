//! Every setting, from the command line or the environment, documented in `--help`, grouped by
//! the part of hearth that reads it: [`line`](mod@line), [`push`], [`llm`], [`speech`], [`media`],
//! [`turns`], [`store`], [`family`], [`server`], [`page`], [`sources`], [`loops`], [`web`],
//! [`access`], [`limits`] and [`mcp`]; each group is one struct flattened into [`Config`], so
//! every flag and environment variable keeps its name. [`redact`] masks the credentials of URL
//! settings wherever one is shown.
//!
//! Tests build a [`Config`] with [`Config::defaults`] and set the fields they need.

use std::fmt;

use clap::{Args, ValueEnum};

pub mod access;
pub mod calendar;
pub mod family;
pub mod https;
pub mod limits;
pub mod line;
pub mod llm;
pub mod loops;
pub mod mcp;
pub mod media;
pub mod page;
pub mod push;
pub mod redact;
pub mod renamed;
pub mod server;
pub mod sources;
pub mod speech;
pub mod store;
pub mod turns;
pub mod web;

pub use access::AccessSettings;
pub use calendar::CalendarSettings;
pub use family::{FamilySettings, PriceColors, zone_city};
pub use https::HttpsSettings;
pub use limits::LimitSettings;
pub use line::LineSettings;
pub use llm::{DEFAULT_MAX_TOOLS, LlmSettings};
pub use loops::LoopSettings;
pub use mcp::McpSettings;
pub use media::MediaSettings;
pub use page::PageSettings;
pub use push::PushSettings;
pub use redact::{Redacting, redact_url, redact_urls_in};
pub use server::ServerSettings;
pub use sources::SourceSettings;
pub use speech::SpeechSettings;
pub use store::StoreSettings;
pub use turns::TurnSettings;
pub use web::WebSettings;

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

/// Log output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// All settings, one group per part of hearth.
#[derive(Debug, Clone, Args)]
pub struct Config {
    /// The LINE channel.
    #[command(flatten)]
    pub line: LineSettings,
    /// How pushes go out.
    #[command(flatten)]
    pub push: PushSettings,
    /// The LLM and how a turn may use it.
    #[command(flatten)]
    pub llm: LlmSettings,
    /// Voice messages heard and answers spoken.
    #[command(flatten)]
    pub speech: SpeechSettings,
    /// Downloading what the family sends and parsing it.
    #[command(flatten)]
    pub media: MediaSettings,
    /// How webhook events become turns.
    #[command(flatten)]
    pub turns: TurnSettings,
    /// The database and what it keeps.
    #[command(flatten)]
    pub store: StoreSettings,
    /// Where and when the family lives.
    #[command(flatten)]
    pub family: FamilySettings,
    /// The family's own calendar server.
    #[command(flatten)]
    pub calendar: CalendarSettings,
    /// The HTTP server.
    #[command(flatten)]
    pub server: ServerSettings,
    /// HTTPS built in, by ACME.
    #[command(flatten)]
    pub https: HttpsSettings,
    /// The family page.
    #[command(flatten)]
    pub page: PageSettings,
    /// The data sources of weather, rates and quotes.
    #[command(flatten)]
    pub sources: SourceSettings,
    /// The background loops.
    #[command(flatten)]
    pub loops: LoopSettings,
    /// Web search and page fetching.
    #[command(flatten)]
    pub web: WebSettings,
    /// Which chats hearth serves.
    #[command(flatten)]
    pub access: AccessSettings,
    /// Limits per chat, per person and for the whole service.
    #[command(flatten)]
    pub limits: LimitSettings,
    /// MCP servers whose tools hearth offers too.
    #[command(flatten)]
    pub mcp: McpSettings,

    /// Log format.
    #[arg(long, env = "HEARTH_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,
}

/// The settings alone, as a command line: what [`Config::defaults`] parses.
#[derive(clap::Parser)]
struct Only {
    #[command(flatten)]
    config: Config,
}

impl Config {
    /// The defaults (plus whatever the environment sets): what `hearth` with no flags would use.
    pub fn defaults() -> Self {
        <Only as clap::Parser>::parse_from(["hearth"]).config
    }

    /// With `HEARTH_TLS_DOMAIN` and no `HEARTH_PUBLIC_URL`, the public address is that
    /// domain's, on 443: the port the CA checks it on, whatever port outside traffic to 443 is
    /// forwarded to here.
    #[must_use]
    pub fn with_public_url_from_https(mut self) -> Self {
        if self.server.public_url.is_none()
            && let Some(domain) = self.https.domain()
        {
            self.server.public_url = Some(format!("https://{domain}"));
        }
        self
    }

    /// Whether answers can be spoken: a speech model, and a public address to serve the audio.
    pub fn speaks(&self) -> bool {
        !self.speech.tts_model.trim().is_empty() && self.server.public_url.is_some()
    }

    /// Where speech is asked for: `HEARTH_TTS_URL` with its key, else the LLM's endpoint.
    pub fn tts_endpoint(&self) -> (&str, &Secret) {
        match self.speech.tts_url.trim() {
            "" => (&self.llm.openai_base_url, &self.llm.openai_api_key),
            _ => (&self.speech.tts_url, &self.speech.tts_api_key),
        }
    }

    /// The settings `hearth serve` cannot run without that are missing, by environment name.
    pub fn missing_for_serve(&self) -> Vec<&'static str> {
        let mut missing = self.llm.missing();
        if self.line.line_channel_secret.is_empty() {
            missing.push("LINE_CHANNEL_SECRET");
        }
        if self.line.line_channel_access_token.is_empty() {
            missing.push("LINE_CHANNEL_ACCESS_TOKEN");
        }
        missing
    }
}

/// `args` (after the program's name) parsed as settings alone, for the groups' tests.
#[cfg(test)]
fn parse_for_test(args: &[&str]) -> Result<Config, clap::Error> {
    let program = std::iter::once("hearth").chain(args.iter().copied());
    <Only as clap::Parser>::try_parse_from(program).map(|o| o.config)
}
