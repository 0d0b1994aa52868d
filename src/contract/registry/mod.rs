//! The registry: the tools by name, the definitions sent to the LLM, and [`dispatch`], which
//! never fails. An unknown tool, arguments that do not parse, a tool error, a timeout and a
//! panic all become `{"error": {"kind", "message"}}` data for the LLM to explain ([`call`] runs
//! one call so).
//!
//! Besides the typed tools of the list, a registry may take [`ToolSource`]s: tools known only at
//! run time (those of MCP servers), which come and go with their server. They are dispatched the
//! same way (time limit, panics and errors as data) and can never shadow a tool of the list or
//! of an earlier source.
//!
//! [`dispatch`]: Registry::dispatch

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value};

use crate::contract::egress::Outgoing;
use crate::contract::finder;
use crate::contract::schema::{Audience, check_schema, for_audience, strict_schema_for};
use crate::contract::{ErrorKind, Tool, ToolCtx, ToolError};

pub use crate::contract::definition::ToolDefinition;

mod call;

pub use call::{CallError, Outcome, ToolReply};
use call::{ErasedTool, call_dynamic, normalized_args, outcome_label};

/// A tool known only at run time: its definition, raw JSON arguments in, JSON out.
pub trait DynamicTool: Send + Sync {
    /// What the LLM sees.
    fn definition(&self) -> &ToolDefinition;
    /// What the agent needs to know about it.
    fn traits(&self) -> ToolTraits;
    /// How long one call may take before it is abandoned.
    fn timeout(&self) -> Duration;
    /// Does the work; `args` is the JSON object the LLM gave (empty when it gave nothing).
    fn run<'a>(
        &'a self,
        ctx: &'a ToolCtx,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<Value, ToolError>>;
}

/// Tools known only at run time, in order.
type DynamicTools = Vec<Arc<dyn DynamicTool>>;

/// Tools that come and go (an MCP server's, withdrawn while it is down).
pub trait ToolSource: Send + Sync {
    /// The tools offered now.
    fn tools(&self) -> Vec<Arc<dyn DynamicTool>>;
}

/// Why a registry could not be built.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// Two tools share a name.
    #[error("duplicate tool name {0:?}")]
    Duplicate(&'static str),
    /// A tool from a source takes a name already taken (by a tool of the list or of an earlier
    /// source).
    #[error("tool name {0:?} is already taken: give its MCP server another \"prefix\"")]
    Taken(String),
    /// A name outside `[a-zA-Z0-9_-]{{1,64}}`.
    #[error("bad tool name {0:?}: use 1-64 of a-z A-Z 0-9 _ -")]
    BadName(&'static str),
    /// A schema the LLM cannot use.
    #[error("tool {name:?}: {problem}")]
    BadSchema {
        /// The tool.
        name: &'static str,
        /// What is wrong.
        problem: String,
    },
}

/// What the agent needs to know about a tool besides its definition.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolTraits {
    /// It changes state ([`Tool::CHANGES_STATE`]): held after untrusted content.
    pub changes_state: bool,
    /// Its output is untrusted ([`Tool::UNTRUSTED_OUTPUT`]): it taints the turn.
    pub untrusted_output: bool,
    /// Every call waits for the family's confirmation (a tool its server calls destructive).
    pub always_confirm: bool,
}

/// Collects tools; [`RegistryBuilder::build`] checks them.
#[derive(Default)]
pub struct RegistryBuilder {
    entries: Vec<(ToolDefinition, ToolTraits, Box<dyn ErasedTool>, bool)>,
}

impl RegistryBuilder {
    /// Adds a tool.
    pub fn tool<T: Tool>(mut self, tool: T) -> Self {
        let definition = ToolDefinition {
            name: Cow::Borrowed(T::NAME),
            description: Cow::Borrowed(T::DESCRIPTION),
            parameters: strict_schema_for::<T::Args>(),
            strict: true,
        };
        let traits = ToolTraits {
            changes_state: T::CHANGES_STATE,
            untrusted_output: T::UNTRUSTED_OUTPUT,
            always_confirm: false,
        };
        self.entries.push((definition, traits, Box::new(tool), T::IN_ONE_TO_ONE));
        self
    }

