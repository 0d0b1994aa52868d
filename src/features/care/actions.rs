//! The buttons of care messages: ✅ 吃了 / 她吃了, ⏰ 等一下, 我來打電話 on a dose, ✅ 開始 on a
//! plan's card, 🛑 停止並刪除紀錄 (the confirm step of stopping a plan). A tap counts only in one
//! of the plan's chats (the postback is signed for the chat it was sent to, and the plan must be
//! visible there). The dose verbs are [`super::ops`]'s, the same the menu and the `care` tool
//! call; these only render what they come to.

use super::ops::{CareOps, DoseOutcome};
use super::steps::{Refusal, Tap};
pub use super::taps::{CareLater, CareOnIt, CareStart, CareStop, CareTaken};
use super::{schedule, words};
use crate::contract::{Answer, ToolCtx};
use crate::features::button::{Action, text};
use crate::features::deps::Deps;
use crate::platform::i18n::Lang;
use crate::store::{CareStatus, StoreError};

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

/// Carries out `tap` on dose `id` through the one verb ([`super::ops::CareOps::tap`]) and
/// answers.
async fn tapped(deps: &Deps, ctx: &ToolCtx, id: i64, tap: Tap) -> Answer {
    match CareOps::from_deps(deps).tap(ctx, id, tap).await {
        Ok(outcome) => answer(ctx.lang, &outcome),
        Err(e) => failed(ctx.lang, &e),
    }
}

/// What the member who tapped (or asked in words) is told of `outcome`.
pub fn answer(lang: Lang, outcome: &DoseOutcome) -> Answer {
    let (plan, tap, when) = match outcome {
        DoseOutcome::Moved { plan, tap, when, .. } => (plan, *tap, when),
        DoseOutcome::Refused { refusal, by } => return refused(lang, *refusal, by),
        DoseOutcome::Gone => return gone(lang),
        DoseOutcome::NothingOpen => {
            return text(lang.pick(
                "現在沒有等你確認的藥 👍 時間到了我會再問你。",
                "Nothing is waiting for your confirmation 👍 I'll ask when it's time.",
            ));
        }
        DoseOutcome::Raced => {
            return text(
                lang.pick("剛剛有變動，請再按一次。", "It just changed; please tap again."),
            );
        }
    };
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

fn refused(lang: Lang, refusal: Refusal, by: &str) -> Answer {
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
        let plan = match CareOps::from_deps(deps).plan_here(ctx, self.plan).await {
            Ok(Some(plan)) => plan,
            Ok(None) => return gone(lang),
            Err(e) => return failed(lang, &e),
        };
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
