//! The care loop: records the doses that came due (each once, whichever replica sees it first),
//! takes each dose's due step — the prompt, the caregivers, the group — under a lease, tells the
//! caregivers of readings outside their limits, and sends the weekly reports.
//!
//! Every push goes through the per-chat outbox ([`crate::features::delivery`]) under a retry key
//! named after the dose and the step (`care:{dose}:ask:{n}`, `care:{dose}:tell:{member}`,
//! `care:{dose}:group`): a step retried after a crash, or taken by two replicas at once, records
//! the same items, which the outbox pushes once and LINE accepts once. A dose moves to its next
//! state only from the state it was claimed in, so a tap meanwhile wins. Care prompts and
//! escalations are [`PushKind::Care`]: quiet hours never hold them, and when the month's quota
//! is nearly spent the quota keeps what they need (see [`super::cost`]).

use jiff::{SignedDuration, Timestamp};

use super::steps::{self, Notice, State, Timing};
use super::{Plan, Route, render, report, schedule};
use crate::features::charts::publish::Charts;
use crate::features::delivery::{self, Item, Outcome, Pusher};
use crate::features::quiet::PushKind;
use crate::line::message::Message;
use crate::sources::calendar::WorkCalendar;
use crate::store::{DoseRow, ReadingRow, StoreError};

/// How long a claim on a dose lasts; outlasts a push with its retries.
const LEASE: SignedDuration = SignedDuration::from_mins(2);
/// Wait before a step whose push failed is tried again (same items, same keys).
const RETRY_AFTER: SignedDuration = SignedDuration::from_mins(1);
/// Plans, doses, readings and reports taken per round.
const BATCH: i64 = 200;

/// What a round did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CareRound {
    /// Doses recorded as due (or as missed, when they came due long before).
    pub recorded: usize,
    /// Prompts pushed.
    pub prompts: usize,
    /// Caregivers told of an unconfirmed dose.
    pub caregivers: usize,
    /// Groups told of an unconfirmed dose.
    pub groups: usize,
    /// Caregivers told of a reading outside its limits.
    pub readings: usize,
    /// Weekly reports pushed.
    pub reports: usize,
    /// Steps to be tried again.
    pub retrying: usize,
}

/// One message to push for a step.
struct Out {
    to: String,
    key: String,
    payload: String,
    kind: PushKind,
}

/// The care loop of one process.
pub struct CareWatcher {
    pusher: Pusher,
    calendar: WorkCalendar,
    charts: Option<Charts>,
}

impl CareWatcher {
    /// A watcher pushing through `pusher`; plans on workdays follow `calendar`.
    pub fn new(pusher: Pusher, calendar: WorkCalendar) -> Self {
        Self { pusher, calendar, charts: None }
    }

    /// The same watcher drawing the weekly report's chart with `charts`.
    pub fn with_charts(mut self, charts: Option<Charts>) -> Self {
        self.charts = charts;
        self
    }

    /// One round: everything due now.
    pub async fn tick(&self) -> Result<CareRound, StoreError> {
        let mut round = CareRound::default();
        let now = self.pusher.now();
        self.record_due(now, &mut round).await?;
        let lease_until = now.saturating_add(LEASE).unwrap_or(now).as_millisecond();
        let store = self.pusher.store();
        let claimed = store
            .claim_care_doses(self.pusher.owner(), now.as_millisecond(), lease_until, BATCH)
            .await?;
        for dose in claimed {
            self.take_step(dose, now, &mut round).await?;
        }
        for reading in store.care_readings_to_tell(BATCH).await? {
            self.tell_reading(reading, now, &mut round).await?;
        }
        for row in store.care_reports_due(now.as_millisecond(), BATCH).await? {
            let Some(plan) = Plan::read(row) else { continue };
            self.report(plan, now, &mut round).await?;
        }
        Ok(round)
    }

    /// Records the doses of every plan that came due, and moves each plan to its next dose.
    async fn record_due(&self, now: Timestamp, round: &mut CareRound) -> Result<(), StoreError> {
        let store = self.pusher.store();
        for row in store.due_care_plans(now.as_millisecond(), BATCH).await? {
            let id = row.id;
            let Some(plan) = Plan::read(row) else {
                tracing::error!(plan = id, "unreadable care plan; skipped");
                continue;
            };
            let Some(first) =
                plan.row.next_due_at.and_then(|ms| Timestamp::from_millisecond(ms).ok())
            else {
                continue;
            };
            let (due, next) = schedule::due_until(&plan, first, now, Some(&self.calendar));
            let doses: Vec<(i64, &str, Option<i64>)> = due
                .iter()
                .map(|t| {
                    let (state, step_at) = schedule::first_state(*t, now);
                    (t.as_millisecond(), state, step_at)
                })
                .collect();
            if store.record_care_doses(&plan.row, &doses, next.map(|t| t.as_millisecond())).await? {
                round.recorded += doses.len();
            }
        }
        Ok(())
    }

