//! What can be done to a chat's lists, each a typed request run for the member and chat of its
//! context: add things, show a list, check things off (by words or one by its ✓), put a checked
//! thing back, take things off, empty a list. The `list` tool, the ✓ button and the family page
//! all call these, so whatever is done anywhere is recorded as done by whoever did it, under the
//! same caps and merging. Each answer is what the model reads and what the card is drawn from.

pub mod lookup;

use serde::Serialize;

use super::ListName;
use super::plan::{Addition, Found, Wanted, find_item, plan_additions};
use super::view::ListView;
use crate::contract::{ToolCtx, ToolError};
use crate::features::deps::Deps;
use crate::features::{changes, verbs};
use crate::platform::i18n::Lang;
use crate::store::{Checked, ListEdit, ListItem, ListRow, Store, StoreError};
use lookup::{OtherList, find_list, other_lists};

/// The lists of every chat, over the store.
#[derive(Clone)]
pub struct Lists {
    store: Store,
}

/// Things to put on a list.
#[derive(Debug)]
pub struct AddItems {
    /// Which list.
    pub list: ListName,
    /// The things, checked by [`super::plan::wanted_items`].
    pub items: Vec<Wanted>,
}

/// Things on a list, named in words (to check off or take off).
#[derive(Debug)]
pub struct NamedItems {
    /// Which list.
    pub list: ListName,
    /// The words naming each thing, checked by [`super::plan::wanted_items`].
    pub words: Vec<Wanted>,
}

/// A list to empty.
#[derive(Debug)]
pub struct EmptyList {
    /// Which list.
    pub list: ListName,
    /// Only the checked things.
    pub only_checked: bool,
}

/// A list's words matched to its things, before anything is done to them.
struct Matched {
    /// The list's id.
    list_id: i64,
    /// Its name.
    name: ListName,
    /// Each of the words, with what it fits.
    words: Vec<(String, Fit)>,
}

/// What words fit on a list.
enum Fit {
    /// This thing.
    One(ListItem),
    /// Several things (their names): which one is meant?
    Several(Vec<String>),
    /// Nothing.
    None,
}

/// What adding did.
#[derive(Debug, Clone, Serialize)]
pub struct Added {
    /// What happened to each thing asked for.
    pub added: Vec<Addition>,
    /// The list now.
    pub list: ListView,
    /// How to use this.
    pub note: &'static str,
}

/// A list as it is, with the chat's other lists.
#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    /// The list.
    pub list: ListView,
    /// The chat's other lists.
    pub other_lists: Vec<OtherList>,
    /// How to use this.
    pub note: &'static str,
}

/// Words that fit several things on the list.
#[derive(Debug, Clone, Serialize)]
pub struct Ambiguous {
    /// The words.
    pub words: String,
    /// The things they fit.
    pub items: Vec<String>,
}

/// A thing someone had checked off already.
#[derive(Debug, Clone, Serialize)]
pub struct AlreadyChecked {
    /// Its name.
    pub item: String,
    /// Who checked it off, when known.
    pub by: Option<String>,
}

/// What checking things off did.
#[derive(Debug, Clone, Serialize)]
pub struct CheckedOff {
    /// Checked off now.
    pub checked: Vec<String>,
    /// Checked off before.
    pub already_checked: Vec<AlreadyChecked>,
    /// Words that fit nothing on the list.
    pub not_found: Vec<String>,
    /// Words that fit several things.
    pub ambiguous: Vec<Ambiguous>,
    /// The list now.
    pub list: ListView,
}

/// What taking things off did.
#[derive(Debug, Clone, Serialize)]
pub struct Removed {
    /// Taken off.
    pub removed: Vec<String>,
    /// Words that fit nothing on the list.
    pub not_found: Vec<String>,
    /// Words that fit several things.
    pub ambiguous: Vec<String>,
    /// The list now.
    pub list: ListView,
}

/// What emptying a list did.
#[derive(Debug, Clone, Serialize)]
pub struct Emptied {
    /// The list's name.
    pub list_name: String,
    /// How many things were taken off.
    pub removed: u64,
    /// Only the checked ones.
    pub only_checked: bool,
    /// The list now, when it still exists (only the checked ones were cleared).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list: Option<ListView>,
}

