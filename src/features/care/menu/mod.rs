//! The care menu: the rich menu LINE shows whoever a care plan asks, while a plan asks her
//! (linked by [`crate::features::richmenu::care_links`]), and its three buttons of her own.
//!
//! - **✅ 我吃藥了** confirms her open dose — the latest one asked and not yet confirmed, of the
//!   plans that ask her — through the same operation as ✅ 吃了 on the prompt.
//! - **📞 叫家人** tells her caregivers (each in their 1:1 chat, else the plan's chat) that she
//!   asked for a call, at most once per [`CALL_GAP`] across replicas.
//! - **🩺 量血壓** asks for the reading, which she (or anyone with her) then types or photographs.
//!
//! A menu is the same for everyone it is linked to, so its buttons are signed for the menu, not
//! a chat (see [`crate::line::postback::MENU_SCOPE`]): they are accepted in 1:1 chats only and
//! act for the person who taps, in her own chat. Tapped by anyone a plan does not ask, they
//! change nothing.

use jiff::SignedDuration;
use serde::{Deserialize, Serialize};

use super::actions::{others, tapped, tell};
use super::steps::{State, Tap};
use super::{Plan, Route};
use crate::contract::{Answer, ToolCtx};
use crate::features::button::{Action, text};
use crate::features::deps::Deps;
use crate::platform::i18n::Lang;
use crate::store::{CareStatus, DoseRow, StoreError};

/// The least time between two 📞 of one person that tell the family.
pub const CALL_GAP: SignedDuration = SignedDuration::from_mins(10);
/// How far back a dose still waits for ✅ 我吃藥了.
const OPEN_FOR: SignedDuration = SignedDuration::from_hours(12);

/// ✅ 我吃藥了 (the data is unused: 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CareMenuTaken {
    /// Unused; 0.
    pub unused: u8,
}

/// 📞 叫家人 (the data is unused: 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CareMenuCall {
    /// Unused; 0.
    pub unused: u8,
}

/// 🩺 量血壓 (the data is unused: 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CareMenuReading {
    /// Unused; 0.
    pub unused: u8,
}

/// The dose ✅ 我吃藥了 confirms among `doses`: the latest one due and not yet settled as taken
/// (or missed before it was ever asked).
pub fn open_dose(doses: &[DoseRow]) -> Option<&DoseRow> {
    doses
        .iter()
        .filter(|d| {
            State::parse(&d.state).is_some_and(|s| !matches!(s, State::Taken | State::Missed))
        })
        .max_by_key(|d| d.due_at)
}

fn failed(lang: Lang, e: &StoreError) -> Answer {
    tracing::error!(error = %e, "care menu: store error");
    text(
        lang.pick(
            "暫時查不到，請稍後再按一次 🙏",
            "I couldn't look that up; please tap again soon 🙏",
        ),
    )
}

/// The plans that ask the tapper, in her own 1:1 chat, with a status in `statuses`; empty
/// for anyone else, or anywhere else.
async fn her_plans(
    deps: &Deps,
    ctx: &ToolCtx,
    statuses: &[CareStatus],
) -> Result<Vec<Plan>, StoreError> {
    let Some(user) = ctx.user_id.as_deref().filter(|u| *u == ctx.conversation.id) else {
        return Ok(Vec::new());
    };
    Ok(crate::features::care::seen_from(&deps.store, &deps.door, user)
        .await?
        .into_iter()
        .filter(|plan| statuses.contains(&plan.row.status) && plan.asked() == Some(user))
        .collect())
}

impl Action for CareMenuTaken {
    const NAME: &'static str = "care_menu_taken";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        let lang = ctx.lang;
        let plans = match her_plans(deps, ctx, &[CareStatus::Active]).await {
            Ok(plans) => plans,
            Err(e) => return failed(lang, &e),
        };
        let now = ctx.now().as_millisecond();
        let from = now - i64::try_from(OPEN_FOR.as_millis()).unwrap_or(0);
        let mut doses = Vec::new();
        for plan in &plans {
            match deps.store.care().doses_between(plan.row.id, from, now + 1).await {
                Ok(found) => doses.extend(found),
                Err(e) => return failed(lang, &e),
            }
        }
        match open_dose(&doses) {
            Some(dose) => tapped(deps, ctx, dose.id, Tap::Taken).await,
            None => text(lang.pick(
                "現在沒有等你確認的藥 👍 時間到了我會再問你。",
                "Nothing is waiting for your confirmation 👍 I'll ask when it's time.",
            )),
        }
    }
}

impl Action for CareMenuCall {
    const NAME: &'static str = "care_menu_call";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        let lang = ctx.lang;
        let statuses = [CareStatus::Active, CareStatus::Paused];
        let plans = match her_plans(deps, ctx, &statuses).await {
            Ok(plans) => plans,
            Err(e) => return failed(lang, &e),
        };
        let (Some(user), Some(first)) = (ctx.user_id.as_deref(), plans.first()) else {
            return text(lang.pick(
                "這個按鈕是給照顧計畫裡的長輩用的；你目前不在任何照顧計畫裡，所以沒有通知任何人。",
                "This button is for the person a care plan looks after; no plan asks you, so nobody was told.",
            ));
        };
        let now = ctx.now();
        let since = now.saturating_sub(CALL_GAP).unwrap_or(now);
        match deps
            .store
            .menus()
            .claim_care_call(user, now.as_millisecond(), since.as_millisecond())
            .await
        {
            Ok(true) => {}
            Ok(false) => {
                return text(lang.pick(
                    "📞 剛剛已經通知家人了，請稍等他們回電 🙏",
                    "📞 The family was just told; they will call you soon 🙏",
                ));
            }
            Err(e) => return failed(lang, &e),
        }
        let line = match lang {
            Lang::ZhTw => format!("📞 {} 按了「叫家人」，請打電話給她。", first.row.person),
            Lang::En => format!(
                "📞 {} tapped \"call the family\": please give them a call.",
                first.row.person
            ),
        };
        let mut told: Vec<Route> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for plan in &plans {
            let routes: Vec<Route> = others(deps, plan, Some(user), false)
                .await
                .into_iter()
                .filter(|r| !told.contains(r))
                .collect();
            let name = format!("care:call:{user}:{}", now.as_millisecond());
            if let Err(e) = tell(deps, plan, &routes, &name, &line, now.as_millisecond()).await {
                tracing::error!(error = %e, "care menu: the family could not be told of a call");
                return failed(lang, &e);
            }
            told.extend(routes);
            for c in plan.caregivers.iter().filter(|c| c.id != user) {
                if !names.contains(&c.name) {
                    names.push(c.name.clone());
                }
            }
        }
        let separator = lang.pick("、", ", ");
        text(match lang {
            Lang::ZhTw => format!("📞 已經通知 {}，請稍等他們打給你。", names.join(separator)),
            Lang::En => format!("📞 {} were told; they will call you soon.", names.join(separator)),
        })
    }
}

impl Action for CareMenuReading {
    const NAME: &'static str = "care_menu_reading";

    async fn run(self, _deps: &Deps, ctx: &ToolCtx) -> Answer {
        text(ctx.lang.pick(
            "🩺 量好血壓後，請直接打給我，例如「血壓 135/85 心跳 72」，也可以拍血壓計的螢幕傳給我。",
            "🩺 When you have measured it, type it to me, like \"blood pressure 135/85 pulse 72\", or send a photo of the monitor.",
        ))
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
