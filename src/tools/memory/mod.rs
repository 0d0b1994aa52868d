//! `memory`: the facts this conversation asked hearth to keep, in one tool whose `action` says
//! what to do: keep a fact for this chat ([`remember`]), forget one by #id or by words from it,
//! or everything ([`forget`]; `all` only shows a confirmation button, and only a tap on it
//! deletes), or show them as a card with a delete button on each ([`show`]). The facts are in
//! the system prompt of the chat's later turns already ([`crate::features::memory`]). One tool
//! instead of three keeps the definitions the model reads on every round short.

pub mod forget;
pub mod remember;
pub mod show;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Card, Chip, Tool, ToolCtx, ToolError};
use crate::features::memory::ops::MemoryOps;

/// What to do with this chat's memories.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
#[schemars(description = "")]
pub enum Action {
    /// Keep `fact` (記得…).
    Remember,
    /// Forget one by `id` or `words`, or everything (`all`).
    Forget,
    /// Show them as a card with delete buttons (你記得什麼).
    Show,
}

/// Arguments of `memory`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// What to do.
    #[schemars(description = "")]
    pub action: Action,
    /// remember: the fact, one short self-contained sentence in the user's language.
    #[schemars(description = "one short sentence: names not pronouns, dates not 明天")]
    pub fact: Option<String>,
    /// forget: the memory's #id.
    #[schemars(description = "")]
    pub id: Option<i64>,
    /// forget: words from the memory (忘記花生那件事 → "花生"); formerly `description`.
    #[schemars(description = "忘記花生那件事 → 花生")]
    #[serde(alias = "description")]
    pub words: Option<String>,
    /// forget: true for everything (忘記所有事); only a confirmation button is shown.
    #[schemars(description = "")]
    pub all: Option<bool>,
}

/// The result of `memory`: the action's own.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Output {
    /// Of `remember`.
    Remember(remember::Output),
    /// Of `forget`.
    Forget(forget::Output),
    /// Of `show`.
    Show(show::Output),
}

/// The memory tool.
pub struct Memory {
    remember: remember::Remember,
    forget: forget::Forget,
    show: show::ShowMemories,
}

impl Memory {
    /// The tool over the memories' verbs.
    pub fn new(ops: MemoryOps) -> Self {
        Self {
            remember: remember::Remember::new(ops.clone()),
            forget: forget::Forget::new(ops.clone()),
            show: show::ShowMemories::new(ops),
        }
    }
}

/// What `remember` reads of `args`, or a clear error when no fact is given.
fn remember_args(args: &Args) -> Result<remember::Args, ToolError> {
    match &args.fact {
        Some(fact) => Ok(remember::Args { fact: fact.clone() }),
        None => Err(ToolError::InvalidArgs("remember needs the fact; ask what to remember".into())),
    }
}

/// What `forget` reads of `args`.
fn forget_args(args: &Args) -> forget::Args {
    forget::Args { id: args.id, words: args.words.clone(), all: args.all }
}

impl Tool for Memory {
    const NAME: &'static str = "memory";
    const DESCRIPTION: &'static str = "This chat's remembered facts (記得…: allergies, birthdays, who is who): remember, forget (#id, words, or all), show (only to list them: 你記得什麼). They are already in your instructions: answer questions from there. A fact, even dated (記得明天爸爸出差), is memory; a thing to do or bring (記得明天要帶傘, 記得提醒我…) is a reminder; to buy: list.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    fn changes_state(&self, args: &Args) -> bool {
        args.action != Action::Show
    }

    fn check(&self, ctx: &ToolCtx, args: &Args) -> Result<(), ToolError> {
        match args.action {
            Action::Remember => self.remember.check(ctx, &remember_args(args)?),
            Action::Forget if !forget_args(args).name_something() => Err(forget::unnamed()),
            Action::Forget | Action::Show => Ok(()),
        }
    }

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        self.check(ctx, &args)?;
        Ok(match args.action {
            Action::Remember => {
                Output::Remember(self.remember.run(ctx, remember_args(&args)?).await?)
            }
            Action::Forget => Output::Forget(self.forget.run(ctx, forget_args(&args)).await?),
            Action::Show => Output::Show(self.show.run(ctx).await?),
        })
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        match out {
            Output::Remember(out) => self.remember.card(ctx, out),
            Output::Forget(out) => self.forget.card(ctx, out),
            Output::Show(out) => self.show.card(ctx, out),
        }
    }

    fn quick_replies(&self, ctx: &ToolCtx, out: &Output) -> Vec<Chip> {
        match out {
            Output::Remember(out) => self.remember.quick_replies(ctx, out),
            Output::Forget(_) | Output::Show(_) => Vec::new(),
        }
    }
}
