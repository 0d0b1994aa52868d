//! `care`: care plans for an elder, set up by talking. 「阿嬤每天早上八點跟晚上八點要吃血壓藥，沒確認
//! 的話通知我跟哥哥」 → `set` keeps a draft and shows its card (what, when, who confirms, who is
//! told, what it costs a month) with ✅ 開始; nothing is asked until someone taps it. `change`,
//! `pause`, `resume` and `show` do what they say; `stop` shows 🛑 停止並刪除紀錄 — the doses and
//! readings are deleted only on that tap. `reading` keeps 「阿嬤血壓 135/85 心跳 72」 (a photo's
//! numbers too: after a photo the call is held for a confirm tap, like every state-changing
//! call after untrusted content) and tells the caregivers at once when it is outside the plan's
//! limits. `report` is the week so far, with its chart.
//!
//! A chat sees only the plans set in it or naming its member (their 1:1 chat); what goes back
//! to the model is what the turn needs — the plan, today's doses, the week's counts and means —
//! never the list of readings.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

use crate::contract::{Card, Tool, ToolCtx, ToolError};
use crate::features::care::cost;
use crate::features::care::limits::{self, Limits, Reading};
use crate::features::care::{Member, Plan, render, report, schedule, words};
use crate::features::delivery::Allowance;
use crate::platform::i18n::Lang;
use crate::platform::text::grapheme_len;
use crate::sources::calendar::WorkCalendar;
use crate::store::{CarePlanRow, CareStatus, NewCarePlan, NewReading, Store};

/// The longest name of a person or of what she takes.
const MAX_NAME: usize = 40;
/// The most dose times a day a plan may have.
const MAX_TIMES: usize = 8;
/// The most caregivers a plan may name.
const MAX_CAREGIVERS: usize = 8;

/// What to do.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
#[schemars(description = "")]
pub enum Action {
    /// New plan.
    Set,
    /// Change.
    Change,
    /// Pause.
    Pause,
    /// Resume.
    Resume,
    /// Stop.
    Stop,
    /// List.
    Show,
    /// Keep a reading.
    Reading,
    /// This week.
    Report,
}

/// Arguments of `care`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// What to do.
    #[schemars(description = "")]
    pub action: Action,
    /// The plan's id; null if only one.
    #[schemars(description = "")]
    pub plan: Option<i64>,
    /// Who is cared for (阿嬤).
    #[schemars(description = "阿嬤")]
    pub person: Option<String>,
    /// Medicine or measurement (血壓藥).
    #[schemars(description = "血壓藥")]
    pub what: Option<String>,
    /// "HH:MM" each.
    #[schemars(description = "HH:MM")]
    pub times: Option<Vec<String>>,
    /// 1 = Monday … 7 = Sunday; null: every day.
    #[schemars(description = "1-7 (Mon-Sun); null: daily")]
    pub days: Option<Vec<u8>>,
    /// Only on Taiwan's workdays.
    #[schemars(description = "")]
    pub workdays: Option<bool>,
    /// The member who confirms each dose; null: the person, if she is a member.
    #[schemars(extend("x-group-only" = true), description = "member; null: person")]
    pub confirm_by: Option<String>,
    /// Members told when a dose is not confirmed; 我 = the asker; null: the asker.
    #[schemars(extend("x-group-only" = true), description = "members told if unconfirmed; 我=asker")]
    pub notify: Option<Vec<String>>,
    /// Minutes before they are told; null: 30.
    #[schemars(description = "")]
    pub after_minutes: Option<u32>,
    /// Minutes after that before the whole group is told; 0: never; null: 30.
    #[schemars(extend("x-group-only" = true), description = "then group; 0: never")]
    pub group_after_minutes: Option<u32>,
    /// Ranges `[low, high]`; a value outside is told at once.
    #[schemars(description = "[low, high] each")]
    pub limits: Option<Limits>,
    /// The values of a reading.
    #[schemars(description = "")]
    pub reading: Option<Reading>,
}

