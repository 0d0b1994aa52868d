//! The buttons of care messages: ✅ 吃了 / 她吃了, ⏰ 等一下, 我來打電話 on a dose, ✅ 開始 on a
//! plan's card, 🛑 停止並刪除紀錄 (the confirm step of stopping a plan). A tap counts only in one
//! of the plan's chats (the postback is signed for the chat it was sent to, and the plan must be
//! visible there); the dose moves only from the state it was read in, so two taps at once
//! settle it once. What the others are told after a tap is recorded in the outbox under its own
//! retry key and pushed once.

use serde::{Deserialize, Serialize};

use super::steps::{self, Refusal, State, Tap};
use super::{Plan, Route, schedule, words};
use crate::contract::{Answer, ToolCtx};
use crate::features::button::{Action, text};
use crate::features::deps::Deps;
use crate::platform::i18n::Lang;
use crate::push::delivery::{kind_name, occurrence_key};
use crate::push::quiet::PushKind;
use crate::store::{CareStatus, DoseRow, NewOutboxItem, StoreError};

/// ✅ 吃了 (the one asked) or 她吃了 (a caregiver): dose `dose` was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CareTaken {
    /// The dose.
    pub dose: i64,
}

/// ⏰ 等一下: ask again in 20 minutes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CareLater {
    /// The dose.
    pub dose: i64,
}

/// 我來打電話: the tapper takes it in hand; nobody else is told more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CareOnIt {
    /// The dose.
    pub dose: i64,
}

/// ✅ 開始 on a draft plan's card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CareStart {
    /// The plan.
    pub plan: i64,
}

/// 🛑 停止並刪除紀錄: stop the plan and delete its doses and readings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CareStop {
    /// The plan.
    pub plan: i64,
}

fn gone(lang: Lang) -> Answer {
    text(lang.pick("這個照顧計畫已經不在了。", "That care plan no longer exists."))
}

fn failed(lang: Lang, e: &StoreError) -> Answer {
    tracing::error!(error = %e, "care button: store error");
    text(lang.pick(
        "暫時記不下來，請稍後再按一次 🙏",
        "I couldn't save that; please tap again in a moment 🙏",
    ))
}

/// The dose and its plan, when the tap's chat may act on them.
async fn dose_here(
    deps: &Deps,
    ctx: &ToolCtx,
    id: i64,
) -> Result<Option<(DoseRow, Plan)>, StoreError> {
    let Some(dose) = deps.store.care().dose(id).await? else { return Ok(None) };
    let Some(plan) = deps.store.care().plan(dose.plan_id).await?.and_then(Plan::read) else {
        return Ok(None);
    };
    let seen = super::may_see(&deps.door, &ctx.conversation.id, &plan).await?;
    Ok(seen.then_some((dose, plan)))
}

/// The tapper's name as the others read it.
fn tapper(ctx: &ToolCtx) -> String {
    ctx.display_name.clone().unwrap_or_else(|| ctx.lang.pick("家人", "Someone").to_string())
}

/// Where the others hear of a tap: each caregiver but the tapper in their 1:1 chat, or the
/// plan's chat once for all who have none; the plan's chat too when it was told already.
pub(super) async fn others(
    deps: &Deps,
    plan: &Plan,
    tapper: Option<&str>,
    group_told: bool,
) -> Vec<Route> {
    let mut routes: Vec<Route> = Vec::new();
    for c in plan.caregivers.iter().filter(|c| Some(c.id.as_str()) != tapper) {
        let friend = deps.quota.is_friend(&c.id).await;
        let route = super::route(Some(&c.id), friend, &plan.row.conversation_id);
        let route = Route { mention: None, ..route };
        if !routes.contains(&route) && Some(route.to.as_str()) != tapper {
            routes.push(route);
        }
    }
    let group = Route { to: plan.row.conversation_id.clone(), mention: None };
    if group_told && plan.in_group() && !routes.contains(&group) {
        routes.push(group);
    }
    routes
}

/// Records `line` for each of `routes` in the outbox (pushed by the outbox's next round), each
/// under a retry key of `name` and its chat.
pub(super) async fn tell(
    deps: &Deps,
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
    let items: Vec<NewOutboxItem<'_>> = keyed
        .iter()
        .map(|(to, key, payload)| NewOutboxItem {
            conversation_id: &plan.row.conversation_id,
            target: to,
            kind: kind_name(PushKind::Care),
            occurrence: key,
            payload,
            silent: false,
            due_at: now_ms,
        })
        .collect();
    deps.store.outbox().record(&items, now_ms).await
}

