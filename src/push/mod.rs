//! The push machinery every capability pushes through, below the capabilities and knowing none
//! of them:
//!
//! - [`delivery`]: recorded pushes with their retry keys, handed to the one per-chat outbox,
//!   everything due for a chat in one push, held when the month's quota cannot pay for it;
//! - [`quota`]: LINE's monthly message quota — the pure decisions (which month, what a push
//!   takes, send or hold, when to warn) and [`quota::QuotaTracker`], which reads LINE and
//!   keeps the running count;
//! - [`quiet`]: a chat's quiet hours, when pushes that can wait are held until morning.
//!
//! Whether a chat may be pushed to at all is the door's ([`crate::door`]), asked by the outbox
//! and by the one push sent at once, outside it ([`delivery::Pusher::push_now`]).

pub mod delivery;
pub mod quiet;
pub mod quota;
