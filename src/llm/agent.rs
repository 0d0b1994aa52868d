//! The tool loop: ask the model, run the tools it calls (concurrently within a round), feed the
//! results back, and stop at a text answer or when the rounds run out (then the model must
//! answer without tools).
//!
//! Once a tool with untrusted output (web search, page text) succeeded in a turn, later calls
//! of state-changing tools in that turn are not run but held for the family's confirmation
//! (`crate::confirm`). The agent decides from the registry's flags, never from tool names.
//!
//! At most a set number of the calls of one round are run; the model's further calls are not
//! run and each gets an error result (`too_many_calls`) it can explain.

use std::sync::Arc;

use futures::future::join_all;

use super::openai::{ChatMessage, LlmClient, LlmError, Usage};
use crate::registry::{Outcome, Registry, ToolDefinition, ToolReply};
use crate::store::Store;
use crate::tool::{Card, Chip, ToolCtx};

/// The most cards one answer carries (a LINE carousel holds 12).
const MAX_CARDS: usize = 12;
/// The most chips one answer carries (LINE shows 13).
const MAX_CHIPS: usize = 13;
/// Tool calls run from one round unless configured otherwise (`HEARTH_MAX_TOOL_CALLS_PER_ROUND`).
const DEFAULT_CALLS_PER_ROUND: usize = 8;

/// A finished answer: text, plus the cards and chips the tools produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// What the model wrote (may be empty when cards say it all).
    pub text: String,
    /// Cards, in call order.
    pub cards: Vec<Card>,
    /// Follow-up chips, without duplicates.
    pub chips: Vec<Chip>,
}

/// The agent: an LLM client and the tools it may call.
pub struct Agent {
    llm: LlmClient,
    registry: Arc<Registry>,
    max_rounds: usize,
    max_calls_per_round: usize,
    held_calls: Option<Store>,
}

impl Agent {
    /// An agent allowing at most `max_rounds` tool rounds per turn.
    pub fn new(llm: LlmClient, registry: Arc<Registry>, max_rounds: usize) -> Self {
        Self {
            llm,
            registry,
            max_rounds: max_rounds.max(1),
            max_calls_per_round: DEFAULT_CALLS_PER_ROUND,
            held_calls: None,
        }
    }

    /// The same agent, running at most `max` tool calls of one round (at least one).
    pub fn with_max_calls_per_round(mut self, max: usize) -> Self {
        self.max_calls_per_round = max.max(1);
        self
    }

    /// The same agent, holding state-changing calls made after untrusted content in `store`
    /// for confirmation. Without a store such calls are refused outright.
    pub fn with_held_calls(mut self, store: Store) -> Self {
        self.held_calls = Some(store);
        self
    }

    /// The tools (a confirmed held call is dispatched through them).
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Runs one call, or holds it when untrusted content already entered the turn and the tool
    /// changes state.
    async fn run_call(&self, ctx: &ToolCtx, name: &str, args: &str, tainted: bool) -> ToolReply {
        if !(tainted && self.registry.changes_state(name)) {
            return self.registry.dispatch(name, args, ctx).await;
        }
        match &self.held_calls {
            Some(store) => crate::confirm::hold(store, ctx, name, args).await,
            None => ToolReply {
                content: serde_json::json!({"error": {"kind": "not_allowed", "message": "this action was requested after reading web content; ask the family to request it again in their own words"}}),
                card: None,
                chips: Vec::new(),
                outcome: Outcome::Error("not_allowed"),
            },
        }
    }

    /// The result of a call beyond the per-round cap.
    fn too_many_calls(&self) -> ToolReply {
        let max = self.max_calls_per_round;
        ToolReply::error(
            "too_many_calls",
            format!(
                "too many tool calls in one round: only the first {max} were run and this one was not; tell the family, or ask for fewer at a time"
            ),
        )
    }

    /// The tool definitions sent to the model.
    pub fn tool_definitions(&self) -> &[ToolDefinition] {
        self.registry.definitions()
    }

    /// Runs one turn over `messages` (system prompt, history and the user's message).
    pub async fn answer(
        &self,
        ctx: &ToolCtx,
        messages: Vec<ChatMessage>,
    ) -> Result<Answer, LlmError> {
        self.answer_counted(ctx, messages, &mut Usage::default()).await
    }

    /// [`Agent::answer`], adding the tokens every LLM call of the turn used to `usage` (also
    /// those of the rounds before a failure).
    pub async fn answer_counted(
        &self,
        ctx: &ToolCtx,
        mut messages: Vec<ChatMessage>,
        usage: &mut Usage,
    ) -> Result<Answer, LlmError> {
        let tools = self.registry.definitions();
        let mut answer = Answer::default();
        let mut tainted = false;
        for round in 0..=self.max_rounds {
            let allow_tools = round < self.max_rounds;
            let completion = self.llm.complete(&messages, tools, allow_tools).await?;
            usage.add(completion.usage.unwrap_or_default());
            if completion.tool_calls.is_empty() || !allow_tools {
                answer.text = completion.content.unwrap_or_default();
                break;
            }
            let calls = completion.tool_calls;
            tracing::debug!(round, calls = calls.len(), "model called tools");
            let held = tainted;
            let (run, dropped) = calls.split_at(calls.len().min(self.max_calls_per_round));
            let mut replies = join_all(run.iter().map(|call| {
                self.run_call(ctx, &call.function.name, &call.function.arguments, held)
            }))
            .await;
            if !dropped.is_empty() {
                tracing::warn!(round, dropped = dropped.len(), "too many tool calls in one round");
                crate::metrics::tool_calls_dropped(dropped.len() as u64);
                replies.extend(dropped.iter().map(|_| self.too_many_calls()));
            }
            messages.push(ChatMessage::Assistant {
                content: completion.content,
                tool_calls: calls.clone(),
            });
            for (call, reply) in calls.iter().zip(replies) {
                if reply.outcome == Outcome::Ok
                    && self.registry.untrusted_output(&call.function.name)
                {
                    tainted = true;
                }
                messages.push(ChatMessage::Tool {
                    tool_call_id: call.id.clone(),
                    content: reply.content.to_string(),
                });
                if let Some(card) = reply.card
                    && answer.cards.len() < MAX_CARDS
                {
                    answer.cards.push(card);
                }
                for chip in reply.chips {
                    if answer.chips.len() < MAX_CHIPS && !answer.chips.contains(&chip) {
                        answer.chips.push(chip);
                    }
                }
            }
        }
        if answer.text.trim().is_empty() && answer.cards.is_empty() {
            return Err(LlmError::Garbage);
        }
        Ok(answer)
    }
}
