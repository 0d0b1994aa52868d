//! What a verified button tap does. The data was checked against the conversation of the tap (see
//! [`crate::postback`]); each feature's actions act on that conversation only.

use crate::alerts;
use crate::app::Hearth;
use crate::confirm;
use crate::i18n::Lang;
use crate::llm::agent::Answer;
use crate::postback::Postback;
use crate::reminders;
use crate::tool::ToolCtx;
use crate::tools::forget;

/// Carries out a verified postback and says what happened.
pub async fn handle(app: &Hearth, ctx: &ToolCtx, postback: &Postback) -> Answer {
    tracing::info!(action = postback.action, conversation = %ctx.conversation, "button tapped");
    let id = postback.id.as_str();
    let text = match postback.action.as_str() {
        "cancel_reminder" => reminders::actions::cancel(app, ctx, id).await,
        "reminder_done" => reminders::actions::done(app, ctx, id).await,
        "reminder_snooze" => reminders::actions::snooze(app, ctx, id).await,
        alerts::render::CANCEL_ACTION => alerts::actions::cancel(app, ctx, id).await,
        alerts::render::MUTE_ACTION => alerts::actions::mute(app, ctx, id).await,
        forget::FORGET_MEMORY => return forget::forget_tapped(&app.store, ctx, id).await,
        forget::FORGET_ALL => return forget::forget_all_tapped(&app.store, ctx, id).await,
        confirm::CONFIRM_CALL => return confirm::confirm_tapped(app, ctx, id).await,
        confirm::DISCARD_CALL => return confirm::discard_tapped(&app.store, ctx, id).await,
        _ => ctx.lang.pick("這個按鈕已經失效了。", "This button no longer works.").to_string(),
    };
    Answer { text, ..Answer::default() }
}

/// The polite answer to a button that does not belong to this conversation (or was forged).
pub fn refusal(lang: Lang) -> &'static str {
    lang.pick(
        "這個按鈕不屬於這個聊天室，所以我沒有做任何變更 🙏",
        "That button belongs to another chat, so I didn't change anything 🙏",
    )
}
