use super::*;
use crate::contract::CardButton;
use crate::features::lists::{MAX_ITEM_CHARS, MAX_ITEMS_PER_LIST, item_key};
use crate::line::flex::{MAX_BUBBLE_BYTES, Palette, container};
use crate::line::postback::{ButtonSigner, PostbackKey};
use crate::platform::config::{PriceColors, Secret};

fn list(key: &str, name: &str) -> ListRow {
    ListRow { id: 9, key: key.into(), name: name.into(), created_at: 0 }
}

fn item(id: i64, name: &str, quantity: i64, checked_at: Option<i64>) -> ListItem {
    ListItem {
        id,
        list_id: 9,
        name: name.into(),
        key: item_key(name),
        quantity,
        added_by: Some("U1".into()),
        added_by_name: Some("媽媽".into()),
        added_at: 1_796_040_000_000,
        checked_by: checked_at.map(|_| "U2".into()),
        checked_by_name: checked_at.map(|_| "爸爸".into()),
        checked_at,
    }
}

fn taipei() -> TimeZone {
    TimeZone::get("Asia/Taipei").expect("zone")
}

#[test]
fn open_items_come_first_oldest_first_then_the_latest_checked() {
    let items = [
        item(3, "吐司", 1, Some(10)),
        item(1, "牛奶", 2, None),
        item(4, "香蕉", 1, Some(20)),
        item(2, "雞蛋", 1, None),
    ];
    let view = ListView::new(&list("shopping", ""), &items, &taipei(), Lang::ZhTw);
    let names = |v: &[ItemView]| v.iter().map(|i| i.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&view.open), ["牛奶", "雞蛋"]);
    assert_eq!(names(&view.checked), ["香蕉", "吐司"]);
    assert_eq!(view.open[0].added, "2026-11-30 20:00");
    assert_eq!(view.list, "購物清單");
}

#[test]
fn the_card_has_a_check_button_per_open_item_and_greys_checked_ones_with_who_checked() {
    let items = [item(1, "牛奶", 2, None), item(2, "吐司", 1, Some(10))];
    let card = ListView::new(&list("shopping", ""), &items, &taipei(), Lang::ZhTw).card(Lang::ZhTw);
    assert_eq!(card.title, "🛒 購物清單");
    assert_eq!(card.subtitle.as_deref(), Some("1 項待買 · 1 項已買"));
    assert_eq!((card.rows[0].label.as_str(), card.rows[0].value.as_str()), ("媽媽", "牛奶 ×2"));
    let Some(CardButton::Postback { action, id, display_text, .. }) = &card.rows[0].button else {
        panic!("a ✓ button on an open item");
    };
    assert_eq!(
        (action.as_str(), id.as_str(), display_text.as_str()),
        ("check_list_item", "9-1", "✓ 牛奶")
    );
    assert_eq!((card.rows[1].label.as_str(), card.rows[1].value.as_str()), ("✓ 爸爸", "吐司"));
    assert_eq!((card.rows[1].tone, card.rows[1].button.is_some()), (Some(Tone::Muted), false));
    assert_eq!(card.footnote, None);
}

#[test]
fn a_named_list_in_english_says_open_and_done() {
    let items = [item(1, "tent", 1, None)];
    let card =
        ListView::new(&list("camping", "Camping"), &items, &taipei(), Lang::En).card(Lang::En);
    assert_eq!(card.title, "📝 Camping");
    assert_eq!(card.subtitle.as_deref(), Some("1 open · 0 done"));
    let Some(CardButton::Postback { id, .. }) = &card.rows[0].button else { panic!("a button") };
    assert_eq!(id, "9-1-en", "the tap answers in the card's language");
}

#[test]
fn an_empty_list_says_so_and_offers_no_chip() {
    let view = ListView::empty(&ListName::shopping(), Lang::En);
    let card = view.card(Lang::En);
    assert_eq!(card.subtitle.as_deref(), Some("The list is empty"));
    assert!(card.rows.is_empty() && view.chips(Lang::En).is_empty());
}

#[test]
fn a_full_list_of_the_longest_names_fits_one_line_bubble_and_counts_the_rest() {
    let long = "長".repeat(MAX_ITEM_CHARS);
    let items: Vec<ListItem> = (0..MAX_ITEMS_PER_LIST as i64)
        .map(|i| item(i + 1, &format!("{i}{long}"), 999, (i % 3 == 0).then_some(i)))
        .collect();
    let view = ListView::new(&list("露營要帶的東西清單清單", &long), &items, &taipei(), Lang::ZhTw);
    let card = view.card(Lang::ZhTw);
    assert_eq!(card.rows.len(), MAX_OPEN_ON_CARD + MAX_CHECKED_ON_CARD);
    let hidden = MAX_ITEMS_PER_LIST - MAX_OPEN_ON_CARD - MAX_CHECKED_ON_CARD;
    assert_eq!(card.footnote, Some(format!("另有 {hidden} 項沒有列出")));
    let key = PostbackKey::new(&Secret::default(), &Secret::from("s"));
    let signer = ButtonSigner::new(key, "C0123456789abcdef0123456789abcdef");
    let flex = container(&[card], Palette::new(PriceColors::Tw), Some(&signer))
        .expect("the card fits one bubble");
    let size = flex.to_string().len();
    assert!(size <= MAX_BUBBLE_BYTES, "{size} bytes");
    let buttons = flex.to_string().matches("\"postback\"").count();
    assert_eq!(buttons, MAX_OPEN_ON_CARD, "every open row shown keeps its button");
}