/// A plan as the model reads it.
#[derive(Debug, Clone, Serialize)]
pub struct PlanOut {
    /// Its id.
    pub id: i64,
    /// draft (needs ✅ 開始 on its card), active, paused.
    pub status: &'static str,
    /// Who is cared for.
    pub person: String,
    /// What.
    pub what: String,
    /// Local times.
    pub times: Vec<String>,
    /// Who confirms.
    pub confirmed_by: Option<String>,
    /// Who is told.
    pub caregivers: Vec<String>,
    /// Minutes before they are told.
    pub after_minutes: i64,
    /// Minutes before the group is told; null: never.
    pub group_after_minutes: Option<i64>,
    /// Messages a month, and at most per unconfirmed dose.
    pub messages_a_month: i64,
    /// At most per unconfirmed dose.
    pub messages_per_miss: i64,
    /// Today's doses so far: time and state (taken, asked, told, handled, missed).
    pub today: Vec<(String, String)>,
    /// Its card (not sent to the model).
    #[serde(skip)]
    card: Option<Card>,
}

/// The result of `care`.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Output {
    /// One plan (set, change, pause, resume).
    Plan(Box<PlanOut>),
    /// The plans this chat sees.
    Plans {
        /// Them.
        plans: Vec<PlanOut>,
    },
    /// stop: waiting for the tap.
    Stop {
        /// Always true: nothing is deleted until 🛑 is tapped.
        needs_tap: bool,
        /// The plan.
        plan: i64,
        /// Its card (not sent to the model).
        #[serde(skip)]
        card: Option<Card>,
    },
    /// A reading kept.
    Reading {
        /// Always true.
        kept: bool,
        /// What was outside the limits (the caregivers are being told); empty when all is well.
        outside: Vec<String>,
    },
    /// The week so far.
    Report {
        /// Doses confirmed.
        taken: u32,
        /// Doses not confirmed.
        missed: u32,
        /// Readings kept.
        readings: usize,
        /// Readings outside the limits.
        outside: usize,
        /// Its card (not sent to the model).
        #[serde(skip)]
        card: Option<Card>,
    },
}

/// The care tool.
pub struct Care {
    store: Store,
    allowance: Allowance,
    calendar: WorkCalendar,
    nudge: Arc<Notify>,
}

fn invalid(message: impl Into<String>) -> ToolError {
    ToolError::InvalidArgs(message.into())
}

fn short(text: &str, what: &str) -> Result<String, ToolError> {
    let text = text.trim();
    if text.is_empty() || grapheme_len(text) > MAX_NAME {
        return Err(invalid(format!("{what} must be 1 to {MAX_NAME} characters")));
    }
    Ok(text.to_string())
}

/// "08:00" → `08:00`; a list of them → `08:00,20:00`.
fn times_of(times: &[String]) -> Result<String, ToolError> {
    if times.is_empty() || times.len() > MAX_TIMES {
        return Err(invalid(format!("give 1 to {MAX_TIMES} times, like \"08:00\"")));
    }
    let joined = times.iter().map(|t| t.trim()).collect::<Vec<_>>().join(",");
    let parsed = crate::features::care::parse_times(&joined)
        .ok_or_else(|| invalid("times must be \"HH:MM\", like \"08:00\" and \"20:00\""))?;
    Ok(parsed.iter().map(|t| t.strftime("%H:%M").to_string()).collect::<Vec<_>>().join(","))
}

fn weekdays_of(days: &[u8]) -> Result<i64, ToolError> {
    days.iter().try_fold(0i64, |bits, d| match d {
        1..=7 => Ok(bits | 1 << (d - 1)),
        _ => Err(invalid("days are 1 (Monday) to 7 (Sunday)")),
    })
}

fn unknown_member(name: &str) -> ToolError {
    invalid(format!(
        "I don't know a member called {name:?} here yet; they need to have written in this group once"
    ))
}

fn is_me(name: &str) -> bool {
    matches!(name.trim().to_lowercase().as_str(), "我" | "me" | "myself" | "自己" | "i")
}

