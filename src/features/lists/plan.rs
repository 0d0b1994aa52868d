//! The decisions of the list tools, pure functions of what the family asked and the list as it
//! is: what adding items changes (duplicates merged with their quantities, a checked item needed
//! again reopened) and whether it fits the caps; which item some words point at.

use serde::Serialize;

use super::{
    ListError, MAX_ITEM_CHARS, MAX_ITEMS_PER_CALL, MAX_ITEMS_PER_CHAT, MAX_ITEMS_PER_LIST,
    MAX_LISTS_PER_CHAT, MAX_QUANTITY, clean, item_key,
};
use crate::store::{ItemChange, ListItem, ListState};

/// An item the family asked to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// As said.
    pub name: String,
    /// How many, when a number was said.
    pub quantity: Option<i64>,
}

/// What happened to one asked-for item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Addition {
    /// A new item on the list.
    Added {
        /// Its name.
        item: String,
        /// How many.
        quantity: i64,
    },
    /// It was on the list already, open: its quantity went up.
    Merged {
        /// Its name on the list.
        item: String,
        /// Its quantity now.
        quantity: i64,
    },
    /// It was on the list, checked off: it is open again.
    Reopened {
        /// Its name on the list.
        item: String,
        /// How many.
        quantity: i64,
    },
}

/// What adding items does: the changes to store and, per asked-for item, what it became.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The changes, in the order asked.
    pub changes: Vec<ItemChange>,
    /// What happened to each distinct asked-for item.
    pub additions: Vec<Addition>,
}

/// The items one request names: a name holding several items the way people list them
/// ("牛奶、雞蛋", "milk, eggs") is split, names are cleaned and checked, quantities too.
pub fn wanted_items(
    items: impl IntoIterator<Item = (String, Option<i64>)>,
) -> Result<Vec<Wanted>, ListError> {
    let mut wanted = Vec::new();
    for (said, quantity) in items {
        if let Some(q) = quantity.filter(|q| !(1..=MAX_QUANTITY).contains(q)) {
            return Err(ListError::BadQuantity(q));
        }
        let names: Vec<String> =
            said.split(['、', '，', ',', '；', ';', '\n']).map(clean).collect();
        let several = names.len() > 1;
        for name in names {
            if item_key(&name).is_empty() {
                if several {
                    continue; // "牛奶、" ends with a separator
                }
                return Err(ListError::EmptyItem);
            }
            let length = name.chars().count();
            if length > MAX_ITEM_CHARS {
                let name = name.chars().take(20).collect();
                return Err(ListError::ItemTooLong { name, length });
            }
            wanted.push(Wanted { name, quantity: if several { None } else { quantity } });
        }
    }
    match wanted.len() {
        0 => Err(ListError::NoItems),
        n if n > MAX_ITEMS_PER_CALL => Err(ListError::TooManyInCall(n)),
        _ => Ok(wanted),
    }
}

/// What adding `wanted` to the list `state` describes does, or why it cannot be done (then
/// nothing is added). The same item twice is one item whose quantities add up (1 when no
/// number was said); an item already open on the list gets the quantity added; a checked-off
/// one is reopened with the new quantity. Only new items count against the caps.
pub fn plan_additions(
    state: &ListState,
    wanted: &[Wanted],
    list_name: &str,
) -> Result<Plan, ListError> {
    // The distinct asked-for items, first spelling kept, quantities summed.
    let mut distinct: Vec<(String, String, i64)> = Vec::new();
    for w in wanted {
        let key = item_key(&w.name);
        let quantity = w.quantity.unwrap_or(1);
        match distinct.iter_mut().find(|(k, _, _)| *k == key) {
            Some((_, _, q)) => *q = (*q + quantity).min(MAX_QUANTITY),
            None => distinct.push((key, w.name.clone(), quantity)),
        }
    }
    let mut plan = Plan { changes: Vec::new(), additions: Vec::new() };
    for (key, name, quantity) in distinct {
        match state.items.iter().find(|i| i.key == key) {
            Some(item) if item.is_open() => {
                let quantity = (item.quantity + quantity).min(MAX_QUANTITY);
                plan.changes.push(ItemChange::Reopen { id: item.id, quantity });
                plan.additions.push(Addition::Merged { item: item.name.clone(), quantity });
            }
            Some(item) => {
                plan.changes.push(ItemChange::Reopen { id: item.id, quantity });
                plan.additions.push(Addition::Reopened { item: item.name.clone(), quantity });
            }
            None => {
                plan.changes.push(ItemChange::Add { name: name.clone(), key, quantity });
                plan.additions.push(Addition::Added { item: name, quantity });
            }
        }
    }
    let adding = plan.changes.iter().filter(|c| matches!(c, ItemChange::Add { .. })).count();
    if state.list.is_none() && state.lists_in_chat >= MAX_LISTS_PER_CHAT {
        return Err(ListError::TooManyLists);
    }
    if state.items.len() + adding > MAX_ITEMS_PER_LIST {
        return Err(ListError::ListFull {
            list: list_name.to_string(),
            has: state.items.len(),
            adding,
        });
    }
    if state.items_in_chat + adding > MAX_ITEMS_PER_CHAT {
        return Err(ListError::ChatFull { has: state.items_in_chat, adding });
    }
    Ok(plan)
}

/// Which item of a list some words point at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found<'a> {
    /// This one.
    One(&'a ListItem),
    /// Several open items match: which one is meant?
    Several(Vec<&'a ListItem>),
    /// None does.
    None,
}

/// The item `words` point at: the item with that key (an open one first), else the one open
/// item whose name contains the words or is contained in them ("牛奶" for "鮮奶牛奶").
pub fn find_item<'a>(items: &'a [ListItem], words: &str) -> Found<'a> {
    let key = item_key(words);
    if key.is_empty() {
        return Found::None;
    }
    let same: Vec<&ListItem> = items.iter().filter(|i| i.key == key).collect();
    if let Some(item) = same.iter().find(|i| i.is_open()).or(same.first()) {
        return Found::One(item);
    }
    let mut close: Vec<&ListItem> = items
        .iter()
        .filter(|i| i.is_open() && (i.key.contains(&key) || key.contains(&i.key)))
        .collect();
    match close.len() {
        0 => Found::None,
        1 => Found::One(close.remove(0)),
        _ => Found::Several(close),
    }
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
