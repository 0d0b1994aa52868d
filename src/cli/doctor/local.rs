//! The checks that need nothing outside this machine but the database: the settings (parsed
//! exactly as `hearth serve` parses them) and the database with its migrations, what it set
//! aside, whether pairing codes were being guessed, and the month's LLM use so far.

use futures::future::BoxFuture;

use super::{Check, Finding, Probe, Status, verdict};
use crate::platform::config::Config;
use crate::store::{Store, redact_url, sqlite_file};
use crate::turn::limits::pairing;

/// The settings `hearth serve` needs are present, and those given are valid.
pub struct Settings;

impl Check for Settings {
    fn name(&self) -> &'static str {
        "settings"
    }

    fn run<'a>(&'a self, probe: &'a Probe) -> BoxFuture<'a, Vec<Finding>> {
        Box::pin(async move { settings(&probe.config, probe.options.webhook_url.is_some()) })
    }
}

/// The fix for a required setting that is missing.
fn fix_for(setting: &str) -> String {
    match setting {
        "LINE_CHANNEL_SECRET" => "copy the Channel secret from the Basic settings tab of the LINE Developers console into LINE_CHANNEL_SECRET".into(),
        "LINE_CHANNEL_ACCESS_TOKEN" => "issue a long-lived channel access token on the Messaging API tab of the LINE Developers console and set LINE_CHANNEL_ACCESS_TOKEN".into(),
        "OPENAI_API_KEY" => "set OPENAI_API_KEY, or point OPENAI_BASE_URL at a server that needs no key".into(),
        other => format!("set {other} (see hearth --help)"),
    }
}

fn settings(config: &Config, webhook_flag: bool) -> Vec<Finding> {
    let mut found: Vec<Finding> = config
        .missing_for_serve()
        .into_iter()
        .map(|setting| Finding::fail(format!("{setting} is not set"), fix_for(setting)))
        .collect();
    for (former, new) in crate::platform::config::renamed::in_use(|name| std::env::var(name).ok()) {
        found.push(Finding::warn(
            format!("{former} is a former name: it still works, as {new}"),
            format!("rename {former} to {new} where hearth's settings are kept"),
        ));
    }
    if jiff::tz::TimeZone::get(&config.family.timezone).is_err() {
        found.push(Finding::fail(
            format!("HEARTH_TIMEZONE={:?} is not a known time zone", config.family.timezone),
            "set HEARTH_TIMEZONE to an IANA name such as Asia/Taipei",
        ));
    }
    if let Err(e) =
        crate::sources::calendar::WorkCalendar::load(config.family.work_calendar.as_deref())
    {
        found.push(Finding::fail(
            format!("HEARTH_WORK_CALENDAR: {e}"),
            "point HEARTH_WORK_CALENDAR at a file made by scripts/taiwan_calendar.py, or unset it",
        ));
    }
    if let Err(e) = crate::server::app::sources(config) {
        found.push(Finding::fail(
            error_chain(&e),
            "fix the setting the message names (or unset it to use the default)",
        ));
    }
    if let Some(path) = &config.mcp.mcp_config
        && let Err(e) = crate::llm::mcp::config::load(path)
    {
        found.push(Finding::fail(e.to_string(), "fix HEARTH_MCP_CONFIG as the message says"));
    }
    if config.server.public_url.is_none() {
        let without = if webhook_flag {
            ""
        } else {
            ", and the doctor cannot compare LINE's webhook URL with hearth's"
        };
        found.push(Finding::warn(
            format!("HEARTH_PUBLIC_URL is not set: cards carry no chart{without}"),
            "set HEARTH_PUBLIC_URL to the https:// address LINE reaches hearth at",
        ));
    }
    if !config.speech.tts_model.trim().is_empty() && config.server.public_url.is_none() {
        found.push(Finding::warn(
            "HEARTH_TTS_MODEL is set but HEARTH_PUBLIC_URL is not: answers are never spoken (LINE fetches the audio from hearth)",
            "set HEARTH_PUBLIC_URL to the https:// address LINE reaches hearth at",
        ));
    }
    if config.access.open {
        found.push(Finding::warn(
            "HEARTH_OPEN is on: anyone who adds the bot is served and spends your LLM budget",
            "turn HEARTH_OPEN off: new chats then wait for `hearth approve` or a code from `hearth pair`",
        ));
    }
    if config.server.metrics_token.is_empty() && config.server.metrics_listen.is_none() {
        found.push(Finding::warn(
            "/metrics is public on the webhook port",
            "set HEARTH_METRICS_TOKEN or HEARTH_METRICS_LISTEN",
        ));
    }
    if !found.iter().any(|f| f.status == Status::Fail) {
        found.insert(0, Finding::pass("what hearth serve needs is set, and valid"));
    }
    found
}

/// An error with its causes, on one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The database answers and has every migration of this build.
pub struct Database;

impl Check for Database {
    fn name(&self) -> &'static str {
        "database"
    }

    fn run<'a>(&'a self, probe: &'a Probe) -> BoxFuture<'a, Vec<Finding>> {
        Box::pin(async move { database(&probe.config).await })
    }
}

async fn database(config: &Config) -> Vec<Finding> {
    let url = config.store.database_url.as_str();
    if let Some(file) = sqlite_file(url)
        && !file.exists()
    {
        return vec![Finding::fail(
            format!("no database file at {}", file.display()),
            "run `hearth migrate` to create it (hearth serve also does at start), or fix DATABASE_URL",
        )];
    }
    let store = match Store::open(url).await {
        Ok(store) => store,
        Err(e) => {
            return vec![Finding::fail(
                format!("cannot open {}: {}", redact_url(url), redact_url(&error_chain(&e))),
                "check DATABASE_URL and that the database server is running and reachable",
            )];
        }
    };
    let migrations = match store.migrations().await {
        Ok(m) => verdict::migrations(store.backend_name(), &m),
        Err(e) => {
            return vec![Finding::fail(
                format!("cannot read the migrations of {}: {e}", redact_url(url)),
                "check that DATABASE_URL's user may read the database",
            )];
        }
    };
    let mut findings = vec![migrations];
    if let Some(domain) = config.https.domain()
        && let Ok(kept) = store.certificates().current(&domain).await
    {
        let now = jiff::Timestamp::now().as_millisecond();
        findings.push(verdict::certificate(&domain, kept.map(|k| k.not_after), now));
    }
    // An older schema has nothing set aside to count; the migration finding says so.
    if let Ok(count) = crate::server::inbox::set_aside_count(&store).await {
        findings.push(verdict::set_aside(count));
    }
    let clock: std::sync::Arc<dyn crate::platform::clock::Clock> =
        std::sync::Arc::new(crate::platform::clock::SystemClock);
    let door = crate::door::Door::from_settings(store.clone(), clock, &config.access);
    let budget = config.access.pairing_guesses_per_min;
    let since = pairing::lately_from(jiff::Timestamp::now().as_millisecond());
    if budget > 0
        && let Ok(over) = door.guesses_over(since, budget).await
    {
        findings.push(verdict::pairing_guesses(over, budget));
    }
    let tz = jiff::tz::TimeZone::get(&config.family.timezone).unwrap_or(jiff::tz::TimeZone::UTC);
    let month = jiff::Timestamp::now().to_zoned_datetime(tz).strftime("%Y-%m").to_string();
    if let Ok(rows) = crate::features::budget::Spent::new(store).month(&month).await {
        let prices = crate::cli::usage::Prices::from_config(config);
        findings.push(Finding::pass(crate::cli::usage::month_line(&month, &rows, prices)));
    }
    findings
}