impl Care {
    /// The tool over the store, the quota's bookkeeping (costs, friends) and the calendar;
    /// `nudge` wakes the care loop.
    pub fn new(
        store: Store,
        allowance: Allowance,
        calendar: WorkCalendar,
        nudge: Arc<Notify>,
    ) -> Self {
        Self { store, allowance, calendar, nudge }
    }

    /// The member called `name` in this chat (the asker for 我).
    async fn member(&self, ctx: &ToolCtx, name: &str) -> Result<Option<Member>, ToolError> {
        if is_me(name) {
            return Ok(ctx.user_id.clone().map(|id| Member {
                id,
                name: ctx.display_name.clone().unwrap_or_else(|| name.to_string()),
            }));
        }
        if !ctx.conversation.is_multi_person() {
            return Ok(None);
        }
        let found = self
            .store
            .find_member(&ctx.conversation.id, name.trim().trim_start_matches('@'))
            .await?;
        Ok(found.map(|(id, name)| Member { id, name }))
    }

    /// The plan `id` (or the only one) this chat may see.
    async fn plan(&self, ctx: &ToolCtx, id: Option<i64>) -> Result<Plan, ToolError> {
        let chat = &ctx.conversation.id;
        let plans: Vec<Plan> = self
            .store
            .care_plans_of_chat(chat)
            .await?
            .into_iter()
            .filter_map(Plan::read)
            .filter(|p| p.visible_in(chat))
            .collect();
        match id {
            Some(id) => plans
                .into_iter()
                .find(|p| p.row.id == id)
                .ok_or_else(|| ToolError::NotFound(format!("this chat has no care plan {id}"))),
            None if plans.len() == 1 => Ok(plans.into_iter().next().expect("one plan")),
            None if plans.is_empty() => {
                Err(ToolError::NotFound("this chat has no care plan yet".into()))
            }
            None => Err(invalid("several care plans: ask which one, by its id from show")),
        }
    }

    /// What the plan costs: the prompt and one miss, from who is a friend and the chat's size.
    async fn costs(
        &self,
        chat: &str,
        confirmer: Option<&str>,
        caregivers: &[Member],
        tells_group: bool,
    ) -> (i64, i64) {
        let group_cost = self.allowance.cost_of(chat).await;
        let prompt = match confirmer {
            Some(id) if self.allowance.is_friend(id).await => 1,
            _ => group_cost,
        };
        let mut friends = Vec::new();
        for c in caregivers {
            friends.push(self.allowance.is_friend(&c.id).await);
        }
        (prompt, cost::miss_cost(&friends, group_cost, tells_group))
    }

