//! `care`'s `set` and `change`: a plan from what the family said — its times, days, who
//! confirms and who is told (members of this chat by name, 「我」 the asker), its timing and
//! limits — with what it costs of the month's quota; a change keeps what was not said.

use super::*;

fn short(text: &str, what: &str) -> Result<String, ToolError> {
    let text = text.trim();
    if text.is_empty() || grapheme_len(text) > MAX_NAME {
        return Err(invalid(format!("{what} must be 1 to {MAX_NAME} characters")));
    }
    Ok(text.to_string())
}

/// "08:00" → `08:00`; a list of them → `08:00,20:00`.
pub(super) fn times_of(times: &[String]) -> Result<String, ToolError> {
    if times.is_empty() || times.len() > MAX_TIMES {
        return Err(invalid(format!("give 1 to {MAX_TIMES} times, like \"08:00\"")));
    }
    let joined = times.iter().map(|t| t.trim()).collect::<Vec<_>>().join(",");
    let parsed = crate::features::care::parse_times(&joined)
        .ok_or_else(|| invalid("times must be \"HH:MM\", like \"08:00\" and \"20:00\""))?;
    Ok(parsed.iter().map(|t| t.strftime("%H:%M").to_string()).collect::<Vec<_>>().join(","))
}

pub(super) fn weekdays_of(days: &[u8]) -> Result<i64, ToolError> {
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

/// Why a care plan set in a 1:1 chat cannot have `name` confirm or be told.
fn only_the_asker_here(name: &str) -> ToolError {
    invalid(format!(
        "in a 1:1 chat a care plan can ask and tell only the person speaking: to have {name} confirm or be told, set the plan in the family group, where hearth can @mention them"
    ))
}

impl Care {
    /// The member called `name` who confirms doses or is told of a missed one: in a 1:1 chat
    /// only the asker (anyone else is refused with the way to do it), else a member the group
    /// knows.
    async fn caregiver(&self, ctx: &ToolCtx, name: &str) -> Result<Member, ToolError> {
        if !ctx.conversation.is_multi_person() && !is_me(name) {
            return Err(only_the_asker_here(name));
        }
        self.member(ctx, name).await?.ok_or_else(|| unknown_member(name))
    }

    /// The member called `name` in this chat (the asker for 我).
    pub(super) async fn member(
        &self,
        ctx: &ToolCtx,
        name: &str,
    ) -> Result<Option<Member>, ToolError> {
        if is_me(name) {
            return Ok(ctx.user_id.clone().map(|id| Member {
                id,
                name: ctx.display_name.clone().unwrap_or_else(|| name.to_string()),
            }));
        }
        if !ctx.conversation.is_multi_person() {
            return Ok(None);
        }
        let found = self.ops.member_named(ctx, name.trim().trim_start_matches('@')).await?;
        Ok(found.map(|(id, name)| Member { id, name }))
    }
    /// What the plan costs: the prompt and one miss, from who is a friend and the chat's size.
    pub(super) async fn costs(
        &self,
        chat: &str,
        confirmer: Option<&str>,
        caregivers: &[Member],
        tells_group: bool,
    ) -> (i64, i64) {
        let group_cost = self.quota.cost_of(chat).await;
        let prompt = match confirmer {
            Some(id) if self.quota.is_friend(id).await => 1,
            _ => group_cost,
        };
        let mut friends = Vec::new();
        for c in caregivers {
            friends.push(self.quota.is_friend(&c.id).await);
        }
        (prompt, cost::miss_cost(&friends, group_cost, tells_group))
    }

    pub(super) async fn set(
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
            (Some(name), _) => Some(self.caregiver(ctx, name).await?),
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
                    let m = self.caregiver(ctx, name).await?;
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
            None => self.ops.add_plan(ctx, &new).await?.map(Some).ok_or_else(|| {
                invalid(format!(
                    "this chat keeps {} care plans already; stop one first",
                    crate::features::care::MAX_CARE_PLANS
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
                self.plans.change(b.row.id, &new, next.map(|t| t.as_millisecond())).await?
            }
        };
        row.and_then(Plan::read).ok_or_else(|| ToolError::NotFound("that care plan is gone".into()))
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
