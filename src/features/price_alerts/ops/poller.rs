//! The price-alert poller. Each tick claims the watched symbols that are due (with a lease, so
//! several processes split them), fetches each **once** however many conversations watch it —
//! through the same cached [`QuoteSource`] as `get_quote`, at most `concurrency` at a time —
//! evaluates all its alerts with the pure [`crate::features::price_alerts::crossing`] state machine, and
//! records state changes and fires in one transaction (each fire fenced on `fire_seq`, its
//! rendered push and retry key `uuid_v5("alert:{id}:{fire_seq}")` recorded with it). Then the
//! recorded pushes go out through [`crate::push::delivery`]'s per-chat outbox, like reminders and the
//! digest: what is due for one chat in one push, re-fires without a notification sound, held
//! until the quiet hours of the chat they go to end, or for its next reply when the month's
//! quota cannot pay.
//!
//! A symbol whose market is closed is not fetched; it is looked at again when the session opens.
//! An open one is looked at again sooner the closer its price is to a level. A failed fetch (a
//! `429` from the quote source, an outage) backs off that symbol alone, exponentially.

use futures::StreamExt;
use jiff::{SignedDuration, Timestamp};

use crate::contract::chart::publish::Charts;
use crate::features::price_alerts::crossing::{self, Rule, Sample, Side, State};
use crate::features::price_alerts::market::{Market, cadence, is_fresh};
use crate::features::price_alerts::render;
use crate::push::delivery::{self, Item, Outcome, Pusher};
use crate::push::quiet::PushKind;
use crate::sources::UpstreamError;
use crate::sources::calendar::WorkCalendar;
use crate::sources::quotes::{Quote, QuoteError, QuoteSource};
use crate::sources::securities::Securities;
use crate::store::{
    AlertDelivery, AlertFire, AlertRow, AlertUpdate, DeliveryStatus, Store, StoreError, SymbolRow,
};

/// Tuning of the poller.
#[derive(Debug, Clone, Copy)]
pub struct PollerSettings {
    /// How long a claim on a symbol or a delivery lasts.
    pub lease: SignedDuration,
    /// Symbols claimed per tick.
    pub batch: i64,
    /// Quote fetches in flight at once.
    pub concurrency: usize,
    /// Pushes in flight at once.
    pub push_concurrency: usize,
    /// A quote older than this (by the provider's timestamp) never triggers.
    pub max_quote_age: SignedDuration,
    /// First wait after a failed fetch; doubled per consecutive failure.
    pub backoff: SignedDuration,
    /// The longest wait after failed fetches.
    pub max_backoff: SignedDuration,
    /// Wait before a push whose outcome is unknown is tried again.
    pub retry_after: SignedDuration,
    /// A pending push first attempted longer ago than this is abandoned, never resent.
    pub grace: SignedDuration,
}

impl Default for PollerSettings {
    fn default() -> Self {
        Self {
            lease: SignedDuration::from_mins(2),
            batch: 2_000,
            concurrency: 4,
            push_concurrency: 16,
            max_quote_age: SignedDuration::from_mins(5),
            backoff: SignedDuration::from_mins(1),
            max_backoff: SignedDuration::from_mins(30),
            retry_after: SignedDuration::from_mins(1),
            grace: SignedDuration::from_mins(30),
        }
    }
}

/// What a tick did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TickReport {
    /// Symbols that were due.
    pub symbols_due: usize,
    /// Quotes fetched (or taken from the shared cache).
    pub quotes: usize,
    /// Symbols skipped because their market is closed.
    pub closed: usize,
    /// Symbols whose fetch failed (and now back off).
    pub failed_fetches: usize,
    /// Alerts that fired.
    pub fired: usize,
    /// Pushes LINE accepted.
    pub sent: usize,
    /// Pushes to be tried again later.
    pub retrying: usize,
    /// Pushes not delivered for good (refused, abandoned).
    pub failed: usize,
    /// Fires held for their chat's next reply (the month's quota could not pay).
    pub held: usize,
    /// Fires handed to the outbox, waiting (for quiet hours to end, or for what else is due for
    /// their chat).
    pub queued: usize,
}

