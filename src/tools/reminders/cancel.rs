//! `reminders` with `action: "cancel"`: cancels one of this conversation's reminders, by id or
//! by words from its text ("取消倒垃圾的提醒"); words that fit several reminders are sent back
//! for the model to ask which.

use serde::Serialize;

use crate::contract::{ToolCtx, ToolError};
use crate::store::Store;

/// What `cancel` reads of the arguments.
#[derive(Debug)]
pub struct Args {
    /// The reminder's id, from the `show` card or the confirmation.
    pub id: Option<i64>,
    /// Or words from its text ("倒垃圾").
    pub description: Option<String>,
}

/// The result of `cancel`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The cancelled reminder's id.
    pub cancelled_id: i64,
    /// Its text.
    pub text: String,
}

/// The `cancel` action.
pub struct CancelReminder {
    store: Store,
}

impl CancelReminder {
    /// The action over the store.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let conversation = &ctx.conversation.id;
        let row = match (args.id, described(args.description.as_deref())) {
            (Some(id), _) => self.store.reminders().get(conversation, id).await?,
            (None, Some(words)) => {
                let all = self.store.reminders().list(conversation).await?;
                let needle = words.to_lowercase();
                let mut matches: Vec<_> =
                    all.into_iter().filter(|r| r.text.to_lowercase().contains(&needle)).collect();
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
            (None, None) => return Err(unnamed()),
        };
        let row = row
            .filter(|r| r.status.is_live())
            .ok_or_else(|| ToolError::NotFound("no such reminder in this chat".into()))?;
        if !self.store.reminders().cancel(conversation, row.id).await? {
            return Err(ToolError::NotFound("no such reminder in this chat".into()));
        }
        Ok(Output { cancelled_id: row.id, text: row.text })
    }
}

/// The words of a description, when it has any.
pub fn described(description: Option<&str>) -> Option<&str> {
    description.map(str::trim).filter(|d| !d.is_empty())
}

/// The refusal of a cancel that names no reminder.
pub fn unnamed() -> ToolError {
    ToolError::InvalidArgs("give the id or words from the reminder".into())
}
