//! `list` with `action: "check"`: marks things on a shared list as bought or done ("買好牛奶了", "雞蛋買了",
//! "待辦的繳費做完了"), for whoever said so. Words find the item ("蛋" finds "雞蛋" when only one
//! open item fits); what could not be found, was already checked or fits several items is
//! reported back for the model to explain or ask about.

use serde::Serialize;

use crate::contract::{Card, Chip, ToolCtx, ToolError};
use crate::features::lists::ListName;
use crate::features::lists::lookup::find_list;
use crate::features::lists::plan::{Found, find_item, wanted_items};
use crate::features::lists::view::ListView;
use crate::store::{Checked, ListItem, Store};

/// What `check` reads of the arguments.
#[derive(Debug)]
pub struct Args {
    /// The list's name as the family says it ("露營要帶的", "待辦", "packing"). Null for the shopping list (購物清單).
    pub list: Option<String>,
    /// The things bought or done, as the family calls them ("牛奶", "eggs"), one entry per thing.
    pub items: Vec<String>,
}

/// Words that fit several open items.
#[derive(Debug, Clone, Serialize)]
pub struct Ambiguous {
    /// The words.
    pub words: String,
    /// The items they fit.
    pub items: Vec<String>,
}

/// An item someone had checked off already.
#[derive(Debug, Clone, Serialize)]
pub struct AlreadyChecked {
    /// The item.
    pub item: String,
    /// Who checked it off.
    pub by: Option<String>,
}

/// The result of `check`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// Items checked off now.
    pub checked: Vec<String>,
    /// Items that were checked off already.
    pub already_checked: Vec<AlreadyChecked>,
    /// Words that fit no item of the list.
    pub not_found: Vec<String>,
    /// Words that fit several open items: ask which.
    pub ambiguous: Vec<Ambiguous>,
    /// The list now.
    pub list: ListView,
}

/// The `check` action.
pub struct CheckListItems {
    store: Store,
}

impl CheckListItems {
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
        let mut out = Output {
            checked: Vec::new(),
            already_checked: Vec::new(),
            not_found: Vec::new(),
            ambiguous: Vec::new(),
            list: ListView::empty(&name, ctx.lang),
        };
        for w in words {
            match find_item(&items, &w.name) {
                Found::One(item) => self.check(ctx, item, &mut out).await?,
                Found::Several(fits) => out.ambiguous.push(Ambiguous {
                    words: w.name,
                    items: fits.iter().map(|i| i.name.clone()).collect(),
                }),
                Found::None => out.not_found.push(w.name),
            }
        }
        let items = self.store.list_by_id(&ctx.conversation.id, list.id).await?;
        out.list = match items {
            Some((list, items)) => ListView::new(&list, &items, &ctx.tz, ctx.lang),
            None => ListView::empty(&name, ctx.lang),
        };
        Ok(out)
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

impl CheckListItems {
    /// Checks `item` off for the person asking and records what happened in `out`.
    async fn check(
        &self,
        ctx: &ToolCtx,
        item: &ListItem,
        out: &mut Output,
    ) -> Result<(), ToolError> {
        let checked = self
            .store
            .check_list_item(
                &ctx.conversation.id,
                item.id,
                ctx.user_id.as_deref(),
                ctx.display_name.as_deref(),
                ctx.now().as_millisecond(),
            )
            .await?;
        match checked {
            Checked::Now(item) => out.checked.push(item.name),
            Checked::Already(item) => out
                .already_checked
                .push(AlreadyChecked { item: item.name, by: item.checked_by_name }),
            Checked::Gone => out.not_found.push(item.name.clone()),
        }
        Ok(())
    }
}
