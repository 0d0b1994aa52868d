//! The care plans' verbs on doses, one function each, whatever surface reached them: a dose
//! confirmed taken (✅ 吃了 / ✅ 她吃了 on the prompt, ✅ 我吃藥了 on her menu, or words in the
//! chat: 「我吃藥了」, 「阿嬤早上的藥吃過了」), asked again later (⏰ 等一下), taken in hand
//! (我來打電話); and 📞 叫家人 from her menu. Each checks that the actor's chat may act on the
//! plan ([`super::may_see`]), moves the dose only from the state it was read in (so two
//! confirmations at once settle it once), tells the others through the outbox under its own
//! retry key, and records the change in the feed ([`crate::features::changes`]). The buttons,
//! the menu and the `care` tool only render what these return.

pub mod reserve;
pub mod watcher;

use std::sync::Arc;

use jiff::SignedDuration;
use tokio::sync::Notify;

use super::limits::Reading;
use super::steps::{self, Refusal, State, Tap};
use super::{Plan, Route, words};
use crate::contract::ToolCtx;
use crate::door::Door;
use crate::features::changes;
use crate::features::deps::Deps;
use crate::features::verbs;
use crate::push::delivery::{Item, Pusher, occurrence_key};
use crate::push::quiet::PushKind;
use crate::store::{CarePlanRow, CareStatus, DoseRow, NewCarePlan, NewReading, Store, StoreError};

/// How far back a dose still waits to be confirmed without naming it (✅ 我吃藥了, 「我吃藥了」).
pub const OPEN_FOR: SignedDuration = SignedDuration::from_hours(12);

/// What a verb on a dose came to.
#[derive(Debug, Clone)]
pub enum DoseOutcome {
    /// The dose moved; the others were told where the step tells them.
    Moved {
        /// Its plan.
        plan: Box<Plan>,
        /// The dose as it was read.
        dose: DoseRow,
        /// What was done.
        tap: Tap,
        /// Its time as the family reads it (08:00, 昨天 20:00).
        when: String,
    },
    /// Nothing changed: it was confirmed or taken in hand already, or it is too late to ask
    /// again; `by` is who settled it.
    Refused {
        /// Why.
        refusal: Refusal,
        /// Who settled it, when someone did.
        by: String,
    },
    /// No such dose (or plan) this chat may act on.
    Gone,
    /// No dose is waiting to be confirmed: nothing was recorded, nobody told.
    NothingOpen,
    /// Someone moved it at the same moment, to a state that is not a refusal: try again.
    Raced,
}

/// The care verbs over the store, the door (a plan seen from a member's own chat), the way out
/// (where the others are told, and the quota's record of who has hearth as a friend) and the
/// care loop's wake-up (a reading outside its limits is told at once).
#[derive(Clone)]
pub struct CareOps {
    store: Store,
    door: Arc<Door>,
    pusher: Pusher,
    nudge: Arc<Notify>,
}

/// A reading to keep: its values, and what of them is outside the plan's limits (the family's
/// words, joined), if anything.
#[derive(Debug, Clone, Copy)]
pub struct Kept<'a> {
    /// The values.
    pub values: Reading,
    /// What is outside the limits; none when all is well.
    pub outside: Option<&'a str>,
}

/// The dose confirmed without naming it among `doses`: the latest one due and not yet settled
/// as taken (or missed before it was ever asked).
pub fn open_dose(doses: &[DoseRow]) -> Option<&DoseRow> {
    doses
        .iter()
        .filter(|d| {
            State::parse(&d.state).is_some_and(|s| !matches!(s, State::Taken | State::Missed))
        })
        .max_by_key(|d| d.due_at)
}

/// The actor's name as the others read it.
fn actor_name(ctx: &ToolCtx) -> String {
    ctx.display_name.clone().unwrap_or_else(|| ctx.lang.pick("家人", "Someone").to_string())
}

