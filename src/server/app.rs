//! The assembled application: configuration, store, LINE client and agent, built once at
//! start-up and shared by the webhook server and the background work it spawns.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::FromRef;
use jiff::SignedDuration;
use jiff::tz::TimeZone;

use crate::contract::registry::{Registry, RegistryError};
use crate::features::button::ActionRegistryError;
use crate::features::deps::Deps;
use crate::line::client::LineClient;
use crate::line::flex::Palette;
use crate::line::postback::PostbackKey;
use crate::llm::agent::Agent;
use crate::llm::mcp::McpServers;
use crate::llm::openai::LlmClient;
use crate::platform::clock::Clock;
use crate::platform::config::Config;
use crate::platform::metrics::Metrics;
use crate::push::delivery::Pusher;
use crate::push::quota::QuotaTracker;
use crate::server::https::Https;
use crate::server::inbox::Inbox;
use crate::server::listen::Serving;
use crate::server::loops::Loops;
use crate::server::page_state::PageState;
use crate::server::{Published, Webhook};
use crate::sources::calendar::{CalendarError, WorkCalendar};
use crate::sources::{Sources, SourcesError};
use crate::store::{Store, StoreError};
use crate::turn::Turns;
use crate::turn::limits::Limits;

/// Why hearth could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The time zone is not a known IANA name.
    #[error("unknown time zone {0:?} (HEARTH_TIMEZONE): use an IANA name such as Asia/Taipei")]
    TimeZone(String),
    /// The store could not be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The tool registry is invalid (a programming error caught at start).
    #[error("tool registry: {0}")]
    Registry(#[from] RegistryError),
    /// The MCP configuration cannot be used.
    #[error(transparent)]
    Mcp(#[from] crate::llm::mcp::McpConfigError),
    /// HTTPS (`HEARTH_TLS_DOMAIN`) cannot be set up.
    #[error("HTTPS: {0}")]
    Https(#[from] crate::server::https::HttpsError),
    /// The button action registry is invalid (a programming error caught at start).
    #[error("action registry: {0}")]
    Actions(#[from] ActionRegistryError),
    /// The working calendar file (`HEARTH_WORK_CALENDAR`) is unreadable or invalid.
    #[error("work calendar (HEARTH_WORK_CALENDAR): {0}")]
    WorkCalendar(#[from] CalendarError),
    /// `HEARTH_OFFICIAL_ALERTS_FEED_URL` is not an http(s) URL.
    #[error(
        "HEARTH_OFFICIAL_ALERTS_FEED_URL {0:?} is not an http(s) URL (empty turns the alerts off)"
    )]
    AlertsFeed(String),
    /// A host of `HEARTH_OFFICIAL_ALERTS_EXTRA_HOSTS` is not a host name, `host:port` or origin.
    #[error("HEARTH_OFFICIAL_ALERTS_EXTRA_HOSTS: {0}")]
    AlertsHost(#[source] crate::sources::cap::origins::BadHost),
    /// The Taiwan securities file was refused; hearth does not quietly use the built-in table
    /// instead of the one asked for.
    #[error("the Taiwan securities file (HEARTH_TW_SECURITIES_FILE) was refused")]
    Securities(#[source] crate::sources::securities::SecuritiesError),
    /// An HTTP client could not be built; hearth never falls back to one without time limits.
    #[error("cannot build the HTTP client for {what}")]
    HttpClient {
        /// Whose client, and the setting to check.
        what: &'static str,
        /// Why reqwest refused.
        #[source]
        source: reqwest::Error,
    },
}

impl StartError {
    /// Turns the failure to build `what`'s HTTP client into a start-up error.
    pub(crate) fn http_client(what: &'static str) -> impl FnOnce(reqwest::Error) -> Self {
        move |source| Self::HttpClient { what, source }
    }
}

/// The data sources at the configured URLs (`hearth serve` and `chat` through [`Hearth::build`],
/// `hearth tools` directly); a client that cannot be built, or a securities file that does not
/// parse, stops start-up.
pub fn sources(config: &Config) -> Result<Sources, StartError> {
    Sources::from_config(config).map_err(|e| match e {
        SourcesError::HttpClient(e) => {
            StartError::http_client("the data sources (check HEARTH_USER_AGENT)")(e)
        }
        SourcesError::Securities(e) => StartError::Securities(e),
    })
}

/// The assembled application: the turn handler, the webhook and the inbox it fills, the
/// background loops and the state of each router, shared by the webhook server. Each router
/// takes only its own part ([`Webhook`], [`PageState`], [`Published`], [`Serving`]) through
/// axum's `FromRef`.
pub struct Hearth {
    /// What handles each event.
    pub turns: Arc<Turns>,
    /// The webhook: its secret, its events' timeliness and the inbox it fills.
    pub webhook: Webhook,
    /// The store.
    pub store: Store,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// The family's time zone.
    pub tz: TimeZone,
    /// LINE's monthly message quota: readings, costs per chat, friends, warnings.
    pub quota: QuotaTracker,
    /// The parts the background loops drive (reminders, price and official alerts, digests,
    /// care, the outbox), their paces and what wakes them.
    pub loops: Loops,
    /// The family page's own state.
    pub page: PageState,
    /// The charts and spoken answers LINE fetches.
    pub published: Published,
    /// The HTTP server's limits, addresses and metrics.
    pub serving: Serving,
}

impl FromRef<Arc<Hearth>> for Webhook {
    fn from_ref(app: &Arc<Hearth>) -> Self {
        app.webhook.clone()
    }
}

impl FromRef<Arc<Hearth>> for PageState {
    fn from_ref(app: &Arc<Hearth>) -> Self {
        app.page.clone()
    }
}

impl FromRef<Arc<Hearth>> for Published {
    fn from_ref(app: &Arc<Hearth>) -> Self {
        app.published.clone()
    }
}

impl FromRef<Arc<Hearth>> for Serving {
    fn from_ref(app: &Arc<Hearth>) -> Self {
        app.serving.clone()
    }
}

impl Hearth {
    /// The one door: who may see and change each chat.
    pub fn door(&self) -> &crate::door::Door {
        &self.turns.limits.door
    }

    /// Builds hearth from its configuration, with the production tools.
    pub async fn build(config: &Config, clock: Arc<dyn Clock>) -> Result<Arc<Self>, StartError> {
        let store = Store::connect(&config.store.database_url).await?;
        let mcp = McpServers::start(config).await?;
        Self::with_tools_and_mcp(config, clock, store, &mcp, crate::tools::registry)
    }

    /// Puts hearth together over an opened store, with the tools `tools` builds from the
    /// shared dependencies (tests bring their own).
    pub fn with_tools(
        config: &Config,
        clock: Arc<dyn Clock>,
        store: Store,
        tools: impl FnOnce(&Deps) -> Result<Registry, RegistryError>,
    ) -> Result<Arc<Self>, StartError> {
        Self::with_tools_and_mcp(config, clock, store, &McpServers::none(), tools)
    }

    /// [`Hearth::with_tools`], with the tools of the MCP servers `mcp` after those `tools`
    /// builds (a name taken twice stops start-up).
    pub fn with_tools_and_mcp(
        config: &Config,
        clock: Arc<dyn Clock>,
        store: Store,
        mcp: &McpServers,
        tools: impl FnOnce(&Deps) -> Result<Registry, RegistryError>,
    ) -> Result<Arc<Self>, StartError> {
        let tz = TimeZone::get(&config.family.timezone)
            .map_err(|_| StartError::TimeZone(config.family.timezone.clone()))?;
        let (llm, line) = clients(config)?;
        let quota = QuotaTracker::new(
            store.clone(),
            line.clone(),
            clock.clone(),
            tz.clone(),
            config.push.personal_reminders_1to1,
        )
        .keeping_back(Arc::new(crate::features::care::ops::reserve::CareReserve::new(
            store.clone(),
        )));
        let care_menus = crate::features::richmenu::ops::care_links::CareMenuLinks::new(
            line.clone(),
            store.clone(),
        );
        let care_plans = crate::features::richmenu::ops::care_plans::CarePlans::new(
            store.clone(),
            Some(care_menus.clone()),
        );
        let door = Arc::new(crate::door::Door::from_settings(
            store.clone(),
            clock.clone(),
            &config.access,
        ));
        let owner = process_owner();
        let pusher = Pusher::from_config(config, quota.clone(), door.clone(), owner.clone());
        let deps = Deps::new(
            config,
            sources(config)?.with_clock(clock.clone()),
            store.clone(),
            WorkCalendar::load(config.family.work_calendar.as_deref())?,
            pusher.clone(),
            door.clone(),
            care_plans,
        );
        let registry = Arc::new(
            tools(&deps)?.with_sources(mcp.sources())?.with_max_tools(config.llm.max_tools),
        );
        let deps = deps.with_tools(registry.clone());
        let actions = crate::buttons::registry()?;
        let palette = Palette::new(config.family.price_colors);
        let inbox_lease = SignedDuration::from_secs(config.turns.inbox_lease_secs.max(1) as i64);
        let postback_key =
            PostbackKey::new(&config.line.postback_key, &config.line.line_channel_secret);
        let charts = config.server.public_url.as_deref().map(|url| {
            crate::contract::chart::publish::Charts::new(
                url,
                deps.sources.quotes.clone(),
                config.family.price_colors,
                clock.clone(),
            )
        });
        let speech =
            crate::features::speech::Speech::from_config(config, clock.clone(), store.clone())
                .map_err(StartError::http_client("speech"))?;
        let vision = match config.llm.vision_model.trim() {
            "" => None,
            model => Some(llm.with_model(model)),
        };
        let mut agent = Agent::new(llm, registry, config.llm.max_tool_rounds)
            .with_max_calls_per_round(config.llm.max_tool_calls_per_round)
            .with_held_calls(Arc::new(crate::features::held_calls::HeldCalls::new(store.clone())));
        if let Some(vision) = vision {
            agent = agent.with_vision(vision);
        }
        let media = crate::features::media::Media::from_config(config, deps.sandbox.clone())
            .map_err(StartError::http_client("LINE content or transcription"))?;
        let limits = Limits::from_config(config, clock.clone(), door);
        let page = PageState::new(&config.page, &config.server, deps.sources.securities.clone());
        let feed = alerts_feed(config)?;
        let loops =
            Loops::assemble(config, &deps, charts.clone(), speech.clone(), care_menus, feed);
        let turns = Arc::new(Turns {
            line,
            agent,
            clock: clock.clone(),
            tz: tz.clone(),
            keywords: config.turns.keywords(),
            palette,
            postback_key,
            actions,
            deps,
            limits,
            history_messages: config.turns.history_messages,
            history_chars: config.turns.history_chars,
            names: moka::future::Cache::builder()
                .max_capacity(10_000)
                .time_to_live(Duration::from_secs(3600))
                .build(),
            charts: charts.clone(),
            media,
            speech: speech.clone(),
            english_menu: loops.care_menus.english().clone(),
        });
        let serving = Serving {
            https: Https::from_config(config, store.clone(), clock.clone(), owner.clone())?,
            ..Serving::new(config, Metrics::install())
        };
        let inbox = Arc::new(Inbox::new(
            turns.clone(),
            owner,
            inbox_lease,
            usize::try_from(config.turns.max_queued_events).unwrap_or(usize::MAX),
            config.turns.max_concurrent_turns,
        ));
        Ok(Arc::new(Self {
            turns,
            webhook: Webhook::new(inbox, config),
            store,
            clock,
            tz: tz.clone(),
            quota,
            loops,
            page,
            published: Published { charts, speech },
            serving,
        }))
    }

    /// Deletes the chat log older than the retention period (measured on the injected clock);
    /// returns how many messages went. The server calls it hourly; tests call it directly.
    pub async fn prune_chat_log(&self) -> Result<u64, StoreError> {
        crate::features::memory::ops::privacy::prune_chat_log(
            &self.store,
            self.clock.now(),
            self.loops.retention.chat_log,
        )
        .await
    }

    /// Deletes settled pushes older than their retention (measured on the injected clock), in
    /// bounded batches; returns how many rows went. The server calls it hourly.
    pub async fn prune_settled_pushes(&self) -> Result<u64, StoreError> {
        crate::push::delivery::prune_settled(
            &self.store,
            self.clock.now(),
            self.loops.retention.settled_pushes,
        )
        .await
    }

    /// Reads LINE's message quota and shows the month's projection (what is used plus what the
    /// scheduled reminders will spend) in `/metrics`. The server calls it at start and hourly.
    pub async fn read_quota(&self) {
        self.quota.refresh().await;
        let used = self.quota.standing().await.map(|s| s.used);
        let rest = crate::features::reminders::ops::projection::rest_of_month(
            &self.quota,
            self.loops.reminders.work_calendar(),
            self.clock.now(),
        )
        .await;
        match (used, rest) {
            (Ok(used), Ok(rest)) => crate::platform::metrics::quota_projected(used + rest),
            (Err(e), _) | (_, Err(e)) => tracing::warn!(error = %e, "no quota projection"),
        }
    }

    /// Hands back what this process still holds (unfinished events, reminder and price claims,
    /// the official alerts feed: [`crate::store::HANDED_BACK`]) so another process can take it
    /// at once: the last step of a graceful shutdown.
    pub async fn hand_back(&self) {
        for leased in crate::store::HANDED_BACK {
            match self.store.release_leases(leased, &self.webhook.inbox.owner).await {
                Ok(n) if n > 0 => tracing::info!(released = n, what = leased.name, "handed back"),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, what = leased.name, "could not hand back"),
            }
        }
    }

    /// How many webhook events this process holds in memory (at most `HEARTH_MAX_QUEUED_EVENTS`).
    pub fn events_in_memory(&self) -> usize {
        self.webhook.inbox.queue.len()
    }

    /// Waits until the work in hand is done (shutdown: what waits in the inbox stays there).
    pub async fn wait_in_hand(&self) {
        self.webhook.inbox.wait_in_hand().await;
    }

    /// Waits until no background work is running and no event waits in the inbox for this
    /// process to take it.
    pub async fn wait_idle(&self) {
        self.webhook.inbox.wait_idle().await;
    }
}

/// The LLM and LINE clients; a client that cannot be built stops start-up.
/// The LLM client at the configured endpoint (`hearth eval` uses it alone).
pub fn llm_client(config: &Config) -> Result<LlmClient, StartError> {
    LlmClient::new(
        &config.llm.openai_base_url,
        config.llm.openai_api_key.clone(),
        &config.llm.model,
        config.llm.llm_strict,
        Duration::from_secs(config.llm.llm_timeout_secs),
    )
    .map(|llm| llm.with_prompt_cache_key(config.llm.prompt_cache_key.clone()))
    .map_err(StartError::http_client("the LLM"))
}

fn clients(config: &Config) -> Result<(LlmClient, LineClient), StartError> {
    let llm = llm_client(config)?;
    let line = LineClient::new(
        &config.line.line_api_base,
        config.line.line_channel_access_token.clone(),
        config.push.push_rate,
    )
    .map_err(StartError::http_client("LINE"))?;
    Ok((llm, line))
}

/// The official alerts feed (`HEARTH_OFFICIAL_ALERTS_FEED_URL`), or none when it is turned off; its
/// requests go only to its own host and `HEARTH_OFFICIAL_ALERTS_EXTRA_HOSTS`.
fn alerts_feed(config: &Config) -> Result<Option<crate::sources::cap::CapFeed>, StartError> {
    use crate::sources::cap::{CapFeed, FeedSetupError};
    let url = config.loops.official_alerts_feed_url.trim();
    if url.is_empty() {
        return Ok(None);
    }
    let builder = crate::sources::http_builder(
        &config.sources.user_agent,
        Duration::from_secs(config.sources.upstream_timeout_secs),
    );
    match CapFeed::new(builder, url, &config.loops.official_alerts_extra_hosts) {
        Ok(feed) => Ok(Some(feed)),
        Err(FeedSetupError::Url) => {
            Err(StartError::AlertsFeed(crate::platform::config::redact_url(url)))
        }
        Err(FeedSetupError::Host(e)) => Err(StartError::AlertsHost(e)),
        Err(FeedSetupError::Client(e)) => {
            Err(StartError::http_client("the official alerts feed")(e))
        }
    }
}

/// A name for this process in claims: unique per start (a process confirms its claims by it,
/// so two replicas must never share one, even as pid 1 in two containers).
fn process_owner() -> String {
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!("hearth-{}-{}", std::process::id(), &random[..16])
}
