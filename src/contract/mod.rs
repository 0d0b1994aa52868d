//! What a tool author sees: the [`Tool`] trait, the [`ToolCtx`] every call receives, the
//! [`ToolError`] a tool may return, and the optional presentation ([`Card`], [`Chip`]).
//!
//! Adding a tool is one new file under `src/tools/` implementing [`Tool`], and one line in the
//! list in `src/tools/mod.rs`. The JSON schema the LLM sees is derived from `Args`; the `///` comments
//! on its fields are the parameter descriptions the LLM reads.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use jiff::tz::TimeZone;
use jiff::{Timestamp, ZonedDateTime};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub mod card;
pub mod chart;
pub mod definition;
pub mod egress;
pub mod finder;
pub mod list;
pub mod registry;
pub mod schema;
pub mod show_or_cancel;
pub mod untrusted;

pub use card::{Answer, Card, CardButton, CardRow, Chip, Styled, Tone};

use crate::contract::egress::Outgoing;
use crate::platform::clock::Clock;
use crate::platform::conversation::Conversation;
use crate::platform::i18n::Lang;
use crate::sources::UpstreamError;
use crate::sources::symbols::SymbolError;
use crate::store::StoreError;

/// A capability the LLM can call.
pub trait Tool: Send + Sync + 'static {
    /// The wire name the LLM calls: `[a-zA-Z0-9_-]{1,64}`.
    const NAME: &'static str;
    /// The only documentation the LLM reads: when to use this tool, and when not to.
    const DESCRIPTION: &'static str;
    /// The arguments; their type is the schema.
    type Args: DeserializeOwned + JsonSchema + Send;
    /// The result, fed back to the LLM as JSON.
    type Output: Serialize + Send + Sync;
    /// True for tools that change what hearth keeps or will do (reminders, memory, alerts).
    /// After untrusted content entered a turn, the agent holds such a call for the family to
    /// confirm with a button instead of running it.
    const CHANGES_STATE: bool = false;
    /// True for tools whose output carries untrusted content from the web (search snippets,
    /// page text). Once such a call succeeded in a turn, state-changing calls are held.
    const UNTRUSTED_OUTPUT: bool = false;
    /// Offered in a 1:1 chat too; false for a tool that is a group's own (the family calendar:
    /// its definition then costs nothing in a 1:1 chat's request).
    const IN_ONE_TO_ONE: bool = true;

    /// Does the work. An `Err` is not a failure of the turn: it becomes data the LLM explains.
    fn run(
        &self,
        ctx: &ToolCtx,
        args: Self::Args,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;

    /// An optional card shown with the answer.
    fn card(&self, _ctx: &ToolCtx, _out: &Self::Output) -> Option<Card> {
        None
    }

    /// Optional follow-up chips (quick replies).
    fn quick_replies(&self, _ctx: &ToolCtx, _out: &Self::Output) -> Vec<Chip> {
        Vec::new()
    }

    /// The request to the outside world a call with these arguments makes, when the model
    /// chooses its target or content (a URL to fetch, a query to search). After untrusted
    /// content entered a turn, the agent holds it for confirmation unless
    /// [`crate::contract::egress::allowed`] lets it run.
    fn outgoing(&self, _args: &Self::Args) -> Option<Outgoing> {
        None
    }

    /// Whether a call with these arguments changes state; [`Tool::CHANGES_STATE`] unless the
    /// tool knows better (a tool whose one action only reads says so for that action, and is
    /// then not held after untrusted content).
    fn changes_state(&self, _args: &Self::Args) -> bool {
        Self::CHANGES_STATE
    }

    /// Checks `args` as [`Tool::run`] does first, changing nothing (a state-changing tool's
    /// `run` begins by calling it). A call held for the family's confirmation is checked so
    /// before any card is shown: a mistake reaches the model in the same turn, never after a
    /// tap. The default: nothing beyond the schema.
    fn check(&self, _ctx: &ToolCtx, _args: &Self::Args) -> Result<(), ToolError> {
        Ok(())
    }

    /// Links the output offers to read next (search results): fetching one of them later in
    /// the same turn is not held.
    fn links(&self, _out: &Self::Output) -> Vec<String> {
        Vec::new()
    }

    /// How long one call may take before it is abandoned.
    fn timeout(&self) -> Duration {
        Duration::from_secs(10)
    }
}