    async fn set(
        &self,
        ctx: &ToolCtx,
        args: &Args,
        before: Option<&Plan>,
    ) -> Result<Plan, ToolError> {
        let chat = &ctx.conversation.id;
        let person = match (&args.person, before) {
            (Some(p), _) => short(p, "person")?,
            (None, Some(b)) => b.row.person.clone(),
            (None, None) => return Err(invalid("say who is cared for (person)")),
        };
        let what = match (&args.what, before) {
            (Some(w), _) => short(w, "what")?,
            (None, Some(b)) => b.row.what.clone(),
            (None, None) => return Err(invalid("say what she takes or measures (what)")),
        };
        let times = match (&args.times, before) {
            (Some(t), _) => times_of(t)?,
            (None, Some(b)) => b.row.times.clone(),
            (None, None) => return Err(invalid("say when (times, like \"08:00\")")),
        };
        let weekdays = match (&args.days, before) {
            (Some(d), _) => weekdays_of(d)?,
            (None, Some(b)) => b.row.weekdays,
            (None, None) => 0,
        };
        let workdays = args.workdays.or(before.map(|b| b.row.workdays)).unwrap_or(false);
        let person_member = match (&args.person, before) {
            (None, Some(b)) => b.row.person_id.clone(),
            _ => self.member(ctx, &person).await?.map(|m| m.id),
        };
        let confirmer = match (&args.confirm_by, before) {
            (Some(name), _) => {
                Some(self.member(ctx, name).await?.ok_or_else(|| unknown_member(name))?)
            }
            (None, Some(b)) => b
                .row
                .confirmer_id
                .clone()
                .map(|id| Member { id, name: b.row.confirmer_name.clone().unwrap_or_default() }),
            (None, None) => self.member(ctx, &person).await?,
        };
        let caregivers = match (&args.notify, before) {
            (Some(names), _) => {
                if names.len() > MAX_CAREGIVERS {
                    return Err(invalid(format!("at most {MAX_CAREGIVERS} caregivers")));
                }
                let mut found: Vec<Member> = Vec::new();
                for name in names {
                    let m = self.member(ctx, name).await?.ok_or_else(|| unknown_member(name))?;
                    if !found.iter().any(|f| f.id == m.id) {
                        found.push(m);
                    }
                }
                found
            }
            (None, Some(b)) => b.caregivers.clone(),
            (None, None) => self.member(ctx, "我").await?.into_iter().collect(),
        };
        if caregivers.is_empty() {
            return Err(invalid("name at least one member to tell when a dose is not confirmed"));
        }
        let after = match (args.after_minutes, before) {
            (Some(m), _) => i64::from(m),
            (None, Some(b)) => b.row.after_mins,
            (None, None) => 30,
        };
        if !(5..=720).contains(&after) {
            return Err(invalid("after_minutes must be 5 to 720"));
        }
        let again = match (args.group_after_minutes, before) {
            (Some(0), _) => None,
            (Some(m), _) => Some(i64::from(m)),
            (None, Some(b)) => b.row.again_mins,
            (None, None) => Some(30),
        };
        if again.is_some_and(|m| !(5..=720).contains(&m)) {
            return Err(invalid("group_after_minutes must be 0 or 5 to 720"));
        }
        let limits = args.limits.or(before.map(|b| b.limits)).unwrap_or_default();
        let chat_of_plan = before.map_or(chat.as_str(), |b| b.row.conversation_id.as_str());
        let tells_group = again.is_some()
            && crate::platform::conversation::Conversation::from_id(chat_of_plan).is_multi_person();
        let (prompt_cost, miss_cost) = self
            .costs(
                chat_of_plan,
                confirmer.as_ref().map(|m| m.id.as_str()),
                &caregivers,
                tells_group,
            )
            .await;
        let caregivers_json = serde_json::to_string(&caregivers).unwrap_or_else(|_| "[]".into());
        let limits_json = serde_json::to_string(&limits).unwrap_or_else(|_| "{}".into());
        let tz = ctx.tz.iana_name().unwrap_or("Asia/Taipei").to_string();
        let new = NewCarePlan {
            conversation_id: chat_of_plan,
            person: &person,
            person_id: person_member.as_deref(),
            confirmer_id: confirmer.as_ref().map(|m| m.id.as_str()),
            confirmer_name: confirmer.as_ref().map(|m| m.name.as_str()),
            what: &what,
            times: &times,
            weekdays,
            workdays,
            tz: before.map_or(tz.as_str(), |b| b.row.tz.as_str()),
            lang: before.map_or(ctx.lang, |b| b.row.lang),
            caregivers: &caregivers_json,
            after_mins: after,
            again_mins: again,
            limits: &limits_json,
            prompt_cost,
            miss_cost,
            created_by: ctx.user_id.as_deref(),
            now_ms: ctx.now().as_millisecond(),
        };
        let row: Option<CarePlanRow> = match before {
            None => self.store.add_care_plan(&new).await?.map(Some).ok_or_else(|| {
                invalid(format!(
                    "this chat keeps {} care plans already; stop one first",
                    crate::store::MAX_CARE_PLANS
                ))
            })?,
            Some(b) => {
                let probe = Plan::read(CarePlanRow {
                    times: times.clone(),
                    weekdays,
                    workdays,
                    ..b.row.clone()
                });
                let next =
                    probe.and_then(|p| schedule::next_dose(&p, ctx.now(), Some(&self.calendar)));
                self.store
                    .change_care_plan(b.row.id, &new, next.map(|t| t.as_millisecond()))
                    .await?
            }
        };
        row.and_then(Plan::read).ok_or_else(|| ToolError::NotFound("that care plan is gone".into()))
    }

