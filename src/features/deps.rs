//! What tools and button actions are built from and run with: one [`Deps`], put together once
//! at start-up, shared by the tool list ([`crate::tools::registry`]) and every button action
//! ([`crate::features::button::Action::run`]).

use std::sync::Arc;

use tokio::sync::Notify;

use crate::contract::registry::Registry;
use crate::door::Door;
use crate::features::richmenu::ops::care_plans::CarePlans;
use crate::platform::clock::{Clock, SystemClock};
use crate::platform::config::Config;
use crate::push::delivery::Pusher;
use crate::push::quota::QuotaTracker;
use crate::sources::Sources;
use crate::sources::calendar::WorkCalendar;
use crate::sources::sandbox::Sandbox;
use crate::store::Store;

/// What tools and button actions work with: the data sources, the store, the loops' wake-ups,
/// the calendar, the quota's bookkeeping, the door, care plans, the family page's address and,
/// once they are built from these, the tools themselves. Clones share them.
#[derive(Clone)]
pub struct Deps {
    /// Upstream data sources.
    pub sources: Sources,
    /// The store; every call a button makes is scoped to the tap's conversation.
    pub store: Store,
    /// Wakes the reminder scheduler when a reminder is due soon (a new or snoozed one).
    pub reminder_nudge: Arc<Notify>,
    /// Wakes the care loop (a reading outside its limits is told at once).
    pub care_nudge: Arc<Notify>,
    /// Taiwan's working calendar, which workday reminders follow.
    pub work_calendar: WorkCalendar,
    /// LINE's monthly message quota (costs, friends, where the month stands): it also knows who
    /// has hearth as a friend (where a care notice goes).
    pub quota: QuotaTracker,
    /// The one door, asked where a capability reaches past the chat a turn or tap came from:
    /// a push outside the outbox (the family page's private link), a care plan seen from a
    /// member's own 1:1 chat. The same door the turns and the outbox ask.
    pub door: Arc<Door>,
    /// The one way out for a push: the outbox, and the pushes that cannot wait for it.
    pub pusher: Pusher,
    /// The family's home place (`HEARTH_HOME_LOCATION` or the time zone's city): the weather's
    /// place when none is named.
    pub home: Option<String>,
    /// Where untrusted content (pages, photos, files) is parsed: child processes.
    pub sandbox: Sandbox,
    /// The deployment can speak answers (`HEARTH_TTS_MODEL` and `HEARTH_PUBLIC_URL`).
    pub speaks: bool,
    /// Starts and stops care plans, the care menu following at once.
    pub care_plans: CarePlans,
    /// The public address of this server (`HEARTH_PUBLIC_URL`): the family page's links.
    pub public_url: Option<String>,
    /// The LIFF app the family page's links open in (`HEARTH_LIFF_ID`), if any.
    pub liff_id: Option<String>,
    /// The tools, for running a held call the family confirmed: none until they are built from
    /// these deps ([`Deps::with_tools`]).
    pub tools: Arc<Registry>,
    /// What the calendar's private feed links are derived from (the postback key).
    pub feed_key: crate::line::postback::PostbackKey,
}

impl Deps {
    /// The deps `config` sets up over `sources`, `store`, `work_calendar`, the way out
    /// (`pusher`, with the quota's bookkeeping), `door` and `care_plans`, with fresh wake-ups and no tools yet.
    pub fn new(
        config: &Config,
        sources: Sources,
        store: Store,
        work_calendar: WorkCalendar,
        pusher: Pusher,
        door: Arc<Door>,
        care_plans: CarePlans,
    ) -> Self {
        let quota = pusher.quota().clone();
        Self {
            sources,
            store,
            reminder_nudge: Arc::default(),
            care_nudge: Arc::default(),
            work_calendar,
            quota,
            door,
            pusher,
            home: config.family.home(),
            sandbox: Sandbox::from_config(config),
            speaks: config.speaks(),
            care_plans,
            public_url: config.server.public_url.clone(),
            liff_id: config.page.liff().map(str::to_string),
            tools: Arc::default(),
            feed_key: crate::line::postback::PostbackKey::new(
                &config.line.postback_key,
                &config.line.line_channel_secret,
            ),
        }
    }

    /// These deps with the `tools` built from them, for the button actions.
    pub fn with_tools(self, tools: Arc<Registry>) -> Self {
        Self { tools, ..self }
    }

    /// Deps over `sources` and `store` for listing the tools (`hearth tools`, `hearth eval`,
    /// tests): the quota's bookkeeping points at the configured LINE API but is never asked,
    /// and the door is one of their own over `store`.
    pub fn offline(
        config: &Config,
        sources: Sources,
        store: Store,
        work_calendar: WorkCalendar,
    ) -> Result<Self, reqwest::Error> {
        let line = crate::line::client::LineClient::new(
            &config.line.line_api_base,
            config.line.line_channel_access_token.clone(),
            config.push.push_rate,
        )?;
        let tz =
            jiff::tz::TimeZone::get(&config.family.timezone).unwrap_or(jiff::tz::TimeZone::UTC);
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let quota = QuotaTracker::new(store.clone(), line, clock.clone(), tz, true);
        let door = Arc::new(Door::from_settings(store.clone(), clock, &config.access));
        let care_plans = CarePlans::new(store.clone(), None);
        let pusher = Pusher::from_config(config, quota, door.clone(), "hearth-offline".into());
        Ok(Self::new(config, sources, store, work_calendar, pusher, door, care_plans))
    }
}
