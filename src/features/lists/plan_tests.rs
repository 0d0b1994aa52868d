use super::*;
use crate::store::ListRow;

fn item(id: i64, name: &str, quantity: i64, checked: bool) -> ListItem {
    ListItem {
        id,
        list_id: 1,
        name: name.into(),
        key: item_key(name),
        quantity,
        added_by: Some("U1".into()),
        added_by_name: Some("媽媽".into()),
        added_at: 0,
        checked_by: checked.then(|| "U2".into()),
        checked_by_name: checked.then(|| "爸爸".into()),
        checked_at: checked.then_some(1),
    }
}

fn state(items: Vec<ListItem>) -> ListState {
    let list = ListRow { id: 1, key: "shopping".into(), name: String::new(), created_at: 0 };
    let items_in_chat = items.len();
    ListState { list: Some(list), items, lists_in_chat: 1, items_in_chat }
}

fn wanted(names: &[&str]) -> Vec<Wanted> {
    names.iter().map(|n| Wanted { name: n.to_string(), quantity: None }).collect()
}

#[test]
fn new_items_are_added_with_a_quantity_of_one() {
    let plan =
        plan_additions(&state(vec![]), &wanted(&["牛奶", "雞蛋"]), "購物清單").expect("plan");
    assert_eq!(
        plan.changes,
        [
            ItemChange::Add { name: "牛奶".into(), key: "牛奶".into(), quantity: 1 },
            ItemChange::Add { name: "雞蛋".into(), key: "雞蛋".into(), quantity: 1 },
        ]
    );
    assert_eq!(plan.additions[0], Addition::Added { item: "牛奶".into(), quantity: 1 });
}

#[test]
fn the_same_item_twice_in_one_request_is_one_item_with_the_quantities_added() {
    let mut asked = wanted(&["牛奶", "Milk", "milk"]);
    asked[0].quantity = Some(2);
    let plan = plan_additions(&state(vec![]), &asked, "list").expect("plan");
    assert_eq!(
        plan.changes,
        [
            ItemChange::Add { name: "牛奶".into(), key: "牛奶".into(), quantity: 2 },
            ItemChange::Add { name: "Milk".into(), key: "milk".into(), quantity: 2 },
        ]
    );
}

#[test]
fn an_item_already_open_on_the_list_gets_its_quantity_raised_not_a_second_line() {
    let plan =
        plan_additions(&state(vec![item(7, "牛奶", 1, false)]), &wanted(&["牛奶 "]), "購物清單")
            .expect("plan");
    assert_eq!(plan.changes, [ItemChange::Reopen { id: 7, quantity: 2 }]);
    assert_eq!(plan.additions, [Addition::Merged { item: "牛奶".into(), quantity: 2 }]);
}

#[test]
fn a_checked_item_needed_again_is_reopened_with_the_new_quantity() {
    let mut asked = wanted(&["牛奶"]);
    asked[0].quantity = Some(3);
    let plan =
        plan_additions(&state(vec![item(7, "牛奶", 2, true)]), &asked, "購物清單").expect("plan");
    assert_eq!(plan.changes, [ItemChange::Reopen { id: 7, quantity: 3 }]);
    assert_eq!(plan.additions, [Addition::Reopened { item: "牛奶".into(), quantity: 3 }]);
}

#[test]
fn quantities_never_pass_the_largest() {
    let mut asked = wanted(&["米"]);
    asked[0].quantity = Some(MAX_QUANTITY);
    let plan = plan_additions(&state(vec![item(7, "米", 998, false)]), &asked, "l").expect("plan");
    assert_eq!(plan.changes, [ItemChange::Reopen { id: 7, quantity: MAX_QUANTITY }]);
}

