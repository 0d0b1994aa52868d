//! `memory` with `action: "forget"`: removes one of this conversation's memories, by id or by
//! words from it ("忘記花生那件事"). Forgetting everything ("忘記所有事") deletes nothing by
//! itself: it returns a card with a confirmation button (a postback signed for this
//! conversation), and only a tap on it in this same conversation deletes — see
//! [`ForgetAllMemories`]. The delete buttons of memory cards are
//! [`crate::features::memory::actions::ForgetMemory`].

use serde::Serialize;

use crate::contract::{Card, ToolCtx, ToolError};
use crate::features::button::Action;
use crate::features::memory::actions::{ForgetAllMemories, delete_button};
use crate::features::memory::ops::{ForgetWords, MemoryOps};
use crate::features::memory::{MemoryView, memory_row};
use crate::platform::i18n::Lang;

/// The most candidates shown when the words match several memories.
const MAX_CANDIDATES: usize = 10;

/// What `forget` reads of the arguments: one way of saying what to forget.
#[derive(Debug)]
pub struct Args {
    /// The memory's #id.
    pub id: Option<i64>,
    /// Or words from the memory ("花生").
    pub words: Option<String>,
    /// Or true for everything (忘記所有事): only a confirmation button is shown.
    pub all: Option<bool>,
}

impl Args {
    /// True when they say what to forget: everything, an id, or some words.
    pub fn name_something(&self) -> bool {
        let words = self.words.as_deref().map(str::trim).unwrap_or_default();
        self.all == Some(true) || self.id.is_some() || !words.is_empty()
    }
}

/// Nothing says what to forget.
pub fn unnamed() -> ToolError {
    ToolError::InvalidArgs("say what to forget: a memory's #id, words from it, or all".into())
}

/// The result of `forget`.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Output {
    /// The memory was deleted.
    Forgotten {
        /// What was forgotten.
        memory: MemoryView,
    },
    /// Several memories match the words: nothing was deleted.
    Ambiguous {
        /// The candidates; a card with a delete button for each is shown.
        candidates: Vec<MemoryView>,
        /// How to go on.
        note: &'static str,
    },
    /// Forgetting everything waits for a tap on the confirmation button.
    ConfirmationNeeded {
        /// How many memories would be deleted.
        count: usize,
        /// The highest memory id covered by the confirmation.
        up_to_id: i64,
        /// How to go on.
        note: &'static str,
    },
}

/// The `forget` action: an adapter of the memories' verbs ([`MemoryOps`]).
pub struct Forget {
    ops: MemoryOps,
}

impl Forget {
    /// The action over the memories' verbs.
    pub fn new(ops: MemoryOps) -> Self {
        Self { ops }
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        if args.all == Some(true) {
            let memories = self.ops.memories(ctx).await?;
            let Some(up_to_id) = memories.iter().map(|m| m.id).max() else {
                return Err(ToolError::NotFound("this chat has no memories to forget".into()));
            };
            return Ok(Output::ConfirmationNeeded {
                count: memories.len(),
                up_to_id,
                note: "Nothing is deleted yet: ask the family to tap the confirmation button on the card.",
            });
        }
        if let Some(id) = args.id {
            return match self.ops.forget(ctx, id).await? {
                Some(m) => Ok(Output::Forgotten { memory: MemoryView::new(&m, &ctx.tz) }),
                None => Err(ToolError::NotFound(format!("this chat has no memory #{id}"))),
            };
        }
        let words = args.words.as_deref().map(str::trim).unwrap_or_default();
        if words.is_empty() {
            return Err(unnamed());
        }
        match self.ops.forget_words(ctx, words).await? {
            ForgetWords::Forgotten(m) => {
                Ok(Output::Forgotten { memory: MemoryView::new(&m, &ctx.tz) })
            }
            ForgetWords::NoneFits => {
                Err(ToolError::NotFound(format!("nothing this chat remembers matches {words:?}")))
            }
            ForgetWords::Several(mut fits) => {
                fits.truncate(MAX_CANDIDATES);
                Ok(Output::Ambiguous {
                    candidates: fits.iter().map(|m| MemoryView::new(m, &ctx.tz)).collect(),
                    note: "Nothing was deleted: ask which one (the card has a delete button for each), or forget it again by its id.",
                })
            }
        }
    }

    /// The card: the candidates with a delete button each, or the confirmation button.
    pub fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        match out {
            Output::Forgotten { .. } => None,
            Output::Ambiguous { candidates, .. } => {
                let mut card = Card::new(lang.pick("要忘記哪一件？", "Which one should I forget?"));
                for m in candidates {
                    card.rows.push(memory_row(m));
                    card.buttons.push(delete_button(lang, m.id, &m.text));
                }
                Some(card)
            }
            Output::ConfirmationNeeded { count, up_to_id, .. } => {
                let title = match lang {
                    Lang::ZhTw => format!("⚠️ 要忘記全部 {count} 件事嗎？"),
                    Lang::En => format!("⚠️ Forget all {count} memories?"),
                };
                let mut card = Card::new(title);
                card.subtitle = Some(
                    lang.pick(
                        "按下確認才會刪除，刪除後無法復原。",
                        "Nothing is deleted until you confirm; this cannot be undone.",
                    )
                    .to_string(),
                );
                let label = lang.pick("確認全部忘記", "Yes, forget everything");
                card.buttons.push(ForgetAllMemories { up_to_id: *up_to_id }.button(label, label));
                Some(card)
            }
        }
    }
}
