//! `cancel_quiet_hours`: ends this conversation's quiet hours ("晚上也可以通知了"); anything held
//! is delivered at the end of the window it was held for.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Tool, ToolCtx, ToolError};
use crate::store::Store;

/// Arguments of `cancel_quiet_hours` (none).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {}

/// The result of `cancel_quiet_hours`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// Quiet hours are off.
    pub cancelled: bool,
}

/// The cancel_quiet_hours tool.
pub struct CancelQuietHours {
    store: Store,
}

impl CancelQuietHours {
    /// The tool over the store.
    pub fn new(store: Store) -> Self {
        Self { store }
    }
}

impl Tool for CancelQuietHours {
    const NAME: &'static str = "cancel_quiet_hours";
    const DESCRIPTION: &'static str = "End this chat's quiet hours (取消勿擾, 'you can message us at night again'). To change them use set_quiet_hours.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    async fn run(&self, ctx: &ToolCtx, _args: Args) -> Result<Output, ToolError> {
        if self.store.cancel_quiet_hours(&ctx.conversation.id).await? {
            Ok(Output { cancelled: true })
        } else {
            Err(ToolError::NotFound("this chat has no quiet hours".into()))
        }
    }
}
