//! `list`: this chat's shared lists — the shopping list unless another is named — in one tool
//! whose `action` says what to do: add things ([`add`]), show a list ([`show`]), check things off
//! as bought or done ([`check`]), take things off ([`remove`]) or empty a list ([`clear`]). One
//! tool instead of five keeps the definitions the model reads on every round short, and the
//! fences between the actions sit in one description.

pub mod add;
pub mod check;
pub mod clear;
pub mod remove;
pub mod show;

use crate::features::family_page;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Card, Chip, Tool, ToolCtx, ToolError};
use crate::features::lists::ListName;
use crate::features::lists::plan::wanted_items;
use crate::store::Store;

/// What to do with a list.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Put `items` on the list (要買、加到清單、沒有醬油了).
    Add,
    /// Show the list and name the chat's other lists.
    Show,
    /// Mark `items` bought or done (買好了、做完了).
    Check,
    /// Take `items` off: no longer needed or added by mistake.
    Remove,
    /// Empty the list (a named list is deleted); `only_checked` keeps the open items.
    Clear,
}

/// Arguments of `list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// What to do.
    pub action: Action,
    /// As the family names it (露營要帶的, 待辦); null: the shopping list.
    pub list: Option<String>,
    /// One entry per thing (牛奶、雞蛋 is two).
    pub items: Option<Vec<add::Item>>,
    /// clear: only the checked ones (把買好的清掉).
    pub only_checked: Option<bool>,
}

/// The result of `list`: the action's own.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Output {
    /// Of `add`.
    Add(add::Output),
    /// Of `show`.
    Show(show::Output),
    /// Of `check`.
    Check(check::Output),
    /// Of `remove`.
    Remove(remove::Output),
    /// Of `clear`.
    Clear(clear::Output),
}

/// The list tool.
pub struct List {
    add: add::AddListItems,
    show: show::ShowList,
    check: check::CheckListItems,
    remove: remove::RemoveListItems,
    clear: clear::ClearList,
}

impl List {
    /// The tool over the store.
    pub fn new(store: Store) -> Self {
        Self {
            add: add::AddListItems::new(store.clone()),
            show: show::ShowList::new(store.clone()),
            check: check::CheckListItems::new(store.clone()),
            remove: remove::RemoveListItems::new(store.clone()),
            clear: clear::ClearList::new(store),
        }
    }
}

/// The things named, or a clear error for an action that needs some.
fn named(items: Option<Vec<add::Item>>, action: &str) -> Result<Vec<add::Item>, ToolError> {
    match items {
        Some(items) if !items.is_empty() => Ok(items),
        _ => Err(ToolError::InvalidArgs(format!("{action}: say which things (items)"))),
    }
}

impl Tool for List {
    const NAME: &'static str = "list";
    const DESCRIPTION: &'static str = "This chat's shared lists, the shopping list unless another is named (露營要帶的, 待辦). A thing to buy is a list item (要買衛生紙, 沒有醬油了), not a memory. check: bought or done (買好牛奶了); remove: no longer needed; clear only when asked.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    fn changes_state(&self, args: &Args) -> bool {
        args.action != Action::Show
    }

    fn check(&self, _ctx: &ToolCtx, args: &Args) -> Result<(), ToolError> {
        ListName::parse(args.list.as_deref())?;
        match args.action {
            Action::Add | Action::Check | Action::Remove => {
                let Some(items) = args.items.as_deref().filter(|i| !i.is_empty()) else {
                    return Err(ToolError::InvalidArgs("say which things (items)".into()));
                };
                let quantity =
                    |i: &add::Item| (args.action == Action::Add).then_some(i.quantity).flatten();
                wanted_items(items.iter().map(|i| (i.name.clone(), quantity(i))))?;
                Ok(())
            }
            Action::Show | Action::Clear => Ok(()),
        }
    }

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        self.check(ctx, &args)?;
        let list = args.list;
        Ok(match args.action {
            Action::Add => {
                let items = named(args.items, "add")?;
                Output::Add(self.add.run(ctx, add::Args { list, items }).await?)
            }
            Action::Show => Output::Show(self.show.run(ctx, show::Args { list }).await?),
            Action::Check => {
                let items = named(args.items, "check")?.into_iter().map(|i| i.name).collect();
                Output::Check(self.check.run(ctx, check::Args { list, items }).await?)
            }
            Action::Remove => {
                let items = named(args.items, "remove")?.into_iter().map(|i| i.name).collect();
                Output::Remove(self.remove.run(ctx, remove::Args { list, items }).await?)
            }
            Action::Clear => {
                let only_checked = args.only_checked;
                Output::Clear(self.clear.run(ctx, clear::Args { list, only_checked }).await?)
            }
        })
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        match out {
            Output::Add(out) => self.add.card(ctx, out),
            Output::Show(out) => {
                self.show.card(ctx, out).map(|c| family_page::with_open_button(c, ctx.lang))
            }
            Output::Check(out) => self.check.card(ctx, out),
            Output::Remove(out) => self.remove.card(ctx, out),
            Output::Clear(out) => self.clear.card(ctx, out),
        }
    }

    fn quick_replies(&self, ctx: &ToolCtx, out: &Output) -> Vec<Chip> {
        match out {
            Output::Show(out) => self.show.quick_replies(ctx, out),
            Output::Check(out) => self.check.quick_replies(ctx, out),
            _ => Vec::new(),
        }
    }
}