    async fn out(&self, plan: &Plan, ctx: &ToolCtx) -> Result<PlanOut, ToolError> {
        let now = ctx.now();
        let start = now
            .to_zoned_datetime(plan.tz.clone())
            .start_of_day()
            .map_or(0, |z| z.timestamp().as_millisecond());
        let doses = self
            .store
            .care_doses_between(plan.row.id, start, now.as_millisecond().saturating_add(1))
            .await?;
        let cost = cost::monthly(plan, now);
        let mut card = render::plan_card(plan, cost);
        if !plan.visible_in(&ctx.conversation.id) || plan.row.conversation_id != ctx.conversation.id
        {
            // Seen from a member's 1:1 chat: the buttons act on the plan's own chat.
            card.buttons.clear();
        }
        Ok(PlanOut {
            id: plan.row.id,
            status: plan.row.status.as_str(),
            person: plan.row.person.clone(),
            what: plan.row.what.clone(),
            times: plan.times.iter().map(|t| t.strftime("%H:%M").to_string()).collect(),
            confirmed_by: plan.row.confirmer_name.clone(),
            caregivers: plan.caregivers.iter().map(|c| c.name.clone()).collect(),
            after_minutes: plan.row.after_mins,
            group_after_minutes: plan.row.again_mins.filter(|_| plan.in_group()),
            messages_a_month: cost.prompts,
            messages_per_miss: cost.per_miss,
            today: doses
                .iter()
                .map(|d| (words::dose_time(plan, d.due_at, now), d.state.clone()))
                .collect(),
            card: Some(card),
        })
    }

    async fn status(
        &self,
        ctx: &ToolCtx,
        args: &Args,
        from: CareStatus,
        to: CareStatus,
    ) -> Result<Output, ToolError> {
        let plan = self.plan(ctx, args.plan).await?;
        if plan.row.conversation_id != ctx.conversation.id {
            return Err(invalid("pause or resume the plan in the chat it was set in"));
        }
        let now = ctx.now();
        let (next, report) = match to {
            CareStatus::Active => (
                schedule::next_dose(&plan, now, Some(&self.calendar)).map(|t| t.as_millisecond()),
                schedule::next_report(now, &plan.tz).map(|t| t.as_millisecond()),
            ),
            _ => (None, None),
        };
        if !self
            .store
            .set_care_status(plan.row.id, &plan.row.conversation_id, from, to, next, report)
            .await?
        {
            return Err(invalid(format!(
                "the plan is {}, not {}",
                plan.row.status.as_str(),
                from.as_str()
            )));
        }
        let plan = self.plan(ctx, Some(plan.row.id)).await?;
        Ok(Output::Plan(Box::new(self.out(&plan, ctx).await?)))
    }

    async fn reading(&self, ctx: &ToolCtx, args: &Args) -> Result<Output, ToolError> {
        let values = args.reading.ok_or_else(|| invalid("give the reading's values"))?;
        limits::check(&values).map_err(|e| invalid(e.to_string()))?;
        let plan = self.plan(ctx, args.plan).await?;
        let zh = plan.row.lang == Lang::ZhTw;
        let outside = limits::outside(&values, &plan.limits, zh);
        let joined = outside.join(if zh { "、" } else { ", " });
        self.store
            .add_care_reading(&NewReading {
                plan_id: plan.row.id,
                conversation_id: &plan.row.conversation_id,
                taken_at: ctx.now().as_millisecond(),
                systolic: values.systolic.map(i64::from),
                diastolic: values.diastolic.map(i64::from),
                pulse: values.pulse.map(i64::from),
                glucose: values.glucose.map(i64::from),
                reported_by: ctx.user_id.as_deref(),
                reporter_name: ctx.display_name.as_deref(),
                outside: (!outside.is_empty()).then_some(joined.as_str()),
            })
            .await?;
        if !outside.is_empty() {
            // Told at once: the care loop's next round is now.
            self.nudge.notify_one();
        }
        Ok(Output::Reading { kept: true, outside })
    }

