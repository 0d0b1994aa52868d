//! Holding a call instead of running it: what the tool loop asks of whoever keeps calls for the
//! family's confirmation (`crate::features::held_calls` implements it), so the loop itself knows nothing of
//! confirmation cards or where held calls are kept.

use futures::future::BoxFuture;

use crate::contract::ToolCtx;
use crate::contract::egress::Outgoing;
use crate::contract::registry::ToolReply;

/// Why a call is held.
#[derive(Debug, Clone, Copy)]
pub enum Held<'a> {
    /// It changes state.
    StateChange,
    /// It sends this request out.
    Outgoing(&'a Outgoing),
    /// Its service declares it destructive: every call waits for a tap.
    Destructive,
}

/// Keeps calls made after untrusted content entered a turn until the family confirms them.
pub trait CallHolder: Send + Sync {
    /// Holds the call `tool(args)` in `ctx`'s conversation; the reply tells the model it was
    /// not done (and carries whatever the family is shown).
    fn hold<'a>(
        &'a self,
        ctx: &'a ToolCtx,
        tool: &'a str,
        args: &'a str,
        why: Held<'a>,
    ) -> BoxFuture<'a, ToolReply>;
}