impl Lists {
    /// The lists kept in `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// The lists kept in `deps`' store.
    pub fn from_deps(deps: &Deps) -> Self {
        Self::new(deps.store.clone())
    }

    /// Puts `request`'s things on its list for `ctx`'s member: a thing already there is merged
    /// (its quantity goes up), a checked one is open again; over a cap, nothing is added.
    pub async fn add(&self, ctx: &ToolCtx, request: AddItems) -> Result<Added, ToolError> {
        let AddItems { list: name, items: wanted } = request;
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
            .lists()
            .add_to_list(&edit, |state| {
                let plan = plan_additions(state, &wanted, &display)?;
                added = plan.additions;
                Ok::<_, super::ListError>(plan.changes)
            })
            .await?;
        let names: Vec<&str> = added
            .iter()
            .map(|a| match a {
                Addition::Added { item, .. }
                | Addition::Merged { item, .. }
                | Addition::Reopened { item, .. } => item.as_str(),
            })
            .collect();
        if !names.is_empty() {
            let what = names.join(ctx.lang.pick("、", ", "));
            changes::record(&self.store, ctx, &verbs::LIST_ADD, &what).await;
        }
        Ok(Added {
            added,
            list: ListView::new(&list, &items, &ctx.tz, ctx.lang),
            note: "A card shows the list with ✓ buttons; confirm briefly what was added (say when a quantity went up or a checked item is back), do not repeat the whole list.",
        })
    }

    /// The list `name` of `ctx`'s chat (empty when not started) and the chat's other lists.
    pub async fn show(&self, ctx: &ToolCtx, name: &ListName) -> Result<Shown, ToolError> {
        let list = match find_list(&self.store, ctx, name).await? {
            Some((list, items)) => ListView::new(&list, &items, &ctx.tz, ctx.lang),
            None => ListView::empty(name, ctx.lang),
        };
        Ok(Shown {
            list,
            other_lists: other_lists(&self.store, ctx, name).await?,
            note: "A card shows the list with ✓ buttons; sum it up in a sentence, do not repeat every item.",
        })
    }

    /// Checks off, for `ctx`'s member, each thing `request`'s words point at.
    pub async fn check(&self, ctx: &ToolCtx, request: NamedItems) -> Result<CheckedOff, ToolError> {
        let matched = self.matched(ctx, request).await?;
        let mut out = CheckedOff {
            checked: Vec::new(),
            already_checked: Vec::new(),
            not_found: Vec::new(),
            ambiguous: Vec::new(),
            list: ListView::empty(&matched.name, ctx.lang),
        };
        for (words, fit) in matched.words {
            match fit {
                Fit::One(item) => match self.check_item(ctx, item.id).await? {
                    Checked::Now(item) => out.checked.push(item.name),
                    Checked::Already(item) => out
                        .already_checked
                        .push(AlreadyChecked { item: item.name, by: item.checked_by_name }),
                    Checked::Gone => out.not_found.push(item.name),
                },
                Fit::Several(items) => out.ambiguous.push(Ambiguous { words, items }),
                Fit::None => out.not_found.push(words),
            }
        }
        out.list = self.view(ctx, matched.list_id, &matched.name).await?;
        Ok(out)
    }

    /// Checks off one thing of `ctx`'s chat, by its id, for `ctx`'s member (a ✓ tapped).
    pub async fn check_item(&self, ctx: &ToolCtx, item: i64) -> Result<Checked, StoreError> {
        let at = ctx.now().as_millisecond();
        let (who, name) = (ctx.user_id.as_deref(), ctx.display_name.as_deref());
        let checked =
            self.store.lists().check_list_item(&ctx.conversation.id, item, who, name, at).await?;
        if let Checked::Now(item) = &checked {
            changes::record(&self.store, ctx, &verbs::LIST_CHECK, &item.name).await;
        }
        Ok(checked)
    }

    /// Puts a checked thing of `ctx`'s chat back on its list; false when there is none such.
    pub async fn uncheck_item(&self, ctx: &ToolCtx, item: i64) -> Result<bool, StoreError> {
        let back = self.store.lists().uncheck_list_item(&ctx.conversation.id, item).await?;
        if let Some(name) = &back {
            changes::record(&self.store, ctx, &verbs::LIST_UNCHECK, name).await;
        }
        Ok(back.is_some())
    }

