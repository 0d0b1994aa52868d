//! Shared lists of a conversation: the shopping list everyone adds to ("牛奶、雞蛋加到購物清單")
//! and any named list ("露營要帶的", "待辦"). Which list a name means ([`ListName`]), when two
//! items are the same item ([`item_key`]), what adding items changes and whether it fits the
//! caps ([`plan::plan_additions`]), which item words point at ([`plan::find_item`]) are pure
//! decisions here; the list as the LLM and the card see it is [`view`], the ✓ button is
//! [`actions`], finding the list a request names is [`ops::lookup`]. What can be done to a list —
//! by the model, a button or the family page alike — is [`ops`].

pub mod actions;
pub mod ops;
pub mod plan;
pub mod view;

use crate::contract::ToolError;
use crate::platform::i18n::Lang;
use crate::store::StoreError;

/// The most items one list holds, open and checked together.
pub const MAX_ITEMS_PER_LIST: usize = 100;
/// The most items all the lists of one conversation hold.
pub const MAX_ITEMS_PER_CHAT: usize = 300;
/// The most lists one conversation keeps.
pub const MAX_LISTS_PER_CHAT: usize = 20;
/// The longest item name, in characters.
pub const MAX_ITEM_CHARS: usize = 60;
/// The longest list name, in characters.
pub const MAX_LIST_NAME_CHARS: usize = 30;
/// The most items one request adds or checks off.
pub const MAX_ITEMS_PER_CALL: usize = 30;
/// The largest quantity of one item.
pub const MAX_QUANTITY: i64 = 999;

/// The key of the shopping list, the list meant when no list is named.
pub const SHOPPING: &str = "shopping";

/// Names that mean the shopping list, as normalised by [`list_key`].
const SHOPPING_NAMES: &[&str] =
    &["", "購物", "购物", "買菜", "採購", "要買的", "買東西", "shopping", "grocery", "groceries"];

/// Which list a request means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListName {
    /// The normalised name: one list per key in a conversation.
    pub key: String,
    /// The name as said (the shopping list has none: its title comes in the family's language).
    pub name: String,
}

impl ListName {
    /// The list `said` names; no name (or a name of the shopping list) means the shopping list.
    pub fn parse(said: Option<&str>) -> Result<Self, ListError> {
        let name = clean(said.unwrap_or(""));
        let length = name.chars().count();
        if length > MAX_LIST_NAME_CHARS {
            return Err(ListError::NameTooLong { length });
        }
        let key = list_key(&name);
        if SHOPPING_NAMES.contains(&key.as_str()) {
            return Ok(Self::shopping());
        }
        Ok(Self { key, name })
    }

    /// The shopping list.
    pub fn shopping() -> Self {
        Self { key: SHOPPING.into(), name: String::new() }
    }

    /// True for the shopping list.
    pub fn is_shopping(&self) -> bool {
        self.key == SHOPPING
    }

    /// How the family reads the list's name.
    pub fn display(&self, lang: Lang) -> String {
        if self.is_shopping() {
            lang.pick("購物清單", "shopping list").into()
        } else {
            self.name.clone()
        }
    }
}

/// The key of a list name: normalised, and without a trailing "清單" or "list", so "露營要帶的" and
/// "露營要帶的清單" are one list.
pub fn list_key(name: &str) -> String {
    let key = item_key(name);
    let trimmed = ["清單", "清单", "list", "列表"]
        .iter()
        .find_map(|suffix| key.strip_suffix(suffix))
        .unwrap_or(&key);
    trimmed.trim().replace(' ', "-")
}

/// The key of an item name: spaces collapsed, full-width letters and digits as ASCII, lower
/// case, surrounding punctuation dropped. Two items with one key on one list are one item.
pub fn item_key(name: &str) -> String {
    let folded: String = name.chars().map(half_width).flat_map(char::to_lowercase).collect();
    let words: Vec<&str> = folded.split_whitespace().collect();
    words.join(" ").trim_matches(is_punctuation).trim().to_string()
}

/// `text` with control characters turned into spaces, spaces collapsed and trimmed.
pub fn clean(text: &str) -> String {
    let spaced: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Full-width ASCII forms (`Ａ`, `１`, `！`) as their ASCII characters.
fn half_width(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        _ => c,
    }
}

fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || "。，、！？；：～「」『』（）".contains(c)
}

