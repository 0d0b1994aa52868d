//! `memory` with `action: "remember"`: stores a fact for this conversation ("記得奶奶對花生過敏"),
//! with who said it and when. The conversation's memories are placed in the system prompt of its
//! later turns (see [`crate::features::memory`]); no other conversation ever sees them. Relative
//! dates in the fact ("明天", "下週五", "tomorrow") are kept as the dates they mean
//! ([`crate::features::memory::relative`]).

use serde::Serialize;

use crate::contract::{Card, CardRow, Chip, ToolCtx, ToolError};
use crate::features::memory::MemoryView;
use crate::features::memory::actions::delete_button;
use crate::store::{NewMemory, Store};

/// The longest memory, in characters.
pub const MAX_FACT_CHARS: usize = 500;
/// The most memories one conversation keeps (enforced by the store).
pub use crate::store::MAX_MEMORIES;

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

/// The `remember` action.
pub struct Remember {
    store: Store,
}

impl Remember {
    /// The action over the store.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Checks the fact as [`Remember::run`] does first, changing nothing.
    pub fn check(&self, ctx: &ToolCtx, args: &Args) -> Result<(), ToolError> {
        fact_of(ctx, args).map(|_| ())
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let resolved = fact_of(ctx, &args)?;
        let fact = resolved.as_str();
        let conversation = &ctx.conversation.id;
        let existing = self.store.memory().memories(conversation).await?;
        if let Some(same) =
            existing.iter().find(|m| m.text.trim().to_lowercase() == fact.to_lowercase())
        {
            return Ok(Output { memory: MemoryView::new(same, &ctx.tz), already_remembered: true });
        }
        let memory = NewMemory {
            conversation_id: conversation,
            text: fact,
            user_id: ctx.user_id.as_deref(),
            speaker: ctx.display_name.as_deref(),
            at_ms: ctx.now().as_millisecond(),
        };
        let id = self.store.memory().add(&memory).await?;
        let stored = crate::store::Memory {
            id,
            text: fact.to_string(),
            user_id: ctx.user_id.clone(),
            speaker: ctx.display_name.clone(),
            created_at: memory.at_ms,
        };
        Ok(Output { memory: MemoryView::new(&stored, &ctx.tz), already_remembered: false })
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
