//! `digest`: sets this conversation's morning digest ("每天早上七點給我今日摘要"), changes the one
//! it has (a new time, another place, "only when there is something"), or stops it (`off`). One
//! push a day: the weather for the family's place, today's reminders and birthdays, open list
//! items, watched prices that moved, today's lunar date and festival or holiday. With no place
//! named it keeps the one set, else takes the family's home (`HEARTH_HOME_LOCATION`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Tool, ToolCtx, ToolError};
pub use crate::features::digest::ops::setting::Set;
use crate::features::digest::ops::setting::{DigestRequest, DigestSetting};

/// Arguments of `digest`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// HH:MM (早上七點 → 07:00); null keeps it.
    pub time: Option<String>,
    /// The weather's city; null keeps it.
    pub place: Option<String>,
    /// true: only days with more than the weather (有事才通知).
    pub only_when_something: Option<bool>,
    /// true: stop (不要每日摘要了).
    pub off: Option<bool>,
}

/// The result of `digest`.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Output {
    /// Set or changed.
    Set(Set),
    /// Stopped.
    Stopped {
        /// Always true.
        off: bool,
    },
}

/// The digest tool.
pub struct Digest {
    setting: DigestSetting,
}

impl Digest {
    /// The tool over the chats' digest setting.
    pub fn new(setting: DigestSetting) -> Self {
        Self { setting }
    }
}

/// The request the arguments make (off apart).
fn request(args: &Args) -> DigestRequest {
    DigestRequest {
        time: args.time.clone(),
        place: args.place.clone(),
        only_when_something: args.only_when_something,
    }
}

impl Tool for Digest {
    const NAME: &'static str = "digest";
    const DESCRIPTION: &'static str = "This chat's daily digest (每日摘要, 早安摘要): weather, reminders, birthdays, lists, moved prices, lunar date, official alerts. Set, change, or off.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    fn check(&self, _ctx: &ToolCtx, args: &Args) -> Result<(), ToolError> {
        match args.off {
            Some(true) => Ok(()),
            _ => request(args).check(),
        }
    }

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        if args.off == Some(true) {
            self.setting.stop(ctx).await?;
            return Ok(Output::Stopped { off: true });
        }
        Ok(Output::Set(self.setting.set(ctx, request(&args)).await?))
    }
}
