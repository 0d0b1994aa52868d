//! Delivers the digests: each tick records the day of every digest that came due (one process wins
//! each day, see `crate::store::DigestStore::advance`), then claims the recorded days under a
//! lease, composes each once (weather, reminders, lists, watched prices, the lunar and working
//! calendars, the official alerts standing for the place), keeps the composed messages and pushes
//! them with the day's deterministic retry key. A push of unknown outcome is tried again with the
//! same key until the day's grace runs out. The push goes through the per-chat outbox
//! ([`crate::push::delivery`]): with the chat's reminders and alert fires due at the same time in
//! one request, and, when it comes due inside the conversation's quiet hours, held until their end
//! — then delivered together with the alerts held with it.

use std::sync::Arc;

use futures::StreamExt;
use jiff::civil::{Date, Time};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};

use super::setting::DigestSetting;
use crate::contract::CardButton;
use crate::features::digest::content::{
    self, DigestContent, MovedQuote, TodayReminder, WeatherLine,
};
use crate::features::digest::render;
use crate::features::digest::schedule::{self, GRACE};
use crate::features::official_alerts;
use crate::line::postback::ButtonSigner;
use crate::platform::i18n::Lang;
use crate::push::delivery::{self, Item, Outcome, Pusher};
use crate::push::quiet::PushKind;
use crate::sources::calendar::WorkCalendar;
use crate::sources::calendar::lunar::LunarDate;
use crate::sources::cap::CapAlert;
use crate::sources::cap::areas::Place;
use crate::sources::quotes::QuoteSource;
use crate::sources::securities::Securities;
use crate::sources::weather::{WeatherSource, describe_code};
use crate::store::{
    DigestDay, DigestDelivery, DigestRow, DigestStatus, ReminderStatus, Store, StoreError,
};

/// How long a claim on a day's digest lasts (composing included).
const LEASE: SignedDuration = SignedDuration::from_mins(2);
/// Wait before trying a push again after LINE failed.
const RETRY_AFTER: SignedDuration = SignedDuration::from_mins(1);
/// Digests looked at per tick.
const BATCH: i64 = 500;
/// How far back official alerts are looked at (a suspension is announced the evening before).
const OFFICIAL_LOOK_BACK: SignedDuration = SignedDuration::from_hours(48);
/// Days composed and pushed at once.
const CONCURRENCY: usize = 16;

/// What a tick did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DigestReport {
    /// Digests LINE accepted.
    pub sent: usize,
    /// Days with nothing to say, kept silent as the family asked.
    pub skipped: usize,
    /// Pushes to try again later.
    pub retrying: usize,
    /// Days not delivered for good.
    pub failed: usize,
    /// Days held by quiet hours until they end, or by the month's quota for the chat's next
    /// reply.
    pub held: usize,
}

/// The data a digest is composed from.
#[derive(Clone)]
pub struct DigestSources {
    /// The weather.
    pub weather: WeatherSource,
    /// Quotes of watched instruments.
    pub quotes: QuoteSource,
    /// Names of Taiwan securities.
    pub securities: Arc<Securities>,
    /// Holidays and make-up workdays.
    pub work_calendar: WorkCalendar,
    /// The family's home (`HEARTH_HOME_LOCATION`): the place of official alerts when the
    /// digest names none.
    pub home: Option<String>,
}

/// The digest sender of one process.
pub struct DigestSender {
    pusher: Pusher,
    /// What it reads and records, its capability's rows.
    store: Store,
    sources: DigestSources,
    /// The family page's 🏠 in the card's language, when the page is served
    /// (`HEARTH_PUBLIC_URL`): the lists and reminders the card shows live there.
    open_page: Option<fn(Lang) -> CardButton>,
}

enum Done {
    Finished(DigestStatus),
    Retry,
    Lost,
}

impl DigestSender {
    /// A sender claiming in `store` and pushing through `pusher`, composing from `sources`.
    pub fn new(pusher: Pusher, store: Store, sources: DigestSources) -> Self {
        Self { pusher, store, sources, open_page: None }
    }

    /// The setting of the chats' digests this sender delivers (the family page's settings).
    pub fn setting(&self) -> DigestSetting {
        let sources = &self.sources;
        let store = self.store.clone();
        DigestSetting::new(store, sources.weather.clone(), sources.home.clone())
    }