/// Where a request came from: the way a member (or hearth itself) reached a verb. Every change
/// is recorded with it ([`crate::features::changes`]), so the family page can say 「媽媽 在網頁上
/// 勾掉了 牛奶」.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Surface {
    /// Words in the chat, carried out by the model's tool call.
    Chat,
    /// A button on a card or a prompt in the chat.
    Button,
    /// A button of a rich menu.
    Menu,
    /// The family page.
    Page,
    /// A command of the `hearth` executable, run by the operator.
    Cli,
    /// hearth itself, on time: a background loop.
    Loop,
}

impl Surface {
    /// Every surface, in the order the verbs table shows them.
    pub const ALL: [Surface; 6] =
        [Surface::Chat, Surface::Button, Surface::Menu, Surface::Page, Surface::Cli, Surface::Loop];

    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Surface::Chat => "chat",
            Surface::Button => "button",
            Surface::Menu => "menu",
            Surface::Page => "page",
            Surface::Cli => "cli",
            Surface::Loop => "loop",
        }
    }

    /// The surface a stored name means.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// How the family reads it in the feed of changes: 「在網頁上」, "on the page".
    pub fn said(self, lang: Lang) -> &'static str {
        match self {
            Surface::Chat => lang.pick("在聊天中", "in the chat"),
            Surface::Button => lang.pick("按按鈕", "with a button"),
            Surface::Menu => lang.pick("從選單", "from the menu"),
            Surface::Page => lang.pick("在網頁上", "on the page"),
            Surface::Cli => lang.pick("由管理員", "by the operator"),
            Surface::Loop => lang.pick("自動", "by itself"),
        }
    }
}

/// The context every tool call receives, and the actor of every verb: which conversation, who
/// asked (their id and name), in what language, when (the clock), and from which [`Surface`].
#[derive(Clone)]
pub struct ToolCtx {
    /// The conversation the request came from; the only one a tool may act on.
    pub conversation: Conversation,
    /// The LINE user id of the person asking, when LINE provided it.
    pub user_id: Option<String>,
    /// Their display name, when known.
    pub display_name: Option<String>,
    /// The conversation's time zone.
    pub tz: TimeZone,
    /// The language to present cards and chips in.
    pub lang: Lang,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// Where the request came from.
    pub surface: Surface,
}

impl ToolCtx {
    /// The current instant.
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// The current local date and time in the conversation's zone.
    pub fn local_now(&self) -> ZonedDateTime {
        self.clock.now().to_zoned_datetime(self.tz.clone())
    }
}

impl std::fmt::Debug for ToolCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCtx")
            .field("conversation", &self.conversation)
            .field("user_id", &self.user_id)
            .field("lang", &self.lang)
            .field("surface", &self.surface)
            .finish_non_exhaustive()
    }
}

/// Why a tool call did not produce a result. The `Display` text is what the LLM reads, so it is
/// short and free of internals; the cause chain goes to the log.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The arguments parse but make no sense (a negative amount, an unknown currency).
    #[error("{0}")]
    InvalidArgs(String),
    /// The thing asked about does not exist (an unknown city or symbol).
    #[error("{0}")]
    NotFound(String),
    /// A data source failed: down, slow, throttling or answering garbage.
    #[error("{service} is unavailable right now ({reason}); try again later")]
    Upstream {
        /// Which service, in words the LLM can repeat ("the weather service").
        service: &'static str,
        /// A short reason ("timeout", "rate limited").
        reason: String,
        /// The underlying error, for the log.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
}

impl ToolError {
    /// The tool error the LLM reads when `service` (in words: "the quote service") failed.
    pub fn upstream(service: &'static str, error: UpstreamError) -> Self {
        ToolError::Upstream { service, reason: error.to_string(), source: Some(Box::new(error)) }
    }

    /// The machine-readable kind placed next to the message.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ToolError::InvalidArgs(_) => ErrorKind::InvalidArguments,
            ToolError::NotFound(_) => ErrorKind::NotFound,
            ToolError::Upstream { .. } => ErrorKind::UpstreamUnavailable,
        }
    }
}

