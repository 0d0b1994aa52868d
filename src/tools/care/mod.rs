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

mod answers;
mod setting;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Card, Tool, ToolCtx, ToolError};
use crate::features::care::cost;
use crate::features::care::limits::{self, Limits, Reading};
use crate::features::care::ops::{CareOps, DoseOutcome, Kept};
use crate::features::care::steps::Refusal;
use crate::features::care::{
    CarePlanRow, CareStatus, Member, NewCarePlan, Plan, render, report, schedule, words,
};
use crate::features::richmenu::ops::care_plans::CarePlans;
use crate::platform::i18n::Lang;
use crate::platform::text::grapheme_len;
use crate::push::quota::QuotaTracker;
use crate::sources::calendar::WorkCalendar;

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
    /// A dose was taken (said in words).
    Taken,
}

/// Arguments of `care`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// What to do.
    #[schemars(description = "show: the plans; report: the week")]
    pub action: Action,
    /// The plan's id; null: the only plan, or the one for `person`.
    #[schemars(description = "id; null: the only one, or person's")]
    pub plan: Option<i64>,
    /// Who is cared for (阿嬤).
    #[schemars(description = "阿嬤")]
    pub person: Option<String>,
    /// Medicine or measurement (血壓藥).
    #[schemars(description = "血壓藥")]
    pub what: Option<String>,
    /// "HH:MM" each; taken: which dose (null: the one waiting).
    #[schemars(description = "HH:MM")]
    pub times: Option<Vec<String>>,
    /// 1 = Monday … 7 = Sunday; null: every day.
    #[schemars(description = "1-7 (Mon-Sun); null: daily")]
    pub days: Option<Vec<u8>>,
    /// Only on Taiwan's workdays.
    #[schemars(description = "Taiwan workdays only")]
    pub workdays: Option<bool>,
    /// The member who confirms each dose; null: the person, if she is a member.
    #[schemars(extend("x-group-only" = true), description = "member; null: person")]
    pub confirm_by: Option<String>,
    /// Members told when a dose is not confirmed; 我 = the asker; null: the asker.
    #[schemars(extend("x-group-only" = true), description = "members told if unconfirmed; 我=asker")]
    pub notify: Option<Vec<String>>,
    /// Minutes before they are told; null: 30.
    #[schemars(description = "then caregivers told; null: 30")]
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
    /// taken: what a dose said taken in words came to.
    Dose {
        /// taken (recorded now), already_taken, already_handled (someone is on it),
        /// nothing_waiting (no dose waits: nothing recorded, nobody told), changed (try again).
        status: &'static str,
        /// Whose dose.
        person: Option<String>,
        /// Of what.
        what: Option<String>,
        /// Its time.
        time: Option<String>,
        /// Who confirmed it, when it was already.
        by: Option<String>,
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
    /// Changes plans, the care menu following.
    plans: CarePlans,
    /// The month's quota: what a plan costs.
    quota: QuotaTracker,
    calendar: WorkCalendar,
    /// The care plans' operations: the plans a chat sees, doses (the same verbs the buttons and
    /// the menu call), readings, the week.
    ops: CareOps,
}

fn invalid(message: impl Into<String>) -> ToolError {
    ToolError::InvalidArgs(message.into())
}

impl Care {
    /// The tool over the care plans' operations, changing plans through `plans`, with the
    /// quota's bookkeeping (costs, friends) and the calendar.
    pub fn new(
        ops: CareOps,
        plans: CarePlans,
        quota: QuotaTracker,
        calendar: WorkCalendar,
    ) -> Self {
        Self { plans, quota, calendar, ops }
    }

    /// The plan `id` this chat may see; without an id, the only one, or among several the only
    /// one for `person` (「阿嬤血壓 135/85」 with a plan for 阿嬤 and one for 阿公).
    async fn plan(
        &self,
        ctx: &ToolCtx,
        id: Option<i64>,
        person: Option<&str>,
    ) -> Result<Plan, ToolError> {
        let plans = self.ops.plans_seen(ctx).await?;
        if let Some(id) = id {
            return plans
                .into_iter()
                .find(|p| p.row.id == id)
                .ok_or_else(|| ToolError::NotFound(format!("this chat has no care plan {id}")));
        }
        let mut all = plans.iter();
        match (all.next(), all.next()) {
            (Some(only), None) => return Ok(only.clone()),
            (None, _) => return Err(ToolError::NotFound("this chat has no care plan yet".into())),
            _ => {}
        }
        let person = person.map(str::trim).filter(|p| !p.is_empty());
        let mut theirs = plans.into_iter().filter(|p| person == Some(p.row.person.trim()));
        match (theirs.next(), theirs.next()) {
            (Some(only), None) => Ok(only),
            _ => Err(invalid("several care plans: ask which one, by its id from show")),
        }
    }
}

impl Tool for Care {
    const NAME: &'static str = "care";
    const DESCRIPTION: &'static str = "An elder's care plan: doses she confirms (taken: 我吃藥了), caregivers told if not; readings (血壓 135/85 心跳 72, 血糖).";
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
            setting::times_of(times)?;
        }
        if let Some(days) = &args.days {
            setting::weekdays_of(days)?;
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
                let before = self.plan(ctx, args.plan, args.person.as_deref()).await?;
                if before.row.conversation_id != ctx.conversation.id {
                    return Err(invalid("change the plan in the chat it was set in"));
                }
                let plan = self.set(ctx, &args, Some(&before)).await?;
                Ok(Output::Plan(Box::new(self.out(&plan, ctx).await?)))
            }
            Action::Pause => self.status(ctx, &args, CareStatus::Active, CareStatus::Paused).await,
            Action::Resume => self.status(ctx, &args, CareStatus::Paused, CareStatus::Active).await,
            Action::Stop => {
                let plan = self.plan(ctx, args.plan, args.person.as_deref()).await?;
                if plan.row.conversation_id != ctx.conversation.id {
                    return Err(invalid("stop the plan in the chat it was set in"));
                }
                let card = render::stop_card(&plan);
                Ok(Output::Stop { needs_tap: true, plan: plan.row.id, card: Some(card) })
            }
            Action::Show => {
                let mut plans = Vec::new();
                for plan in self.ops.plans_seen(ctx).await? {
                    plans.push(self.out(&plan, ctx).await?);
                }
                Ok(Output::Plans { plans })
            }
            Action::Reading => self.reading(ctx, &args).await,
            Action::Report => self.report(ctx, &args).await,
            Action::Taken => self.taken(ctx, &args).await,
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