    /// Adds a tool when there is one (a tool offered only when configured).
    pub fn tool_if<T: Tool>(self, tool: Option<T>) -> Self {
        match tool {
            Some(tool) => self.tool(tool),
            None => self,
        }
    }

    /// Checks names and schemas and builds the registry.
    pub fn build(self) -> Result<Registry, RegistryError> {
        let mut by_name = HashMap::new();
        let mut definitions: [Vec<ToolDefinition>; 2] = Default::default();
        let mut tools = Vec::new();
        let mut traits = Vec::new();
        for (index, (def, t, tool, in_one_to_one)) in self.entries.into_iter().enumerate() {
            let Cow::Borrowed(name) = def.name else {
                unreachable!("typed tools have static names")
            };
            if !valid_name(name) {
                return Err(RegistryError::BadName(name));
            }
            if by_name.insert(name, index).is_some() {
                return Err(RegistryError::Duplicate(name));
            }
            for audience in Audience::ALL {
                if audience == Audience::OneToOne && !in_one_to_one {
                    continue;
                }
                let shaped = ToolDefinition {
                    parameters: for_audience(&def.parameters, audience),
                    ..def.clone()
                };
                check_schema(&shaped.parameters)
                    .map_err(|problem| RegistryError::BadSchema { name, problem })?;
                definitions[slot(audience)].push(shaped);
            }
            traits.push(t);
            tools.push(tool);
        }
        let by_name_len = by_name.len();
        shared_first(&mut definitions);
        Ok(Registry {
            by_name,
            definitions,
            traits,
            tools,
            sources: Vec::new(),
            max_tools: crate::platform::config::DEFAULT_MAX_TOOLS.max(by_name_len + 1),
        })
    }
}

/// Puts the tools whose definition is the same in a 1:1 chat and in a group first in both lists
/// (in the list's order), then the others (a group's own tools among them): the two requests
/// then share the longest prefix a provider's prompt cache can reuse.
fn shared_first(definitions: &mut [Vec<ToolDefinition>; 2]) {
    let [one, group] = definitions;
    let shared = |d: &ToolDefinition, others: &[ToolDefinition]| {
        others.iter().any(|o| o.name == d.name && o.parameters == d.parameters)
    };
    let one_same: Vec<bool> = one.iter().map(|d| shared(d, group)).collect();
    let group_same: Vec<bool> = group.iter().map(|d| shared(d, one)).collect();
    for (list, same) in [(one, one_same), (group, group_same)] {
        let mut tagged: Vec<(bool, ToolDefinition)> =
            same.into_iter().zip(std::mem::take(list)).collect();
        // A stable sort: each half keeps the list's order.
        tagged.sort_by_key(|(same, _)| !same);
        list.extend(tagged.into_iter().map(|(_, d)| d));
    }
}

/// Where `audience`'s definitions are kept.
fn slot(audience: Audience) -> usize {
    match audience {
        Audience::OneToOne => 0,
        Audience::Group => 1,
    }
}

fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The tools, by name, with their definitions.
pub struct Registry {
    by_name: HashMap<&'static str, usize>,
    /// The list's definitions as a 1:1 chat and as a group sees them ([`slot`]).
    definitions: [Vec<ToolDefinition>; 2],
    traits: Vec<ToolTraits>,
    tools: Vec<Box<dyn ErasedTool>>,
    sources: Vec<Arc<dyn ToolSource>>,
    /// The most definitions one request carries ([`finder`]).
    max_tools: usize,
}

impl Default for Registry {
    /// A registry without tools (what the dependencies of tools and buttons hold until their
    /// tools are built).
    fn default() -> Self {
        Self {
            by_name: HashMap::new(),
            definitions: Default::default(),
            traits: Vec::new(),
            tools: Vec::new(),
            sources: Vec::new(),
            max_tools: crate::platform::config::DEFAULT_MAX_TOOLS,
        }
    }
}