/// The price-alert poller of one process.
pub struct AlertPoller {
    pusher: Pusher,
    /// What it reads and records, its capability's rows.
    store: Store,
    quotes: QuoteSource,
    settings: PollerSettings,
    work_calendar: WorkCalendar,
    securities: std::sync::Arc<Securities>,
    charts: Option<Charts>,
}

enum Polled {
    Closed,
    Failed,
    Evaluated(Vec<AlertDelivery>),
}

impl AlertPoller {
    /// A poller claiming in `store` and pushing through `pusher` (identified by its owner in claims),
    /// fetching through `quotes` (the shared source); Taiwan's trading days follow
    /// `work_calendar`.
    pub fn new(
        pusher: Pusher,
        store: Store,
        quotes: QuoteSource,
        settings: PollerSettings,
        work_calendar: WorkCalendar,
    ) -> Self {
        Self {
            pusher,
            store,
            quotes,
            settings,
            work_calendar,
            securities: Securities::built_in(),
            charts: None,
        }
    }

    /// The same poller naming Taiwan securities on its cards from `securities` (the built-in
    /// table unless this is called).
    pub fn with_securities(mut self, securities: std::sync::Arc<Securities>) -> Self {
        self.securities = securities;
        self
    }

    /// The same poller giving the pushes of fired alerts a chart of the day with the level drawn
    /// (when `charts` is set: `HEARTH_PUBLIC_URL`).
    pub fn with_charts(mut self, charts: Option<Charts>) -> Self {
        self.charts = charts;
        self
    }

    fn store(&self) -> &Store {
        &self.store
    }

    fn owner(&self) -> &str {
        self.pusher.owner()
    }

    fn lease_until(&self, now: Timestamp) -> i64 {
        now.saturating_add(self.settings.lease).map_or(i64::MAX, |t| t.as_millisecond())
    }

    /// Polls every due symbol and pushes what fired, plus pushes left pending by earlier ticks.
    pub async fn tick(&self) -> Result<TickReport, StoreError> {
        let now = self.pusher.now();
        let (now_ms, lease_until) = (now.as_millisecond(), self.lease_until(now));
        let due = self
            .store()
            .price_alerts()
            .claim_due_symbols(self.owner(), now_ms, lease_until, self.settings.batch)
            .await?;
        let mut report = TickReport { symbols_due: due.len(), ..TickReport::default() };
        let polled: Vec<Result<Polled, StoreError>> = futures::stream::iter(due)
            .map(|s| self.poll(s, now))
            .buffer_unordered(self.settings.concurrency.max(1))
            .collect()
            .await;
        let mut deliveries = Vec::new();
        for p in polled {
            match p? {
                Polled::Closed => report.closed += 1,
                Polled::Failed => report.failed_fetches += 1,
                Polled::Evaluated(fired) => {
                    report.quotes += 1;
                    report.fired += fired.len();
                    deliveries.extend(fired);
                }
            }
        }
        deliveries.extend(
            self.store().price_alerts().claim_deliveries(self.owner(), now_ms, lease_until).await?,
        );
        let mut by_chat: std::collections::BTreeMap<String, Vec<AlertDelivery>> =
            Default::default();
        for d in deliveries {
            by_chat.entry(d.target().to_string()).or_default().push(d);
        }
        let outcomes: Vec<Result<Vec<Option<Outcome>>, StoreError>> =
            futures::stream::iter(by_chat.into_values())
                .map(|group| self.deliver(group))
                .buffer_unordered(self.settings.push_concurrency.max(1))
                .collect()
                .await;
        for outcome in outcomes {
            for one in outcome? {
                match one {
                    Some(Outcome::Sent) => report.sent += 1,
                    Some(Outcome::Held) => report.held += 1,
                    Some(Outcome::RetryLater) => report.retrying += 1,
                    Some(Outcome::Queued) => report.queued += 1,
                    _ => report.failed += 1,
                }
            }
        }
        // What waits in the outbox (fires held for quiet hours, or due with other items).
        let flushed = self.pusher.flush_waiting_counting(PushKind::Alert).await?;
        report.sent += flushed.sent;
        report.held += flushed.held;
        report.failed += flushed.failed;
        Ok(report)
    }

