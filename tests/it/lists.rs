//! Shared lists end to end: the conversations in Chinese and English through the fake LLM (add,
//! show, check off, clear; the shopping list by default, named lists), the list card as LINE
//! receives it, its ✓ buttons tapped in the right chat and refused elsewhere, taps on checked and
//! cleared items, duplicates merged, the caps per list, per chat and on the number of lists, and
//! bad requests that change nothing. Runs on SQLite, and on PostgreSQL with
//! `HEARTH_TEST_BACKEND=postgres` (the store's own tests are in `tests/lists_store.rs`).

use crate::common::harness::{
    DAD, FAMILY, Harness, MOM, OTHER_GROUP, in_dm, in_group, messages_of, texts_of,
};
use hearth::features::lists::{MAX_ITEMS_PER_CHAT, MAX_ITEMS_PER_LIST, MAX_LISTS_PER_CHAT};
use serde_json::{Value, json};

async fn start() -> Harness {
    let h = Harness::start().await;
    h.line.set_profile(MOM, "媽媽");
    h.line.set_profile(DAD, "爸爸");
    h
}

/// One turn in which the model makes `calls` and then answers `answer`; returns the tool results
/// it read, in call order.
async fn turn(h: &Harness, event: Value, calls: &[(&str, Value)], answer: &str) -> Vec<Value> {
    h.llm.reply_tool_calls(calls);
    h.llm.reply_text(answer);
    h.send(vec![event]).await;
    crate::common::harness::tool_results(h.llm.requests().last().expect("a request"))
}

/// `{"name": n}` items for add_list_items.
fn items(names: &[&str]) -> Value {
    Value::Array(names.iter().map(|n| json!({"name": n})).collect())
}

/// A row of a list card: its texts, whether it is struck through (checked), and the postback data
/// of its button, if any.
#[derive(Debug, Clone)]
struct Row {
    texts: Vec<String>,
    struck: bool,
    button: Option<String>,
}

/// The (last) list card of the last reply: the texts above its rows (title, subtitle) and below
/// them (the footnote), and its rows.
fn last_card(h: &Harness) -> (Vec<String>, Vec<Row>) {
    let replies = h.line.replies();
    let body = &replies.last().expect("a reply").body;
    let flex = messages_of(body).into_iter().find(|m| m["type"] == "flex").expect("a card");
    let bubble = match flex["contents"]["contents"].as_array() {
        Some(carousel) => carousel.last().cloned().unwrap_or_default(),
        None => flex["contents"].clone(),
    };
    let head = bubble["body"]["contents"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str().map(str::to_string))
        .collect();
    let mut rows = Vec::new();
    collect_rows(&bubble, &mut rows);
    (head, rows)
}

fn collect_rows(node: &Value, rows: &mut Vec<Row>) {
    if node["type"] == "box" && node["layout"] == "horizontal" {
        let contents = node["contents"].as_array().cloned().unwrap_or_default();
        rows.push(Row {
            texts: contents.iter().filter_map(|c| c["text"].as_str().map(str::to_string)).collect(),
            struck: contents.iter().any(|c| c["decoration"] == "line-through"),
            button: contents
                .iter()
                .find(|c| c["action"]["type"] == "postback")
                .and_then(|c| c["action"]["data"].as_str().map(str::to_string)),
        });
        return;
    }
    match node {
        Value::Object(map) => map.values().for_each(|v| collect_rows(v, rows)),
        Value::Array(items) => items.iter().for_each(|v| collect_rows(v, rows)),
        _ => {}
    }
}

fn row<'a>(rows: &'a [Row], value: &str) -> &'a Row {
    rows.iter().find(|r| r.texts.get(1).is_some_and(|v| v == value)).unwrap_or_else(|| {
        panic!("a row {value:?} in {rows:?}");
    })
}

fn last_text(h: &Harness) -> String {
    texts_of(&h.line.replies().last().expect("a reply").body)
}