    /// Takes the due step of a claimed dose.
    async fn take_step(
        &self,
        dose: DoseRow,
        now: Timestamp,
        round: &mut CareRound,
    ) -> Result<(), StoreError> {
        let store = self.pusher.store();
        let owner = self.pusher.owner();
        let plan = store.care_plan(dose.plan_id).await?.and_then(Plan::read);
        let (Some(plan), Some(state)) = (plan, State::parse(&dose.state)) else {
            // Its plan is gone or unreadable: nothing more happens to it.
            store.step_care_dose(&dose, owner, &dose.state, None, dose.prompts).await?;
            return Ok(());
        };
        if plan.row.status != "active" && matches!(state, State::Due | State::Snoozed) {
            // A paused plan asks nothing; the dose stays unconfirmed.
            store.step_care_dose(&dose, owner, State::Missed.as_str(), None, dose.prompts).await?;
            return Ok(());
        }
        let timing = Timing {
            after: SignedDuration::from_mins(plan.row.after_mins.max(1)),
            again: plan.row.again_mins.filter(|m| *m > 0).map(SignedDuration::from_mins),
        };
        let step = steps::step(state, dose.prompts, timing, plan.in_group(), now.as_millisecond());
        let outs = self.messages(&plan, &dose, step.notice, step.prompts, now).await;
        if !self.push_all(&plan, &format!("care dose {}", dose.id), &outs).await {
            round.retrying += 1;
            let retry = now.saturating_add(RETRY_AFTER).unwrap_or(now).as_millisecond();
            return store.release_care_dose(dose.id, owner, retry).await;
        }
        if store
            .step_care_dose(&dose, owner, step.state.as_str(), step.step_at, step.prompts)
            .await?
        {
            match step.notice {
                Some(Notice::Prompt) => round.prompts += 1,
                Some(Notice::Caregivers) => round.caregivers += outs.len(),
                Some(Notice::Group) => round.groups += 1,
                None => {}
            }
        }
        Ok(())
    }

    /// Where a member's message goes: their 1:1 chat when they are a friend.
    async fn route_of(&self, plan: &Plan, member: Option<&str>) -> Route {
        let friend = match member {
            Some(id) => self.pusher.allowance().is_friend(id).await,
            None => false,
        };
        super::route(member, friend, &plan.row.conversation_id)
    }

    /// The caregivers' routes (the plan's chat when it names none).
    async fn caregiver_routes(&self, plan: &Plan) -> Vec<(String, Route)> {
        let mut routes = Vec::new();
        for c in &plan.caregivers {
            routes.push((c.id.clone(), self.route_of(plan, Some(&c.id)).await));
        }
        if routes.is_empty() {
            routes.push(("chat".into(), self.route_of(plan, None).await));
        }
        routes
    }

    /// The messages of `notice` for `dose`.
    async fn messages(
        &self,
        plan: &Plan,
        dose: &DoseRow,
        notice: Option<Notice>,
        prompts: i64,
        now: Timestamp,
    ) -> Vec<Out> {
        let (palette, key) = (self.pusher.palette(), self.pusher.key());
        let out = |to: &str, name: String, messages: Vec<Message>| Out {
            to: to.to_string(),
            key: delivery::retry_key(&name).to_string(),
            payload: serde_json::to_string(&messages).unwrap_or_else(|_| "[]".into()),
            kind: PushKind::Care,
        };
        match notice {
            None => Vec::new(),
            Some(Notice::Prompt) => {
                let route = self.route_of(plan, plan.row.confirmer_id.as_deref()).await;
                let messages = render::prompt(plan, dose, &route, now, palette, key);
                vec![out(&route.to, format!("care:{}:ask:{prompts}", dose.id), messages)]
            }
            Some(Notice::Caregivers) => {
                let mut outs = Vec::new();
                for (member, route) in self.caregiver_routes(plan).await {
                    let messages = render::unconfirmed(plan, dose, &route, now, palette, key);
                    outs.push(out(&route.to, format!("care:{}:tell:{member}", dose.id), messages));
                }
                outs
            }
            Some(Notice::Group) => {
                let route = Route { to: plan.row.conversation_id.clone(), mention: None };
                let messages = render::unconfirmed(plan, dose, &route, now, palette, key);
                vec![out(&route.to, format!("care:{}:group", dose.id), messages)]
            }
        }
    }

    /// Pushes `outs` (per chat, together); false when any has to be tried again.
    async fn push_all(&self, plan: &Plan, what: &str, outs: &[Out]) -> bool {
        let mut done = true;
        let mut targets: Vec<&str> = outs.iter().map(|o| o.to.as_str()).collect();
        targets.dedup();
        for to in targets {
            let items: Vec<Item<'_>> = outs
                .iter()
                .filter(|o| o.to == to)
                .map(|o| Item {
                    payload: &o.payload,
                    retry_key: &o.key,
                    home: &plan.row.conversation_id,
                    what: what.to_string(),
                    kind: o.kind,
                    silent: false,
                })
                .collect();
            let outcomes = self.pusher.push(to, &items).await;
            done &= !outcomes.contains(&Outcome::RetryLater);
        }
        done
    }

