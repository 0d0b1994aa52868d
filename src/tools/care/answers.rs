//! `care`'s answers: a plan as the model reads it (with today's doses and its card), pause and
//! resume, a reading kept against the plan's limits, and the week so far.

use super::*;

impl Care {
    pub(super) async fn out(&self, plan: &Plan, ctx: &ToolCtx) -> Result<PlanOut, ToolError> {
        let now = ctx.now();
        let start = now
            .to_zoned_datetime(plan.tz.clone())
            .start_of_day()
            .map_or(0, |z| z.timestamp().as_millisecond());
        let doses =
            self.ops.doses_between(plan, start, now.as_millisecond().saturating_add(1)).await?;
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

    pub(super) async fn status(
        &self,
        ctx: &ToolCtx,
        args: &Args,
        from: CareStatus,
        to: CareStatus,
    ) -> Result<Output, ToolError> {
        let plan = self.plan(ctx, args.plan, args.person.as_deref()).await?;
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
            .plans
            .set_status(plan.row.id, &plan.row.conversation_id, (from, to), next, report)
            .await?
        {
            return Err(invalid(format!(
                "the plan is {}, not {}",
                plan.row.status.as_str(),
                from.as_str()
            )));
        }
        let plan = self.plan(ctx, Some(plan.row.id), None).await?;
        Ok(Output::Plan(Box::new(self.out(&plan, ctx).await?)))
    }

    pub(super) async fn reading(&self, ctx: &ToolCtx, args: &Args) -> Result<Output, ToolError> {
        let values = args.reading.ok_or_else(|| invalid("give the reading's values"))?;
        limits::check(&values).map_err(|e| invalid(e.to_string()))?;
        let plan = self.plan(ctx, args.plan, args.person.as_deref()).await?;
        let zh = plan.row.lang == Lang::ZhTw;
        let outside = limits::outside(&values, &plan.limits, zh);
        let joined = outside.join(if zh { "、" } else { ", " });
        let outside_text = (!outside.is_empty()).then_some(joined.as_str());
        self.ops.keep_reading(ctx, &plan, Kept { values, outside: outside_text }).await?;
        Ok(Output::Reading { kept: true, outside })
    }

    pub(super) async fn report(&self, ctx: &ToolCtx, args: &Args) -> Result<Output, ToolError> {
        let plan = self.plan(ctx, args.plan, args.person.as_deref()).await?;
        let now = ctx.now();
        let to = now.saturating_add(jiff::SignedDuration::from_millis(1)).unwrap_or(now);
        let from = to.saturating_sub(report::SPAN).unwrap_or(to);
        let week = self.ops.week(&plan, from, to).await?;
        Ok(Output::Report {
            taken: week.taken,
            missed: week.missed,
            readings: week.readings,
            outside: week.outside,
            card: Some(render::report_card(&plan, &week)),
        })
    }

    /// A dose said taken in words: the plan named (by id or person), else those that ask the
    /// speaker, else the chat's only one; the dose at `times[0]`, else the one waiting. The
    /// same verb as ✅ 吃了: once only, and the others told only where the dose was escalated.
    pub(super) async fn taken(&self, ctx: &ToolCtx, args: &Args) -> Result<Output, ToolError> {
        let named =
            args.plan.is_some() || args.person.as_deref().is_some_and(|p| !p.trim().is_empty());
        let plans = if named {
            vec![self.plan(ctx, args.plan, args.person.as_deref()).await?]
        } else {
            let seen = self.ops.plans_seen(ctx).await?;
            let asking: Vec<Plan> =
                seen.iter().filter(|p| p.asked() == ctx.user_id.as_deref()).cloned().collect();
            match (asking.is_empty(), seen.len()) {
                (false, _) => asking,
                (true, 1) => seen,
                (true, 0) => {
                    return Err(ToolError::NotFound("this chat has no care plan yet".into()));
                }
                _ => return Err(invalid("several care plans: ask whose dose, or pass person")),
            }
        };
        let at = match args.times.as_deref() {
            Some([time, ..]) => Some(
                crate::platform::clock::parse_local_time(time.trim())
                    .map_err(|_| invalid("times must be \"HH:MM\", like \"08:00\""))?,
            ),
            _ => None,
        };
        let outcome = self.ops.confirm_open(ctx, &plans, at).await?;
        let (status, by) = match &outcome {
            DoseOutcome::Moved { .. } => ("taken", None),
            DoseOutcome::Refused { refusal: Refusal::AlreadyHandled, by } => {
                ("already_handled", Some(by.clone()))
            }
            DoseOutcome::Refused { by, .. } => ("already_taken", Some(by.clone())),
            DoseOutcome::NothingOpen | DoseOutcome::Gone => ("nothing_waiting", None),
            DoseOutcome::Raced => ("changed", None),
        };
        let (person, what, time) = match &outcome {
            DoseOutcome::Moved { plan, when, .. } => {
                (Some(plan.row.person.clone()), Some(plan.row.what.clone()), Some(when.clone()))
            }
            _ => (plans.first().map(|p| p.row.person.clone()), None, None),
        };
        Ok(Output::Dose { status, person, what, time, by })
    }
}
