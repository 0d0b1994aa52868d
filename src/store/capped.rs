//! Per-conversation caps — reminders, price alerts, memories — enforced by the store itself, so
//! the tool calls of one LLM round (which run concurrently) cannot together go past a cap.
//!
//! Each capped insert is one `INSERT … SELECT … WHERE (SELECT COUNT(*) …) < cap` statement. On
//! SQLite that is atomic (one writer at a time). On PostgreSQL under READ COMMITTED two such
//! statements could both see room for one more, so there the insert first takes a
//! transaction-scoped advisory lock on the conversation: inserts into one chat queue behind each
//! other, different chats never wait.

use super::{Backend, Store};

/// The most active and paused reminders one conversation keeps.
pub const MAX_REMINDERS: usize = 200;
/// The most active price alerts one conversation keeps.
pub const MAX_ALERTS: usize = 50;
/// The most memories one conversation keeps.
pub const MAX_MEMORIES: usize = 500;

/// Serialises the capped inserts of one conversation until the transaction ends (PostgreSQL).
/// The first key keeps these locks apart from any other advisory lock.
const LOCK_CONVERSATION: &str = "SELECT pg_advisory_xact_lock(1751474546, hashtext($1))";

/// A cap as the store binds it.
pub(super) fn cap(max: usize) -> i64 {
    i64::try_from(max).unwrap_or(i64::MAX)
}

impl Store {
    /// The statement that locks a conversation's capped rows for the rest of a transaction, on
    /// the backends that need one (bind the conversation id).
    pub(super) fn conversation_lock(&self) -> Option<&'static str> {
        match &*self.backend {
            Backend::Sqlite(_) => None,
            Backend::Postgres(_) => Some(LOCK_CONVERSATION),
        }
    }
}
