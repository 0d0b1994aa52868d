//! What the tools that show a chat's kept things or cancel one of them (`reminders`,
//! `price_alerts`) share: the action, and an output that is the action's own.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What to do.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// List them, as a card with a cancel button on each.
    Show,
    /// Stop one.
    Cancel,
}

/// The result: the action's own output.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Output<S, C> {
    /// Of `show`.
    Show(S),
    /// Of `cancel`.
    Cancel(C),
}