async fn open_items(h: &Harness, chat: &str, key: &str) -> Vec<(String, i64)> {
    let list = h.app.store.lists().list_by_key(chat, key).await.expect("store");
    let items = list.map(|(_, items)| items).unwrap_or_default();
    items.into_iter().filter(|i| i.is_open()).map(|i| (i.name, i.quantity)).collect()
}

#[tokio::test]
async fn a_shopping_list_in_chinese_merges_duplicates_and_shows_who_added_what() {
    let h = start().await;
    let added = turn(
        &h,
        h.group_text(FAMILY, MOM, "小幫手 牛奶、雞蛋加到購物清單"),
        &[("list", json!({"action": "add", "list": null, "items": items(&["牛奶", "雞蛋"])}))],
        "好，已加到購物清單。",
    )
    .await;
    assert_eq!(added[0]["added"][0], json!({"status": "added", "item": "牛奶", "quantity": 1}));
    let again = turn(
        &h,
        h.group_text(FAMILY, DAD, "小幫手 購物清單再加牛奶跟衛生紙"),
        &[(
            "list",
            json!({"action": "add", "list": "購物清單", "items": items(&["牛奶", "衛生紙"])}),
        )],
        "好，牛奶改成兩份，也加了衛生紙。",
    )
    .await;
    assert_eq!(again[0]["added"][0], json!({"status": "merged", "item": "牛奶", "quantity": 2}));
    assert_eq!(
        open_items(&h, FAMILY, "shopping").await,
        [("牛奶".into(), 2), ("雞蛋".into(), 1), ("衛生紙".into(), 1)],
        "one line per item, the quantity noted"
    );

    let shown = turn(
        &h,
        h.group_text(FAMILY, DAD, "小幫手 購物清單有什麼"),
        &[("list", json!({"action": "show", "list": null}))],
        "還要買牛奶、雞蛋和衛生紙。",
    )
    .await;
    assert_eq!(shown[0]["list"]["open"][0]["added_by"], "媽媽");
    assert_eq!(shown[0]["list"]["open"][0]["added"], "2026-11-30 20:00", "when, in Taipei");
    let (head, rows) = last_card(&h);
    assert_eq!(head[..2], ["🛒 購物清單".to_string(), "3 項待買 · 0 項已買".to_string()]);
    assert_eq!(row(&rows, "牛奶 ×2").texts[0], "媽媽");
    assert_eq!(row(&rows, "衛生紙").texts[0], "爸爸");
    assert!(rows.iter().all(|r| r.button.is_some()), "a ✓ per open item: {rows:?}");
    assert!(last_text(&h).contains("還要買"), "the model's words come with the card");
}

#[tokio::test]
async fn an_english_family_checks_things_off_by_name_and_sees_them_greyed_with_who() {
    let h = start().await;
    turn(
        &h,
        h.dm(MOM, "add milk, eggs and 2 bananas to the shopping list"),
        &[(
            "list",
            json!({"action": "add", "list": null, "items": [{"name": "milk"}, {"name": "eggs"}, {"name": "bananas", "quantity": 2}]}),
        )],
        "Added milk, eggs and 2 bananas.",
    )
    .await;
    let (head, _) = last_card(&h);
    assert_eq!(head[..2], ["🛒 Shopping list".to_string(), "3 to buy · 0 bought".to_string()]);

    let checked = turn(
        &h,
        h.dm(MOM, "got the eggs and the bread"),
        &[("list", json!({"action": "check", "list": null, "items": ["eggs", "bread"]}))],
        "Checked off eggs; bread was not on the list.",
    )
    .await;
    assert_eq!(checked[0]["checked"], json!(["eggs"]));
    assert_eq!(checked[0]["not_found"], json!(["bread"]));
    let (head, rows) = last_card(&h);
    assert_eq!(head[1], "2 to buy · 1 bought");
    let eggs = row(&rows, "eggs");
    assert_eq!((eggs.texts[0].as_str(), eggs.struck, &eggs.button), ("✓ 媽媽", true, &None));
    assert_eq!(row(&rows, "bananas ×2").texts[0], "媽媽");
    assert!(row(&rows, "milk").button.as_deref().is_some_and(|d| d.contains("-en&")));

    let again = turn(
        &h,
        h.dm(MOM, "bought eggs"),
        &[("list", json!({"action": "check", "list": null, "items": ["eggs"]}))],
        "Eggs were already checked off.",
    )
    .await;
    assert_eq!(again[0]["already_checked"], json!([{"item": "eggs", "by": "媽媽"}]));

    let milk = row(&last_card(&h).1, "milk").button.clone().expect("a ✓ on milk");
    h.send(vec![h.postback(in_dm(MOM), &milk)]).await;
    assert_eq!(last_text(&h), "✓ 媽媽 checked off \"milk\"", "the tap answers in English");
    assert_eq!(last_card(&h).0[1], "1 to buy · 2 bought");

    let back = turn(
        &h,
        h.dm(MOM, "we need eggs again"),
        &[("list", json!({"action": "add", "list": null, "items": items(&["Eggs"])}))],
        "Eggs are back on the list.",
    )
    .await;
    assert_eq!(back[0]["added"][0], json!({"status": "reopened", "item": "eggs", "quantity": 1}));
    assert_eq!(last_card(&h).0[1], "2 to buy · 1 bought");
}