    /// The sender, its cards offering the family page's 🏠 (`button`, in the card's language).
    pub fn with_open_page(self, button: Option<fn(Lang) -> CardButton>) -> Self {
        Self { open_page: button, ..self }
    }

    /// Records the days that came due and delivers every recorded day not yet delivered.
    pub async fn tick(&self) -> Result<DigestReport, StoreError> {
        self.record_due_days().await?;
        let now = self.pusher.now();
        let lease_until = now.saturating_add(LEASE).unwrap_or(now).as_millisecond();
        let claimed = self
            .store
            .digests()
            .claim_deliveries(self.pusher.owner(), now.as_millisecond(), lease_until)
            .await?;
        let results: Vec<Result<Done, StoreError>> = futures::stream::iter(claimed)
            .map(|d| self.deliver(d))
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
        let mut report = DigestReport::default();
        for result in results {
            match result? {
                Done::Finished(DigestStatus::Sent) => report.sent += 1,
                Done::Finished(DigestStatus::Skipped) => report.skipped += 1,
                Done::Finished(DigestStatus::Held | DigestStatus::Queued) => report.held += 1,
                Done::Finished(_) => report.failed += 1,
                Done::Retry => report.retrying += 1,
                Done::Lost => {}
            }
        }
        // What waits in the outbox (a digest held for quiet hours goes with the alerts held
        // with it).
        let flushed = self.pusher.flush_waiting_counting(PushKind::Digest).await?;
        report.sent += flushed.sent;
        report.held += flushed.held;
        report.failed += flushed.failed;
        Ok(report)
    }

    /// Moves every due digest on, recording its day when on time.
    async fn record_due_days(&self) -> Result<(), StoreError> {
        let now = self.pusher.now();
        let store = &self.store;
        for row in store.digests().due(now.as_millisecond(), BATCH).await? {
            let Some((time, tz)) = when(&row) else {
                tracing::error!(
                    conversation = row.conversation_id,
                    "unreadable digest time; left as is"
                );
                continue;
            };
            let due = Timestamp::from_millisecond(row.next_at).unwrap_or(now);
            let Some(step) = schedule::step(time, &tz, due, now) else { continue };
            let day = step.deliver.map(|(date, at)| DigestDay {
                day: date.to_string(),
                scheduled_for: at.as_millisecond(),
                retry_key: delivery::occurrence_key(&format!(
                    "digest:{}:{date}",
                    row.conversation_id
                ))
                .to_string(),
            });
            if day.is_none() {
                tracing::warn!(
                    conversation = row.conversation_id,
                    "digest day missed by more than its grace; skipped"
                );
            }
            store
                .digests()
                .advance(
                    &row.conversation_id,
                    row.next_at,
                    step.next_at.as_millisecond(),
                    day.as_ref(),
                )
                .await?;
        }
        Ok(())
    }

    async fn deliver(&self, d: DigestDelivery) -> Result<Done, StoreError> {
        let store = &self.store;
        let owner = self.pusher.owner();
        let now = self.pusher.now();
        let payload = match &d.payload {
            Some(p) => p.clone(),
            None => {
                let Some(row) = store.digests().get(&d.conversation_id).await? else {
                    // Cancelled after the day was recorded: nothing is sent.
                    return self.finish(&d, Done::Finished(DigestStatus::Skipped)).await;
                };
                let content = self.compose(&row, &d, now).await?;
                if row.only_when_something && !content.has_something() {
                    return self.finish(&d, Done::Finished(DigestStatus::Skipped)).await;
                }
                let messages = {
                    let signer = ButtonSigner::new(self.pusher.key().clone(), &d.conversation_id);
                    let open_page = self.open_page.map(|button| button(content.lang));
                    render::messages(&content, self.pusher.palette(), open_page, &signer)
                };
                let payload = serde_json::to_string(&messages).unwrap_or_else(|_| "[]".into());
                if !store.digests().keep_payload(owner, &d, &payload).await? {
                    return Ok(Done::Lost);
                }
                payload
            }
        };
        let what = format!("digest {} {}", d.conversation_id, d.day);
        let item = Item {
            payload: &payload,
            occurrence: &d.retry_key,
            home: &d.conversation_id,
            what,
            kind: PushKind::Digest,
            silent: false,
        };
        let outcome = self.pusher.push(&d.conversation_id, &[item]).await;
        let outcome = outcome.first().copied().unwrap_or(Outcome::RetryLater);
        let done = match outcome {
            Outcome::Sent => Done::Finished(DigestStatus::Sent),
            Outcome::Held => Done::Finished(DigestStatus::Held),
            // Waiting in the outbox (quiet hours, or the chat's other items due together).
            Outcome::Queued => Done::Finished(DigestStatus::Queued),
            Outcome::Refused => Done::Finished(DigestStatus::Failed),
            Outcome::Withheld => Done::Finished(DigestStatus::Withheld),
            Outcome::RetryLater
                if now.as_millisecond() - d.scheduled_for > GRACE.as_millis() as i64 =>
            {
                Done::Finished(DigestStatus::Failed)
            }
            Outcome::RetryLater => Done::Retry,
        };
        self.finish(&d, done).await
    }

