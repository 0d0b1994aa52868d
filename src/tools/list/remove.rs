//! `list` with `action: "remove"`: takes things off a shared list that are no longer needed or were added
//! by mistake ("購物清單的牛奶不用買了", "take the tent off the packing list"), unlike checking
//! them off, which keeps them greyed as bought or done.

use serde::Serialize;

use crate::contract::{Card, ToolCtx, ToolError};
use crate::features::lists::ListName;
use crate::features::lists::lookup::find_list;
use crate::features::lists::plan::{Found, find_item, wanted_items};
use crate::features::lists::view::ListView;
use crate::store::Store;

/// What `remove` reads of the arguments.
#[derive(Debug)]
pub struct Args {
    /// The list's name as the family says it ("露營要帶的", "待辦", "packing"). Null for the shopping list (購物清單).
    pub list: Option<String>,
    /// The things to take off, as the family calls them ("牛奶", "tent"), one entry per thing.
    pub items: Vec<String>,
}

/// The result of `remove`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// Items taken off the list.
    pub removed: Vec<String>,
    /// Words that fit no item of the list.
    pub not_found: Vec<String>,
    /// Words that fit several open items (nothing removed for them): ask which.
    pub ambiguous: Vec<String>,
    /// The list now.
    pub list: ListView,
}

/// The `remove` action.
pub struct RemoveListItems {
    store: Store,
}

impl RemoveListItems {
    /// The tool over the store.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let name = ListName::parse(args.list.as_deref())?;
        let words = wanted_items(args.items.into_iter().map(|w| (w, None)))?;
        let Some((list, items)) = find_list(&self.store, ctx, &name).await? else {
            return Err(ToolError::NotFound("the shopping list is empty".into()));
        };
        let conversation = &ctx.conversation.id;
        let mut out = Output {
            removed: Vec::new(),
            not_found: Vec::new(),
            ambiguous: Vec::new(),
            list: ListView::empty(&name, ctx.lang),
        };
        for w in words {
            match find_item(&items, &w.name) {
                Found::One(item) => match self.store.remove_list_item(conversation, item.id).await?
                {
                    Some(gone) => out.removed.push(gone.name),
                    None => out.not_found.push(w.name),
                },
                Found::Several(_) => out.ambiguous.push(w.name),
                Found::None => out.not_found.push(w.name),
            }
        }
        out.list = match self.store.list_by_id(conversation, list.id).await? {
            Some((list, items)) => ListView::new(&list, &items, &ctx.tz, ctx.lang),
            None => ListView::empty(&name, ctx.lang),
        };
        Ok(out)
    }

    /// The list's card.
    pub fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        Some(out.list.card(ctx.lang))
    }
}
