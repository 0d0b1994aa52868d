//! `list` with `action: "clear"`: empties one of this conversation's shared lists ("清空購物清單"; a named list is
//! then gone), or only removes its checked-off items ("把買好的清掉").

use serde::Serialize;

use crate::contract::{Card, ToolCtx, ToolError};
use crate::features::lists::ListName;
use crate::features::lists::lookup::find_list;
use crate::features::lists::view::ListView;
use crate::store::Store;

/// What `clear` reads of the arguments.
#[derive(Debug)]
pub struct Args {
    /// The list's name as the family says it ("露營要帶的", "待辦", "packing"). Null for the shopping list (購物清單).
    pub list: Option<String>,
    /// True to remove only the checked-off items (把買好的清掉, 'clear what we bought'); null or false to empty the whole list.
    pub only_checked: Option<bool>,
}

/// The result of `clear`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The list.
    pub list_name: String,
    /// How many items were removed.
    pub removed: u64,
    /// True when only checked-off items were removed.
    pub only_checked: bool,
    /// What is left, when only checked-off items were removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list: Option<ListView>,
}

/// The `clear` action.
pub struct ClearList {
    store: Store,
}

impl ClearList {
    /// The tool over the store.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let name = ListName::parse(args.list.as_deref())?;
        let only_checked = args.only_checked.unwrap_or(false);
        let mut out =
            Output { list_name: name.display(ctx.lang), removed: 0, only_checked, list: None };
        let Some((list, _)) = find_list(&self.store, ctx, &name).await? else {
            return Ok(out);
        };
        let conversation = &ctx.conversation.id;
        out.removed = self.store.clear_list(conversation, list.id, only_checked).await?;
        if only_checked {
            out.list = match self.store.list_by_id(conversation, list.id).await? {
                Some((list, items)) => Some(ListView::new(&list, &items, &ctx.tz, ctx.lang)),
                None => Some(ListView::empty(&name, ctx.lang)),
            };
        }
        Ok(out)
    }

    /// The list's card.
    pub fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        out.list.as_ref().map(|list| list.card(ctx.lang))
    }
}