    async fn finish(&self, d: &DigestDelivery, done: Done) -> Result<Done, StoreError> {
        let now = self.pusher.now();
        let retry_at = now.saturating_add(RETRY_AFTER).unwrap_or(now).as_millisecond();
        let status = match &done {
            Done::Finished(s) => Some(*s),
            Done::Retry => None,
            Done::Lost => return Ok(done),
        };
        self.store
            .digests()
            .finish_delivery(self.pusher.owner(), d, status, now.as_millisecond(), retry_at)
            .await?;
        Ok(done)
    }

    /// Gathers what the day holds for the conversation. The weather and prices are extras: a
    /// service that fails leaves its part out; only the store failing fails the day (retried).
    async fn compose(
        &self,
        row: &DigestRow,
        d: &DigestDelivery,
        now: Timestamp,
    ) -> Result<DigestContent, StoreError> {
        let tz = TimeZone::get(&row.tz).unwrap_or(TimeZone::UTC);
        let date: Date = d.day.parse().unwrap_or_else(|_| now.to_zoned_datetime(tz.clone()).date());
        let lang = row.lang;
        let (weather, weather_missing) = match &row.place {
            Some(place) => match self.weather(place, &row.tz, lang).await {
                Some(w) => (Some(w), None),
                None => (None, Some(place.clone())),
            },
            None => (None, None),
        };
        let store = &self.store;
        let end_of_day = date
            .tomorrow()
            .ok()
            .and_then(|t| schedule::on_date(t, Time::midnight(), &tz))
            .map_or(i64::MAX, |t| t.as_millisecond());
        let mut reminders = Vec::new();
        let mut birthdays = Vec::new();
        for r in store.reminders().list(&row.conversation_id).await? {
            let Some(at) =
                r.next_fire_at.filter(|at| *at >= now.as_millisecond() && *at < end_of_day)
            else {
                continue;
            };
            if r.status != ReminderStatus::Active {
                continue;
            }
            // A birthday reminder set to come days before is today's reminder, not today's
            // birthday.
            if content::is_birthday(&r.text) && r.rule.days_before == 0 {
                birthdays.push(r.text);
            } else {
                let local =
                    Timestamp::from_millisecond(at).unwrap_or(now).to_zoned_datetime(tz.clone());
                reminders
                    .push(TodayReminder { at: local.strftime("%H:%M").to_string(), text: r.text });
            }
        }
        let events = self.events(&row.conversation_id, date, lang).await?;
        let lists = store.lists().of_chat(&row.conversation_id).await?;
        let open_items = (
            lists.iter().map(|l| l.open).sum::<i64>(),
            lists.iter().filter(|l| l.open > 0).count(),
        );
        let moved = self.moved(&row.conversation_id, lang).await?;
        let official = self.official(row.place.as_deref(), now, &tz, lang).await?;
        let lunar = LunarDate::of(date);
        let calendar = &self.sources.work_calendar;
        let weekend =
            matches!(date.weekday(), jiff::civil::Weekday::Saturday | jiff::civil::Weekday::Sunday);
        Ok(DigestContent {
            date,
            lang,
            weather,
            weather_missing,
            reminders,
            birthdays,
            events,
            open_items,
            moved,
            festival: lunar.as_ref().and_then(|l| content::festival(l, lang)),
            lunar,
            day_off: calendar.day_off(date).map(str::to_string),
            make_up_workday: weekend && calendar.is_workday(date),
            official,
        })
    }

