//! `add_list_items`: puts things on one of this conversation's shared lists — the shopping list
//! unless another list is named ("牛奶、雞蛋加到購物清單", "露營要帶的加帳篷"). Each item keeps who
//! added it and when; an item already on the list is merged (its quantity goes up) rather than
//! listed twice; the caps per list and per chat refuse the whole request with a clear message.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Card, Tool, ToolCtx, ToolError};
use crate::features::lists::plan::{Addition, plan_additions, wanted_items};
use crate::features::lists::view::ListView;
use crate::features::lists::{ListError, ListName};
use crate::store::{ListEdit, Store};

/// Arguments of `add_list_items`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// The list's name as the family says it ("露營要帶的", "待辦", "packing"). Null for the shopping list (購物清單).
    pub list: Option<String>,
    /// The things to add, one entry per thing: "牛奶、雞蛋" is two entries.
    pub items: Vec<Item>,
}

/// One thing to add.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Item {
    /// The thing, in the family's words, without its number: "牛奶", "eggs", "繳電話費". At most 60 characters.
    pub name: String,
    /// How many, only when a number was said ("兩瓶牛奶" → name "牛奶", quantity 2). Null otherwise.
    pub quantity: Option<i64>,
}

/// The result of `add_list_items`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// What happened to each thing asked for.
    pub added: Vec<Addition>,
    /// The list now.
    pub list: ListView,
    /// How to use this.
    pub note: &'static str,
}

/// The add_list_items tool.
pub struct AddListItems {
    store: Store,
}

impl AddListItems {
    /// The tool over the store.
    pub fn new(store: Store) -> Self {
        Self { store }
    }
}

impl Tool for AddListItems {
    const NAME: &'static str = "add_list_items";
    const DESCRIPTION: &'static str = "Add things to one of this chat's shared lists: the shopping list unless another list is named (牛奶、雞蛋加到購物清單, 要買衛生紙, 沒有醬油了, 衛生紙沒了記一下要買 — a thing to buy is a list item, not something to remember, 'add milk and eggs to the shopping list', 'we're out of rice'), or any named list (露營要帶的加帳篷, 待辦加繳電話費, 'put sunscreen on the packing list'); a named list is started by adding to it. Something already on the list gets its quantity raised instead of a second line. Shows the list as a card with a ✓ button per item. Not for reminders at a time (reminder) or facts to remember (remember); to mark things bought or done use check_list_items.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let name = ListName::parse(args.list.as_deref())?;
        let wanted = wanted_items(args.items.into_iter().map(|i| (i.name, i.quantity)))?;
        let display = name.display(ctx.lang);
        let edit = ListEdit {
            conversation_id: &ctx.conversation.id,
            key: &name.key,
            name: &name.name,
            user_id: ctx.user_id.as_deref(),
            user_name: ctx.display_name.as_deref(),
            at_ms: ctx.now().as_millisecond(),
        };
        let mut added = Vec::new();
        let (list, items) = self
            .store
            .add_to_list(&edit, |state| {
                let plan = plan_additions(state, &wanted, &display)?;
                added = plan.additions;
                Ok::<_, ListError>(plan.changes)
            })
            .await?;
        Ok(Output {
            added,
            list: ListView::new(&list, &items, &ctx.tz, ctx.lang),
            note: "A card shows the list with ✓ buttons; confirm briefly what was added (say when a quantity went up or a checked item is back), do not repeat the whole list.",
        })
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        Some(out.list.card(ctx.lang))
    }
}
