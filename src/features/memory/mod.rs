//! Long-term memory in the prompt: the facts a conversation asked hearth to remember are placed
//! in the system prompt of every later turn of **that** conversation, within a fixed character
//! budget. When they do not all fit, the ones sharing most words with the current message come
//! first, then the newest; a note says how many were left out. The same word overlap matches
//! words to a memory when the family asks hearth to forget something.
//! A memory's card row and its delete button live here too, shared by the `memory` tool's actions.

use std::collections::HashSet;

use jiff::Timestamp;
use jiff::tz::TimeZone;

use serde::Serialize;

pub mod actions;
pub mod ops;
pub mod relative;

use crate::contract::{CardRow, ToolCtx};
use crate::llm::prompt;
use crate::platform::text::truncate_graphemes;
use crate::store::Memory;
pub use crate::store::{LoggedMessage, QuotedRow};

/// The most characters the memory section adds to the system prompt.
pub const PROMPT_BUDGET_CHARS: usize = 1500;

const HEADER: &str = "Things this chat asked you to remember (#id, who said it, when). Answer questions about them from here, without calling memory to show them (that only shows this list as a card, when they ask what you remember); the family can ask you to forget one (memory, forget):";

/// The memory section when nothing is remembered: present all the same, so the model knows it
/// has looked and need not call a tool to find out.
const NOTHING: &str = "Things this chat asked you to remember: nothing remembered yet. If they ask about something personal (an allergy, a birthday), say you have not been told and that they can say 記得… / remember … — do not call memory for it.";

/// English words too common to say which memory is meant.
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "at", "for", "in", "is", "it", "me", "my", "of", "on",
    "that", "the", "thing", "this", "to", "we", "what", "you",
];

/// The memory section of the system prompt for a turn whose message is `current` (saying so
/// when nothing is remembered). Never longer than `budget` characters, unless a single memory
/// is (then the section holds only the note).
pub fn prompt_section(memories: &[Memory], current: &str, tz: &TimeZone, budget: usize) -> String {
    if memories.is_empty() {
        return NOTHING.to_string();
    }
    let lines: Vec<(usize, String)> = memories
        .iter()
        .enumerate()
        .map(|(i, m)| (i, format!("\n- #{} {} ({}, {})", m.id, m.text, who(m), date(m, tz))))
        .collect();
    let header_len = HEADER.chars().count();
    let total: usize = header_len + lines.iter().map(|(_, l)| l.chars().count()).sum::<usize>();
    let chosen: Vec<usize> = if total <= budget {
        (0..memories.len()).collect()
    } else {
        let wanted = tokens(current);
        let mut ranked: Vec<(usize, usize)> =
            memories.iter().enumerate().map(|(i, m)| (i, overlap(&wanted, &m.text))).collect();
        // Most relevant first; among equals, the newest (highest id) first.
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(memories[b.0].id.cmp(&memories[a.0].id)));
        let room = budget.saturating_sub(header_len + omitted_note(memories.len()).chars().count());
        let mut used = 0;
        let mut chosen = Vec::new();
        for (i, _) in ranked {
            let len = lines[i].1.chars().count();
            if used + len <= room {
                used += len;
                chosen.push(i);
            }
        }
        chosen.sort_unstable();
        chosen
    };
    let mut section = HEADER.to_string();
    for &i in &chosen {
        section.push_str(&lines[i].1);
    }
    let left_out = memories.len() - chosen.len();
    if left_out > 0 {
        section.push_str(&omitted_note(left_out));
    }
    section
}

fn omitted_note(left_out: usize) -> String {
    format!("\n({left_out} more not shown here; memory with show lists them all.)")
}

fn who(m: &Memory) -> &str {
    m.speaker.as_deref().unwrap_or("someone")
}

/// The local date a memory was stored, `YYYY-MM-DD`.
pub fn date(m: &Memory, tz: &TimeZone) -> String {
    Timestamp::from_millisecond(m.created_at)
        .map(|t| t.to_zoned_datetime(tz.clone()).strftime("%Y-%m-%d").to_string())
        .unwrap_or_default()
}

