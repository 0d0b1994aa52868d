//! The tool loop: ask the model, run the tools it calls (concurrently within a round), feed the
//! results back, and stop at a text answer or when the rounds run out (then the model must
//! answer without tools).

use std::sync::Arc;

use futures::future::join_all;

use super::openai::{ChatMessage, LlmClient, LlmError};
use crate::registry::{Registry, ToolDefinition};
use crate::tool::{Card, Chip, ToolCtx};

/// The most cards one answer carries (a LINE carousel holds 12).
const MAX_CARDS: usize = 12;
/// The most chips one answer carries (LINE shows 13).
const MAX_CHIPS: usize = 13;

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
}

impl Agent {
    /// An agent allowing at most `max_rounds` tool rounds per turn.
    pub fn new(llm: LlmClient, registry: Arc<Registry>, max_rounds: usize) -> Self {
        Self { llm, registry, max_rounds: max_rounds.max(1) }
    }

    /// The tool definitions sent to the model.
    pub fn tool_definitions(&self) -> &[ToolDefinition] {
        self.registry.definitions()
    }

    /// Runs one turn over `messages` (system prompt, history and the user's message).
    pub async fn answer(
        &self,
        ctx: &ToolCtx,
        mut messages: Vec<ChatMessage>,
    ) -> Result<Answer, LlmError> {
        let tools = self.registry.definitions();
        let mut answer = Answer::default();
        for round in 0..=self.max_rounds {
            let allow_tools = round < self.max_rounds;
            let completion = self.llm.complete(&messages, tools, allow_tools).await?;
            if completion.tool_calls.is_empty() || !allow_tools {
                answer.text = completion.content.unwrap_or_default();
                break;
            }
            let calls = completion.tool_calls;
            tracing::debug!(round, calls = calls.len(), "model called tools");
            let replies = join_all(calls.iter().map(|call| {
                self.registry.dispatch(&call.function.name, &call.function.arguments, ctx)
            }))
            .await;
            messages.push(ChatMessage::Assistant {
                content: completion.content,
                tool_calls: calls.clone(),
            });
            for (call, reply) in calls.iter().zip(replies) {
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