/// What kind of failure a call ended in: the `kind` the LLM reads beside the message (its
/// snake_case name), and the `outcome` label of the tool-call metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The arguments did not parse, or parse but make no sense ([`ToolError::InvalidArgs`]).
    InvalidArguments,
    /// The thing asked about does not exist ([`ToolError::NotFound`]).
    NotFound,
    /// A data source failed ([`ToolError::Upstream`]).
    UpstreamUnavailable,
    /// The LLM called a tool the registry does not have.
    UnknownTool,
    /// The tool ran longer than its [`Tool::timeout`].
    Timeout,
    /// The tool panicked or its output did not serialise.
    Internal,
    /// Not run: asked for after untrusted content, with no way to hold it for confirmation.
    NotAllowed,
    /// Not run: beyond the per-round cap on tool calls.
    TooManyCalls,
}

impl ErrorKind {
    /// Every kind.
    pub const ALL: [ErrorKind; 8] = [
        ErrorKind::InvalidArguments,
        ErrorKind::NotFound,
        ErrorKind::UpstreamUnavailable,
        ErrorKind::UnknownTool,
        ErrorKind::Timeout,
        ErrorKind::Internal,
        ErrorKind::NotAllowed,
        ErrorKind::TooManyCalls,
    ];

    /// The wire name (as serialised), for metric labels and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidArguments => "invalid_arguments",
            ErrorKind::NotFound => "not_found",
            ErrorKind::UpstreamUnavailable => "upstream_unavailable",
            ErrorKind::UnknownTool => "unknown_tool",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Internal => "internal",
            ErrorKind::NotAllowed => "not_allowed",
            ErrorKind::TooManyCalls => "too_many_calls",
        }
    }
}

/// A store failure as the LLM reads it: a full conversation is the family's to fix (cancel or
/// forget some first); anything else is hearth's storage being unavailable.
impl From<StoreError> for ToolError {
    fn from(error: StoreError) -> Self {
        if let StoreError::Full { what, .. } = error {
            // At the cap (see `crate::store::MAX_REMINDERS` and the like): the model should say so.
            let remedy = if what == "memories" { "forget" } else { "cancel" };
            return ToolError::InvalidArgs(format!("{error}; {remedy} some first"));
        }
        ToolError::Upstream {
            service: "hearth's storage",
            reason: "database error".into(),
            source: Some(Box::new(error)),
        }
    }
}

/// Input that names no instrument: the LLM is told how to pass a symbol.
impl From<SymbolError> for ToolError {
    fn from(error: SymbolError) -> Self {
        ToolError::InvalidArgs(error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_chat_is_told_to_make_room_in_its_own_words() {
        let full = |what| ToolError::from(StoreError::Full { what, cap: 3 });
        let reminders = full("reminders");
        assert_eq!(reminders.kind(), ErrorKind::InvalidArguments);
        assert!(reminders.to_string().ends_with("; cancel some first"), "{reminders}");
        assert!(full("price alerts").to_string().ends_with("; cancel some first"));
        assert!(full("memories").to_string().ends_with("; forget some first"));
    }

    #[test]
    fn other_store_failures_are_storage_outages_with_the_cause_kept() {
        let error = ToolError::from(StoreError::Database(sqlx::Error::RowNotFound));
        assert_eq!(error.kind(), ErrorKind::UpstreamUnavailable);
        assert!(!error.to_string().contains("no rows"), "the cause stays out of the message");
        assert!(std::error::Error::source(&error).is_some());
    }

    #[test]
    fn a_word_that_names_no_instrument_is_an_invalid_argument() {
        let error = ToolError::from(
            crate::sources::symbols::resolve_symbol(
                "a/b",
                &crate::sources::securities::Securities::built_in(),
            )
            .expect_err("not a symbol"),
        );
        assert_eq!(error.kind(), ErrorKind::InvalidArguments);
        assert!(error.to_string().contains("2330.TW"));
    }

    #[test]
    fn error_kinds_keep_their_wire_names() {
        let names: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "invalid_arguments",
                "not_found",
                "upstream_unavailable",
                "unknown_tool",
                "timeout",
                "internal",
                "not_allowed",
                "too_many_calls",
            ]
        );
        for kind in ErrorKind::ALL {
            assert_eq!(serde_json::to_value(kind).ok(), Some(serde_json::json!(kind.as_str())));
        }
    }
}
