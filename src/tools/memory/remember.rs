//! `memory` with `action: "remember"`: stores a fact for this conversation ("記得奶奶對花生過敏"),
//! with who said it and when. The conversation's memories are placed in the system prompt of its
//! later turns (see [`crate::features::memory`]); no other conversation ever sees them. Relative
//! dates in the fact ("明天", "下週五", "tomorrow") are kept as the dates they mean
//! ([`crate::features::memory::relative`]).

use serde::Serialize;

use crate::contract::{Card, CardRow, Chip, ToolCtx, ToolError};
use crate::features::memory::MemoryView;
use crate::features::memory::actions::delete_button;
use crate::features::memory::ops::MemoryOps;

/// The longest memory, in characters.
pub const MAX_FACT_CHARS: usize = 500;

/// What `remember` reads of the arguments.
#[derive(Debug)]
pub struct Args {
    /// One short self-contained sentence in the user's language: names, not pronouns; dates,
    /// not 明天 (read on later days).
    pub fact: String,
}

/// The result of `remember`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The memory.
    pub memory: MemoryView,
    /// True when this chat already remembered exactly this (nothing new was stored).
    pub already_remembered: bool,
}

/// The `remember` action: an adapter of the memories' verb ([`MemoryOps::remember`]).
pub struct Remember {
    ops: MemoryOps,
}

impl Remember {
    /// The action over the memories' verbs.
    pub fn new(ops: MemoryOps) -> Self {
        Self { ops }
    }

    /// Checks the fact as [`Remember::run`] does first, changing nothing.
    pub fn check(&self, ctx: &ToolCtx, args: &Args) -> Result<(), ToolError> {
        fact_of(ctx, args).map(|_| ())
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let fact = fact_of(ctx, &args)?;
        let (memory, already_remembered) = self.ops.remember(ctx, &fact).await?;
        Ok(Output { memory: MemoryView::new(&memory, &ctx.tz), already_remembered })
    }

    /// The memory's card, with its delete button.
    pub fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let m = &out.memory;
        let mut card = Card::new(lang.pick("📝 記住了", "📝 Remembered"));
        card.rows.push(CardRow::new(format!("#{}", m.id), m.text.clone()));
        let who = m.remembered_by.as_deref().unwrap_or(lang.pick("有人", "someone"));
        card.footnote = Some(format!("{who} · {}", m.date));
        card.buttons.push(delete_button(lang, m.id, &m.text));
        Some(card)
    }

    /// A chip asking what is remembered.
    pub fn quick_replies(&self, ctx: &ToolCtx, _out: &Output) -> Vec<Chip> {
        let lang = ctx.lang;
        vec![Chip::new(
            lang.pick("你記得什麼？", "Memories?"),
            lang.pick("你記得什麼？", "What do you remember?"),
        )]
    }
}

/// The fact to keep: its relative dates written as dates, checked for length.
fn fact_of(ctx: &ToolCtx, args: &Args) -> Result<String, ToolError> {
    let fact = crate::features::memory::relative::resolve(args.fact.trim(), ctx.local_now().date());
    if fact.is_empty() {
        return Err(ToolError::InvalidArgs(
            "the fact to remember is empty; ask what to remember".into(),
        ));
    }
    let length = fact.chars().count();
    if length > MAX_FACT_CHARS {
        return Err(ToolError::InvalidArgs(format!(
            "that is too long to remember ({length} characters, at most {MAX_FACT_CHARS}); ask for a shorter version"
        )));
    }
    Ok(fact)
}
