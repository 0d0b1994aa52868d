//! A tool as the LLM sees it: its name, what it is for, and the schema of its arguments. The
//! registry makes one for each tool; the finder (`crate::contract::finder`) shows them to the
//! model when they do not fit in a request.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

/// A tool as the LLM sees it.
#[derive(Debug, Clone, Serialize)]
pub struct ToolDefinition {
    /// The wire name.
    pub name: Cow<'static, str>,
    /// What the tool is for.
    pub description: Cow<'static, str>,
    /// The JSON schema of the arguments (strict unless `strict` is false).
    pub parameters: Value,
    /// The schema is in the strict subset (always, for the tools of the list); a tool from
    /// elsewhere whose schema cannot be made strict is sent without `strict`.
    #[serde(skip)]
    pub strict: bool,
}