impl Registry {
    /// Starts an empty registry.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::default()
    }

    /// The same registry with tools from `sources` after those of the list. A tool of a source
    /// offered now whose name is taken is refused. Later, a name belongs to the first tool
    /// offering it at that moment: a tool of the list always, else the earliest source's; a
    /// tool that appears under a taken name is not offered.
    pub fn with_sources(
        mut self,
        sources: Vec<Arc<dyn ToolSource>>,
    ) -> Result<Registry, RegistryError> {
        self.sources = sources;
        let mut taken = HashSet::new();
        for source in &self.sources {
            for tool in source.tools() {
                let name = tool.definition().name.to_string();
                let reserved = name == finder::NAME;
                if reserved
                    || self.by_name.contains_key(name.as_str())
                    || !taken.insert(name.clone())
                {
                    return Err(RegistryError::Taken(name));
                }
            }
        }
        Ok(self)
    }

    /// The same registry, sending at most `max` definitions in one request (never fewer than
    /// the list's tools and the finder); the sources' tools beyond it are reached through
    /// [`finder::NAME`].
    pub fn with_max_tools(mut self, max: usize) -> Self {
        let least = self.by_name.len() + 1;
        if max < least {
            tracing::warn!(
                max,
                least,
                "HEARTH_MAX_TOOLS is below hearth's own tools and the finder: using {least}"
            );
        }
        self.max_tools = max.max(least);
        self
    }

    /// True when tools come from sources (MCP servers) too: the list may change between turns.
    pub fn has_sources(&self) -> bool {
        !self.sources.is_empty()
    }

    /// The tools of the sources offered now, each under a name nothing before it took.
    fn dynamic_tools(&self) -> Vec<Arc<dyn DynamicTool>> {
        let mut taken = HashSet::new();
        let mut tools = Vec::new();
        for source in &self.sources {
            for tool in source.tools() {
                let name = tool.definition().name.to_string();
                if name != finder::NAME
                    && !self.by_name.contains_key(name.as_str())
                    && taken.insert(name)
                {
                    tools.push(tool);
                }
            }
        }
        tools
    }

    fn dynamic_tool(&self, name: &str) -> Option<Arc<dyn DynamicTool>> {
        self.dynamic_tools().into_iter().find(|t| t.definition().name == name)
    }

    /// The sources' tools offered now, split into those listed in a request and those reached
    /// through the finder (none when all fit under the cap).
    fn split_dynamic(&self) -> (DynamicTools, DynamicTools) {
        let mut listed = self.dynamic_tools();
        let room = self.max_tools.saturating_sub(self.by_name.len());
        if listed.len() <= room {
            return (listed, Vec::new());
        }
        let beyond = listed.split_off(room.saturating_sub(1).min(listed.len()));
        (listed, beyond)
    }

    /// The tool definitions `audience` is offered: the list's in order, then those the sources
    /// offer now, at most the cap in all: when the sources' would pass it, those that do not
    /// fit are left to the finder, which takes the last place.
    pub fn definitions(&self, audience: Audience) -> Vec<ToolDefinition> {
        let mut definitions = self.definitions[slot(audience)].clone();
        let (listed, beyond) = self.split_dynamic();
        definitions.extend(listed.iter().map(|t| t.definition().clone()));
        if !beyond.is_empty() {
            definitions.push(finder::definition());
        }
        definitions
    }

    /// True if a tool called `name` is offered now (without copying the definitions).
    pub fn offers(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
            || self.dynamic_tool(name).is_some()
            || (name == finder::NAME && !self.split_dynamic().1.is_empty())
    }

    /// What the finder answers a search with: the tools beyond the cap that fit `args`' words,
    /// untrusted ([`ToolReply::untrusted`]) when it shows a tool whose server's output is.
    fn find(&self, args: &str) -> ToolReply {
        let args: finder::Args = serde_json::from_str(normalized_args(args)).unwrap_or_default();
        // Every tool the sources offer now, not only those beyond the cap: a server that came
        // back since the request was built may have moved the line.
        let offered = self.dynamic_tools();
        let tools: Vec<ToolDefinition> = offered.iter().map(|t| t.definition().clone()).collect();
        let content = finder::search(&tools, args.query.as_deref());
        let untrusted = finder::taints(&content, |name| {
            offered.iter().any(|t| t.definition().name == name && t.traits().untrusted_output)
        });
        ToolReply { untrusted, ..ToolReply::ok(content) }
    }

    fn traits(&self, name: &str) -> ToolTraits {
        match self.by_name.get(name) {
            Some(&i) => self.traits.get(i).copied().unwrap_or_default(),
            None => self.dynamic_tool(name).map(|t| t.traits()).unwrap_or_default(),
        }
    }

    /// True if every call of `name` waits for the family's confirmation (a tool its MCP server
    /// declares destructive); false for unknown names.
    pub fn always_confirm(&self, name: &str) -> bool {
        self.traits(name).always_confirm
    }

    /// True if the tool `name` changes state ([`Tool::CHANGES_STATE`]); false for unknown names.
    pub fn changes_state(&self, name: &str) -> bool {
        self.traits(name).changes_state
    }

    /// True if the call `name(args)` changes state ([`Tool::changes_state`]; a tool known
    /// only at run time by its flag); false for unknown names.
    pub fn call_changes_state(&self, name: &str, args: &str) -> bool {
        match self.by_name.get(name) {
            Some(&i) => self.tools[i].changes_state(args),
            None => self.changes_state(name),
        }
    }

    /// True if the tool `name` returns untrusted web content ([`Tool::UNTRUSTED_OUTPUT`]).
    pub fn untrusted_output(&self, name: &str) -> bool {
        self.traits(name).untrusted_output
    }

    /// The outgoing request the call `name(args)` would make ([`Tool::outgoing`]); `None` for
    /// unknown tools and arguments that do not parse (such calls make no request).
    pub fn outgoing(&self, name: &str, args: &str) -> Option<Outgoing> {
        self.by_name.get(name).and_then(|&i| self.tools[i].outgoing(args))
    }

    /// The error reply the call `name(args)` would end in before doing anything (arguments
    /// that do not parse, [`Tool::check`] refusing them); `None` when it would go ahead, and
    /// for tools known only at run time (their servers check their own arguments).
    pub fn check(&self, name: &str, args: &str, ctx: &ToolCtx) -> Option<ToolReply> {
        let &index = self.by_name.get(name)?;
        let refused = self.tools[index].check(ctx, args).err()?;
        Some(ToolReply::error(refused.kind, refused.message))
    }

    /// Runs the tool `name` with the raw JSON `args`. Never fails: every problem is a reply. A
    /// search through the finder answers with what it found; a call through it must have been
    /// unwrapped ([`finder::unwrap`]) and is refused here.
    pub async fn dispatch(&self, name: &str, args: &str, ctx: &ToolCtx) -> ToolReply {
        let span = tracing::info_span!("tool", tool = name, outcome = tracing::field::Empty);
        let call = self.dispatch_in_span(name, args, ctx);
        crate::platform::timing::timed(span, call, |reply| outcome_label(reply.outcome)).await
    }

    /// [`Registry::dispatch`] inside the call's span.
    async fn dispatch_in_span(&self, name: &str, args: &str, ctx: &ToolCtx) -> ToolReply {
        if name == finder::NAME {
            // A call through the finder is unwrapped by the agent before it decides whether to
            // hold it; one that reaches here (wrapped twice, say) is refused, never run unheld.
            if finder::unwrap(name, args).is_some() {
                crate::platform::metrics::tool_call(
                    finder::NAME,
                    ErrorKind::InvalidArguments.as_str(),
                );
                return ToolReply::error(
                    ErrorKind::InvalidArguments,
                    "call a tool found by naming it in call, once: find_tools cannot call find_tools",
                );
            }
            crate::platform::metrics::tool_call(finder::NAME, "ok");
            tracing::info!(tool = name, outcome = "ok", "tool call");
            return self.find(args);
        }
        let Some((&static_name, &index)) = self.by_name.get_key_value(name) else {
            if let Some(tool) = self.dynamic_tool(name) {
                let reply = call_dynamic(tool.as_ref(), ctx, args).await;
                let outcome = outcome_label(reply.outcome);
                crate::platform::metrics::tool_call("dynamic", outcome);
                tracing::info!(tool = name, outcome, "tool call");
                return reply;
            }
            crate::platform::metrics::tool_call("unknown", ErrorKind::UnknownTool.as_str());
            tracing::warn!(tool = name, "the LLM called an unknown tool");
            return ToolReply::error(
                ErrorKind::UnknownTool,
                format!("there is no tool named {name:?}"),
            );
        };
        let reply = self.tools[index].call(ctx, args).await;
        let outcome = outcome_label(reply.outcome);
        crate::platform::metrics::tool_call(static_name, outcome);
        tracing::info!(tool = name, outcome, "tool call");
        reply
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// A tool from a source, answering with its source's label.
    struct Labelled {
        definition: super::ToolDefinition,
        label: &'static str,
    }

    impl super::DynamicTool for Labelled {
        fn definition(&self) -> &super::ToolDefinition {
            &self.definition
        }
        fn traits(&self) -> super::ToolTraits {
            super::ToolTraits::default()
        }
        fn timeout(&self) -> std::time::Duration {
            std::time::Duration::from_secs(1)
        }
        fn run<'a>(
            &'a self,
            _ctx: &'a crate::contract::ToolCtx,
            _args: serde_json::Map<String, serde_json::Value>,
        ) -> futures::future::BoxFuture<'a, Result<serde_json::Value, crate::contract::ToolError>>
        {
            Box::pin(async move { Ok(json!(self.label)) })
        }
    }

    /// A source whose tools can be switched on later.
    #[derive(Default)]
    struct Switchable(std::sync::Mutex<Vec<std::sync::Arc<dyn super::DynamicTool>>>);

    impl super::ToolSource for Switchable {
        fn tools(&self) -> Vec<std::sync::Arc<dyn super::DynamicTool>> {
            self.0.lock().map(|t| t.clone()).unwrap_or_default()
        }
    }

    fn labelled(name: &'static str, label: &'static str) -> std::sync::Arc<dyn super::DynamicTool> {
        std::sync::Arc::new(Labelled {
            definition: super::ToolDefinition {
                name: name.into(),
                description: "".into(),
                parameters: json!({"type": "object", "properties": {}}),
                strict: true,
            },
            label,
        })
    }

    fn ctx() -> crate::contract::ToolCtx {
        crate::contract::ToolCtx {
            conversation: crate::platform::conversation::Conversation::user("U1"),
            user_id: None,
            display_name: None,
            tz: jiff::tz::TimeZone::UTC,
            lang: crate::platform::i18n::Lang::En,
            clock: std::sync::Arc::new(crate::platform::clock::SystemClock),
            surface: crate::contract::Surface::Chat,
        }
    }

    #[tokio::test]
    async fn a_name_belongs_to_the_earliest_source_offering_it_now() {
        let first = std::sync::Arc::new(Switchable::default());
        let later = std::sync::Arc::new(Switchable::default());
        first.0.lock().expect("lock").push(labelled("home_lookup", "first"));
        let registry = super::Registry::builder()
            .build()
            .and_then(|r| r.with_sources(vec![first.clone(), later.clone()]))
            .expect("no clash at start");
        later.0.lock().expect("lock").push(labelled("home_lookup", "later"));
        later.0.lock().expect("lock").push(labelled("kids_lookup", "later"));
        let names: Vec<String> = registry
            .definitions(crate::contract::schema::Audience::Group)
            .iter()
            .map(|d| d.name.to_string())
            .collect();
        assert_eq!(names, ["home_lookup", "kids_lookup"]);
        assert!(registry.offers("kids_lookup") && !registry.offers("pets_lookup"));
        assert_eq!(registry.dispatch("home_lookup", "{}", &ctx()).await.content, json!("first"));
        first.0.lock().expect("lock").clear();
        let names: Vec<String> = registry
            .definitions(crate::contract::schema::Audience::Group)
            .iter()
            .map(|d| d.name.to_string())
            .collect();
        assert_eq!(names, ["home_lookup", "kids_lookup"], "the name goes to the next offering it");
        assert_eq!(registry.dispatch("home_lookup", "", &ctx()).await.content, json!("later"));
        later.0.lock().expect("lock").clear();
        assert!(
            registry.definitions(crate::contract::schema::Audience::Group).is_empty(),
            "withdrawn while no source offers them"
        );
        assert!(!registry.offers("home_lookup"), "not offered once withdrawn");
    }

    #[test]
    fn a_source_tool_under_a_taken_name_at_start_is_refused() {
        let a = std::sync::Arc::new(Switchable::default());
        let b = std::sync::Arc::new(Switchable::default());
        a.0.lock().expect("lock").push(labelled("x_y", "a"));
        b.0.lock().expect("lock").push(labelled("x_y", "b"));
        let built = super::Registry::builder().build().expect("empty");
        assert!(
            matches!(built.with_sources(vec![a, b]), Err(super::RegistryError::Taken(name)) if name == "x_y")
        );
    }
}
