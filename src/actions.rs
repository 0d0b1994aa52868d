//! What a verified button tap does. The data was checked against the conversation of the tap (see
//! [`crate::postback`]); each feature's actions act on that conversation only.

use std::sync::Arc;

use crate::app::Hearth;
use crate::i18n::Lang;
use crate::llm::agent::Answer;
use crate::postback::Postback;
use crate::tool::ToolCtx;
use crate::tools::forget;

/// Carries out a verified postback and says what happened.
pub async fn handle(app: &Arc<Hearth>, ctx: &ToolCtx, postback: &Postback) -> Answer {
    tracing::info!(action = postback.action, conversation = %ctx.conversation, "button tapped");
    // Each feature's actions are matched here; anything else is a button from an older version.
    match postback.action.as_str() {
        forget::FORGET_MEMORY => forget::forget_tapped(&app.store, ctx, &postback.id).await,
        forget::FORGET_ALL => forget::forget_all_tapped(&app.store, ctx, &postback.id).await,
        _ => {
            let text = ctx.lang.pick("這個按鈕已經失效了。", "This button no longer works.");
            Answer { text: text.to_string(), ..Answer::default() }
        }
    }
}

/// The polite answer to a button that does not belong to this conversation (or was forged).
pub fn refusal(lang: Lang) -> &'static str {
    lang.pick(
        "這個按鈕不屬於這個聊天室，所以我沒有做任何變更 🙏",
        "That button belongs to another chat, so I didn't change anything 🙏",
    )
}
