//! The care loop: records the doses that came due (each once, whichever replica sees it first),
//! takes each dose's due step — the prompt, the caregivers, the group — under a lease, tells the
//! caregivers of readings outside their limits, and sends the weekly reports.
//!
//! Every push goes through the per-chat outbox ([`crate::push::delivery`]) under a retry key
//! named after the dose and the step (`care:{dose}:ask:{n}`, `care:{dose}:tell:{member}`,
//! `care:{dose}:group`): a step retried after a crash, or taken by two replicas at once, records
//! the same items, which the outbox pushes once and LINE accepts once. A dose moves to its next
//! state only from the state it was claimed in, so a tap meanwhile wins — and when a tap landed
//! while caregivers were being told, they are told who confirmed it or took it in hand. Care
//! prompts and escalations are [`PushKind::Care`]: quiet hours never hold them, and when the
//! month's quota is nearly spent the quota keeps what they need (see [`crate::features::care::cost`]). A prompt
//! to someone who asked for spoken answers carries the question spoken too, in the same push.

use std::sync::Arc;

use futures::StreamExt;
use jiff::{SignedDuration, Timestamp};

use crate::contract::chart::publish::Charts;
use crate::door::Door;
use crate::features::care::report;
use crate::features::care::steps::{self, Notice, State, Timing};
use crate::features::care::{Plan, Route, render, schedule, words};
use crate::features::speech::Speech;
use crate::line::message::{Message, append_last};
use crate::push::delivery::{self, Item, Outcome, Pusher};
use crate::push::quiet::PushKind;
use crate::sources::calendar::WorkCalendar;
use crate::store::{CareStatus, DoseRow, NewDose, ReadingRow, Store, StoreError};

/// How long a claim on a dose lasts; outlasts a push with its retries.
const LEASE: SignedDuration = SignedDuration::from_mins(2);
/// Wait before a step whose push failed is tried again (same items, same keys).
const RETRY_AFTER: SignedDuration = SignedDuration::from_mins(1);
/// Doses claimed per round (well within the lease, pushed one after another).
const DOSES_PER_ROUND: i64 = 50;
/// Plans, readings and reports taken per round.
const BATCH: i64 = 200;

/// What a round did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CareRound {
    /// Doses recorded as due.
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

impl CareRound {
    /// Adds what `other` did to this round.
    fn absorb(&mut self, other: CareRound) {
        self.recorded += other.recorded;
        self.prompts += other.prompts;
        self.caregivers += other.caregivers;
        self.groups += other.groups;
        self.readings += other.readings;
        self.reports += other.reports;
        self.retrying += other.retrying;
    }
}

/// Doses whose steps are taken at once in a round.
const STEPS_AT_ONCE: usize = 16;

/// One message to push: to which chat, under which retry key, what.
struct Outgoing {
    to: String,
    key: String,
    payload: String,
    kind: PushKind,
}

impl Outgoing {
    /// `messages` for `to`, keyed by the occurrence `name`.
    fn care(to: &str, name: &str, messages: &[Message]) -> Self {
        Self {
            to: to.to_string(),
            key: delivery::occurrence_key(name).to_string(),
            payload: serde_json::to_string(messages).unwrap_or_else(|_| "[]".into()),
            kind: PushKind::Care,
        }
    }
}

/// The care loop of one process.
pub struct CareWatcher {
    pusher: Pusher,
    /// What it reads and records, its capability's rows.
    store: Store,
    /// Asked who of a plan's caregivers is reached (not those who left its group).
    door: Arc<Door>,
    calendar: WorkCalendar,
    charts: Option<Charts>,
    speech: Option<Speech>,
}

impl CareWatcher {
    /// A watcher over the plans in `store`, pushing through `pusher`; plans on workdays follow `calendar`; `door` says
    /// which caregivers are reached.
    pub fn new(pusher: Pusher, store: Store, calendar: WorkCalendar, door: Arc<Door>) -> Self {
        Self { pusher, store, door, calendar, charts: None, speech: None }
    }

    /// The same watcher drawing the weekly report's chart with `charts`.
    pub fn with_charts(mut self, charts: Option<Charts>) -> Self {
        self.charts = charts;
        self
    }

