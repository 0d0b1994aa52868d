//! `cancel_digest`: stops this conversation's daily digest ("不用再傳每日摘要了").

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Tool, ToolCtx, ToolError};
use crate::store::Store;

/// Arguments of `cancel_digest` (none).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {}

/// The result of `cancel_digest`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The digest is stopped.
    pub cancelled: bool,
}

/// The cancel_digest tool.
pub struct CancelDigest {
    store: Store,
}

impl CancelDigest {
    /// The tool over the store.
    pub fn new(store: Store) -> Self {
        Self { store }
    }
}

impl Tool for CancelDigest {
    const NAME: &'static str = "cancel_digest";
    const DESCRIPTION: &'static str = "Stop this chat's daily digest (不要每日摘要了, 'stop the morning summary'). To change its time or city use set_digest instead.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    async fn run(&self, ctx: &ToolCtx, _args: Args) -> Result<Output, ToolError> {
        if self.store.cancel_digest(&ctx.conversation.id).await? {
            Ok(Output { cancelled: true })
        } else {
            Err(ToolError::NotFound("this chat has no daily digest".into()))
        }
    }
}
