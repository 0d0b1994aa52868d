//! `list`: this chat's shared lists — the shopping list unless another is named — in one tool
//! whose `action` says what to do: add things, show a list, check things off as bought or done,
//! take things off or empty a list. One tool instead of five keeps the definitions the model
//! reads on every round short, and the fences between the actions sit in one description. What
//! each action does is the lists' own operation (`features::lists::ops`), which the ✓
//! button and the family page call too: this file is the model's side of it, the schema and the
//! cards.

use crate::features::family_page;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Card, Chip, Tool, ToolCtx, ToolError};
use crate::features::lists::ListName;
use crate::features::lists::ops::{
    AddItems, Added, CheckedOff, Emptied, EmptyList, Lists, NamedItems, Removed, Shown,
};
use crate::features::lists::plan::{Wanted, wanted_items};

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
    pub items: Option<Vec<Item>>,
    /// clear: only the checked ones (把買好的清掉).
    pub only_checked: Option<bool>,
}

/// One thing.
#[derive(Debug, JsonSchema)]
#[schemars(description = "")]
pub struct Item {
    /// Without its number (牛奶).
    pub name: String,
    /// 兩瓶牛奶 → 2.
    pub quantity: Option<i64>,
}

/// An item as a model may write it: the object the schema asks for, or (smaller models do) the
/// name alone.
#[derive(Deserialize)]
#[serde(untagged)]
enum ItemForm {
    Name(String),
    Full { name: String, quantity: Option<i64> },
}

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match ItemForm::deserialize(d)? {
            ItemForm::Name(name) => Item { name, quantity: None },
            ItemForm::Full { name, quantity } => Item { name, quantity },
        })
    }
}

/// The result of `list`: the action's own.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Output {
    /// Of `add`.
    Add(Added),
    /// Of `show`.
    Show(Shown),
    /// Of `check`.
    Check(CheckedOff),
    /// Of `remove`.
    Remove(Removed),
    /// Of `clear`.
    Clear(Emptied),
}

/// The list tool.
pub struct List {
    lists: Lists,
}

impl List {
    /// The tool over the lists' verbs.
    pub fn new(lists: Lists) -> Self {
        Self { lists }
    }
}

/// The things named (with their quantities when adding), checked, or a clear error for an action
/// that needs some.
fn named(items: Option<&[Item]>, action: Action) -> Result<Vec<Wanted>, ToolError> {
    let Some(items) = items.filter(|i| !i.is_empty()) else {
        return Err(ToolError::InvalidArgs("say which things (items)".into()));
    };
    let quantity = |i: &Item| (action == Action::Add).then_some(i.quantity).flatten();
    Ok(wanted_items(items.iter().map(|i| (i.name.clone(), quantity(i))))?)
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
        if matches!(args.action, Action::Add | Action::Check | Action::Remove) {
            named(args.items.as_deref(), args.action)?;
        }
        Ok(())
    }

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let list = ListName::parse(args.list.as_deref())?;
        let lists = &self.lists;
        Ok(match args.action {
            Action::Add => {
                let items = named(args.items.as_deref(), Action::Add)?;
                Output::Add(lists.add(ctx, AddItems { list, items }).await?)
            }
            Action::Show => Output::Show(lists.show(ctx, &list).await?),
            Action::Check => {
                let words = named(args.items.as_deref(), Action::Check)?;
                Output::Check(lists.check(ctx, NamedItems { list, words }).await?)
            }
            Action::Remove => {
                let words = named(args.items.as_deref(), Action::Remove)?;
                Output::Remove(lists.remove(ctx, NamedItems { list, words }).await?)
            }
            Action::Clear => {
                let only_checked = args.only_checked.unwrap_or(false);
                Output::Clear(lists.empty(ctx, EmptyList { list, only_checked }).await?)
            }
        })
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        match out {
            Output::Add(Added { list, .. })
            | Output::Check(CheckedOff { list, .. })
            | Output::Remove(Removed { list, .. }) => Some(list.card(lang)),
            Output::Show(Shown { list, .. }) => {
                Some(family_page::with_open_button(list.card(lang), lang))
            }
            Output::Clear(Emptied { list, .. }) => list.as_ref().map(|list| list.card(lang)),
        }
    }

    fn quick_replies(&self, ctx: &ToolCtx, out: &Output) -> Vec<Chip> {
        match out {
            Output::Show(Shown { list, .. }) | Output::Check(CheckedOff { list, .. }) => {
                list.chips(ctx.lang)
            }
            _ => Vec::new(),
        }
    }
}
