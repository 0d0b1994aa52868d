//! `spoken_answers`: answers in this chat also come as a voice message (「用講的回答我」,
//! 「阿嬤聽不清楚字，用語音」), or no longer (「不用語音了」); in a group, for the whole group or
//! only the one asking. Offered only when the deployment can speak (`HEARTH_TTS_MODEL` and
//! `HEARTH_PUBLIC_URL`); see [`crate::features::speech`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Tool, ToolCtx, ToolError};
use crate::features::settings::{self, ChatSettings};

/// Arguments of `spoken_answers`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    on: bool,
    /// true: the asker only.
    #[schemars(extend("x-group-only" = true))]
    just_me: Option<bool>,
}

/// The result of `spoken_answers`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// Whether answers are now spoken.
    pub spoken: bool,
    /// Whose answers: `chat` or `asker`.
    pub for_whom: &'static str,
}

/// The spoken_answers tool.
pub struct SpokenAnswers {
    settings: ChatSettings,
}

impl SpokenAnswers {
    /// The tool over the chats' settings.
    pub fn new(settings: ChatSettings) -> Self {
        Self { settings }
    }
}

impl Tool for SpokenAnswers {
    const NAME: &'static str = "spoken_answers";
    const DESCRIPTION: &'static str =
        "Voice-message answers here: on (用講的回答我) or off (不用語音了).";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let member = settings::for_whom(ctx, args.just_me)?;
        self.settings.set_spoken(ctx, member, args.on).await?;
        Ok(Output { spoken: args.on, for_whom: settings::whom_named(member) })
    }
}
