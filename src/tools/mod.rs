//! THE list of tools. Adding a tool is one new file in `src/tools/` and one line here; the name
//! map, the definitions sent to the LLM and dispatch all derive from this list.

pub mod care;
pub mod digest;
pub mod fx;
pub mod get_quote;
pub mod list;
pub mod memory;
pub mod official_alerts;
pub mod price_alerts;
pub mod quiet_hours;
pub mod quota;
pub mod recap;
pub mod reminders;
pub mod spoken_answers;
pub mod summarize_url;
pub mod weather;
pub mod web_search;

use std::sync::Arc;

use tokio::sync::Notify;

use crate::contract::registry::{Registry, RegistryError};
use crate::features::digest::setting::DigestSetting;
use crate::features::price_alerts::create::PriceAlertCreation;
use crate::features::reminders::create::ReminderCreation;
use crate::push::quota::QuotaTracker;
use crate::sources::Sources;
use crate::sources::calendar::WorkCalendar;
use crate::store::Store;

/// What tools are built from: the data sources, the store, the scheduler's wake-up and the
/// quota's bookkeeping.
#[derive(Clone)]
pub struct Services {
    /// Upstream data sources.
    pub sources: Sources,
    /// The store.
    pub store: Store,
    /// Wakes the reminder scheduler when a reminder is due soon.
    pub reminder_nudge: Arc<Notify>,
    /// Wakes the care loop (a reading outside its limits is told at once).
    pub care_nudge: Arc<Notify>,
    /// Taiwan's working calendar (workday reminders).
    pub work_calendar: WorkCalendar,
    /// LINE's monthly message quota (costs, friends, where the month stands).
    pub quota: QuotaTracker,
    /// The family's home place (`HEARTH_HOME_LOCATION` or the time zone's city): the weather's
    /// place when none is named.
    pub home: Option<String>,
    /// Where untrusted content (pages, photos, files) is parsed: child processes.
    pub sandbox: crate::sources::sandbox::Sandbox,
    /// The deployment can speak answers (`HEARTH_TTS_MODEL` and `HEARTH_PUBLIC_URL`).
    pub speaks: bool,
    /// Starts and stops care plans, the care menu following at once.
    pub care_plans: crate::features::richmenu::care_plans::CarePlans,
}

impl Services {
    /// Services over `sources` and `store` for listing the tools (`hearth tools`, tests): the
    /// quota's bookkeeping points at the configured LINE API but is never asked.
    pub fn offline(
        config: &crate::platform::config::Config,
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
        let clock: Arc<dyn crate::platform::clock::Clock> =
            Arc::new(crate::platform::clock::SystemClock);
        let quota = QuotaTracker::new(store.clone(), line, clock, tz, true);
        Ok(Self {
            sources,
            care_plans: crate::features::richmenu::care_plans::CarePlans::new(store.clone(), None),
            store,
            reminder_nudge: Arc::default(),
            care_nudge: Arc::default(),
            work_calendar,
            quota,
            home: config.family.home(),
            sandbox: crate::sources::sandbox::Sandbox::from_config(config),
            speaks: config.speaks(),
        })
    }

    /// The chats' daily digest setting, which the `digest` tool and the family page share.
    pub fn digest_setting(&self) -> DigestSetting {
        DigestSetting::new(self.store.clone(), self.sources.weather.clone(), self.home.clone())
    }
}

/// Builds the production registry.
pub fn registry(s: &Services) -> Result<Registry, RegistryError> {
    Registry::builder()
        .tool(weather::Weather::new(s.sources.weather.clone(), s.store.clone(), s.home.clone()))
        .tool(fx::Fx::new(s.sources.fx.clone()))
        .tool(get_quote::GetQuote::new(s.sources.quotes.clone(), s.sources.securities.clone()))
        .tool(reminders::set::Reminder::new(ReminderCreation::new(
            s.store.clone(),
            s.reminder_nudge.clone(),
            s.quota.clone(),
            s.work_calendar.clone(),
        )))
        .tool(reminders::Reminders::new(s.store.clone(), s.work_calendar.clone()))
        .tool(price_alerts::set::PriceAlert::new(PriceAlertCreation::new(
            s.store.clone(),
            s.sources.quotes.clone(),
            s.sources.securities.clone(),
            s.quota.clone(),
            s.work_calendar.clone(),
        )))
        .tool(price_alerts::PriceAlerts::new(s.store.clone(), s.sources.securities.clone()))
        .tool(recap::Recap::new(s.store.clone()))
        .tool(memory::Memory::new(s.store.clone()))
        .tool(list::List::new(s.store.clone()))
        .tool(digest::Digest::new(s.digest_setting()))
        .tool(quiet_hours::QuietHoursTool::new(s.store.clone()))
        .tool_if(s.speaks.then(|| spoken_answers::SpokenAnswers::new(s.store.clone())))
        .tool(quota::Quota::new(s.quota.clone(), s.work_calendar.clone()))
        .tool(care::Care::new(
            s.store.clone(),
            s.care_plans.clone(),
            s.quota.clone(),
            s.work_calendar.clone(),
            s.care_nudge.clone(),
        ))
        .tool(official_alerts::OfficialAlerts::new(
            s.store.clone(),
            s.work_calendar.clone(),
            s.home.clone(),
        ))
        .tool_if(s.sources.search.clone().map(web_search::WebSearch::new))
        .tool(summarize_url::SummarizeUrl::new(s.sources.fetcher.clone(), s.sandbox.clone()))
        .build()
}