    /// The same watcher speaking the prompts to whoever asked for spoken answers.
    pub fn with_speech(mut self, speech: Option<Speech>) -> Self {
        self.speech = speech;
        self
    }

    /// One round: everything due now.
    pub async fn tick(&self) -> Result<CareRound, StoreError> {
        let mut round = CareRound::default();
        let now = self.pusher.now();
        self.record_due(now, &mut round).await?;
        let lease_until = now.saturating_add(LEASE).unwrap_or(now).as_millisecond();
        let store = &self.store;
        let owner = self.pusher.owner();
        let claimed = store
            .care()
            .claim_doses(owner, now.as_millisecond(), lease_until, DOSES_PER_ROUND)
            .await?;
        // Each dose's step on its own: one waiting on the speech server (a spoken prompt,
        // `HEARTH_TTS_TIMEOUT_SECS` at most) holds up no other.
        let steps: Vec<(Result<(), StoreError>, CareRound)> = futures::stream::iter(claimed)
            .map(|dose| async move {
                let mut mine = CareRound::default();
                let done = self.take_step(dose, now, &mut mine).await;
                (done, mine)
            })
            .buffer_unordered(STEPS_AT_ONCE)
            .collect()
            .await;
        for (done, mine) in steps {
            round.absorb(mine);
            done?;
        }
        for reading in store.care().readings_to_tell(BATCH).await? {
            self.tell_reading(reading, now, &mut round).await?;
        }
        for row in store.care().reports_due(now.as_millisecond(), BATCH).await? {
            let Some(plan) = Plan::read(row) else { continue };
            self.report(plan, now, &mut round).await?;
        }
        Ok(round)
    }

