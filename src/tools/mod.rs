//! THE list of tools. Adding a tool is one new file in `src/tools/` and one line here; the name
//! map, the definitions sent to the LLM and dispatch all derive from this list.

pub mod calendar;
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

use crate::contract::registry::{Registry, RegistryError};
use crate::features::calendar::ops::CalendarOps;
use crate::features::calendar::ops::feed::Feeds;
use crate::features::care::ops::CareOps;
use crate::features::deps::Deps;
use crate::features::digest::ops::setting::DigestSetting;
use crate::features::lists::ops::Lists;
use crate::features::memory::ops::MemoryOps;
use crate::features::official_alerts::ops::OfficialAlertOps;
use crate::features::price_alerts::ops::PriceAlertOps;
use crate::features::price_alerts::ops::create::PriceAlertCreation;
use crate::features::reminders::ops::Reminders;
use crate::features::reminders::ops::create::ReminderCreation;
use crate::features::settings::ChatSettings;
use crate::push::quiet::setting::QuietSetting;

/// Builds the production registry from the shared dependencies.
pub fn registry(s: &Deps) -> Result<Registry, RegistryError> {
    Registry::builder()
        .tool(weather::Weather::new(
            s.sources.weather.clone(),
            ChatSettings::from_deps(s),
            s.home.clone(),
        ))
        .tool(fx::Fx::new(s.sources.fx.clone()))
        .tool(get_quote::GetQuote::new(s.sources.quotes.clone(), s.sources.securities.clone()))
        .tool(reminders::set::Reminder::new(ReminderCreation::new(
            s.store.clone(),
            s.reminder_nudge.clone(),
            s.quota.clone(),
            s.work_calendar.clone(),
        )))
        .tool(reminders::Reminders::new(Reminders::from_deps(s)))
        .tool(calendar::Calendar::new(CalendarOps::from_deps(s), Feeds::from_deps(s)))
        .tool(price_alerts::set::PriceAlert::new(PriceAlertCreation::new(
            s.store.clone(),
            s.sources.quotes.clone(),
            s.sources.securities.clone(),
            s.quota.clone(),
            s.work_calendar.clone(),
        )))
        .tool(price_alerts::PriceAlerts::new(
            PriceAlertOps::from_deps(s),
            s.sources.securities.clone(),
        ))
        .tool(recap::Recap::new(MemoryOps::from_deps(s)))
        .tool(memory::Memory::new(MemoryOps::from_deps(s)))
        .tool(list::List::new(Lists::from_deps(s)))
        .tool(digest::Digest::new(DigestSetting::new(
            s.store.clone(),
            s.sources.weather.clone(),
            s.home.clone(),
        )))
        .tool(quiet_hours::QuietHoursTool::new(QuietSetting::new(s.store.clone())))
        .tool_if(s.speaks.then(|| spoken_answers::SpokenAnswers::new(ChatSettings::from_deps(s))))
        .tool(quota::Quota::new(s.quota.clone(), s.work_calendar.clone()))
        .tool(care::Care::new(
            CareOps::from_deps(s),
            s.care_plans.clone(),
            s.quota.clone(),
            s.work_calendar.clone(),
        ))
        .tool(official_alerts::OfficialAlerts::new(
            OfficialAlertOps::from_deps(s),
            s.work_calendar.clone(),
            s.home.clone(),
        ))
        .tool_if(s.sources.search.clone().map(web_search::WebSearch::new))
        .tool(summarize_url::SummarizeUrl::new(s.sources.fetcher.clone(), s.sandbox.clone()))
        .build()
}
