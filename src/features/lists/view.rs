//! A list as the LLM reads it and as the family sees it: [`ListView`] (the tools' output) and its
//! card — the open items each with a ✓ button (a signed, chat-bound [`CheckListItem`]), then the
//! latest checked ones greyed with who checked them. The card stays within what one LINE bubble
//! holds however full the list is: it shows the first open items and counts the rest.

use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde::{Deserialize, Serialize};

use super::ListName;
use crate::contract::{Card, CardRow, Chip, Tone};
use crate::features::button::Action;
use crate::platform::i18n::Lang;
use crate::platform::text::truncate_graphemes;
use crate::store::{ListItem, ListRow};

/// The most open items on a card, each with its ✓ button (the oldest first).
pub const MAX_OPEN_ON_CARD: usize = 20;
/// The most checked items on a card (the latest checked first).
pub const MAX_CHECKED_ON_CARD: usize = 5;

/// An item as the LLM reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemView {
    /// The item, for the ✓ button.
    #[serde(skip)]
    pub id: i64,
    /// Its name.
    pub name: String,
    /// How many.
    pub quantity: i64,
    /// Who added it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub added_by: Option<String>,
    /// When, local `YYYY-MM-DD HH:MM`.
    pub added: String,
    /// Who checked it off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checked_by: Option<String>,
    /// When, local `YYYY-MM-DD HH:MM`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checked: Option<String>,
}

/// A list as the LLM reads it and the card shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListView {
    /// The list, for the ✓ buttons; `None` for a shopping list never started.
    #[serde(skip)]
    pub list_id: Option<i64>,
    /// True for the shopping list.
    #[serde(skip)]
    pub shopping: bool,
    /// Its name, in the family's language for the shopping list.
    pub list: String,
    /// Open items, oldest first.
    pub open: Vec<ItemView>,
    /// Checked-off items, latest first.
    pub checked: Vec<ItemView>,
}

impl ListView {
    /// The view of `list` and its `items` (any order), times in `tz`.
    pub fn new(list: &ListRow, items: &[ListItem], tz: &TimeZone, lang: Lang) -> Self {
        let name = ListName { key: list.key.clone(), name: list.name.clone() };
        let mut view = Self::empty(&name, lang);
        view.list_id = Some(list.id);
        let mut items: Vec<&ListItem> = items.iter().collect();
        items.sort_by_key(|i| (i.checked_at.map(|at| -at), i.id));
        for item in items {
            let shown = ItemView {
                id: item.id,
                name: item.name.clone(),
                quantity: item.quantity,
                added_by: item.added_by_name.clone(),
                added: local(item.added_at, tz),
                checked_by: item.checked_by_name.clone(),
                checked: item.checked_at.map(|at| local(at, tz)),
            };
            if item.is_open() { view.open.push(shown) } else { view.checked.push(shown) }
        }
        view
    }

    /// A list with no items (the shopping list before anything was added).
    pub fn empty(name: &ListName, lang: Lang) -> Self {
        Self {
            list_id: None,
            shopping: name.is_shopping(),
            list: name.display(lang),
            open: Vec::new(),
            checked: Vec::new(),
        }
    }

    /// The card: title, counts, a row with ✓ per open item shown, the latest checked greyed.
    pub fn card(&self, lang: Lang) -> Card {
        let title = if self.shopping {
            lang.pick("🛒 購物清單", "🛒 Shopping list").to_string()
        } else {
            format!("📝 {}", truncate_graphemes(&self.list, 30))
        };
        let mut card = Card::new(title);
        card.subtitle = Some(self.counts(lang));
        let open = &self.open[..self.open.len().min(MAX_OPEN_ON_CARD)];
        for item in open {
            let who = who(item.added_by.as_deref(), lang);
            let mut row = CardRow::new(who, label(item));
            if let Some(list) = self.list_id {
                let tap = CheckListItem { list, item: item.id, lang };
                row = row.with_button(tap.button("✓", format!("✓ {}", item.name)));
            }
            card.rows.push(row);
        }
        let checked = &self.checked[..self.checked.len().min(MAX_CHECKED_ON_CARD)];
        for item in checked {
            let who = format!("✓ {}", who(item.checked_by.as_deref(), lang));
            card.rows.push(CardRow::new(who, label(item)).toned(Some(Tone::Muted)));
        }
        let hidden = self.open.len() - open.len() + self.checked.len() - checked.len();
        if hidden > 0 {
            card.footnote = Some(match lang {
                Lang::ZhTw => format!("另有 {hidden} 項沒有列出"),
                Lang::En => format!("{hidden} more not shown"),
            });
        }
        card
    }

    /// "3 項待買 · 2 項已買", or that the list is empty.
    fn counts(&self, lang: Lang) -> String {
        let (open, checked) = (self.open.len(), self.checked.len());
        if open + checked == 0 {
            return lang.pick("清單是空的", "The list is empty").into();
        }
        match (lang, self.shopping) {
            (Lang::ZhTw, true) => format!("{open} 項待買 · {checked} 項已買"),
            (Lang::ZhTw, false) => format!("{open} 項未完成 · {checked} 項已完成"),
            (Lang::En, true) => format!("{open} to buy · {checked} bought"),
            (Lang::En, false) => format!("{open} open · {checked} done"),
        }
    }

    /// The chip that clears the checked items, when there are some.
    pub fn chips(&self, lang: Lang) -> Vec<Chip> {
        if self.checked.is_empty() {
            return Vec::new();
        }
        let text = match lang {
            Lang::ZhTw => format!("把{}已完成的項目清掉", self.list),
            Lang::En => format!("Clear the checked items of the {}", self.list),
        };
        vec![Chip::new(lang.pick("清掉已完成的", "Clear checked"), text)]
    }
}

/// "牛奶 ×2".
fn label(item: &ItemView) -> String {
    let name = truncate_graphemes(&item.name, 60);
    if item.quantity > 1 { format!("{name} ×{}", item.quantity) } else { name }
}

/// Who did it, short enough for the row's first column.
fn who(name: Option<&str>, lang: Lang) -> String {
    truncate_graphemes(name.unwrap_or(lang.pick("有人", "someone")), 8)
}

fn local(at_ms: i64, tz: &TimeZone) -> String {
    Timestamp::from_millisecond(at_ms)
        .map(|t| t.to_zoned_datetime(tz.clone()).strftime("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_default()
}

/// ✓: check off `item` of `list`; the answer is in `lang`, the language the card was shown in.
/// On a button: `12-345` (Chinese) or `12-345-en`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct CheckListItem {
    /// The list.
    pub list: i64,
    /// The item.
    pub item: i64,
    /// The card's language.
    pub lang: Lang,
}

impl From<CheckListItem> for String {
    fn from(c: CheckListItem) -> String {
        match c.lang {
            Lang::ZhTw => format!("{}-{}", c.list, c.item),
            Lang::En => format!("{}-{}-en", c.list, c.item),
        }
    }
}

impl TryFrom<String> for CheckListItem {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        let (ids, lang) = match s.strip_suffix("-en") {
            Some(ids) => (ids, Lang::En),
            None => (s.as_str(), Lang::ZhTw),
        };
        let parsed = ids.split_once('-').and_then(|(list, item)| {
            Some(CheckListItem { list: list.parse().ok()?, item: item.parse().ok()?, lang })
        });
        parsed.ok_or_else(|| format!("{s:?} is not a list item"))
    }
}

#[cfg(test)]
#[path = "view_tests.rs"]
mod tests;