/// The week of `plan` from `from` until `to`, read from `store` (the week's report, and the
/// plan as the family reads it).
pub(super) async fn week_of(
    store: &Store,
    plan: &Plan,
    from: jiff::Timestamp,
    to: jiff::Timestamp,
) -> Result<super::report::Week, StoreError> {
    let (from_ms, to_ms) = (from.as_millisecond(), to.as_millisecond());
    let doses = store.care().doses_between(plan.row.id, from_ms, to_ms).await?;
    let readings = store.care().readings_between(plan.row.id, from_ms, to_ms).await?;
    Ok(super::report::week(from, to, &plan.tz, &doses, &readings))
}

impl CareOps {
    /// The verbs over what `deps` holds.
    pub fn from_deps(deps: &Deps) -> Self {
        Self {
            store: deps.store.clone(),
            door: deps.door.clone(),
            pusher: deps.pusher.clone(),
            nudge: deps.care_nudge.clone(),
        }
    }

    /// The member of `ctx`'s chat called `name` (as the chat knows them, without an @): their
    /// id and name.
    pub async fn member_named(
        &self,
        ctx: &ToolCtx,
        name: &str,
    ) -> Result<Option<(String, String)>, StoreError> {
        self.store.reminders().find_member(&ctx.conversation.id, name).await
    }

    /// Keeps a new plan, a draft until ✅ 開始; none when its chat keeps
    /// [`super::MAX_CARE_PLANS`] already.
    pub async fn add_plan(
        &self,
        ctx: &ToolCtx,
        new: &NewCarePlan<'_>,
    ) -> Result<Option<CarePlanRow>, StoreError> {
        let row = self.store.care().add_plan(new).await?;
        if row.is_some() {
            let what = format!("{} {}", new.person, new.what);
            changes::record_in(&self.store, ctx, new.conversation_id, &verbs::CARE_PLAN_SET, &what)
                .await;
        }
        Ok(row)
    }

    /// Forgets the readings taken, and the settled doses due, before `before_ms` (the care
    /// retention setting); how many went.
    pub async fn forget_before(&self, before_ms: i64) -> Result<u64, StoreError> {
        self.store.care().prune(before_ms).await
    }

