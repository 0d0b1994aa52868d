//! `reminders` with `action: "cancel"`: cancels one of this conversation's reminders, by id or
//! by words from its text ("取消倒垃圾的提醒"); words that fit several reminders are sent back
//! for the model to ask which.

use serde::Serialize;

use crate::contract::{ToolCtx, ToolError};
use crate::features::reminders::ops::{self, Cancel, Which};

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

/// The `cancel` action: an adapter of the reminders' one cancel ([`ops::Reminders::cancel`]).
pub struct CancelReminder {
    reminders: ops::Reminders,
}

impl CancelReminder {
    /// The action over the reminders' verbs.
    pub fn new(reminders: ops::Reminders) -> Self {
        Self { reminders }
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let which = match (args.id, described(args.description.as_deref())) {
            (Some(id), _) => Which::Id(id),
            (None, Some(words)) => Which::Words(words),
            (None, None) => return Err(unnamed()),
        };
        match self.reminders.cancel(ctx, which).await? {
            Cancel::Cancelled { id, text } => Ok(Output { cancelled_id: id, text }),
            Cancel::Ended { .. } | Cancel::NotFound => {
                Err(ToolError::NotFound("no such reminder in this chat".into()))
            }
            Cancel::Several(fits) => {
                let list: Vec<String> =
                    fits.iter().map(|(id, text)| format!("#{id} {text}")).collect();
                Err(ToolError::InvalidArgs(format!(
                    "several reminders match: {}; ask which one and pass its id",
                    list.join(", ")
                )))
            }
        }
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
