//! One card for the tools that list things (`reminders`, `price_alerts` and `memory` with
//! `show`): a title, one row per item carrying the button that acts on it, at most a few rows,
//! and a footnote for the ones left out.

use super::{Card, CardButton, CardRow};
use crate::platform::i18n::Lang;

/// Which rows a list card keeps when the list is longer than it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// The first rows (a list sorted soonest first).
    First,
    /// The last rows (a list sorted oldest first: the newest).
    Last,
}

/// How a list tool's card looks.
#[derive(Debug, Clone)]
pub struct ListCard {
    /// The title ("⏰ 提醒清單").
    pub title: String,
    /// The subtitle of an empty list; `None`: an empty list has no card.
    pub empty: Option<String>,
    /// The most rows shown.
    pub max_rows: usize,
    /// Which rows are shown when there are more.
    pub keep: Keep,
}

impl ListCard {
    /// The card of `items`, one `row` each, out of `total` (a tool may list fewer than exist).
    /// When rows are left out, `more(shown, total)` is the footnote.
    pub fn build<T>(
        &self,
        items: &[T],
        total: usize,
        row: impl Fn(&T) -> CardRow,
        more: impl FnOnce(usize, usize) -> String,
    ) -> Option<Card> {
        let mut card = Card::new(self.title.clone());
        if total == 0 {
            card.subtitle = Some(self.empty.clone()?);
            return Some(card);
        }
        let shown = match self.keep {
            Keep::First => &items[..items.len().min(self.max_rows)],
            Keep::Last => &items[items.len().saturating_sub(self.max_rows)..],
        };
        card.rows = shown.iter().map(row).collect();
        if total > shown.len() {
            card.footnote = Some(more(shown.len(), total));
        }
        Some(card)
    }
}

/// The footnote "+N" for the `total - shown` rows left out.
pub fn plus_more(shown: usize, total: usize) -> String {
    format!("+{}", total - shown)
}

/// The cancel button of a listed item, labelled "取消" and echoing "❌ 取消 {what}": `button`
/// makes it from that label and text (the item's cancel action, e.g. `CancelReminder`).
pub fn cancel_button(
    lang: Lang,
    what: &str,
    button: impl FnOnce(String, String) -> CardButton,
) -> CardButton {
    button(
        lang.pick("取消", "Cancel").into(),
        format!("{} {what}", lang.pick("❌ 取消", "❌ Cancel")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(keep: Keep, empty: Option<&str>) -> ListCard {
        ListCard { title: "T".into(), empty: empty.map(Into::into), max_rows: 2, keep }
    }

    fn row(n: &u32) -> CardRow {
        CardRow::new(n.to_string(), "")
    }

    #[test]
    fn an_empty_list_has_its_subtitle_or_no_card() {
        let card = list(Keep::First, Some("none")).build::<u32>(&[], 0, row, plus_more);
        assert_eq!(card.and_then(|c| c.subtitle).as_deref(), Some("none"));
        assert!(list(Keep::First, None).build::<u32>(&[], 0, row, plus_more).is_none());
    }

    #[test]
    fn long_lists_keep_their_first_or_last_rows_and_count_the_rest() {
        let labels = |c: &Card| c.rows.iter().map(|r| r.label.clone()).collect::<Vec<_>>();
        let first = list(Keep::First, None).build(&[1, 2, 3], 3, row, plus_more).expect("a card");
        assert_eq!(
            (labels(&first), first.footnote.as_deref()),
            (vec!["1".into(), "2".into()], Some("+1"))
        );
        let last = list(Keep::Last, None).build(&[1, 2, 3], 5, row, plus_more).expect("a card");
        assert_eq!(
            (labels(&last), last.footnote.as_deref()),
            (vec!["2".into(), "3".into()], Some("+3"))
        );
        let all = list(Keep::First, None).build(&[1, 2], 2, row, plus_more).expect("a card");
        assert_eq!(all.footnote, None);
    }

    #[test]
    fn cancel_buttons_are_labelled_and_echo_what_they_cancel() {
        let button = cancel_button(Lang::En, "walk the dog", |label, display_text| {
            CardButton::Postback { label, action: "cancel_x".into(), id: "7".into(), display_text }
        });
        let CardButton::Postback { label, display_text, .. } = button else {
            panic!("a postback button");
        };
        assert_eq!(label, "Cancel");
        assert_eq!(display_text, "❌ Cancel walk the dog");
    }
}