    /// The doses of `plan` due from `from_ms` to before `to_ms`.
    pub async fn doses_between(
        &self,
        plan: &Plan,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<DoseRow>, StoreError> {
        self.store.care().doses_between(plan.row.id, from_ms, to_ms).await
    }

    /// Keeps a reading of `plan` given by `ctx`'s member; one outside the limits wakes the care
    /// loop, which tells the caregivers at once.
    pub async fn keep_reading(
        &self,
        ctx: &ToolCtx,
        plan: &Plan,
        kept: Kept<'_>,
    ) -> Result<(), StoreError> {
        let values = kept.values;
        self.store
            .care()
            .add_reading(&NewReading {
                plan_id: plan.row.id,
                conversation_id: &plan.row.conversation_id,
                taken_at: ctx.now().as_millisecond(),
                systolic: values.systolic.map(i64::from),
                diastolic: values.diastolic.map(i64::from),
                pulse: values.pulse.map(i64::from),
                glucose: values.glucose.map(i64::from),
                reported_by: ctx.user_id.as_deref(),
                reporter_name: ctx.display_name.as_deref(),
                outside: kept.outside,
            })
            .await?;
        if kept.outside.is_some() {
            self.nudge.notify_one();
        }
        Ok(())
    }

    /// `plan`'s doses and readings from `from` to before `to`, counted.
    pub async fn week(
        &self,
        plan: &Plan,
        from: jiff::Timestamp,
        to: jiff::Timestamp,
    ) -> Result<super::report::Week, StoreError> {
        week_of(&self.store, plan, from, to).await
    }

    /// The plans `ctx`'s chat may see and act on now ([`super::may_see`]), readable ones only.
    pub async fn plans_seen(&self, ctx: &ToolCtx) -> Result<Vec<Plan>, StoreError> {
        let chat = &ctx.conversation.id;
        let mut plans = Vec::new();
        for plan in self.store.care().plans_of_chat(chat).await?.into_iter().filter_map(Plan::read)
        {
            if super::may_see(&self.door, chat, &plan).await? {
                plans.push(plan);
            }
        }
        Ok(plans)
    }

    /// Plan `id`, kept in `ctx`'s own chat (a draft's ✅ 開始), readable.
    pub async fn plan_here(&self, ctx: &ToolCtx, id: i64) -> Result<Option<Plan>, StoreError> {
        Ok(self
            .store
            .care()
            .plan(id)
            .await?
            .filter(|row| row.conversation_id == ctx.conversation.id)
            .and_then(Plan::read))
    }

    /// Records a 📞 of `ctx`'s member unless they asked within `gap`: true when the family is
    /// to be told, false when it is too soon.
    pub async fn claim_call(
        &self,
        ctx: &ToolCtx,
        user: &str,
        gap: SignedDuration,
    ) -> Result<bool, StoreError> {
        let now = ctx.now();
        let since = now.saturating_sub(gap).unwrap_or(now);
        self.store.menus().claim_care_call(user, now.as_millisecond(), since.as_millisecond()).await
    }

    /// The plans that ask `ctx`'s member, seen from her own 1:1 chat, with a status in
    /// `statuses`; empty for anyone else, or anywhere else (her menu's buttons).
    pub async fn plans_asking(
        &self,
        ctx: &ToolCtx,
        statuses: &[CareStatus],
    ) -> Result<Vec<Plan>, StoreError> {
        let Some(user) = ctx.user_id.as_deref().filter(|u| *u == ctx.conversation.id) else {
            return Ok(Vec::new());
        };
        Ok(self
            .plans_seen(ctx)
            .await?
            .into_iter()
            .filter(|plan| statuses.contains(&plan.row.status) && plan.asked() == Some(user))
            .collect())
    }

    /// Does `tap` on dose `id`, for `ctx`'s member (a button on the prompt).
    pub async fn tap(&self, ctx: &ToolCtx, id: i64, tap: Tap) -> Result<DoseOutcome, StoreError> {
        let Some(dose) = self.store.care().dose(id).await? else { return Ok(DoseOutcome::Gone) };
        let Some(plan) = self.store.care().plan(dose.plan_id).await?.and_then(Plan::read) else {
            return Ok(DoseOutcome::Gone);
        };
        if !super::may_see(&self.door, &ctx.conversation.id, &plan).await? {
            return Ok(DoseOutcome::Gone);
        }
        self.settle(ctx, plan, dose, tap).await
    }

    /// Confirms as taken the open dose ([`open_dose`]) of `plans` (those the actor may act on),
    /// due within [`OPEN_FOR`]; with `at` (local `HH:MM`), the one due at that time (refused
    /// when it was confirmed already). [`DoseOutcome::NothingOpen`] when none waits: nothing
    /// is recorded and nobody is told.
    pub async fn confirm_open(
        &self,
        ctx: &ToolCtx,
        plans: &[Plan],
        at: Option<jiff::civil::Time>,
    ) -> Result<DoseOutcome, StoreError> {
        let now = ctx.now().as_millisecond();
        let from = now - i64::try_from(OPEN_FOR.as_millis()).unwrap_or(0);
        let mut doses = Vec::new();
        for plan in plans.iter().filter(|p| p.row.status == CareStatus::Active) {
            let found = self.store.care().doses_between(plan.row.id, from, now + 1).await?;
            doses.extend(found.into_iter().filter(|d| {
                at.is_none_or(|at| {
                    jiff::Timestamp::from_millisecond(d.due_at)
                        .is_ok_and(|t| t.to_zoned_datetime(plan.tz.clone()).time() == at)
                })
            }));
        }
        let Some(dose) = open_dose(&doses).cloned() else {
            // The dose named by its time was confirmed already: say by whom.
            let taken = doses.iter().filter(|_| at.is_some()).find(|d| d.state == "taken");
            return Ok(match taken {
                Some(d) => DoseOutcome::Refused {
                    refusal: Refusal::AlreadyTaken,
                    by: d.settled_by.clone().unwrap_or_default(),
                },
                None => DoseOutcome::NothingOpen,
            });
        };
        let Some(plan) = plans.iter().find(|p| p.row.id == dose.plan_id).cloned() else {
            return Ok(DoseOutcome::Gone);
        };
        self.settle(ctx, plan, dose, Tap::Taken).await
    }

    /// Moves `dose` of `plan` by `tap`, from the state it was read in, tells the others and
    /// records the change.
    async fn settle(
        &self,
        ctx: &ToolCtx,
        plan: Plan,
        dose: DoseRow,
        tap: Tap,
    ) -> Result<DoseOutcome, StoreError> {
        let now = ctx.now();
        let Some(state) = State::parse(&dose.state) else { return Ok(DoseOutcome::Gone) };
        let moved = match steps::tap(state, dose.prompts, tap, now.as_millisecond()) {
            Ok(moved) => moved,
            Err(refusal) => {
                let by = dose.settled_by.clone().unwrap_or_default();
                return Ok(DoseOutcome::Refused { refusal, by });
            }
        };
        let by = actor_name(ctx);
        let settles = tap != Tap::Later;
        let settled = self
            .store
            .care()
            .settle_dose(
                &dose,
                moved.0.as_str(),
                moved.1,
                now.as_millisecond(),
                settles.then_some(by.as_str()),
            )
            .await?;
        if !settled {
            // Another confirmation (or the watcher) moved it first: answer from where it is.
            let now_state = self.store.care().dose(dose.id).await?;
            let refusal = match now_state.as_ref().map(|d| d.state.as_str()) {
                Some("taken") => Refusal::AlreadyTaken,
                Some("handled") => Refusal::AlreadyHandled,
                _ => return Ok(DoseOutcome::Raced),
            };
            let by = now_state.and_then(|d| d.settled_by).unwrap_or_default();
            return Ok(DoseOutcome::Refused { refusal, by });
        }
        let when = words::dose_time(&plan, dose.due_at, now);
        let told = match tap {
            Tap::Taken if state.escalated() => {
                let line = words::taken_line(&plan, &dose, &by, now);
                self.tell_others(ctx, &plan, state, &format!("care:{}:taken", dose.id), &line).await
            }
            Tap::OnIt => {
                let line = words::on_it_line(&plan, &dose, &by, now);
                self.tell_others(ctx, &plan, state, &format!("care:{}:on-it", dose.id), &line).await
            }
            _ => Ok(()),
        };
        if let Err(e) = told {
            tracing::error!(error = %e, dose = dose.id, "care: the others could not be told");
        }
        let verb = match tap {
            Tap::Taken => Some(&verbs::CARE_DOSE_TAKEN),
            Tap::OnIt => Some(&verbs::CARE_DOSE_ON_IT),
            Tap::Later => None,
        };
        if let Some(verb) = verb {
            let what = format!("{} {when} {}", plan.row.person, plan.row.what);
            changes::record_in(&self.store, ctx, &plan.row.conversation_id, verb, &what).await;
        }
        let plan = Box::new(plan);
        Ok(DoseOutcome::Moved { plan, dose, tap, when })
    }

    /// Tells the others of a dose in `state` what `ctx`'s member did (`line`), under retry keys
    /// of `name`.
    async fn tell_others(
        &self,
        ctx: &ToolCtx,
        plan: &Plan,
        state: State,
        name: &str,
        line: &str,
    ) -> Result<(), StoreError> {
        let routes = self.others(plan, ctx.user_id.as_deref(), state == State::GroupTold).await;
        self.tell(plan, &routes, name, line, ctx.now().as_millisecond()).await
    }

    /// The caregivers of `plan` who are reached now ([`super::reached`]); all of them when the
    /// store cannot say (telling too many beats telling nobody).
    pub async fn reached(&self, plan: &Plan) -> Vec<super::Member> {
        super::reached(&self.door, plan).await.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "care: who is reached is unknown; every caregiver is told");
            plan.caregivers.clone()
        })
    }

    /// `users` left the group `chat` at `now_ms` (the door knows already): the caregivers of
    /// its plans who are still reached are told, once per plan, who of theirs is no longer
    /// reached and told nothing of it until back. How many plans told.
    pub async fn caregivers_left(
        &self,
        chat: &str,
        users: &[String],
        now_ms: i64,
    ) -> Result<usize, StoreError> {
        let mut told = 0;
        let plans = self.store.care().plans_of_chat(chat).await?.into_iter().filter_map(Plan::read);
        for plan in plans.filter(|p| p.row.conversation_id == chat) {
            if !matches!(plan.row.status, CareStatus::Active | CareStatus::Paused) {
                continue;
            }
            let gone: Vec<&super::Member> =
                plan.caregivers.iter().filter(|c| users.contains(&c.id)).collect();
            if gone.is_empty() {
                continue;
            }
            let routes = self.others(&plan, None, false).await;
            if routes.is_empty() {
                continue;
            }
            let names = gone.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join("、");
            let ids = gone.iter().map(|c| c.id.as_str()).collect::<Vec<_>>().join(",");
            let line = words::caregivers_left(&plan, &names);
            let name = format!("care:{}:left:{ids}:{now_ms}", plan.row.id);
            self.tell(&plan, &routes, &name, &line, now_ms).await?;
            told += 1;
        }
        Ok(told)
    }

    /// Where the others hear of what someone did: each caregiver but `actor` in their 1:1 chat,
    /// or the plan's chat once for all who have none; the plan's chat too when it was told
    /// already.
    pub async fn others(&self, plan: &Plan, actor: Option<&str>, group_told: bool) -> Vec<Route> {
        let mut routes: Vec<Route> = Vec::new();
        for c in self.reached(plan).await.iter().filter(|c| Some(c.id.as_str()) != actor) {
            let friend = self.pusher.is_friend(&c.id).await;
            let route = super::route(Some(&c.id), friend, &plan.row.conversation_id);
            let route = Route { mention: None, ..route };
            if !routes.contains(&route) && Some(route.to.as_str()) != actor {
                routes.push(route);
            }
        }
        let group = Route { to: plan.row.conversation_id.clone(), mention: None };
        if group_told && plan.in_group() && !routes.contains(&group) {
            routes.push(group);
        }
        routes
    }

    /// Hands `line` for each of `routes` to the way out (pushed by the outbox's next round),
    /// each under an occurrence of `name` and its chat.
    pub async fn tell(
        &self,
        plan: &Plan,
        routes: &[Route],
        name: &str,
        line: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        let mut keyed = Vec::new();
        for route in routes {
            let payload = serde_json::to_string(&words::notice(route, line.to_string()))
                .unwrap_or_else(|_| "[]".into());
            let key = occurrence_key(&format!("{name}:{}", route.to)).to_string();
            keyed.push((route.to.clone(), key, payload));
        }
        let items: Vec<(&str, Item<'_>)> = keyed
            .iter()
            .map(|(to, key, payload)| {
                let item = Item {
                    payload,
                    occurrence: key,
                    home: &plan.row.conversation_id,
                    what: format!("care {name}"),
                    kind: PushKind::Care,
                    silent: false,
                };
                (to.as_str(), item)
            })
            .collect();
        self.pusher.queue(&items, now_ms).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dose(id: i64, due_at: i64, state: &str) -> DoseRow {
        DoseRow {
            id,
            plan_id: 1,
            conversation_id: "C1".into(),
            due_at,
            state: state.into(),
            step_at: None,
            prompts: 1,
            settled_at: None,
            settled_by: None,
        }
    }

    #[test]
    fn the_open_dose_is_the_latest_not_yet_taken() {
        let doses = [dose(1, 10, "told"), dose(2, 20, "asked"), dose(3, 30, "taken")];
        assert_eq!(open_dose(&doses).map(|d| d.id), Some(2));
        let settled = [dose(1, 10, "taken"), dose(2, 20, "missed")];
        assert_eq!(open_dose(&settled), None);
        assert_eq!(
            open_dose(&[dose(4, 5, "handled"), dose(5, 1, "snoozed")]).map(|d| d.id),
            Some(4)
        );
        assert_eq!(open_dose(&[dose(6, 5, "gibberish")]), None);
        assert_eq!(open_dose(&[]), None);
    }
}