#[tokio::test]
async fn a_check_button_works_in_its_chat_answers_with_the_updated_card_and_is_refused_elsewhere() {
    let h = start().await;
    turn(
        &h,
        h.group_text(FAMILY, MOM, "小幫手 牛奶、雞蛋加到購物清單"),
        &[("list", json!({"action": "add", "list": null, "items": items(&["牛奶", "雞蛋"])}))],
        "好。",
    )
    .await;
    let (_, rows) = last_card(&h);
    let milk = row(&rows, "牛奶").button.clone().expect("a ✓ on milk");
    let eggs = row(&rows, "雞蛋").button.clone().expect("a ✓ on eggs");

    h.send(vec![h.postback(in_group(OTHER_GROUP, MOM), &milk)]).await;
    assert!(last_text(&h).contains("不屬於這個聊天室"), "{}", last_text(&h));
    h.send(vec![h.postback(in_dm(MOM), &milk)]).await;
    assert!(last_text(&h).contains("不屬於這個聊天室"), "{}", last_text(&h));
    assert_eq!(open_items(&h, FAMILY, "shopping").await.len(), 2, "nothing checked from elsewhere");

    h.send(vec![h.postback(in_group(FAMILY, DAD), &milk)]).await;
    assert_eq!(last_text(&h), "✓ 爸爸勾掉了「牛奶」");
    let (head, rows) = last_card(&h);
    assert_eq!(head[1], "1 項待買 · 1 項已買", "the answer is the updated card");
    let checked = row(&rows, "牛奶");
    assert_eq!((checked.texts[0].as_str(), checked.struck), ("✓ 爸爸", true));
    assert_eq!(open_items(&h, FAMILY, "shopping").await, [("雞蛋".into(), 1)]);

    h.send(vec![h.postback(in_group(FAMILY, MOM), &milk)]).await;
    assert_eq!(last_text(&h), "「牛奶」已經被爸爸勾掉了", "a second tap says who did it");

    turn(
        &h,
        h.group_text(FAMILY, MOM, "小幫手 清空購物清單"),
        &[("list", json!({"action": "clear", "list": null, "only_checked": null}))],
        "購物清單清空了。",
    )
    .await;
    h.send(vec![h.postback(in_group(FAMILY, DAD), &eggs)]).await;
    assert_eq!(last_text(&h), "這個項目已經不在清單上了。", "a tap on a cleared item");
    let replies = h.line.replies();
    let body = &replies.last().expect("a reply").body;
    assert!(messages_of(body).iter().all(|m| m["type"] != "flex"), "no card of a deleted list");
}

