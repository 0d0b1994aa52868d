//! `set_quiet_hours`: sets (or changes) this conversation's quiet hours ("晚上十點到早上七點不要
//! 吵"). Price-alert fires and the daily digest that fall inside them wait for their end and come
//! then; reminders the family set for a time inside them still come at that time.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Tool, ToolCtx, ToolError};
use crate::features::quiet::QuietHours;
use crate::platform::clock::{format_local_time, parse_local_time};
use crate::store::{QuietRow, Store};

/// Arguments of `set_quiet_hours`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// When quiet begins, HH:MM on a 24-hour clock ("晚上十點" → "22:00").
    pub start: String,
    /// When quiet ends, HH:MM on a 24-hour clock ("早上七點" → "07:00"); before start means the next morning.
    pub end: String,
}

/// The result of `set_quiet_hours`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// Start, HH:MM.
    pub start: String,
    /// End, HH:MM.
    pub end: String,
    /// What the family should know.
    pub note: &'static str,
}

/// The set_quiet_hours tool.
pub struct SetQuietHours {
    store: Store,
}

impl SetQuietHours {
    /// The tool over the store.
    pub fn new(store: Store) -> Self {
        Self { store }
    }
}

impl Tool for SetQuietHours {
    const NAME: &'static str = "set_quiet_hours";
    const DESCRIPTION: &'static str = "Set or change this chat's quiet hours (勿擾時段, 晚上十點到早上七點不要吵, 'don't message us at night'): price-alert notifications and the daily digest that fall inside them wait until they end; reminders set for a time inside them still come on time. To end quiet hours use cancel_quiet_hours.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let invalid = |e: &dyn std::fmt::Display| ToolError::InvalidArgs(e.to_string());
        let start = parse_local_time(&args.start).map_err(|e| invalid(&e))?;
        let end = parse_local_time(&args.end).map_err(|e| invalid(&e))?;
        let hours = QuietHours::new(start, end).map_err(|e| invalid(&e))?;
        let row = QuietRow {
            start_local: format_local_time(hours.start),
            end_local: format_local_time(hours.end),
            tz: ctx.tz.iana_name().unwrap_or("UTC").to_string(),
        };
        self.store.save_quiet_hours(&ctx.conversation.id, &row, ctx.now().as_millisecond()).await?;
        Ok(Output {
            start: row.start_local,
            end: row.end_local,
            note: "Price alerts and the daily digest wait until the end; reminders set for those hours still come on time.",
        })
    }
}