    async fn poll(&self, s: SymbolRow, now: Timestamp) -> Result<Polled, StoreError> {
        let market = Market::of(&s.symbol);
        if !market.is_open(now, &self.work_calendar) {
            let hour_later = now.saturating_add(SignedDuration::from_hours(1)).unwrap_or(now);
            let next = market.next_open(now, &self.work_calendar).unwrap_or(hour_later);
            self.store()
                .price_alerts()
                .reschedule_symbol(self.owner(), &s.symbol, next.as_millisecond(), 0)
                .await?;
            return Ok(Polled::Closed);
        }
        match self.quotes.quote(&s.symbol).await {
            Ok(quote) => Ok(Polled::Evaluated(self.evaluate(&s.symbol, &quote, now).await?)),
            Err(e) => {
                let failures = s.failures.saturating_add(1);
                let rate_limited = matches!(e, QuoteError::Upstream(UpstreamError::RateLimited));
                tracing::warn!(symbol = s.symbol, failures, rate_limited, error = %e, "quote fetch failed; backing off this symbol");
                let next = now.saturating_add(self.backoff(failures)).unwrap_or(now);
                self.store()
                    .price_alerts()
                    .reschedule_symbol(self.owner(), &s.symbol, next.as_millisecond(), failures)
                    .await?;
                Ok(Polled::Failed)
            }
        }
    }

    /// The wait after `failures` consecutive failed fetches.
    pub fn backoff(&self, failures: i64) -> SignedDuration {
        let doublings = u32::try_from(failures.saturating_sub(1).clamp(0, 16)).unwrap_or(16);
        let wait =
            self.settings.backoff.checked_mul(1 << doublings).unwrap_or(self.settings.max_backoff);
        wait.min(self.settings.max_backoff)
    }

    /// The evaluation step: every active alert on `symbol` against `quote` at `now`; state
    /// changes and fires are recorded, the symbol is rescheduled by its distance to the nearest
    /// level, and the recorded pushes of the fires are returned (not yet sent). No network, but
    /// for the chart of a fire (see [`AlertPoller::with_charts`]).
    pub async fn evaluate(
        &self,
        symbol: &str,
        quote: &Quote,
        now: Timestamp,
    ) -> Result<Vec<AlertDelivery>, StoreError> {
        let alerts = self.store().price_alerts().active_on(symbol).await?;
        let now_ms = now.as_millisecond();
        let market = Market::of(symbol);
        let max_age = self.settings.max_quote_age;
        let fresh = is_fresh(market, quote.market_time, now, max_age, &self.work_calendar);
        let sample = Sample { price: quote.price, now_ms, fresh };
        let mut updates = Vec::new();
        let mut nearest: Option<f64> = None;
        for row in &alerts {
            let (rule, state) = parse(row);
            if rule.level > 0.0 {
                let distance = (quote.price - rule.level).abs() / rule.level;
                nearest = Some(nearest.map_or(distance, |n| n.min(distance)));
            }
            let step = crossing::evaluate(&rule, &state, &sample);
            if !step.fire && step.state == state {
                continue;
            }
            let mut row = row.clone();
            if step.fire
                && let Some(user) = row.deliver_to.clone()
                && !self.pusher.is_friend(&user).await
            {
                // No longer a friend: this fire goes to the chat the alert was set in.
                row.deliver_to = None;
            }
            let row = &row;
            let image_url = match (&self.charts, step.fire) {
                (Some(charts), true) => {
                    let tz = jiff::tz::TimeZone::get(&row.tz).unwrap_or(jiff::tz::TimeZone::UTC);
                    charts.url(&render::chart(row), &tz).await
                }
                _ => None,
            };
            let fire = step.fire.then(|| {
                let messages = render::fired(
                    row,
                    quote,
                    &self.securities,
                    self.pusher.palette(),
                    self.pusher.key(),
                    image_url,
                );
                AlertFire {
                    price: quote.price,
                    conversation_id: row.conversation_id.clone(),
                    deliver_to: row.deliver_to.clone(),
                    retry_key: delivery::occurrence_key(&format!(
                        "alert:{}:{}",
                        row.id,
                        row.fire_seq + 1
                    ))
                    .to_string(),
                    payload: serde_json::to_string(&messages).unwrap_or_else(|_| "[]".into()),
                }
            });
            updates.push(AlertUpdate {
                alert_id: row.id,
                seen_seq: row.fire_seq,
                last_side: step.state.last_side.unwrap_or(Side::Below),
                armed: step.state.armed,
                fire,
            });
        }
        let next = now.saturating_add(cadence(nearest)).unwrap_or(now).as_millisecond();
        self.store()
            .price_alerts()
            .record_evaluation(
                self.owner(),
                symbol,
                &updates,
                (next, 0, Some(quote.price)),
                now_ms,
                self.lease_until(now),
            )
            .await
    }

