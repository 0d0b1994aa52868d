//! The tool loop: ask the model, run the tools it calls (concurrently within a round), feed the
//! results back, and stop at a text answer or when the rounds run out (then the model must
//! answer without tools).
//!
//! Once a tool with untrusted output (web search, page text, an untrusted MCP server's tool)
//! succeeded in a turn, or a search through the finder showed such a server's tools (their
//! descriptions are its words) — or the turn started tainted because its history holds an
//! answer written after such content — later
//! calls of state-changing tools in that turn are not run but held for the family's
//! confirmation (`crate::features::held_calls`), and so are outgoing requests the model chose that are not
//! the family's own links, a search's results or the family's own words (`crate::contract::egress`). The
//! agent decides from the registry's flags, never from tool names. A tool whose every call needs
//! the family's confirmation (one its MCP server declares destructive) is always held. The answer of a tainted turn
//! is marked ([`Answer::tainted`]) so the next turns treat it as untrusted too.
//!
//! At most a set number of the calls of one round are run; the model's further calls are not
//! run and each gets an error result (`too_many_calls`) it can explain.

use std::sync::Arc;

use futures::future::join_all;

use super::hold::{CallHolder, Held};
use super::openai::{ChatMessage, Completion, LlmClient, LlmError, ToolList, Usage};
use crate::contract::registry::{Outcome, Registry, ToolDefinition, ToolReply};
use crate::contract::schema::Audience;
use crate::contract::{Answer, ErrorKind, ToolCtx};
use crate::contract::{egress, finder};

/// The most cards one answer carries (a LINE carousel holds 12).
const MAX_CARDS: usize = 12;
/// The most chips one answer carries (LINE shows 13).
const MAX_CHIPS: usize = 13;
/// Tool calls run from one round unless configured otherwise (`HEARTH_MAX_TOOL_CALLS_PER_ROUND`).
const DEFAULT_CALLS_PER_ROUND: usize = 8;

/// What the agent knows about a turn when it decides whether a call may run.
struct Turn {
    /// Untrusted content entered the turn (or its history).
    tainted: bool,
    /// What the family wrote: the user messages given to the model.
    family: String,
    /// The result links searches returned in this turn.
    links: Vec<String>,
}

/// The agent: an LLM client and the tools it may call.
pub struct Agent {
    llm: LlmClient,
    registry: Arc<Registry>,
    /// The tool lists as sent to a 1:1 chat and to a group, serialised once when they cannot
    /// change (no MCP sources).
    fixed_tools: Option<[ToolList; 2]>,
    max_rounds: usize,
    max_calls_per_round: usize,
    held_calls: Option<Arc<dyn CallHolder>>,
    vision: Option<LlmClient>,
}

impl Agent {
    /// An agent allowing at most `max_rounds` tool rounds per turn.
    pub fn new(llm: LlmClient, registry: Arc<Registry>, max_rounds: usize) -> Self {
        let fixed_tools = (!registry.has_sources())
            .then(|| Audience::ALL.map(|audience| llm.tool_list(&registry.definitions(audience))));
        Self {
            llm,
            registry,
            fixed_tools,
            max_rounds: max_rounds.max(1),
            max_calls_per_round: DEFAULT_CALLS_PER_ROUND,
            held_calls: None,
            vision: None,
        }
    }

    /// The same agent, asking `vision` instead when a turn carries pictures
    /// (`HEARTH_VISION_MODEL`).
    pub fn with_vision(mut self, vision: LlmClient) -> Self {
        self.vision = Some(vision);
        self
    }

    /// The same agent, running at most `max` tool calls of one round (at least one).
    pub fn with_max_calls_per_round(mut self, max: usize) -> Self {
        self.max_calls_per_round = max.max(1);
        self
    }

    /// The same agent, giving calls made after untrusted content to `holder` for the family's
    /// confirmation. Without a holder such calls are refused outright.
    pub fn with_held_calls(mut self, holder: Arc<dyn CallHolder>) -> Self {
        self.held_calls = Some(holder);
        self
    }

    /// The tools (a confirmed held call is dispatched through them).
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Runs one call, or holds it when untrusted content already entered the turn and the tool
    /// changes state or makes an outgoing request [`egress::allowed`] does not let run.
    async fn run_call(&self, ctx: &ToolCtx, name: &str, args: &str, turn: &Turn) -> ToolReply {
        if self.registry.always_confirm(name) {
            return self.hold(ctx, name, args, Held::Destructive).await;
        }
        if turn.tainted {
            if self.registry.call_changes_state(name, args) {
                return self.hold(ctx, name, args, Held::StateChange).await;
            }
            if let Some(request) = self.registry.outgoing(name, args)
                && !egress::allowed(&request, &turn.family, &turn.links)
            {
                return self.hold(ctx, name, args, Held::Outgoing(&request)).await;
            }
        }
        self.registry.dispatch(name, args, ctx).await
    }

