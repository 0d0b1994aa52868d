//! Setting a chat's quiet hours, changing them or ending them, as typed operations run for the
//! chat of their context. The `quiet_hours` tool and the family page's settings both call these:
//! a time not given keeps the one set, else 22:00–07:00.

use serde::Serialize;

use super::QuietHours;
use crate::contract::{ToolCtx, ToolError};
use crate::platform::clock::{format_local_time, parse_local_time};
use crate::store::{QuietRow, Store, StoreError};

/// When quiet hours start when no time is said ("晚上不要吵").
pub const DEFAULT_START: &str = "22:00";
/// When they end when no time is said.
pub const DEFAULT_END: &str = "07:00";

/// The quiet hours as set.
#[derive(Debug, Clone, Serialize)]
pub struct QuietSet {
    /// Start, HH:MM.
    pub start: String,
    /// End, HH:MM.
    pub end: String,
}

/// The quiet hours of every chat, over the store.
#[derive(Clone)]
pub struct QuietSetting {
    store: Store,
}

impl QuietSetting {
    /// The quiet hours kept in `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// The quiet hours of `chat`, if it keeps any.
    pub async fn of_chat(&self, chat: &str) -> Result<Option<QuietRow>, StoreError> {
        self.store.chats().quiet_hours(chat).await
    }

    /// Sets `ctx`'s chat's quiet hours from `start` to `end` (HH:MM); a time not given keeps the
    /// one set, else the default.
    pub async fn set(
        &self,
        ctx: &ToolCtx,
        start: Option<&str>,
        end: Option<&str>,
    ) -> Result<QuietSet, ToolError> {
        let stored = self.store.chats().quiet_hours(&ctx.conversation.id).await?;
        let start = start.or(stored.as_ref().map(|r| r.start_local.as_str()));
        let end = end.or(stored.as_ref().map(|r| r.end_local.as_str()));
        let hours = window(start, end)?;
        let row = QuietRow {
            start_local: format_local_time(hours.start),
            end_local: format_local_time(hours.end),
            tz: ctx.tz.iana_name().unwrap_or("UTC").to_string(),
        };
        self.store
            .chats()
            .save_quiet_hours(&ctx.conversation.id, &row, ctx.now().as_millisecond())
            .await?;
        Ok(QuietSet { start: row.start_local, end: row.end_local })
    }

    /// Ends `ctx`'s chat's quiet hours; not found when it has none.
    pub async fn end(&self, ctx: &ToolCtx) -> Result<(), ToolError> {
        if self.store.chats().cancel_quiet_hours(&ctx.conversation.id).await? {
            return Ok(());
        }
        Err(ToolError::NotFound("this chat has no quiet hours".into()))
    }
}

/// The quiet hours from `start` to `end` (each the default when not given), checked.
pub fn window(start: Option<&str>, end: Option<&str>) -> Result<QuietHours, ToolError> {
    let invalid = |e: &dyn std::fmt::Display| ToolError::InvalidArgs(e.to_string());
    let start = parse_local_time(start.unwrap_or(DEFAULT_START)).map_err(|e| invalid(&e))?;
    let end = parse_local_time(end.unwrap_or(DEFAULT_END)).map_err(|e| invalid(&e))?;
    QuietHours::new(start, end).map_err(|e| invalid(&e))
}
