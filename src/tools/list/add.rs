//! `list` with `action: "add"`: puts things on one of this conversation's shared lists — the shopping list
//! unless another list is named ("牛奶、雞蛋加到購物清單", "露營要帶的加帳篷"). Each item keeps who
//! added it and when; an item already on the list is merged (its quantity goes up) rather than
//! listed twice; the caps per list and per chat refuse the whole request with a clear message.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Card, ToolCtx, ToolError};
use crate::features::lists::plan::{Addition, plan_additions, wanted_items};
use crate::features::lists::view::ListView;
use crate::features::lists::{ListError, ListName};
use crate::store::{ListEdit, Store};

/// What `add` reads of the arguments.
#[derive(Debug)]
pub struct Args {
    /// The list's name as the family says it ("露營要帶的", "待辦", "packing"). Null for the shopping list (購物清單).
    pub list: Option<String>,
    /// The things to add, one entry per thing: "牛奶、雞蛋" is two entries.
    pub items: Vec<Item>,
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

/// The result of `add`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// What happened to each thing asked for.
    pub added: Vec<Addition>,
    /// The list now.
    pub list: ListView,
    /// How to use this.
    pub note: &'static str,
}

/// The `add` action.
pub struct AddListItems {
    store: Store,
}

impl AddListItems {
    /// The tool over the store.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Does it.
    pub async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
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

    /// The list's card.
    pub fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        Some(out.list.card(ctx.lang))
    }
}
