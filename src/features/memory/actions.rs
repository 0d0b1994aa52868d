//! The memory buttons: 🗑 on a memory forgets it; the "forget everything" confirmation forgets
//! every memory the card covered. Both act on the conversation of the tap only, through the
//! memories' verbs ([`super::ops`]).

use serde::{Deserialize, Serialize};

use super::ops::MemoryOps;
use crate::contract::Answer;
use crate::contract::{CardButton, ToolCtx};
use crate::features::button::{Action, text};
use crate::features::deps::Deps;
use crate::platform::i18n::Lang;
use crate::platform::text::truncate_graphemes;

/// 🗑: the delete button of memory `id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ForgetMemory {
    /// The memory.
    pub id: i64,
}

/// The "forget everything" confirmation: memories up to `up_to_id`, the highest memory id when
/// the card was made, so memories added after it are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ForgetAllMemories {
    /// The highest memory id covered.
    pub up_to_id: i64,
}

impl Action for ForgetMemory {
    const NAME: &'static str = "forget_memory";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        forget_tapped(&MemoryOps::from_deps(deps), ctx, self.id).await
    }
}

impl Action for ForgetAllMemories {
    const NAME: &'static str = "forget_all_memories";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        forget_all_tapped(&MemoryOps::from_deps(deps), ctx, self.up_to_id).await
    }
}

/// The delete button of memory `id`: a postback signed for the conversation the card goes to.
pub fn delete_button(lang: Lang, id: i64, text: &str) -> CardButton {
    ForgetMemory { id }.button(
        format!("🗑 #{id} {}", truncate_graphemes(text, 12)),
        match lang {
            Lang::ZhTw => format!("🗑 忘記 #{id}"),
            Lang::En => format!("🗑 Forget #{id}"),
        },
    )
}

/// A delete button was tapped (and verified) in `ctx`'s conversation.
async fn forget_tapped(memory: &MemoryOps, ctx: &ToolCtx, id: i64) -> Answer {
    let lang = ctx.lang;
    match memory.forget(ctx, id).await {
        Ok(Some(m)) => text(&match lang {
            Lang::ZhTw => format!("好，我已經忘記 #{id}「{}」了。", m.text),
            Lang::En => format!("Done, I've forgotten #{id} \"{}\".", m.text),
        }),
        Ok(None) => text(lang.pick("這件事已經不在我的記憶裡了。", "That memory is already gone.")),
        Err(e) => {
            tracing::error!(error = %e, "could not forget a memory");
            text(crate::platform::i18n::Failure::Internal.message(lang))
        }
    }
}

/// The "forget everything" confirmation was tapped (and verified) in `ctx`'s conversation.
async fn forget_all_tapped(memory: &MemoryOps, ctx: &ToolCtx, up_to_id: i64) -> Answer {
    let lang = ctx.lang;
    match memory.forget_all(ctx, up_to_id).await {
        Ok(0) => text(lang.pick("沒有需要忘記的事了。", "There was nothing left to forget.")),
        Ok(n) => text(&match lang {
            Lang::ZhTw => format!("好，我已經忘記這個聊天室記得的 {n} 件事了。"),
            Lang::En => {
                format!("Done, I've forgotten all {n} things this chat asked me to remember.")
            }
        }),
        Err(e) => {
            tracing::error!(error = %e, "could not forget all memories");
            text(crate::platform::i18n::Failure::Internal.message(lang))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delete_buttons_carry_the_memory_id() {
        let CardButton::Postback { action, id, label, .. } =
            delete_button(Lang::ZhTw, 42, "奶奶對花生過敏，而且對蝦子也過敏")
        else {
            panic!("a postback button");
        };
        assert_eq!((action.as_str(), id.as_str()), (ForgetMemory::NAME, "42"));
        assert!(label.starts_with("🗑 #42 ") && label.chars().count() <= 20, "{label}");
    }
}
