//! `forget`: removes one of this conversation's memories, by id or by description ("忘記花生那件
//! 事"). Forgetting everything ("忘記所有事") deletes nothing by itself: it returns a card with a
//! confirmation button (a postback signed for this conversation), and only a tap on it in this
//! same conversation deletes — see [`ForgetAllMemories`]. The delete buttons of memory cards
//! are [`ForgetMemory`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::action::{Action, ActionServices, text};
use crate::i18n::Lang;
use crate::line::text::truncate_graphemes;
use crate::llm::agent::Answer;
use crate::memory::{MemoryView, overlap, tokens, unavailable};
use crate::store::{Memory, Store};
use crate::tool::{Card, CardButton, CardRow, Tool, ToolCtx, ToolError};

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

    async fn run(self, services: &ActionServices, ctx: &ToolCtx) -> Answer {
        forget_tapped(&services.store, ctx, self.id).await
    }
}

impl Action for ForgetAllMemories {
    const NAME: &'static str = "forget_all_memories";

    async fn run(self, services: &ActionServices, ctx: &ToolCtx) -> Answer {
        forget_all_tapped(&services.store, ctx, self.up_to_id).await
    }
}
/// The most candidates shown when a description matches several memories.
const MAX_CANDIDATES: usize = 10;

/// Arguments of `forget`: exactly one way of saying what to forget.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Args {
    /// The memory's number (#id, as listed) when the user names it. Null otherwise.
    pub id: Option<i64>,
    /// A few words from the memory to forget, in the user's words, e.g. "花生" for 忘記花生那件事, "Dad's flight". Null when id or all is given.
    pub description: Option<String>,
    /// True only when the user asks to forget everything this chat remembers (忘記所有事); the family must then confirm with a button, nothing is deleted yet. Null otherwise.
    pub all: Option<bool>,
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
    /// Several memories match the description: nothing was deleted.
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

/// The forget tool.
pub struct Forget {
    store: Store,
}

impl Forget {
    /// The tool over the store.
    pub fn new(store: Store) -> Self {
        Self { store }
    }
}

impl Tool for Forget {
    const NAME: &'static str = "forget";
    const DESCRIPTION: &'static str = "Forget something this chat asked you to remember: by its #id, by a description (忘記花生那件事 → description \"花生\"), or everything (all = true, 忘記所有事 — this only shows a confirmation button; nothing is deleted until someone taps it). If several memories match, nothing is deleted and a card lets the family pick.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let conversation = &ctx.conversation.id;
        if args.all == Some(true) {
            let memories = self.store.memories(conversation).await.map_err(unavailable)?;
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
            let forgotten =
                self.store.delete_memory(conversation, id).await.map_err(unavailable)?;
            return match forgotten {
                Some(m) => Ok(Output::Forgotten { memory: MemoryView::new(&m, &ctx.tz) }),
                None => Err(ToolError::NotFound(format!("this chat has no memory #{id}"))),
            };
        }
        let description = args.description.as_deref().map(str::trim).unwrap_or_default();
        if description.is_empty() {
            return Err(ToolError::InvalidArgs(
                "say what to forget: a memory's #id, a description, or all".into(),
            ));
        }
        let memories = self.store.memories(conversation).await.map_err(unavailable)?;
        let mut matches = matching(&memories, description);
        match matches.len() {
            0 => Err(ToolError::NotFound(format!(
                "nothing this chat remembers matches {description:?}"
            ))),
            1 => {
                let id = matches[0].id;
                match self.store.delete_memory(conversation, id).await.map_err(unavailable)? {
                    Some(m) => Ok(Output::Forgotten { memory: MemoryView::new(&m, &ctx.tz) }),
                    None => Err(ToolError::NotFound(format!("this chat has no memory #{id}"))),
                }
            }
            _ => {
                matches.truncate(MAX_CANDIDATES);
                Ok(Output::Ambiguous {
                    candidates: matches.iter().map(|m| MemoryView::new(m, &ctx.tz)).collect(),
                    note: "Nothing was deleted: ask which one (the card has a delete button for each), or call forget again with its id.",
                })
            }
        }
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
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

/// The memories `description` points at: those containing it, else those sharing the most
/// words with it (none when no word is shared).
pub fn matching<'a>(memories: &'a [Memory], description: &str) -> Vec<&'a Memory> {
    let needle = description.to_lowercase();
    let containing: Vec<&Memory> =
        memories.iter().filter(|m| m.text.to_lowercase().contains(&needle)).collect();
    if !containing.is_empty() {
        return containing;
    }
    let wanted = tokens(description);
    let scored: Vec<(usize, &Memory)> =
        memories.iter().map(|m| (overlap(&wanted, &m.text), m)).collect();
    let best = scored.iter().map(|(s, _)| *s).max().unwrap_or(0);
    if best == 0 {
        return Vec::new();
    }
    scored.into_iter().filter(|(s, _)| *s == best).map(|(_, m)| m).collect()
}

/// A card row for a memory: `#id` and the fact, with who and when.
pub fn memory_row(m: &MemoryView) -> CardRow {
    let who = m.remembered_by.as_deref().map(|w| format!("{w}, ")).unwrap_or_default();
    CardRow::new(
        format!("#{}", m.id),
        format!("{} ({who}{})", truncate_graphemes(&m.text, 100), m.date),
    )
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
async fn forget_tapped(store: &Store, ctx: &ToolCtx, id: i64) -> Answer {
    let lang = ctx.lang;
    match store.delete_memory(&ctx.conversation.id, id).await {
        Ok(Some(m)) => text(&match lang {
            Lang::ZhTw => format!("好，我已經忘記 #{id}「{}」了。", m.text),
            Lang::En => format!("Done, I've forgotten #{id} \"{}\".", m.text),
        }),
        Ok(None) => text(lang.pick("這件事已經不在我的記憶裡了。", "That memory is already gone.")),
        Err(e) => {
            tracing::error!(error = %e, "could not forget a memory");
            text(crate::i18n::Failure::Internal.message(lang))
        }
    }
}

/// The "forget everything" confirmation was tapped (and verified) in `ctx`'s conversation.
async fn forget_all_tapped(store: &Store, ctx: &ToolCtx, up_to_id: i64) -> Answer {
    let lang = ctx.lang;
    match store.delete_memories_up_to(&ctx.conversation.id, up_to_id).await {
        Ok(0) => text(lang.pick("沒有需要忘記的事了。", "There was nothing left to forget.")),
        Ok(n) => text(&match lang {
            Lang::ZhTw => format!("好，我已經忘記這個聊天室記得的 {n} 件事了。"),
            Lang::En => {
                format!("Done, I've forgotten all {n} things this chat asked me to remember.")
            }
        }),
        Err(e) => {
            tracing::error!(error = %e, "could not forget all memories");
            text(crate::i18n::Failure::Internal.message(lang))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(id: i64, text: &str) -> Memory {
        Memory { id, text: text.into(), user_id: None, speaker: None, created_at: 0 }
    }

    #[test]
    fn descriptions_match_by_containment_then_shared_words() {
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