    /// Holds a call for confirmation, or refuses it when nothing can hold it. A call that
    /// would fail anyway is not held: the model gets its error now, before any card is shown.
    async fn hold(&self, ctx: &ToolCtx, name: &str, args: &str, why: Held<'_>) -> ToolReply {
        if let Some(refused) = self.registry.check(name, args, ctx) {
            return refused;
        }
        match &self.held_calls {
            Some(holder) => holder.hold(ctx, name, args, why).await,
            None => ToolReply::error(
                ErrorKind::NotAllowed,
                "this was requested after reading web content; ask the family to request it again in their own words",
            ),
        }
    }

    /// The result of a call beyond the per-round cap.
    fn too_many_calls(&self) -> ToolReply {
        let max = self.max_calls_per_round;
        ToolReply::error(
            ErrorKind::TooManyCalls,
            format!(
                "too many tool calls in one round: only the first {max} were run and this one was not; tell the family, or ask for fewer at a time"
            ),
        )
    }

    /// The tool definitions sent to the model in a chat of `audience`.
    pub fn tool_definitions(&self, audience: Audience) -> Vec<ToolDefinition> {
        self.registry.definitions(audience)
    }

    /// The model's first round over `messages` in a chat of `audience`, with the tools offered
    /// but those named in `without`; nothing is run. This is the tool choice of a turn, which
    /// `hearth eval` scores.
    pub async fn first_round(
        &self,
        messages: &[ChatMessage],
        audience: Audience,
        without: &[String],
    ) -> Result<Completion, LlmError> {
        let mut tools = self.registry.definitions(audience);
        tools.retain(|t| !without.iter().any(|w| *w == t.name));
        self.llm.complete(messages, &tools, true).await
    }

    /// Runs one turn over `messages` (system prompt, history and the user's message).
    /// `tainted` says the history holds an answer written after untrusted content: the turn
    /// then starts as if such content had entered it.
    pub async fn answer(
        &self,
        ctx: &ToolCtx,
        messages: Vec<ChatMessage>,
        tainted: bool,
    ) -> Result<Answer, LlmError> {
        self.answer_counted(ctx, messages, tainted, &mut Usage::default()).await
    }

    /// [`Agent::answer`], adding the tokens every LLM call of the turn used to `usage` (also
    /// those of the rounds before a failure).
    pub async fn answer_counted(
        &self,
        ctx: &ToolCtx,
        mut messages: Vec<ChatMessage>,
        tainted: bool,
        usage: &mut Usage,
    ) -> Result<Answer, LlmError> {
        let audience = Audience::of(&ctx.conversation);
        let listed_now;
        let tools = match &self.fixed_tools {
            Some([one_to_one, _]) if audience == Audience::OneToOne => one_to_one,
            Some([_, group]) => group,
            None => {
                listed_now = self.llm.tool_list(&self.registry.definitions(audience));
                &listed_now
            }
        };
        let mut answer = Answer::default();
        let family =
            messages.iter().filter_map(ChatMessage::family_words).collect::<Vec<_>>().join("\n");
        let llm = match &self.vision {
            Some(vision) if messages.iter().any(ChatMessage::has_image) => vision,
            _ => &self.llm,
        };
        let mut turn = Turn { tainted, family, links: Vec::new() };
        let mut called: Vec<String> = Vec::new();
        for round in 0..=self.max_rounds {
            let allow_tools = round < self.max_rounds;
            let completion = llm.complete_with(&messages, tools, allow_tools).await?;
            usage.add(completion.usage.unwrap_or_default());
            if completion.tool_calls.is_empty() || !allow_tools {
                answer.text = completion.content.unwrap_or_default();
                break;
            }
            let calls = completion.tool_calls;
            tracing::debug!(round, calls = calls.len(), "model called tools");

            // A call through the finder is the call of the tool it names: held, fenced and
            // counted as that tool.
            let targets: Vec<(String, String)> = calls
                .iter()
                .map(|c| {
                    finder::unwrap(&c.function.name, &c.function.arguments)
                        .unwrap_or_else(|| (c.function.name.clone(), c.function.arguments.clone()))
                })
                .collect();
            // The turn's span (the inbox's `event`) names every tool the turn called.
            called.extend(targets.iter().map(|(name, _)| name.clone()));
            tracing::Span::current().record("tools", called.join(","));
            let (run, dropped) = targets.split_at(targets.len().min(self.max_calls_per_round));
            let mut replies =
                join_all(run.iter().map(|(name, args)| self.run_call(ctx, name, args, &turn)))
                    .await;
            if !dropped.is_empty() {
                tracing::warn!(round, dropped = dropped.len(), "too many tool calls in one round");
                crate::platform::metrics::tool_calls_dropped(dropped.len() as u64);
                replies.extend(dropped.iter().map(|_| self.too_many_calls()));
            }
            messages.push(ChatMessage::Assistant {
                content: completion.content,
                tool_calls: calls.clone(),
            });
            for ((call, (name, _)), reply) in calls.iter().zip(&targets).zip(replies) {
                if reply.outcome == Outcome::Ok {
                    turn.tainted |= reply.untrusted || self.registry.untrusted_output(name);
                    turn.links.extend(reply.links);
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
        answer.tainted = turn.tainted;
        Ok(answer)
    }
}
