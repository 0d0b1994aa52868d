//! `cancel_reminder`: cancels one of this conversation's reminders, by id or by description.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Tool, ToolCtx, ToolError};
use crate::store::Store;

/// Arguments of `cancel_reminder`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// From list_reminders or the confirmation.
    pub id: Option<i64>,
    /// Or words from its text ("倒垃圾").
    pub description: Option<String>,
}

/// The result of `cancel_reminder`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The cancelled reminder's id.
    pub cancelled_id: i64,
    /// Its text.
    pub text: String,
}

/// The cancel tool.
pub struct CancelReminder {
    store: Store,
}

impl CancelReminder {
    /// The tool over the store.
    pub fn new(store: Store) -> Self {
        Self { store }
    }
}

impl Tool for CancelReminder {
    const NAME: &'static str = "cancel_reminder";
    const DESCRIPTION: &'static str = "Stop a reminder of this chat, by id or by words from its text; if several match, ask which.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let conversation = &ctx.conversation.id;
        let row =
            match (args.id, args.description.as_deref().map(str::trim).filter(|d| !d.is_empty())) {
                (Some(id), _) => self.store.reminder(conversation, id).await?,
                (None, Some(words)) => {
                    let all = self.store.list_reminders(conversation).await?;
                    let needle = words.to_lowercase();
                    let mut matches: Vec<_> = all
                        .into_iter()
                        .filter(|r| r.text.to_lowercase().contains(&needle))
                        .collect();
                    if matches.len() > 1 {
                        let list: Vec<String> =
                            matches.iter().map(|r| format!("#{} {}", r.id, r.text)).collect();
                        return Err(ToolError::InvalidArgs(format!(
                            "several reminders match: {}; ask which one and pass its id",
                            list.join(", ")
                        )));
                    }
                    matches.pop()
                }
                (None, None) => {
                    return Err(ToolError::InvalidArgs(
                        "give the id or words from the reminder".into(),
                    ));
                }
            };
        let row = row
            .filter(|r| r.status.is_live())
            .ok_or_else(|| ToolError::NotFound("no such reminder in this chat".into()))?;
        if !self.store.cancel_reminder(conversation, row.id).await? {
            return Err(ToolError::NotFound("no such reminder in this chat".into()));
        }
        Ok(Output { cancelled_id: row.id, text: row.text })
    }
}
