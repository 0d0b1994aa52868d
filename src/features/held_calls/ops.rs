//! The held calls' operations: keep a call for the family's confirmation, and take it back
//! once (to run it, or to drop it), always within the chat it was held in.

use crate::contract::ToolCtx;
use crate::features::deps::Deps;
use crate::store::{HeldCall, NewHeldCall, Store, StoreError};

/// The held calls of every chat, over the store.
#[derive(Clone)]
pub struct HeldCallOps {
    store: Store,
}

impl HeldCallOps {
    /// The held calls kept in `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// The held calls kept in `deps`' store.
    pub fn from_deps(deps: &Deps) -> Self {
        Self::new(deps.store.clone())
    }

    /// Keeps the call `tool(args)` in `ctx`'s chat until it is confirmed or dropped: its id.
    pub async fn hold(&self, ctx: &ToolCtx, tool: &str, args: &str) -> Result<i64, StoreError> {
        let call = NewHeldCall {
            conversation_id: &ctx.conversation.id,
            tool,
            args,
            lang: ctx.lang,
            at_ms: ctx.now().as_millisecond(),
        };
        self.store.held_calls().add(&call).await
    }

    /// Takes held call `id` of `ctx`'s chat, once: none when it was taken already, or is
    /// another chat's.
    pub async fn take(&self, ctx: &ToolCtx, id: i64) -> Result<Option<HeldCall>, StoreError> {
        self.store.held_calls().take(&ctx.conversation.id, id).await
    }
}
