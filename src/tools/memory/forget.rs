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
use crate::features::memory::{MemoryView, memory_row, overlap, tokens};
use crate::platform::i18n::Lang;
use crate::store::{Memory, Store};

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

/// The `forget` action.
pub struct Forget {
    store: Store,
}

impl Forget {
    /// The action over the store.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let conversation = &ctx.conversation.id;
        if args.all == Some(true) {
            let memories = self.store.memory().memories(conversation).await?;
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
            let forgotten = self.store.memory().delete(conversation, id).await?;
            return match forgotten {
                Some(m) => Ok(Output::Forgotten { memory: MemoryView::new(&m, &ctx.tz) }),
                None => Err(ToolError::NotFound(format!("this chat has no memory #{id}"))),
            };
        }
        let words = args.words.as_deref().map(str::trim).unwrap_or_default();
        if words.is_empty() {
            return Err(unnamed());
        }
        let memories = self.store.memory().memories(conversation).await?;
        let mut matches = matching(&memories, words);
        match matches.len() {
            0 => Err(ToolError::NotFound(format!("nothing this chat remembers matches {words:?}"))),
            1 => {
                let id = matches[0].id;
                match self.store.memory().delete(conversation, id).await? {
                    Some(m) => Ok(Output::Forgotten { memory: MemoryView::new(&m, &ctx.tz) }),
                    None => Err(ToolError::NotFound(format!("this chat has no memory #{id}"))),
                }
            }
            _ => {
                matches.truncate(MAX_CANDIDATES);
                Ok(Output::Ambiguous {
                    candidates: matches.iter().map(|m| MemoryView::new(m, &ctx.tz)).collect(),
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

/// The memories `words` point at: those containing them, else those sharing the most words
/// with them (none when no word is shared).
pub fn matching<'a>(memories: &'a [Memory], words: &str) -> Vec<&'a Memory> {
    let needle = words.to_lowercase();
    let containing: Vec<&Memory> =
        memories.iter().filter(|m| m.text.to_lowercase().contains(&needle)).collect();
    if !containing.is_empty() {
        return containing;
    }
    let wanted = tokens(words);
    let scored: Vec<(usize, &Memory)> =
        memories.iter().map(|m| (overlap(&wanted, &m.text), m)).collect();
    let best = scored.iter().map(|(s, _)| *s).max().unwrap_or(0);
    if best == 0 {
        return Vec::new();
    }
    scored.into_iter().filter(|(s, _)| *s == best).map(|(_, m)| m).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(id: i64, text: &str) -> Memory {
        Memory { id, text: text.into(), user_id: None, speaker: None, created_at: 0 }
    }

    #[test]
    fn words_match_by_containment_then_shared_words() {
        let all = [
            memory(1, "奶奶對花生過敏"),
            memory(2, "爸爸的班機 12/5 18:40 到"),
            memory(3, "Grandma is allergic to peanuts"),
        ];
        let ids = |d: &str| matching(&all, d).iter().map(|m| m.id).collect::<Vec<_>>();
        assert_eq!(ids("花生"), [1]);
        assert_eq!(ids("花生那件事"), [1]);
        assert_eq!(ids("爸爸班機"), [2]);
        assert_eq!(ids("PEANUT"), [3]);
        assert!(ids("生日").is_empty());
        assert!(ids("the thing").is_empty());
    }
}