    /// The family calendar's events of `date` in `chat`, in order, one line each.
    async fn events(&self, chat: &str, date: Date, lang: Lang) -> Result<Vec<String>, StoreError> {
        use crate::features::calendar::{Event, Moment};
        let calendar = &self.sources.work_calendar;
        let mut found: Vec<(Moment, String)> = Vec::new();
        for row in self.store.calendar().live(chat).await? {
            let Some(event) = Event::of(&row) else { continue };
            for at in event.occurrences(date, date, calendar, 4) {
                let when = match at.start {
                    Moment::At(local) if local.date() == date => {
                        local.strftime("%H:%M").to_string()
                    }
                    _ => lang.pick("全天", "All day").to_string(),
                };
                let place = if event.place.is_empty() {
                    String::new()
                } else {
                    format!(" @ {}", event.place)
                };
                found.push((at.start, format!("{when} {}{place}", event.title)));
            }
        }
        found.sort();
        Ok(found.into_iter().map(|(_, line)| line).collect())
    }

    /// The official alerts standing for `place` (the digest's, else home) today.
    async fn official(
        &self,
        place: Option<&str>,
        now: Timestamp,
        tz: &TimeZone,
        lang: Lang,
    ) -> Result<Vec<String>, StoreError> {
        let written = place.map(str::to_string).or_else(|| self.sources.home.clone());
        let Some(place) = written.as_deref().and_then(Place::resolve) else { return Ok(vec![]) };
        let since = now.saturating_sub(OFFICIAL_LOOK_BACK).unwrap_or(now).as_millisecond();
        let alerts: Vec<CapAlert> = self
            .store
            .official_alerts()
            .since(since)
            .await?
            .into_iter()
            .filter_map(|row| serde_json::from_str(row.alert.as_deref()?).ok())
            .collect();
        Ok(official_alerts::day::standing_lines(&place, &alerts, now, tz, lang))
    }

    async fn weather(&self, place: &str, fallback_tz: &str, lang: Lang) -> Option<WeatherLine> {
        let source = &self.sources.weather;
        let found = match source.geocode(place).await {
            Ok(Some(found)) => found,
            Ok(None) => return None,
            Err(e) => {
                tracing::warn!(error = %e, "digest weather: geocoding failed");
                return None;
            }
        };
        let forecast = match source.forecast(&found, 1, fallback_tz).await {
            Ok(f) => f,
            Err(e) => {
                tracing::warn!(error = %e, "digest weather: forecast failed");
                return None;
            }
        };
        let daily = &forecast.daily;
        let at = |v: &Vec<Option<f64>>| v.first().copied().flatten();
        let code = daily.weather_code.first().copied().flatten();
        Some(WeatherLine {
            place: place.to_string(),
            sky: code.map(|c| describe_code(c, lang == Lang::ZhTw)).unwrap_or("").to_string(),
            low_high: at(&daily.temperature_2m_min).zip(at(&daily.temperature_2m_max)),
            rain_pct: at(&daily.precipitation_probability_max),
        })
    }

    /// The conversation's watched instruments whose price moved at least
    /// [`content::MOVED_PCT`] since the previous close (each fetched once, through the cache).
    async fn moved(
        &self,
        conversation_id: &str,
        lang: Lang,
    ) -> Result<Vec<MovedQuote>, StoreError> {
        let mut symbols: Vec<(String, Option<String>)> = self
            .store
            .price_alerts()
            .list(conversation_id)
            .await?
            .into_iter()
            .map(|a| (a.symbol, a.name))
            .collect();
        symbols.sort();
        symbols.dedup_by(|a, b| a.0 == b.0);
        let mut moved = Vec::new();
        for (symbol, name) in symbols {
            let Ok(quote) = self.sources.quotes.quote(&symbol).await else { continue };
            let Some(prev) = quote.previous_close.filter(|p| *p > 0.0) else { continue };
            let change_pct = (quote.price - prev) / prev * 100.0;
            if change_pct.abs() >= content::MOVED_PCT {
                let name = self.sources.securities.label(&symbol, name.as_deref(), lang);
                moved.push(MovedQuote { name, price: quote.price, change_pct });
            }
        }
        Ok(moved)
    }
}

/// The stored time and zone of a digest, if readable.
fn when(row: &DigestRow) -> Option<(Time, TimeZone)> {
    Some((schedule::parse_local_time(&row.local_time).ok()?, TimeZone::get(&row.tz).ok()?))
}