    async fn report(&self, ctx: &ToolCtx, args: &Args) -> Result<Output, ToolError> {
        let plan = self.plan(ctx, args.plan).await?;
        let now = ctx.now();
        let to = now.saturating_add(jiff::SignedDuration::from_millis(1)).unwrap_or(now);
        let from = to.saturating_sub(report::SPAN).unwrap_or(to);
        let week = report::read(&self.store, &plan, from, to).await?;
        Ok(Output::Report {
            taken: week.taken,
            missed: week.missed,
            readings: week.readings,
            outside: week.outside,
            card: Some(render::report_card(&plan, &week)),
        })
    }
}

impl Tool for Care {
    const NAME: &'static str = "care";
    const DESCRIPTION: &'static str = "An elder's care plan: doses she confirms, caregivers told if not; readings (血壓 135/85 心跳 72, 血糖).";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    fn changes_state(&self, args: &Args) -> bool {
        !matches!(args.action, Action::Show | Action::Report | Action::Stop)
    }

    fn check(&self, _ctx: &ToolCtx, args: &Args) -> Result<(), ToolError> {
        if args.action == Action::Reading {
            let values = args.reading.ok_or_else(|| invalid("give the reading's values"))?;
            limits::check(&values).map_err(|e| invalid(e.to_string()))?;
        }
        if let Some(times) = &args.times {
            times_of(times)?;
        }
        if let Some(days) = &args.days {
            weekdays_of(days)?;
        }
        Ok(())
    }

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        Tool::check(self, ctx, &args)?;
        match args.action {
            Action::Set => {
                let plan = self.set(ctx, &args, None).await?;
                Ok(Output::Plan(Box::new(self.out(&plan, ctx).await?)))
            }
            Action::Change => {
                let before = self.plan(ctx, args.plan).await?;
                if before.row.conversation_id != ctx.conversation.id {
                    return Err(invalid("change the plan in the chat it was set in"));
                }
                let plan = self.set(ctx, &args, Some(&before)).await?;
                Ok(Output::Plan(Box::new(self.out(&plan, ctx).await?)))
            }
            Action::Pause => self.status(ctx, &args, CareStatus::Active, CareStatus::Paused).await,
            Action::Resume => self.status(ctx, &args, CareStatus::Paused, CareStatus::Active).await,
            Action::Stop => {
                let plan = self.plan(ctx, args.plan).await?;
                if plan.row.conversation_id != ctx.conversation.id {
                    return Err(invalid("stop the plan in the chat it was set in"));
                }
                let card = render::stop_card(&plan);
                Ok(Output::Stop { needs_tap: true, plan: plan.row.id, card: Some(card) })
            }
            Action::Show => {
                let chat = &ctx.conversation.id;
                let mut plans = Vec::new();
                for plan in
                    self.store.care_plans_of_chat(chat).await?.into_iter().filter_map(Plan::read)
                {
                    if plan.visible_in(chat) {
                        plans.push(self.out(&plan, ctx).await?);
                    }
                }
                Ok(Output::Plans { plans })
            }
            Action::Reading => self.reading(ctx, &args).await,
            Action::Report => self.report(ctx, &args).await,
        }
    }

    fn card(&self, _ctx: &ToolCtx, out: &Output) -> Option<Card> {
        match out {
            Output::Plan(p) => p.card.clone(),
            Output::Plans { plans } if plans.len() == 1 => plans[0].card.clone(),
            Output::Stop { card, .. } | Output::Report { card, .. } => card.clone(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_read_in_order_and_nonsense_is_refused() {
        assert_eq!(times_of(&["20:00".into(), "8:00".into()]).expect("times"), "08:00,20:00");
        assert!(times_of(&["早上八點".into()]).is_err());
        assert!(times_of(&[]).is_err());
    }

    #[test]
    fn days_are_monday_one_to_sunday_seven() {
        assert_eq!(weekdays_of(&[1, 3]).expect("days"), 0b101);
        assert_eq!(weekdays_of(&[7]).expect("days"), 0b100_0000);
        assert!(weekdays_of(&[0]).is_err());
        assert!(weekdays_of(&[8]).is_err());
    }
}