    /// Tells the caregivers (all but the one who reported it) of a reading outside its limits.
    async fn tell_reading(
        &self,
        reading: ReadingRow,
        now: Timestamp,
        round: &mut CareRound,
    ) -> Result<(), StoreError> {
        let store = self.pusher.store();
        let Some(plan) = store.care_plan(reading.plan_id).await?.and_then(Plan::read) else {
            return store.care_reading_told(reading.id, now.as_millisecond()).await;
        };
        let values = super::limits::Reading {
            systolic: reading.systolic.and_then(|v| u16::try_from(v).ok()),
            diastolic: reading.diastolic.and_then(|v| u16::try_from(v).ok()),
            pulse: reading.pulse.and_then(|v| u16::try_from(v).ok()),
            glucose: reading.glucose.and_then(|v| u16::try_from(v).ok()),
        };
        let zh = plan.row.lang == crate::platform::i18n::Lang::ZhTw;
        let line = render::reading_line(
            &plan,
            &super::limits::describe(&values, zh),
            reading.outside.as_deref().unwrap_or_default(),
            reading.reporter_name.as_deref(),
        );
        let mut outs: Vec<Out> = Vec::new();
        for (member, route) in self.caregiver_routes(&plan).await {
            if reading.reported_by.as_deref() == Some(member.as_str())
                || outs.iter().any(|o| o.to == route.to && route.mention.is_none())
            {
                continue;
            }
            outs.push(Out {
                key: delivery::retry_key(&format!("care:reading:{}:{member}", reading.id))
                    .to_string(),
                payload: serde_json::to_string(&render::notice(&route, line.clone()))
                    .unwrap_or_else(|_| "[]".into()),
                to: route.to,
                kind: PushKind::Care,
            });
        }
        if self.push_all(&plan, &format!("care reading {}", reading.id), &outs).await {
            round.readings += outs.len();
            store.care_reading_told(reading.id, now.as_millisecond()).await?;
        }
        Ok(())
    }

    /// Pushes the week's report to the caregivers, then moves the plan to next week's.
    async fn report(
        &self,
        plan: Plan,
        now: Timestamp,
        round: &mut CareRound,
    ) -> Result<(), StoreError> {
        let store = self.pusher.store();
        let Some(due_ms) = plan.row.report_due_at else { return Ok(()) };
        let due = Timestamp::from_millisecond(due_ms).unwrap_or(now);
        let last = due.to_zoned_datetime(plan.tz.clone()).date();
        let from = last
            .checked_sub(jiff::Span::new().days(report::DAYS - 1))
            .ok()
            .and_then(|d| d.to_zoned_datetime(plan.tz.clone()).ok())
            .map_or(0, |z| z.timestamp().as_millisecond());
        let doses = store.care_doses_between(plan.row.id, from, due_ms).await?;
        let readings = store.care_readings_between(plan.row.id, from, due_ms).await?;
        let week = report::week(last, &plan.tz, &doses, &readings);
        let mut card = render::report_card(&plan, &week);
        if let (Some(charts), Some(spec)) = (&self.charts, &card.chart) {
            card.image_url = charts.url(spec, &plan.tz).await;
        }
        let mut outs = Vec::new();
        for (member, route) in self.caregiver_routes(&plan).await {
            if outs.iter().any(|o: &Out| o.to == route.to) {
                continue;
            }
            let signer =
                crate::line::postback::ButtonSigner::new(self.pusher.key().clone(), &route.to);
            let message = match crate::line::flex::container(
                std::slice::from_ref(&card),
                self.pusher.palette(),
                Some(&signer),
            ) {
                Some(contents) => {
                    Message::Flex { alt_text: card.title.clone(), contents, quick_reply: None }
                }
                None => Message::text(card.to_text()),
            };
            outs.push(Out {
                key: delivery::retry_key(&format!("care:{}:report:{due_ms}:{member}", plan.row.id))
                    .to_string(),
                payload: serde_json::to_string(&[message]).unwrap_or_else(|_| "[]".into()),
                to: route.to,
                kind: PushKind::Digest,
            });
        }
        if !self.push_all(&plan, &format!("care report {}", plan.row.id), &outs).await {
            round.retrying += 1;
            return Ok(());
        }
        let next =
            schedule::next_report(now.max(due), &plan.tz).map_or(i64::MAX, |t| t.as_millisecond());
        if store.advance_care_report(plan.row.id, due_ms, next).await? {
            round.reports += outs.len();
        }
        Ok(())
    }
}
