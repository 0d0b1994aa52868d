//! `quiet_hours`: sets (or changes) this conversation's quiet hours ("晚上十點到早上七點不要
//! 吵"; "don't message us at night" without times is 22:00–07:00), or ends them (`off`).
//! Price-alert fires and the daily digest that fall inside them wait for their end and come
//! then; reminders the family set for a time inside them still come at that time.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Tool, ToolCtx, ToolError};
use crate::push::quiet::setting::{QuietSetting, window};

pub use crate::push::quiet::setting::{DEFAULT_END, DEFAULT_START};

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
    setting: QuietSetting,
}

impl QuietHoursTool {
    /// The tool over the chats' quiet hours.
    pub fn new(setting: QuietSetting) -> Self {
        Self { setting }
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
            self.setting.end(ctx).await?;
            return Ok(Output {
                off: true,
                start: None,
                end: None,
                note: "Quiet hours are off: alerts and the digest come when they are due.",
            });
        }
        let set = self.setting.set(ctx, args.start.as_deref(), args.end.as_deref()).await?;
        Ok(Output {
            off: false,
            start: Some(set.start),
            end: Some(set.end),
            note: "Price alerts and the daily digest wait until the end; reminders set for those hours still come on time.",
        })
    }
}