    /// Takes off each thing `request`'s words point at.
    pub async fn remove(&self, ctx: &ToolCtx, request: NamedItems) -> Result<Removed, ToolError> {
        let matched = self.matched(ctx, request).await?;
        let conversation = &ctx.conversation.id;
        let mut out = Removed {
            removed: Vec::new(),
            not_found: Vec::new(),
            ambiguous: Vec::new(),
            list: ListView::empty(&matched.name, ctx.lang),
        };
        for (words, fit) in matched.words {
            match fit {
                Fit::One(item) => {
                    match self.store.lists().remove_list_item(conversation, item.id).await? {
                        Some(gone) => {
                            changes::record(&self.store, ctx, &verbs::LIST_REMOVE, &gone.name)
                                .await;
                            out.removed.push(gone.name);
                        }
                        None => out.not_found.push(words),
                    }
                }
                Fit::Several(_) => out.ambiguous.push(words),
                Fit::None => out.not_found.push(words),
            }
        }
        out.list = self.view(ctx, matched.list_id, &matched.name).await?;
        Ok(out)
    }

    /// The list `request` names in `ctx`'s chat, with each of its words and the thing(s) they
    /// fit there; not found when the list has nothing.
    async fn matched(&self, ctx: &ToolCtx, request: NamedItems) -> Result<Matched, ToolError> {
        let NamedItems { list: name, words } = request;
        let Some((list, items)) = find_list(&self.store, ctx, &name).await? else {
            return Err(ToolError::NotFound("the shopping list is empty".into()));
        };
        let words = words
            .into_iter()
            .map(|w| {
                let fit = match find_item(&items, &w.name) {
                    Found::One(item) => Fit::One(item.clone()),
                    Found::Several(fits) => {
                        Fit::Several(fits.iter().map(|i| i.name.clone()).collect())
                    }
                    Found::None => Fit::None,
                };
                (w.name, fit)
            })
            .collect();
        Ok(Matched { list_id: list.id, name, words })
    }

    /// Empties a list (a named list is deleted), or takes off only its checked things.
    pub async fn empty(&self, ctx: &ToolCtx, request: EmptyList) -> Result<Emptied, ToolError> {
        let EmptyList { list: name, only_checked } = request;
        let mut out =
            Emptied { list_name: name.display(ctx.lang), removed: 0, only_checked, list: None };
        let Some((list, _)) = find_list(&self.store, ctx, &name).await? else {
            return Ok(out);
        };
        out.removed =
            self.store.lists().clear_list(&ctx.conversation.id, list.id, only_checked).await?;
        if out.removed > 0 {
            let what = match (only_checked, ctx.lang) {
                (true, Lang::ZhTw) => format!("{} 買好的 {} 項", out.list_name, out.removed),
                (true, Lang::En) => format!("{} checked ones, {}", out.list_name, out.removed),
                (false, _) => out.list_name.clone(),
            };
            changes::record(&self.store, ctx, &verbs::LIST_EMPTY, &what).await;
        }
        if only_checked {
            out.list = Some(self.view(ctx, list.id, &name).await?);
        }
        Ok(out)
    }

    /// Every list of `chat` with its things, in the order they were started.
    pub async fn every(&self, chat: &str) -> Result<Vec<(ListRow, Vec<ListItem>)>, StoreError> {
        let mut lists = Vec::new();
        for summary in self.store.lists().of_chat(chat).await? {
            if let Some(found) = self.store.lists().list_by_id(chat, summary.id).await? {
                lists.push(found);
            }
        }
        Ok(lists)
    }

    /// The list `id` of `ctx`'s chat as it is now, if it still exists.
    pub async fn by_id(&self, ctx: &ToolCtx, id: i64) -> Result<Option<ListView>, StoreError> {
        let found = self.store.lists().list_by_id(&ctx.conversation.id, id).await?;
        Ok(found.map(|(list, items)| ListView::new(&list, &items, &ctx.tz, ctx.lang)))
    }

    /// The list `id` as it is now, or an empty `name` when it is gone.
    async fn view(&self, ctx: &ToolCtx, id: i64, name: &ListName) -> Result<ListView, StoreError> {
        Ok(self.by_id(ctx, id).await?.unwrap_or_else(|| ListView::empty(name, ctx.lang)))
    }
}
