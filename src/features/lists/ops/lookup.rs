//! Finding the list a request names among the conversation's lists, for the list tools: the
//! shopping list always exists (empty until something is added); a named list the chat does not
//! have is "not found", with the names of the lists it has so the model can ask which one.

use serde::Serialize;

use crate::contract::{ToolCtx, ToolError};
use crate::features::lists::ListName;
use crate::platform::i18n::Lang;
use crate::store::{ListItem, ListRow, ListSummary, Store};

/// Another list of the chat, as the LLM reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OtherList {
    /// Its name.
    pub list: String,
    /// How many of its items are open.
    pub open: i64,
}

/// The list `name` of `ctx`'s conversation with its items; `None` for a shopping list not
/// started yet; a named list the chat does not have is [`ToolError::NotFound`].
pub async fn find_list(
    store: &Store,
    ctx: &ToolCtx,
    name: &ListName,
) -> Result<Option<(ListRow, Vec<ListItem>)>, ToolError> {
    let conversation = &ctx.conversation.id;
    if let Some(found) = store.lists().list_by_key(conversation, &name.key).await? {
        return Ok(Some(found));
    }
    if name.is_shopping() {
        return Ok(None);
    }
    let names: Vec<String> =
        store.lists().of_chat(conversation).await?.iter().map(|l| display(l, ctx.lang)).collect();
    let has = if names.is_empty() { "none yet".to_string() } else { names.join(", ") };
    Err(ToolError::NotFound(format!(
        "this chat has no list called {:?}; its lists: {has}",
        name.name
    )))
}

/// The chat's lists other than `name`, with their open counts.
pub async fn other_lists(
    store: &Store,
    ctx: &ToolCtx,
    name: &ListName,
) -> Result<Vec<OtherList>, ToolError> {
    let lists = store.lists().of_chat(&ctx.conversation.id).await?;
    Ok(lists
        .iter()
        .filter(|l| l.key != name.key)
        .map(|l| OtherList { list: display(l, ctx.lang), open: l.open })
        .collect())
}

fn display(list: &ListSummary, lang: Lang) -> String {
    ListName { key: list.key.clone(), name: list.name.clone() }.display(lang)
}
