//! `quiet_hours`: sets (or changes) this conversation's quiet hours ("晚上十點到早上七點不要
//! 吵"; "don't message us at night" without times is 22:00–07:00), or ends them (`off`).
//! Price-alert fires and the daily digest that fall inside them wait for their end and come
//! then; reminders the family set for a time inside them still come at that time.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Tool, ToolCtx, ToolError};
use crate::features::quiet::QuietHours;
use crate::platform::clock::{format_local_time, parse_local_time};
use crate::store::{QuietRow, Store};

/// When quiet hours start when no time is said ("晚上不要吵").
pub const DEFAULT_START: &str = "22:00";
/// When they end when no time is said.
pub const DEFAULT_END: &str = "07:00";

/// Arguments of `quiet_hours`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// HH:MM (晚上十點 → 22:00); null keeps it, else 22:00.
    pub start: Option<String>,
    /// null keeps it, else 07:00.
    pub end: Option<String>,
    /// true: end them (可以吵了).
    pub off: Option<bool>,
}

/// The result of `quiet_hours`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// True once quiet hours are ended.
    pub off: bool,
    /// Start, HH:MM (null once ended).
    pub start: Option<String>,
    /// End, HH:MM (null once ended).
    pub end: Option<String>,
    /// What the family should know.
    pub note: &'static str,
}

/// The quiet_hours tool.
pub struct QuietHoursTool {
    store: Store,
}

impl QuietHoursTool {
    /// The tool over the store.
    pub fn new(store: Store) -> Self {
        Self { store }
    }
}

impl Tool for QuietHoursTool {
    const NAME: &'static str = "quiet_hours";
    const DESCRIPTION: &'static str = "This chat's quiet hours (勿擾, 晚上不要吵): alerts and the digest wait until they end; reminders still come on time. Set, change, or end (off).";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    fn check(&self, _ctx: &ToolCtx, args: &Args) -> Result<(), ToolError> {
        match args.off {
            Some(true) => Ok(()),
            _ => window(args.start.as_deref(), args.end.as_deref()).map(|_| ()),
        }
    }

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        if args.off == Some(true) {
            if self.store.cancel_quiet_hours(&ctx.conversation.id).await? {
                return Ok(Output {
                    off: true,
                    start: None,
                    end: None,
                    note: "Quiet hours are off: alerts and the digest come when they are due.",
                });
            }
            return Err(ToolError::NotFound("this chat has no quiet hours".into()));
        }
        // An end not given keeps the one set, else takes the default.
        let stored = self.store.quiet_hours(&ctx.conversation.id).await?;
        let start = args.start.as_deref().or(stored.as_ref().map(|r| r.start_local.as_str()));
        let end = args.end.as_deref().or(stored.as_ref().map(|r| r.end_local.as_str()));
        let hours = window(start, end)?;
        let row = QuietRow {
            start_local: format_local_time(hours.start),
            end_local: format_local_time(hours.end),
            tz: ctx.tz.iana_name().unwrap_or("UTC").to_string(),
        };
        self.store.save_quiet_hours(&ctx.conversation.id, &row, ctx.now().as_millisecond()).await?;
        Ok(Output {
            off: false,
            start: Some(row.start_local),
            end: Some(row.end_local),
            note: "Price alerts and the daily digest wait until the end; reminders set for those hours still come on time.",
        })
    }
}

/// The quiet hours from `start` to `end` (each the default when not given), checked.
fn window(start: Option<&str>, end: Option<&str>) -> Result<QuietHours, ToolError> {
    let invalid = |e: &dyn std::fmt::Display| ToolError::InvalidArgs(e.to_string());
    let start = parse_local_time(start.unwrap_or(DEFAULT_START)).map_err(|e| invalid(&e))?;
    let end = parse_local_time(end.unwrap_or(DEFAULT_END)).map_err(|e| invalid(&e))?;
    QuietHours::new(start, end).map_err(|e| invalid(&e))
}