    /// Records the doses of every plan that came due, and moves each plan to its next dose.
    async fn record_due(&self, now: Timestamp, round: &mut CareRound) -> Result<(), StoreError> {
        let store = &self.store;
        for row in store.care().due_plans(now.as_millisecond(), BATCH).await? {
            let Some(plan) = Plan::read(row) else { continue };
            let Some(first) =
                plan.row.next_due_at.and_then(|ms| Timestamp::from_millisecond(ms).ok())
            else {
                continue;
            };
            let (due, next) = schedule::due_until(&plan, first, now, Some(&self.calendar));
            let doses: Vec<NewDose> = due
                .iter()
                .map(|t| {
                    let (state, step_at) = schedule::first_state(*t, now);
                    NewDose { due_at: t.as_millisecond(), state, step_at }
                })
                .collect();
            let next = next.map(|t| t.as_millisecond());
            if store.care().record_doses(&plan.row, &doses, next).await? {
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
        let store = &self.store;
        let owner = self.pusher.owner();
        let plan = store.care().plan(dose.plan_id).await?.and_then(Plan::read);
        let (Some(plan), Some(state)) = (plan, State::parse(&dose.state)) else {
            // Its plan is gone or unreadable: nothing more happens to it.
            store.care().step_dose(&dose, owner, &dose.state, None, dose.prompts).await?;
            return Ok(());
        };
        if plan.row.status != CareStatus::Active {
            // A paused plan asks and tells nothing more; an open dose stays unconfirmed.
            let state = match state {
                State::Due | State::Snoozed | State::Asked => State::Missed,
                other => other,
            };
            store.care().step_dose(&dose, owner, state.as_str(), None, dose.prompts).await?;
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
            return store.care().release_dose(dose.id, owner, retry).await;
        }
        if !store
            .care()
            .step_dose(&dose, owner, step.state.as_str(), step.step_at, step.prompts)
            .await?
        {
            // A tap moved the dose while its step was pushed.
            if matches!(step.notice, Some(Notice::Caregivers | Notice::Group)) {
                self.tell_who_settled(&plan, &dose, &outs, now).await?;
            }
            return Ok(());
        }
        match step.notice {
            Some(Notice::Prompt) => round.prompts += 1,
            Some(Notice::Caregivers) => round.caregivers += outs.len(),
            Some(Notice::Group) => round.groups += 1,
            None => {}
        }
        Ok(())
    }

    /// Those just told a dose was not confirmed, after a tap settled it meanwhile, hear who
    /// confirmed it or took it in hand.
    async fn tell_who_settled(
        &self,
        plan: &Plan,
        dose: &DoseRow,
        told: &[Outgoing],
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let Some(settled) = self.store.care().dose(dose.id).await? else {
            return Ok(());
        };
        let by = settled.settled_by.clone().unwrap_or_default();
        let (what, line) = match State::parse(&settled.state) {
            Some(State::Taken) => ("taken", words::taken_line(plan, dose, &by, now)),
            Some(State::Handled) => ("on-it", words::on_it_line(plan, dose, &by, now)),
            _ => return Ok(()),
        };
        let mut outs: Vec<Outgoing> = Vec::new();
        for o in told {
            let route = Route { to: o.to.clone(), mention: None };
            if !outs.iter().any(|x| x.to == o.to) {
                let name = format!("care:{}:{what}:late:{}", dose.id, o.to);
                outs.push(Outgoing::care(&o.to, &name, &words::notice(&route, line.clone())));
            }
        }
        self.push_all(plan, &format!("care dose {} settled", dose.id), &outs).await;
        Ok(())
    }

    /// Where a member's message goes: their 1:1 chat when they are a friend.
    async fn route_of(&self, plan: &Plan, member: Option<&str>) -> Route {
        let friend = match member {
            Some(id) => self.pusher.is_friend(id).await,
            None => false,
        };
        crate::features::care::route(member, friend, &plan.row.conversation_id)
    }

    /// The caregivers with their routes (the plan's chat when it names none).
    async fn caregiver_routes(&self, plan: &Plan) -> Vec<(String, Route)> {
        let mut routes = Vec::new();
        let reached = crate::features::care::reached(&self.door, plan).await.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "care: who is reached is unknown; every caregiver is told");
            plan.caregivers.clone()
        });
        for c in &reached {
            routes.push((c.id.clone(), self.route_of(plan, Some(&c.id)).await));
        }
        if routes.is_empty() {
            routes.push(("chat".into(), self.route_of(plan, None).await));
        }
        routes
    }

    /// The chats a plain notice for the caregivers goes to, each once, but not `except`'s.
    async fn notice_chats(&self, plan: &Plan, except: Option<&str>) -> Vec<Route> {
        let mut chats: Vec<Route> = Vec::new();
        for (member, route) in self.caregiver_routes(plan).await {
            let route = Route { mention: None, ..route };
            if Some(member.as_str()) != except && !chats.contains(&route) {
                chats.push(route);
            }
        }
        chats
    }

    /// The messages of `notice` for `dose`.
    async fn messages(
        &self,
        plan: &Plan,
        dose: &DoseRow,
        notice: Option<Notice>,
        prompts: i64,
        now: Timestamp,
    ) -> Vec<Outgoing> {
        let (palette, key) = (self.pusher.palette(), self.pusher.key());
        match notice {
            None => Vec::new(),
            Some(Notice::Prompt) => {
                let confirmer = plan.row.confirmer_id.as_deref();
                let route = self.route_of(plan, confirmer).await;
                let mut messages = render::prompt(plan, dose, &route, now, palette, key);
                if let Some(audio) = self.spoken_prompt(plan, dose, &route, confirmer, now).await {
                    append_last(&mut messages, audio);
                }
                let name = format!("care:{}:ask:{prompts}", dose.id);
                vec![Outgoing::care(&route.to, &name, &messages)]
            }
            Some(Notice::Caregivers) => {
                let mut outs = Vec::new();
                for (member, route) in self.caregiver_routes(plan).await {
                    let messages = render::unconfirmed(plan, dose, &route, now, palette, key);
                    let name = format!("care:{}:tell:{member}", dose.id);
                    outs.push(Outgoing::care(&route.to, &name, &messages));
                }
                outs
            }
            Some(Notice::Group) => {
                let route = Route { to: plan.row.conversation_id.clone(), mention: None };
                let messages = render::unconfirmed(plan, dose, &route, now, palette, key);
                vec![Outgoing::care(&route.to, &format!("care:{}:group", dose.id), &messages)]
            }
        }
    }

    /// The prompt spoken (「阿嬤，晚上八點了，該吃血壓藥了」), when whoever confirms asked for
    /// spoken answers where it goes and the day's budget allows.
    async fn spoken_prompt(
        &self,
        plan: &Plan,
        dose: &DoseRow,
        route: &Route,
        confirmer: Option<&str>,
        now: Timestamp,
    ) -> Option<Message> {
        let speech = self.speech.as_ref()?;
        let settings = crate::features::settings::ChatSettings::new(self.store.clone());
        match settings.spoken(&route.to, confirmer).await {
            Ok(true) => {}
            Ok(false) => return None,
            Err(e) => {
                tracing::warn!(error = %e, "spoken answers setting unavailable");
                return None;
            }
        }
        let said = words::spoken_prompt(plan, dose, now);
        speech
            .speak_for_push(
                &crate::features::budget::Spent::new(self.store.clone()),
                &route.to,
                &said,
                plan.row.lang,
            )
            .await
    }

    /// Pushes `outs` (per chat, together); false when any has to be tried again.
    async fn push_all(&self, plan: &Plan, what: &str, outs: &[Outgoing]) -> bool {
        let mut done = true;
        let mut targets: Vec<&str> = outs.iter().map(|o| o.to.as_str()).collect();
        targets.sort_unstable();
        targets.dedup();
        for to in targets {
            let items: Vec<Item<'_>> = outs
                .iter()
                .filter(|o| o.to == to)
                .map(|o| Item {
                    payload: &o.payload,
                    occurrence: &o.key,
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
        let store = &self.store;
        let Some(plan) = store.care().plan(reading.plan_id).await?.and_then(Plan::read) else {
            return store.care().reading_told(reading.id, now.as_millisecond()).await;
        };
        let values = crate::features::care::limits::Reading::of_row(&reading);
        let zh = plan.row.lang == crate::platform::i18n::Lang::ZhTw;
        let line = words::reading_line(
            &plan,
            &crate::features::care::limits::describe(&values, zh),
            reading.outside.as_deref().unwrap_or_default(),
            reading.reporter_name.as_deref(),
        );
        let outs: Vec<Outgoing> = self
            .notice_chats(&plan, reading.reported_by.as_deref())
            .await
            .into_iter()
            .map(|route| {
                let name = format!("care:reading:{}:{}", reading.id, route.to);
                Outgoing::care(&route.to, &name, &words::notice(&route, line.clone()))
            })
            .collect();
        if self.push_all(&plan, &format!("care reading {}", reading.id), &outs).await {
            round.readings += outs.len();
            store.care().reading_told(reading.id, now.as_millisecond()).await?;
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
        let store = &self.store;
        let Some(due_ms) = plan.row.report_due_at else { return Ok(()) };
        let due = Timestamp::from_millisecond(due_ms).unwrap_or(now);
        let from = due.saturating_sub(report::SPAN).unwrap_or(due);
        let week = super::week_of(store, &plan, from, due).await?;
        let mut card = render::report_card(&plan, &week);
        if let (Some(charts), Some(spec)) = (&self.charts, &card.chart) {
            card.image_url = charts.url(spec, &plan.tz).await;
        }
        let palette = self.pusher.palette();
        let outs: Vec<Outgoing> = self
            .notice_chats(&plan, None)
            .await
            .into_iter()
            .map(|route| {
                let signer =
                    crate::line::postback::ButtonSigner::new(self.pusher.key().clone(), &route.to);
                let message = Message::card(&card, &card.title, palette, Some(&signer));
                let name = format!("care:{}:report:{due_ms}:{}", plan.row.id, route.to);
                Outgoing { kind: PushKind::Digest, ..Outgoing::care(&route.to, &name, &[message]) }
            })
            .collect();
        if !self.push_all(&plan, &format!("care report {}", plan.row.id), &outs).await {
            round.retrying += 1;
            return Ok(());
        }
        let next =
            schedule::next_report(now.max(due), &plan.tz).map_or(i64::MAX, |t| t.as_millisecond());
        if store.care().advance_report(plan.row.id, due_ms, next).await? {
            round.reports += outs.len();
        }
        Ok(())
    }
}