/// The words of `text` for matching: lower-case ASCII words (common ones left out) and, in
/// Chinese and other scripts without spaces, every pair of neighbouring characters.
pub fn tokens(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut word = String::new();
    let mut previous: Option<char> = None;
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() {
            word.push(c.to_ascii_lowercase());
            previous = None;
            continue;
        }
        if !word.is_empty() {
            if !STOP_WORDS.contains(&word.as_str()) {
                out.insert(std::mem::take(&mut word));
            }
            word.clear();
        }
        if c.is_alphanumeric() {
            if let Some(p) = previous {
                out.insert(format!("{p}{c}"));
            }
            previous = Some(c);
        } else {
            previous = None;
        }
    }
    out
}

/// How many of `wanted`'s words appear in `text`.
pub fn overlap(wanted: &HashSet<String>, text: &str) -> usize {
    tokens(text).intersection(wanted).count()
}

/// A memory as the memory tools show it to the LLM.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryView {
    /// Its id; the family sees it as `#id`.
    pub id: i64,
    /// The fact.
    pub text: String,
    /// Who asked hearth to remember it.
    pub remembered_by: Option<String>,
    /// The local date it was stored, `YYYY-MM-DD`.
    pub date: String,
}

impl MemoryView {
    /// The view of `m`, dated in `tz`.
    pub fn new(m: &Memory, tz: &TimeZone) -> Self {
        Self { id: m.id, text: m.text.clone(), remembered_by: m.speaker.clone(), date: date(m, tz) }
    }
}

/// A card row for a memory: `#id` and the fact, with who and when.
pub fn memory_row(m: &MemoryView) -> CardRow {
    let who = m.remembered_by.as_deref().map(|w| format!("{w}, ")).unwrap_or_default();
    CardRow::new(
        format!("#{}", m.id),
        format!("{} ({who}{})", truncate_graphemes(&m.text, 100), m.date),
    )
}

/// [`prompt::chat_part`] with the memory section for `memories` (all of one conversation)
/// appended.
pub fn chat_part(ctx: &ToolCtx, memories: &[Memory], current: &str) -> String {
    let mut content = prompt::chat_part(&ctx.conversation);
    content.push_str("\n\n");
    content.push_str(&prompt_section(memories, current, &ctx.tz, PROMPT_BUDGET_CHARS));
    content
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(id: i64, text: &str) -> Memory {
        Memory {
            id,
            text: text.into(),
            user_id: None,
            speaker: Some("媽媽".into()),
            created_at: 1_764_504_000_000,
        }
    }

    fn taipei() -> TimeZone {
        TimeZone::get("Asia/Taipei").expect("zone")
    }

    #[test]
    fn with_no_memories_the_section_says_nothing_is_remembered_yet() {
        let s = prompt_section(&[], "奶奶對什麼過敏？", &taipei(), 1500);
        assert!(s.contains("nothing remembered yet") && s.contains("do not call memory"), "{s}");
    }

    #[test]
    fn small_sets_appear_whole_with_who_and_when() {
        let s = prompt_section(&[memory(3, "奶奶對花生過敏")], "晚餐", &taipei(), 1500);
        assert!(s.contains("- #3 奶奶對花生過敏 (媽媽, 2025-11-30)"), "{s}");
        assert!(!s.contains("more not shown"));
    }

    #[test]
    fn over_budget_keeps_relevant_then_newest_and_stays_within_budget() {
        let mut all: Vec<Memory> =
            (1..=300).map(|i| memory(i, &format!("第{i}件事：家裡的日常安排與細節"))).collect();
        all.push(memory(5_000, "奶奶對花生過敏"));
        all.insert(0, memory(0, "爸爸週三要加班"));
        let s = prompt_section(&all, "奶奶可以吃花生醬嗎？", &taipei(), 1500);
        assert!(s.chars().count() <= 1500, "{} chars", s.chars().count());
        assert!(s.contains("奶奶對花生過敏"), "the relevant one is kept");
        assert!(s.contains("第300件事"), "the newest are kept");
        assert!(!s.contains("爸爸週三要加班"), "an old irrelevant one gives way");
        assert!(s.contains("more not shown"));
    }

    #[test]
    fn tokens_are_words_and_character_pairs() {
        let t = tokens("Grandma's peanut 過敏!");
        assert!(t.contains("grandma") && t.contains("peanut") && t.contains("過敏"));
        assert!(!t.contains("the"));
        assert_eq!(overlap(&tokens("忘記花生那件事"), "奶奶對花生過敏"), 1);
        assert_eq!(overlap(&tokens("the peanut thing"), "Grandma is allergic to peanuts"), 0);
        assert_eq!(overlap(&tokens("peanuts"), "Grandma is allergic to peanuts"), 1);
    }
}
