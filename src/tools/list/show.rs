//! `list` with `action: "show"`: one of this conversation's shared lists as a card ("購物清單有什麼",
//! "露營要帶什麼"): the open items with a ✓ button each, the latest checked ones greyed with who
//! checked them. Read only; also names the chat's other lists.

use serde::Serialize;

use crate::contract::{Card, Chip, ToolCtx, ToolError};
use crate::features::lists::ListName;
use crate::features::lists::lookup::{OtherList, find_list, other_lists};
use crate::features::lists::view::ListView;
use crate::store::Store;

/// What `show` reads of the arguments.
#[derive(Debug)]
pub struct Args {
    /// The list's name as the family says it ("露營要帶的", "待辦", "packing"). Null for the shopping list (購物清單).
    pub list: Option<String>,
}

/// The result of `show`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The list.
    pub list: ListView,
    /// The chat's other lists.
    pub other_lists: Vec<OtherList>,
    /// How to use this.
    pub note: &'static str,
}

/// The `show` action.
pub struct ShowList {
    store: Store,
}

impl ShowList {
    /// The tool over the store.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let name = ListName::parse(args.list.as_deref())?;
        let list = match find_list(&self.store, ctx, &name).await? {
            Some((list, items)) => ListView::new(&list, &items, &ctx.tz, ctx.lang),
            None => ListView::empty(&name, ctx.lang),
        };
        Ok(Output {
            list,
            other_lists: other_lists(&self.store, ctx, &name).await?,
            note: "A card shows the list with ✓ buttons; sum it up in a sentence, do not repeat every item.",
        })
    }

    /// The list's card.
    pub fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        Some(out.list.card(ctx.lang))
    }

    /// The list's chips.
    pub fn quick_replies(&self, ctx: &ToolCtx, out: &Output) -> Vec<Chip> {
        out.list.chips(ctx.lang)
    }
}
