//! The care menu: the rich menu LINE shows whoever a care plan asks, while a plan asks her
//! (linked by [`crate::features::richmenu::ops::care_links`]), and its three buttons of her own.
//!
//! - **✅ 我吃藥了** confirms her open dose — the latest one asked and not yet confirmed, of the
//!   plans that ask her — through the same verb as ✅ 吃了 on the prompt and 「我吃藥了」 in
//!   words ([`super::ops::CareOps::confirm_open`]).
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

use super::Route;
use super::actions::answer;
use super::ops::CareOps;
use crate::contract::{Answer, ToolCtx};
use crate::features::button::{Action, text};
use crate::features::deps::Deps;
use crate::platform::i18n::Lang;
use crate::store::{CareStatus, StoreError};

/// The least time between two 📞 of one person that tell the family.
pub const CALL_GAP: SignedDuration = SignedDuration::from_mins(10);
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

fn failed(lang: Lang, e: &StoreError) -> Answer {
    tracing::error!(error = %e, "care menu: store error");
    text(
        lang.pick(
            "暫時查不到，請稍後再按一次 🙏",
            "I couldn't look that up; please tap again soon 🙏",
        ),
    )
}

impl Action for CareMenuTaken {
    const NAME: &'static str = "care_menu_taken";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        let lang = ctx.lang;
        let care = CareOps::from_deps(deps);
        let confirmed = match care.plans_asking(ctx, &[CareStatus::Active]).await {
            Ok(plans) => care.confirm_open(ctx, &plans, None).await,
            Err(e) => Err(e),
        };
        match confirmed {
            Ok(outcome) => answer(lang, &outcome),
            Err(e) => failed(lang, &e),
        }
    }
}

impl Action for CareMenuCall {
    const NAME: &'static str = "care_menu_call";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        let lang = ctx.lang;
        let statuses = [CareStatus::Active, CareStatus::Paused];
        let care = CareOps::from_deps(deps);
        let plans = match care.plans_asking(ctx, &statuses).await {
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
        match care.claim_call(ctx, user, CALL_GAP).await {
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
            let routes: Vec<Route> = care
                .others(plan, Some(user), false)
                .await
                .into_iter()
                .filter(|r| !told.contains(r))
                .collect();
            let name = format!("care:call:{user}:{}", now.as_millisecond());
            if let Err(e) = care.tell(plan, &routes, &name, &line, now.as_millisecond()).await {
                tracing::error!(error = %e, "care menu: the family could not be told of a call");
                return failed(lang, &e);
            }
            told.extend(routes);
            for c in care.reached(plan).await.iter().filter(|c| c.id != user) {
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
