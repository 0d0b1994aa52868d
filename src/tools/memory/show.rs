//! `memory` with `action: "show"`: what this conversation asked hearth to remember ("你記得什麼？"),
//! as a card with a delete button for each memory shown (a postback signed for this
//! conversation). Read only; deleting happens on a tap, by
//! [`crate::features::memory::actions::ForgetMemory`].

use serde::Serialize;

use crate::contract::list::{Keep, ListCard};
use crate::contract::{Card, CardButton, ToolCtx, ToolError};
use crate::features::memory::actions::delete_button;
use crate::features::memory::ops::MemoryOps;
use crate::features::memory::{MemoryView, memory_row};
use crate::platform::i18n::Lang;

/// The most memories given to the LLM (the newest).
const MAX_LISTED: usize = 50;
/// The most memories on the card (the newest), each with its delete button.
pub const MAX_ON_CARD: usize = 10;

/// The result of `show`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// How many memories this chat has.
    pub count: usize,
    /// The newest of them (at most 50), oldest first.
    pub memories: Vec<MemoryView>,
    /// How to use this.
    pub note: &'static str,
}

/// The `show` action.
pub struct ShowMemories {
    ops: MemoryOps,
}

impl ShowMemories {
    /// The action over the memories' verbs.
    pub fn new(ops: MemoryOps) -> Self {
        Self { ops }
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx) -> Result<Output, ToolError> {
        let memories = self.ops.memories(ctx).await?;
        let count = memories.len();
        let newest = &memories[count.saturating_sub(MAX_LISTED)..];
        Ok(Output {
            count,
            memories: newest.iter().map(|m| MemoryView::new(m, &ctx.tz)).collect(),
            note: if count == 0 {
                "Nothing is remembered in this chat yet; the family can say 記得… / remember … to add something."
            } else {
                "A card lists the newest memories with delete buttons; do not repeat the whole list, just sum it up."
            },
        })
    }

    /// The memories' card, a delete button on each row, with the button opening the family page.
    pub fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let list = ListCard {
            title: lang.pick("🧠 我記得的事", "🧠 What I remember").into(),
            empty: None,
            max_rows: MAX_ON_CARD,
            keep: Keep::Last,
        };
        let row = |m: &MemoryView| {
            // Each row carries its own delete button, labelled short to fit beside the text.
            let mut button = delete_button(lang, m.id, &m.text);
            if let CardButton::Postback { label, .. } = &mut button {
                *label = lang.pick("🗑 刪除", "🗑 Delete").into();
            }
            memory_row(m).with_button(button)
        };
        list.build(&out.memories, out.count, row, |shown, count| match lang {
            Lang::ZhTw => format!("共 {count} 件，這裡列出最新的 {shown} 件"),
            Lang::En => format!("{count} in all; the newest {shown} are shown"),
        })
        .map(|c| crate::features::family_page::with_open_button(c, lang))
    }
}