/// Carries out `tap` on dose `id`.
pub(super) async fn tapped(deps: &Deps, ctx: &ToolCtx, id: i64, tap: Tap) -> Answer {
    let lang = ctx.lang;
    let (dose, plan) = match dose_here(deps, ctx, id).await {
        Ok(Some(found)) => found,
        Ok(None) => return gone(lang),
        Err(e) => return failed(lang, &e),
    };
    let now = ctx.now();
    let Some(state) = State::parse(&dose.state) else { return gone(lang) };
    let moved = match steps::tap(state, dose.prompts, tap, now.as_millisecond()) {
        Ok(moved) => moved,
        Err(refusal) => return refused(lang, refusal, &dose),
    };
    let by = tapper(ctx);
    let settles = tap != Tap::Later;
    match deps
        .store
        .care()
        .settle_dose(
            &dose,
            moved.0.as_str(),
            moved.1,
            now.as_millisecond(),
            settles.then_some(by.as_str()),
        )
        .await
    {
        Ok(true) => {}
        Ok(false) => {
            // Another tap (or the watcher) moved it first: answer from where it is now.
            return match deps.store.care().dose(id).await {
                Ok(Some(d)) if d.state == "taken" => refused(lang, Refusal::AlreadyTaken, &d),
                Ok(Some(d)) if d.state == "handled" => refused(lang, Refusal::AlreadyHandled, &d),
                _ => text(
                    lang.pick("剛剛有變動，請再按一次。", "It just changed; please tap again."),
                ),
            };
        }
        Err(e) => return failed(lang, &e),
    }
    let when = words::dose_time(&plan, dose.due_at, now);
    let told = match tap {
        Tap::Taken if state.escalated() => {
            let routes =
                others(deps, &plan, ctx.user_id.as_deref(), state == State::GroupTold).await;
            let line = words::taken_line(&plan, &dose, &by, now);
            tell(
                deps,
                &plan,
                &routes,
                &format!("care:{}:taken", dose.id),
                &line,
                now.as_millisecond(),
            )
            .await
        }
        Tap::OnIt => {
            let routes =
                others(deps, &plan, ctx.user_id.as_deref(), state == State::GroupTold).await;
            let line = words::on_it_line(&plan, &dose, &by, now);
            tell(
                deps,
                &plan,
                &routes,
                &format!("care:{}:on-it", dose.id),
                &line,
                now.as_millisecond(),
            )
            .await
        }
        _ => Ok(()),
    };
    if let Err(e) = told {
        tracing::error!(error = %e, dose = dose.id, "care button: the others could not be told");
    }
    text(match (tap, lang) {
        (Tap::Taken, Lang::ZhTw) => format!("✅ 記下了：{when} 的{}吃了。謝謝！", plan.row.what),
        (Tap::Taken, Lang::En) => {
            format!("✅ Noted: the {} of {when} was taken. Thank you!", plan.row.what)
        }
        (Tap::Later, Lang::ZhTw) => "⏰ 好，20 分鐘後再問一次。".to_string(),
        (Tap::Later, Lang::En) => "⏰ OK, I'll ask again in 20 minutes.".to_string(),
        (Tap::OnIt, Lang::ZhTw) => format!("📞 好，交給你了。其他人不會再收到 {when} 這次的通知。"),
        (Tap::OnIt, Lang::En) => {
            format!("📞 Thanks. Nobody else will be told about the {when} dose.")
        }
    })
}

fn refused(lang: Lang, refusal: Refusal, dose: &DoseRow) -> Answer {
    let by = dose.settled_by.clone().unwrap_or_default();
    text(match (refusal, lang) {
        (Refusal::AlreadyTaken, Lang::ZhTw) => format!("這次已經確認吃了（{by}）👍"),
        (Refusal::AlreadyTaken, Lang::En) => format!("That one was already confirmed ({by}) 👍"),
        (Refusal::AlreadyHandled, Lang::ZhTw) => format!("{by} 已經在處理了。"),
        (Refusal::AlreadyHandled, Lang::En) => format!("{by} is already on it."),
        (Refusal::TooLate, Lang::ZhTw) => "已經通知家人了；吃了請按「✅ 吃了」。".to_string(),
        (Refusal::TooLate, Lang::En) => {
            "The family has been told; tap ✅ once it is taken.".to_string()
        }
    })
}

impl Action for CareTaken {
    const NAME: &'static str = "care_taken";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        tapped(deps, ctx, self.dose, Tap::Taken).await
    }
}

impl Action for CareLater {
    const NAME: &'static str = "care_later";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        tapped(deps, ctx, self.dose, Tap::Later).await
    }
}

impl Action for CareOnIt {
    const NAME: &'static str = "care_on_it";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        tapped(deps, ctx, self.dose, Tap::OnIt).await
    }
}

impl Action for CareStart {
    const NAME: &'static str = "care_start";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        let lang = ctx.lang;
        let chat = &ctx.conversation.id;
        let plan = match deps.store.care().plan(self.plan).await {
            Ok(Some(row)) if &row.conversation_id == chat => Plan::read(row),
            Ok(_) => return gone(lang),
            Err(e) => return failed(lang, &e),
        };
        let Some(plan) = plan else { return gone(lang) };
        let now = ctx.now();
        let next = schedule::next_dose(&plan, now, Some(&deps.work_calendar));
        let report = schedule::next_report(now, &plan.tz);
        let ms = |t: Option<jiff::Timestamp>| t.map(|t| t.as_millisecond());
        match deps
            .care_plans
            .set_status(
                plan.row.id,
                chat,
                (CareStatus::Draft, CareStatus::Active),
                ms(next),
                ms(report),
            )
            .await
        {
            Ok(true) => {}
            Ok(false) => {
                return text(
                    lang.pick("這個照顧計畫已經開始了。", "That care plan is already running."),
                );
            }
            Err(e) => return failed(lang, &e),
        }
        let first =
            next.map(|t| words::dose_time(&plan, t.as_millisecond(), now)).unwrap_or_default();
        text(match lang {
            Lang::ZhTw => format!("✅ 照顧計畫開始了。下一次：{first} {}", plan.row.what),
            Lang::En => format!("✅ The care plan is running. Next: {} at {first}", plan.row.what),
        })
    }
}

impl Action for CareStop {
    const NAME: &'static str = "care_stop";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        let lang = ctx.lang;
        match deps.care_plans.stop(self.plan, &ctx.conversation.id).await {
            Ok(true) => text(lang.pick(
                "🛑 照顧計畫停止了，它的服藥與量測紀錄都刪除了。",
                "🛑 The care plan is stopped and its doses and readings are deleted.",
            )),
            Ok(false) => gone(lang),
            Err(e) => failed(lang, &e),
        }
    }
}