    /// Hands the recorded deliveries of one chat to the outbox together and records each outcome
    /// (`None`: abandoned unsent). The outbox holds them while the chat they are pushed to has
    /// quiet hours (a personal alert routed to its person's 1:1 chat follows that chat's). A
    /// re-fire (every fire after an alert's first) goes without a notification sound when all of
    /// its push is re-fires.
    async fn deliver(&self, group: Vec<AlertDelivery>) -> Result<Vec<Option<Outcome>>, StoreError> {
        let now = self.pusher.now();
        let now_ms = now.as_millisecond();
        let grace_start =
            now.saturating_sub(self.settings.grace).map_or(now_ms, |t| t.as_millisecond());
        let mut outcomes = Vec::with_capacity(group.len());
        let mut live = Vec::with_capacity(group.len());
        for d in group {
            if d.first_attempt_at < grace_start {
                // An attempt this old has an unknown outcome: abandon it, never resend.
                self.store()
                    .price_alerts()
                    .finish_delivery(
                        self.owner(),
                        &d,
                        Some(DeliveryStatus::Abandoned),
                        now_ms,
                        now_ms,
                    )
                    .await?;
                outcomes.push(None);
            } else {
                live.push(d);
            }
        }
        let Some(first) = live.first() else { return Ok(outcomes) };
        let to = first.target().to_string();
        let items: Vec<Item<'_>> = live
            .iter()
            .map(|d| Item {
                payload: &d.payload,
                occurrence: &d.retry_key,
                home: &d.conversation_id,
                what: format!("alert {}:{}", d.alert_id, d.fire_seq),
                kind: PushKind::Alert,
                // A re-fire can go without a notification sound.
                silent: d.fire_seq > 1,
            })
            .collect();
        let pushed = self.pusher.push(&to, &items).await;
        let retry_at =
            now.saturating_add(self.settings.retry_after).map_or(i64::MAX, |t| t.as_millisecond());
        for (d, outcome) in live.iter().zip(pushed) {
            self.store()
                .price_alerts()
                .finish_delivery(
                    self.owner(),
                    d,
                    outcome.status(),
                    self.pusher.now().as_millisecond(),
                    retry_at,
                )
                .await?;
            outcomes.push(Some(outcome));
        }
        Ok(outcomes)
    }
}

/// The rule and state of a stored alert.
pub fn parse(row: &AlertRow) -> (Rule, State) {
    let rule = Rule {
        direction: row.direction,
        level: row.level,
        band_pct: row.band_pct,
        frequency: row.frequency,
        cooldown_ms: row.cooldown_s.saturating_mul(1000),
    };
    let state = State {
        last_side: row.last_side,
        armed: row.armed,
        last_fired_at: row.last_fired_at,
        muted_until: row.muted_until,
    };
    (rule, state)
}