#[test]
fn a_full_list_refuses_new_items_but_still_merges_duplicates() {
    let full: Vec<ListItem> = (0..MAX_ITEMS_PER_LIST)
        .map(|i| item(i as i64, &format!("item {i}"), 1, i % 2 == 0))
        .collect();
    let refused = plan_additions(&state(full.clone()), &wanted(&["牛奶"]), "購物清單");
    let Err(ListError::ListFull { has, adding, .. }) = refused else {
        panic!("the list is full: {refused:?}");
    };
    assert_eq!((has, adding), (MAX_ITEMS_PER_LIST, 1));
    assert!(plan_additions(&state(full), &wanted(&["item 1", "item 2"]), "l").is_ok());
}

#[test]
fn a_full_chat_refuses_new_items_and_new_lists() {
    let mut chat = state(vec![]);
    chat.items_in_chat = MAX_ITEMS_PER_CHAT - 1;
    assert!(plan_additions(&chat, &wanted(&["牛奶"]), "l").is_ok());
    let refused = plan_additions(&chat, &wanted(&["牛奶", "雞蛋"]), "l");
    assert!(matches!(refused, Err(ListError::ChatFull { adding: 2, .. })), "{refused:?}");

    let mut lists = ListState { lists_in_chat: MAX_LISTS_PER_CHAT, ..ListState::default() };
    assert!(matches!(
        plan_additions(&lists, &wanted(&["帳篷"]), "露營"),
        Err(ListError::TooManyLists)
    ));
    lists.lists_in_chat -= 1;
    assert!(plan_additions(&lists, &wanted(&["帳篷"]), "露營").is_ok());
}

#[test]
fn items_listed_in_one_name_are_split_and_cleaned() {
    let items = wanted_items([("牛奶、雞蛋，吐司, butter;".to_string(), None)]).expect("items");
    let names: Vec<&str> = items.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["牛奶", "雞蛋", "吐司", "butter"]);
    let one = wanted_items([(" 低脂\t 牛奶 ".to_string(), Some(2))]).expect("items");
    assert_eq!(one, [Wanted { name: "低脂 牛奶".into(), quantity: Some(2) }]);
}

#[test]
fn bad_items_are_refused_with_the_reason() {
    assert!(matches!(wanted_items([(" ".to_string(), None)]), Err(ListError::EmptyItem)));
    assert!(matches!(wanted_items(Vec::new()), Err(ListError::NoItems)));
    assert!(matches!(wanted_items([("、".to_string(), None)]), Err(ListError::NoItems)));
    let long = "字".repeat(MAX_ITEM_CHARS + 1);
    assert!(matches!(
        wanted_items([(long, None)]),
        Err(ListError::ItemTooLong { length, .. }) if length == MAX_ITEM_CHARS + 1
    ));
    assert!(matches!(wanted_items([("米".to_string(), Some(0))]), Err(ListError::BadQuantity(0))));
    let many = (0..=MAX_ITEMS_PER_CALL).map(|i| (format!("item {i}"), None));
    assert!(matches!(wanted_items(many), Err(ListError::TooManyInCall(_))));
}

#[test]
fn words_find_the_item_with_that_key_first_then_the_one_open_item_they_name() {
    let items = vec![
        item(1, "牛奶", 1, true),
        item(2, "鮮奶", 1, false),
        item(3, "牛奶", 1, false),
        item(4, "雞蛋", 1, false),
        item(5, "醬油", 1, false),
        item(6, "醬油膏", 1, false),
    ];
    assert!(matches!(find_item(&items, "牛奶"), Found::One(i) if i.id == 3));
    assert!(matches!(find_item(&items, "蛋"), Found::One(i) if i.id == 4));
    assert!(matches!(find_item(&items, "一盒雞蛋"), Found::One(i) if i.id == 4));
    assert!(matches!(find_item(&items, "醬"), Found::Several(s) if s.len() == 2));
    assert!(matches!(find_item(&items, "醬油"), Found::One(i) if i.id == 5));
    assert_eq!(find_item(&items, "香蕉"), Found::None);
    assert_eq!(find_item(&items, " "), Found::None);
    let checked = vec![item(1, "牛奶", 1, true)];
    assert!(matches!(find_item(&checked, "牛奶"), Found::One(i) if i.id == 1));
}