#[tokio::test]
async fn named_lists_are_kept_apart_from_the_shopping_list_and_from_other_chats() {
    let h = start().await;
    let added = turn(
        &h,
        h.group_text(FAMILY, MOM, "小幫手 露營要帶的：帳篷、睡袋"),
        &[(
            "list",
            json!({"action": "add", "list": "露營要帶的", "items": items(&["帳篷、睡袋"])}),
        )],
        "好。",
    )
    .await;
    assert_eq!(added[0]["list"]["list"], "露營要帶的");
    let (head, _) = last_card(&h);
    assert_eq!(head[..2], ["📝 露營要帶的".to_string(), "2 項未完成 · 0 項已完成".to_string()]);

    let shown = turn(
        &h,
        h.group_text(FAMILY, DAD, "小幫手 露營清單有什麼"),
        &[
            ("list", json!({"action": "show", "list": "露營要帶的清單"})),
            ("list", json!({"action": "show", "list": null})),
            ("list", json!({"action": "show", "list": "待辦"})),
        ],
        "露營要帶帳篷和睡袋。",
    )
    .await;
    assert_eq!(shown[0]["list"]["open"].as_array().map(Vec::len), Some(2), "the same list");
    assert_eq!(shown[1]["list"]["open"], json!([]), "the shopping list is still empty");
    assert_eq!(shown[1]["other_lists"], json!([{"list": "露營要帶的", "open": 2}]));
    assert_eq!(shown[2]["error"]["kind"], "not_found");
    let message = shown[2]["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("露營要帶的"), "names the lists the chat has: {message}");

    let elsewhere = turn(
        &h,
        h.group_text(OTHER_GROUP, MOM, "小幫手 露營要帶什麼"),
        &[("list", json!({"action": "show", "list": "露營要帶的"}))],
        "這個群組沒有露營清單。",
    )
    .await;
    assert_eq!(elsewhere[0]["error"]["kind"], "not_found", "another chat's list is not seen");
}

#[tokio::test]
async fn clearing_checked_items_keeps_the_open_ones_and_clearing_all_empties_the_list() {
    let h = start().await;
    turn(
        &h,
        h.group_text(FAMILY, MOM, "小幫手 購物清單加牛奶、雞蛋、吐司"),
        &[(
            "list",
            json!({"action": "add", "list": null, "items": items(&["牛奶", "雞蛋", "吐司"])}),
        )],
        "好。",
    )
    .await;
    let checked = turn(
        &h,
        h.group_text(FAMILY, DAD, "小幫手 買好牛奶了"),
        &[("list", json!({"action": "check", "list": null, "items": ["牛奶"]}))],
        "好，牛奶勾掉了。",
    )
    .await;
    assert_eq!(checked[0]["checked"], json!(["牛奶"]));
    let chips = crate::common::harness::chip_texts(&h.line.replies().last().expect("reply").body);
    assert!(chips.iter().any(|c| c.contains("已完成的項目清掉")), "{chips:?}");

    let cleared = turn(
        &h,
        h.group_text(FAMILY, MOM, "小幫手 把買好的清掉"),
        &[("list", json!({"action": "clear", "list": null, "only_checked": true}))],
        "清掉一項。",
    )
    .await;
    assert_eq!(cleared[0]["removed"], 1);
    let (head, _) = last_card(&h);
    assert_eq!(head[1], "2 項待買 · 0 項已買");

    let emptied = turn(
        &h,
        h.group_text(FAMILY, MOM, "小幫手 清空購物清單"),
        &[("list", json!({"action": "clear", "list": null, "only_checked": null}))],
        "購物清單清空了。",
    )
    .await;
    assert_eq!(emptied[0]["removed"], 2);
    assert!(open_items(&h, FAMILY, "shopping").await.is_empty());
    assert!(
        h.app.store.lists().of_chat(FAMILY).await.expect("lists").is_empty(),
        "the list is gone"
    );
}

#[tokio::test]
async fn a_thing_no_longer_needed_is_taken_off_the_list_rather_than_checked() {
    let h = start().await;
    turn(
        &h,
        h.group_text(FAMILY, MOM, "小幫手 購物清單加牛奶、衛生紙、醬油、醬油膏"),
        &[(
            "list",
            json!({"action": "add", "list": null, "items": items(&["牛奶", "衛生紙", "醬油", "醬油膏"])}),
        )],
        "好。",
    )
    .await;
    let removed = turn(
        &h,
        h.group_text(FAMILY, DAD, "小幫手 牛奶不用買了，香蕉也刪掉"),
        &[("list", json!({"action": "remove", "list": null, "items": ["牛奶", "香蕉", "醬"]}))],
        "好，牛奶拿掉了；清單上沒有香蕉；要刪醬油還是醬油膏？",
    )
    .await;
    assert_eq!(removed[0]["removed"], json!(["牛奶"]));
    assert_eq!(removed[0]["not_found"], json!(["香蕉"]));
    assert_eq!(removed[0]["ambiguous"], json!(["醬"]));
    assert_eq!(
        open_items(&h, FAMILY, "shopping").await,
        [("衛生紙".into(), 1), ("醬油".into(), 1), ("醬油膏".into(), 1)]
    );
    let (head, rows) = last_card(&h);
    assert_eq!(head[1], "3 項待買 · 0 項已買", "gone, not greyed");
    assert!(rows.iter().all(|r| !r.texts.contains(&"牛奶".to_string())), "{rows:?}");
}

#[tokio::test]
async fn bad_requests_get_clear_errors_and_change_nothing() {
    let h = start().await;
    let results = turn(
        &h,
        h.group_text(FAMILY, MOM, "小幫手 加東西"),
        &[
            ("list", json!({"action": "add", "list": null, "items": []})),
            ("list", json!({"action": "add", "list": null, "items": items(&["  "])})),
            ("list", json!({"action": "add", "list": null, "items": items(&[&"長".repeat(61)])})),
            (
                "list",
                json!({"action": "add", "list": null, "items": [{"name": "米", "quantity": 0}]}),
            ),
            ("list", json!({"action": "add", "list": "清".repeat(31), "items": items(&["米"])})),
            ("list", json!({"action": "check", "list": "待辦", "items": ["繳費"]})),
            ("list", json!({"action": "clear", "list": "待辦", "only_checked": null})),
            ("list", json!({"action": "add", "list": null})),
        ],
        "抱歉，有些沒辦法加。",
    )
    .await;
    let kinds: Vec<&str> =
        results.iter().map(|r| r["error"]["kind"].as_str().unwrap_or("ok")).collect();
    assert_eq!(
        kinds,
        [
            "invalid_arguments",
            "invalid_arguments",
            "invalid_arguments",
            "invalid_arguments",
            "invalid_arguments",
            "not_found",
            "not_found",
            "invalid_arguments"
        ]
    );
    assert!(results[2]["error"]["message"].as_str().is_some_and(|m| m.contains("61 characters")));
    assert!(
        h.app.store.lists().of_chat(FAMILY).await.expect("lists").is_empty(),
        "nothing was started"
    );
}

/// `n` distinct item names starting at `from`.
fn names(prefix: &str, from: usize, n: usize) -> Value {
    Value::Array((from..from + n).map(|i| json!({"name": format!("{prefix}{i}")})).collect())
}

#[tokio::test]
async fn a_full_list_refuses_new_items_with_a_clear_message_but_still_merges_duplicates() {
    let h = start().await;
    // Four concurrent calls of one round fill the list exactly.
    let filled = turn(
        &h,
        h.group_text(FAMILY, MOM, "小幫手 加很多東西"),
        &[
            ("list", json!({"action": "add", "list": null, "items": names("a", 0, 30)})),
            ("list", json!({"action": "add", "list": null, "items": names("a", 30, 30)})),
            ("list", json!({"action": "add", "list": null, "items": names("a", 60, 30)})),
            ("list", json!({"action": "add", "list": null, "items": names("a", 90, 10)})),
        ],
        "好。",
    )
    .await;
    assert!(filled.iter().all(|r| r.get("error").is_none()), "{filled:?}");
    assert_eq!(open_items(&h, FAMILY, "shopping").await.len(), MAX_ITEMS_PER_LIST);
    turn(
        &h,
        h.group_text(FAMILY, MOM, "小幫手 購物清單"),
        &[("list", json!({"action": "show", "list": null}))],
        "好多。",
    )
    .await;
    let (head, rows) = last_card(&h);
    assert!(
        head.iter().any(|t| t.starts_with("另有 ")),
        "the card counts what it leaves out: {head:?}"
    );
    assert!(rows.len() < MAX_ITEMS_PER_LIST, "a full list's card stays small");

    let more = turn(
        &h,
        h.group_text(FAMILY, DAD, "小幫手 再加牛奶和 a5"),
        &[
            ("list", json!({"action": "add", "list": null, "items": items(&["牛奶", "a5"])})),
            ("list", json!({"action": "add", "list": null, "items": items(&["a5"])})),
        ],
        "清單滿了。",
    )
    .await;
    let message = more[0]["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("at most 100") && message.contains("nothing was added"), "{message}");
    assert_eq!(more[1]["added"][0], json!({"status": "merged", "item": "a5", "quantity": 2}));
    assert_eq!(open_items(&h, FAMILY, "shopping").await.len(), MAX_ITEMS_PER_LIST);
}

#[tokio::test]
async fn a_chat_keeps_at_most_so_many_items_and_so_many_lists() {
    let h = start().await;
    // Three lists filled to the brim hold as many items as a chat may keep.
    let per_call = 25;
    let calls: Vec<(String, Value)> = (0..MAX_ITEMS_PER_CHAT / per_call)
        .map(|n| {
            let list = format!("list{}", n * per_call / MAX_ITEMS_PER_LIST);
            (list, names("x", n * per_call, per_call))
        })
        .collect();
    for chunk in calls.chunks(5) {
        let chunk: Vec<(&str, Value)> = chunk
            .iter()
            .map(|(list, items)| ("list", json!({"action": "add", "list": list, "items": items})))
            .collect();
        let results = turn(&h, h.group_text(FAMILY, MOM, "小幫手 加"), &chunk, "好。").await;
        assert!(results.iter().all(|r| r.get("error").is_none()), "{results:?}");
    }
    let full = turn(
        &h,
        h.group_text(FAMILY, MOM, "小幫手 加"),
        &[("list", json!({"action": "add", "list": "待辦", "items": items(&["繳費"])}))],
        "滿了。",
    )
    .await;
    let message = full[0]["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(&format!("at most {MAX_ITEMS_PER_CHAT} in all")), "{message}");

    let other = turn(
        &h,
        h.group_text(OTHER_GROUP, MOM, "小幫手 加"),
        &(0..MAX_LISTS_PER_CHAT + 1)
            .map(|n| {
                ("list", json!({"action": "add", "list": format!("l{n}"), "items": items(&["x"])}))
            })
            .take(8)
            .collect::<Vec<_>>(),
        "好。",
    )
    .await;
    assert!(other.iter().all(|r| r.get("error").is_none()), "another chat has its own caps");
    for round in 0..2 {
        let calls: Vec<(&str, Value)> = (8 + round * 6..8 + (round + 1) * 6)
            .map(|n| {
                ("list", json!({"action": "add", "list": format!("l{n}"), "items": items(&["x"])}))
            })
            .collect();
        turn(&h, h.group_text(OTHER_GROUP, MOM, "小幫手 加"), &calls, "好。").await;
    }
    assert_eq!(
        h.app.store.lists().of_chat(OTHER_GROUP).await.expect("lists").len(),
        MAX_LISTS_PER_CHAT
    );
    let refused = turn(
        &h,
        h.group_text(OTHER_GROUP, MOM, "小幫手 加"),
        &[
            ("list", json!({"action": "add", "list": "one too many", "items": items(&["x"])})),
            ("list", json!({"action": "add", "list": "l3", "items": items(&["y"])})),
        ],
        "清單太多了。",
    )
    .await;
    let message = refused[0]["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(&format!("already has {MAX_LISTS_PER_CHAT} lists")), "{message}");
    assert!(refused[1].get("error").is_none(), "an existing list still takes items");
}