/// Why a list request was refused; nothing changed. The text is what the LLM reads.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    /// No items were given.
    #[error("no items were given; ask what to put on the list")]
    NoItems,
    /// An item name is empty.
    #[error("an item name is empty")]
    EmptyItem,
    /// An item name is too long.
    #[error("the item {name:?} is too long ({length} characters, at most {MAX_ITEM_CHARS})")]
    ItemTooLong {
        /// Its start.
        name: String,
        /// Its length.
        length: usize,
    },
    /// A list name is too long.
    #[error("the list name is too long ({length} characters, at most {MAX_LIST_NAME_CHARS})")]
    NameTooLong {
        /// Its length.
        length: usize,
    },
    /// A quantity outside 1–999.
    #[error("the quantity {0} is not between 1 and {MAX_QUANTITY}")]
    BadQuantity(i64),
    /// Too many items in one request.
    #[error("{0} items in one request is too many (at most {MAX_ITEMS_PER_CALL}); split it")]
    TooManyInCall(usize),
    /// The list would hold more than it may.
    #[error(
        "the {list} has {has} items, at most {MAX_ITEMS_PER_LIST} — these {adding} new ones do \
         not fit; nothing was added. Clear the checked items (list, action clear, only_checked) or \
         remove some first"
    )]
    ListFull {
        /// The list.
        list: String,
        /// How many items it has.
        has: usize,
        /// How many new ones were asked for.
        adding: usize,
    },
    /// The conversation's lists would hold more than they may.
    #[error(
        "this chat's lists hold {has} items, at most {MAX_ITEMS_PER_CHAT} in all — these {adding} \
         new ones do not fit; nothing was added. Clear some lists first"
    )]
    ChatFull {
        /// How many items the chat's lists hold.
        has: usize,
        /// How many new ones were asked for.
        adding: usize,
    },
    /// The conversation has as many lists as it may.
    #[error(
        "this chat already has {MAX_LISTS_PER_CHAT} lists, the most it may keep; nothing was \
         added. Add to an existing list or clear one first"
    )]
    TooManyLists,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A refused request is the family's to fix; a store failure is hearth's storage being down.
impl From<ListError> for ToolError {
    fn from(error: ListError) -> Self {
        match error {
            ListError::Store(e) => ToolError::from(e),
            refused => ToolError::InvalidArgs(refused.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_name_and_the_shopping_lists_names_mean_the_shopping_list() {
        for said in [None, Some(""), Some("購物清單"), Some(" 購物 "), Some("Shopping List")]
        {
            assert!(ListName::parse(said).expect("a name").is_shopping(), "{said:?}");
        }
        assert_eq!(ListName::shopping().display(Lang::ZhTw), "購物清單");
    }

    #[test]
    fn a_named_list_is_one_list_with_or_without_the_word_list() {
        let camping = ListName::parse(Some("露營要帶的")).expect("a name");
        assert_eq!(camping.key, "露營要帶的");
        assert_eq!(ListName::parse(Some("露營要帶的清單")).expect("a name").key, camping.key);
        assert_eq!(camping.display(Lang::En), "露營要帶的");
        let packing = ListName::parse(Some("Packing  List")).expect("a name");
        assert_eq!((packing.key.as_str(), packing.name.as_str()), ("packing", "Packing List"));
        assert_eq!(ListName::parse(Some("to do")).expect("a name").key, "to-do");
    }

    #[test]
    fn an_over_long_list_name_is_refused() {
        let long = "清".repeat(MAX_LIST_NAME_CHARS + 1);
        assert!(matches!(ListName::parse(Some(&long)), Err(ListError::NameTooLong { .. })));
    }

    #[test]
    fn item_keys_ignore_case_width_spacing_and_punctuation() {
        assert_eq!(item_key("  Milk "), "milk");
        assert_eq!(item_key("ＭＩＬＫ！"), "milk");
        assert_eq!(item_key("牛奶。"), "牛奶");
        assert_eq!(item_key("soy   sauce"), "soy sauce");
        assert_ne!(item_key("牛奶"), item_key("羊奶"));
    }

    #[test]
    fn control_characters_become_spaces() {
        assert_eq!(clean("牛\n奶\t 雞蛋\u{0}"), "牛 奶 雞蛋");
    }

    #[test]
    fn refusals_are_invalid_arguments_and_store_failures_are_outages() {
        use crate::contract::ErrorKind;
        assert_eq!(ToolError::from(ListError::TooManyLists).kind(), ErrorKind::InvalidArguments);
        let down = ListError::Store(StoreError::Database(sqlx::Error::PoolTimedOut));
        assert_eq!(ToolError::from(down).kind(), ErrorKind::UpstreamUnavailable);
    }
}
