//! The table of verbs × surfaces (`hearth::features::verbs::VERBS`, shown in
//! `docs/what-it-does.md`), walked through the real server: every verb offered on a surface is
//! done there — words in the chat (the model's tool call), a button on a card, the rich menu,
//! the family page — and records the same change in the chat's feed, with who did it and from
//! where. A verb added to the list, or offered on one more surface, fails
//! `every_verb_offered_on_a_surface_is_walked_here` until it is walked here too.

use hearth::features::verbs::VERBS;
use serde_json::{Value, json};

use crate::care::{EIGHT, GRANDMA, at, feed, plan};
use crate::common::harness::{DAD, FAMILY, Harness, MOM, in_dm, in_group, postback_data};
use crate::family_page::{Browser, signed_in, start};
use crate::richmenu::{install, tap_menu};

/// Every (verb, surface) pair the tests below walk.
const WALKED: &[(&str, &str)] = &[
    ("list_add", "chat"),
    ("list_add", "page"),
    ("list_check", "chat"),
    ("list_check", "button"),
    ("list_check", "page"),
    ("list_uncheck", "page"),
    ("list_remove", "chat"),
    ("list_remove", "page"),
    ("list_empty", "chat"),
    ("list_empty", "page"),
    ("reminder_cancel", "chat"),
    ("reminder_cancel", "button"),
    ("reminder_cancel", "page"),
    ("price_alert_cancel", "chat"),
    ("price_alert_cancel", "button"),
    ("price_alert_cancel", "page"),
    ("memory_remember", "chat"),
    ("memory_forget", "chat"),
    ("memory_forget", "button"),
    ("memory_forget", "page"),
    ("memory_forget_all", "button"),
    ("memory_forget_all", "page"),
    ("official_alerts_follow", "chat"),
    ("official_alerts_stop", "chat"),
    ("care_plan_set", "chat"),
    ("care_dose_taken", "chat"),
    ("care_dose_taken", "button"),
    ("care_dose_taken", "menu"),
    ("care_dose_on_it", "button"),
    ("setting_set", "chat"),
    ("event_add", "chat"),
    ("event_add", "page"),
    ("event_move", "chat"),
    ("event_move", "page"),
    ("event_cancel", "chat"),
    ("event_cancel", "page"),
    // The calendar server's sync (tests/it/caldav.rs, with a real CalDAV server).
    ("event_add", "loop"),
    ("event_move", "loop"),
    ("event_cancel", "loop"),
];

#[test]
fn every_verb_offered_on_a_surface_is_walked_here() {
    for verb in VERBS {
        for surface in verb.surfaces {
            let pair = (verb.name, surface.as_str());
            assert!(WALKED.contains(&pair), "{pair:?} is offered but not walked");
        }
    }
    for (name, surface) in WALKED {
        let offered = VERBS
            .iter()
            .any(|v| v.name == *name && v.surfaces.iter().any(|s| s.as_str() == *surface));
        assert!(offered, "{name} on {surface} is walked but not in the list");
    }
}

/// The newest change in `chat`'s feed: who, from where, which verb, to what.
async fn newest(h: &Harness, chat: &str) -> (String, String, String, String) {
    feed(h, chat).await.into_iter().next().expect("a change in the feed")
}

/// Asserts the newest change of `chat` is `verb` by `who` from `surface` (and `what`, when
/// given); the feed's length grew by one since `before`.
async fn recorded(
    h: &Harness,
    chat: &str,
    before: usize,
    (who, surface, verb): (&str, &str, &str),
    what: Option<&str>,
) {
    let all = feed(h, chat).await;
    assert_eq!(all.len(), before + 1, "one change recorded for {verb} on {surface}: {all:?}");
    let (by, from, did, to) = newest(h, chat).await;
    assert_eq!((by.as_str(), from.as_str(), did.as_str()), (who, surface, verb), "{to}");
    if let Some(what) = what {
        assert_eq!(to, what);
    }
}

/// The number of changes in `chat`'s feed.
async fn count(h: &Harness, chat: &str) -> usize {
    feed(h, chat).await.len()
}

/// A button of `action` on the last reply.
fn button_on_last_reply(h: &Harness, action: &str) -> String {
    let body = h.line.replies().last().expect("a reply").body.clone();
    postback_data(&body, action).unwrap_or_else(|| panic!("no {action} on {body}"))
}

/// `browser` presses `action` with `id` on the family page.
async fn press(browser: &Browser, action: &str, id: &str) {
    let csrf = browser.get("/family").await.csrf();
    let pressed =
        browser.post("/family/act", &[("csrf", &csrf), ("action", action), ("id", id)]).await;
    assert_eq!(pressed.status, 303, "{}", pressed.body);
}

/// `browser` sends the lists form `op` with `fields`.
async fn list_form(browser: &Browser, op: &str, fields: &[(&str, &str)]) {
    let csrf = browser.get("/family").await.csrf();
    let mut form = vec![("csrf", csrf.as_str()), ("op", op)];
    form.extend_from_slice(fields);
    let sent = browser.post("/family/lists", &form).await;
    assert_eq!(sent.status, 303, "{}", sent.body);
}

fn list(action: &str, items: &[&str], only_checked: Option<bool>) -> Value {
    let items: Vec<Value> = items.iter().map(|i| json!({"name": i, "quantity": null})).collect();
    json!({"action": action, "list": null, "items": if items.is_empty() { Value::Null } else { json!(items) }, "only_checked": only_checked})
}

/// The id of the shopping list's item `name`.
async fn item(h: &Harness, name: &str) -> (i64, i64) {
    let lists = h.app.store.lists().of_chat(FAMILY).await.expect("lists");
    let (list, items) =
        h.app.store.lists().list_by_id(FAMILY, lists[0].id).await.expect("store").expect("list");
    (list.id, items.iter().find(|i| i.name == name).expect(name).id)
}

#[tokio::test]
async fn the_lists_verbs_record_one_change_each_from_the_chat_a_button_and_the_page() {
    let h = start().await;
    let group = in_group(FAMILY, MOM);
    let mom = |verb| ("媽媽", "chat", verb);
    let n = count(&h, FAMILY).await;
    h.call_tool(
        group.clone(),
        "小幫手 牛奶、雞蛋、衛生紙",
        "list",
        list("add", &["牛奶", "雞蛋", "衛生紙"], None),
    )
    .await;
    recorded(&h, FAMILY, n, mom("list_add"), Some("牛奶、雞蛋、衛生紙")).await;
    let n = count(&h, FAMILY).await;
    h.call_tool(group.clone(), "小幫手 牛奶買了", "list", list("check", &["牛奶"], None)).await;
    recorded(&h, FAMILY, n, mom("list_check"), Some("牛奶")).await;
    // ✓ on the card the chat was just shown.
    let n = count(&h, FAMILY).await;
    let check = button_on_last_reply(&h, "check_list_item");
    h.send(vec![h.postback(group.clone(), &check)]).await;
    recorded(&h, FAMILY, n, ("媽媽", "button", "list_check"), None).await;

    let browser = signed_in(&h, in_group(FAMILY, DAD)).await;
    let dad = |verb| ("爸爸", "page", verb);
    let n = count(&h, FAMILY).await;
    list_form(&browser, "add", &[("item", "醬油")]).await;
    recorded(&h, FAMILY, n, dad("list_add"), Some("醬油")).await;
    let (list_id, milk) = item(&h, "牛奶").await;
    let n = count(&h, FAMILY).await;
    list_form(&browser, "uncheck", &[("id", &milk.to_string())]).await;
    recorded(&h, FAMILY, n, dad("list_uncheck"), Some("牛奶")).await;
    let data = hearth::features::button::encode(&hearth::features::lists::view::CheckListItem {
        list: list_id,
        item: milk,
        lang: hearth::platform::i18n::Lang::ZhTw,
    })
    .expect("data");
    let n = count(&h, FAMILY).await;
    press(&browser, "check_list_item", &data).await;
    recorded(&h, FAMILY, n, dad("list_check"), Some("牛奶")).await;
    let n = count(&h, FAMILY).await;
    list_form(&browser, "remove", &[("item", "醬油")]).await;
    recorded(&h, FAMILY, n, dad("list_remove"), Some("醬油")).await;
    let n = count(&h, FAMILY).await;
    list_form(&browser, "clear_checked", &[]).await;
    recorded(&h, FAMILY, n, dad("list_empty"), None).await;

    let n = count(&h, FAMILY).await;
    h.call_tool(group.clone(), "小幫手 衛生紙不用了", "list", list("remove", &["衛生紙"], None))
        .await;
    recorded(&h, FAMILY, n, mom("list_remove"), Some("衛生紙")).await;
    h.call_tool(group.clone(), "小幫手 果汁", "list", list("add", &["果汁"], None)).await;
    let n = count(&h, FAMILY).await;
    h.call_tool(group.clone(), "小幫手 清單清空", "list", list("clear", &[], Some(false))).await;
    recorded(&h, FAMILY, n, mom("list_empty"), Some("購物清單")).await;
    // An empty list emptied again changes nothing, and nothing is recorded.
    h.call_tool(group, "小幫手 清單清空", "list", list("clear", &[], Some(false))).await;
    assert_eq!(count(&h, FAMILY).await, n + 1);
}

/// 媽媽 sets a reminder in the group; its id.
async fn reminder(h: &Harness, text: &str) -> i64 {
    let set = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手 提醒",
            "reminder",
            json!({"text": text, "at": "2026-12-01T08:00"}),
        )
        .await;
    set["id"].as_i64().unwrap_or_else(|| panic!("{set}"))
}

#[tokio::test]
async fn a_reminder_cancelled_in_words_by_its_button_or_on_the_page_is_recorded_once_each_way() {
    let h = start().await;
    let id = reminder(&h, "倒垃圾").await;
    let n = count(&h, FAMILY).await;
    h.call_tool(
        in_group(FAMILY, MOM),
        "小幫手 取消倒垃圾",
        "reminders",
        json!({"action": "cancel", "id": id, "description": null}),
    )
    .await;
    recorded(&h, FAMILY, n, ("媽媽", "chat", "reminder_cancel"), Some("倒垃圾")).await;
    reminder(&h, "繳電費").await;
    let cancel = button_on_last_reply(&h, "cancel_reminder");
    let n = count(&h, FAMILY).await;
    h.send(vec![h.postback(in_group(FAMILY, DAD), &cancel)]).await;
    recorded(&h, FAMILY, n, ("爸爸", "button", "reminder_cancel"), Some("繳電費")).await;
    // Tapped again: it was cancelled already, nothing more is recorded.
    h.send(vec![h.postback(in_group(FAMILY, DAD), &cancel)]).await;
    assert_eq!(count(&h, FAMILY).await, n + 1);
    let id = reminder(&h, "接小孩").await;
    let browser = signed_in(&h, in_group(FAMILY, DAD)).await;
    let n = count(&h, FAMILY).await;
    press(&browser, "cancel_reminder", &id.to_string()).await;
    recorded(&h, FAMILY, n, ("爸爸", "page", "reminder_cancel"), Some("接小孩")).await;
}

#[tokio::test]
async fn a_price_alert_cancelled_in_words_by_its_button_or_on_the_page_is_recorded_once_each_way() {
    let h = start().await;
    h.quote("BTC-USD", 91_234.5);
    let alert = |level: i64| json!({"symbol": "BTC-USD", "direction": "rises_to", "level": level, "everyone": true});
    let set =
        h.call_tool(in_group(FAMILY, MOM), "小幫手 比特幣", "price_alert", alert(100_000)).await;
    let id = set["id"].as_i64().unwrap_or_else(|| panic!("{set}"));
    let n = count(&h, FAMILY).await;
    h.call_tool(
        in_group(FAMILY, MOM),
        "小幫手 取消",
        "price_alerts",
        json!({"action": "cancel", "id": id, "symbol": null}),
    )
    .await;
    recorded(&h, FAMILY, n, ("媽媽", "chat", "price_alert_cancel"), None).await;
    h.call_tool(in_group(FAMILY, MOM), "小幫手 比特幣", "price_alert", alert(110_000)).await;
    let cancel = button_on_last_reply(&h, "cancel_price_alert");
    let n = count(&h, FAMILY).await;
    h.send(vec![h.postback(in_group(FAMILY, DAD), &cancel)]).await;
    recorded(&h, FAMILY, n, ("爸爸", "button", "price_alert_cancel"), None).await;
    let set =
        h.call_tool(in_group(FAMILY, MOM), "小幫手 比特幣", "price_alert", alert(120_000)).await;
    let id = set["id"].as_i64().unwrap_or_else(|| panic!("{set}"));
    let browser = signed_in(&h, in_group(FAMILY, DAD)).await;
    let n = count(&h, FAMILY).await;
    press(&browser, "cancel_price_alert", &id.to_string()).await;
    recorded(&h, FAMILY, n, ("爸爸", "page", "price_alert_cancel"), None).await;
}

/// 媽媽 asks hearth to remember `fact` in the group.
async fn remember(h: &Harness, fact: &str) -> Value {
    h.call_tool(
        in_group(FAMILY, MOM),
        "小幫手 記得",
        "memory",
        json!({"action": "remember", "fact": fact}),
    )
    .await
}

#[tokio::test]
async fn memories_remembered_and_forgotten_every_way_are_recorded_once_each() {
    let h = start().await;
    let n = count(&h, FAMILY).await;
    remember(&h, "阿嬤對花生過敏").await;
    recorded(&h, FAMILY, n, ("媽媽", "chat", "memory_remember"), Some("阿嬤對花生過敏")).await;
    let n = count(&h, FAMILY).await;
    h.call_tool(
        in_group(FAMILY, MOM),
        "小幫手 忘記花生",
        "memory",
        json!({"action": "forget", "words": "花生"}),
    )
    .await;
    recorded(&h, FAMILY, n, ("媽媽", "chat", "memory_forget"), Some("阿嬤對花生過敏")).await;
    remember(&h, "爸爸的班機 12/5 18:40 到").await;
    let forget = button_on_last_reply(&h, "forget_memory");
    let n = count(&h, FAMILY).await;
    h.send(vec![h.postback(in_group(FAMILY, DAD), &forget)]).await;
    recorded(&h, FAMILY, n, ("爸爸", "button", "memory_forget"), None).await;
    let kept = remember(&h, "小明週三鋼琴課").await;
    let id = kept["memory"]["id"].as_i64().unwrap_or_else(|| panic!("{kept}"));
    let browser = signed_in(&h, in_group(FAMILY, DAD)).await;
    let n = count(&h, FAMILY).await;
    press(&browser, "forget_memory", &id.to_string()).await;
    recorded(&h, FAMILY, n, ("爸爸", "page", "memory_forget"), Some("小明週三鋼琴課")).await;

    remember(&h, "阿公生日農曆八月十五").await;
    h.call_tool(
        in_group(FAMILY, MOM),
        "小幫手 全部忘記",
        "memory",
        json!({"action": "forget", "all": true}),
    )
    .await;
    let all = button_on_last_reply(&h, "forget_all_memories");
    let n = count(&h, FAMILY).await;
    h.send(vec![h.postback(in_group(FAMILY, MOM), &all)]).await;
    recorded(&h, FAMILY, n, ("媽媽", "button", "memory_forget_all"), None).await;
    let kept = remember(&h, "垃圾車晚上七點").await;
    let id = kept["memory"]["id"].as_i64().unwrap_or_else(|| panic!("{kept}"));
    let n = count(&h, FAMILY).await;
    press(&browser, "forget_all_memories", &id.to_string()).await;
    recorded(&h, FAMILY, n, ("爸爸", "page", "memory_forget_all"), None).await;
}

#[tokio::test]
async fn following_the_official_alerts_and_stopping_are_recorded_from_the_chat() {
    let h = start().await;
    let follow = json!({"action": "follow", "place": "臺北市", "date": null, "min_intensity": null,
        "quiet_holds_all": null});
    let n = count(&h, FAMILY).await;
    let followed = h
        .call_tool(in_group(FAMILY, MOM), "小幫手 有消息通知我們", "official_alerts", follow)
        .await;
    assert!(followed.get("error").is_none(), "{followed}");
    recorded(&h, FAMILY, n, ("媽媽", "chat", "official_alerts_follow"), None).await;
    let stop = json!({"action": "stop", "place": null, "date": null, "min_intensity": null,
        "quiet_holds_all": null});
    let n = count(&h, FAMILY).await;
    h.call_tool(in_group(FAMILY, DAD), "小幫手 不用通知了", "official_alerts", stop).await;
    recorded(&h, FAMILY, n, ("爸爸", "chat", "official_alerts_stop"), None).await;
}

#[tokio::test]
async fn a_dose_confirmed_in_words_by_its_button_or_from_her_menu_is_recorded_once_each_way() {
    let mut h = Harness::start().await;
    h.config.line.line_data_api_base = h.line.url();
    install(&h).await;
    plan(&h, json!({})).await;
    let set = newest(&h, FAMILY).await;
    assert_eq!((set.0.as_str(), set.1.as_str(), set.2.as_str()), ("小美", "chat", "care_plan_set"));
    assert_eq!(set.3, "阿嬤 血壓藥");
    // 08:00 Tuesday: she confirms by the prompt's ✅.
    at(&h, EIGHT).await;
    let taken = postback_data(&crate::care::last_push(&h, GRANDMA), "care_taken").expect("✅");
    let n = count(&h, FAMILY).await;
    h.send(vec![h.postback(in_dm(GRANDMA), &taken)]).await;
    recorded(&h, FAMILY, n, ("阿嬤", "button", "care_dose_taken"), Some("阿嬤 08:00 血壓藥")).await;
    // 20:00: from her menu.
    at(&h, "2026-12-01T12:00:00Z").await;
    let n = count(&h, FAMILY).await;
    tap_menu(&h, in_dm(GRANDMA), "care_menu_taken").await;
    recorded(&h, FAMILY, n, ("阿嬤", "menu", "care_dose_taken"), Some("阿嬤 20:00 血壓藥")).await;
    // Wednesday 08:00: 小美 says so in the group.
    at(&h, "2026-12-02T00:00:00Z").await;
    let n = count(&h, FAMILY).await;
    h.call_tool(
        in_group(FAMILY, MOM),
        "小幫手 阿嬤的藥吃過了",
        "care",
        json!({"action": "taken", "person": "阿嬤"}),
    )
    .await;
    recorded(&h, FAMILY, n, ("小美", "chat", "care_dose_taken"), None).await;
    // Wednesday 20:00, never confirmed: 哥哥 takes it in hand from the caregivers' notice.
    at(&h, "2026-12-02T12:00:00Z").await;
    at(&h, "2026-12-02T12:30:00Z").await;
    h.app.loops.outbox.flush_due().await.expect("outbox");
    let on_it = postback_data(&crate::care::last_push(&h, DAD), "care_on_it").expect("我來打電話");
    let n = count(&h, FAMILY).await;
    h.send(vec![h.postback(in_dm(DAD), &on_it)]).await;
    recorded(&h, FAMILY, n, ("哥哥", "button", "care_dose_on_it"), None).await;
}

#[tokio::test]
async fn a_setting_changed_in_words_is_recorded_once_and_the_same_again_records_nothing() {
    let media = crate::common::fake_media::FakeMedia::start().await;
    let h = crate::speech::speaking(&media, |_| {}).await;
    let n = count(&h, FAMILY).await;
    let mine = json!({"on": true, "just_me": true});
    let asked = "小幫手 用講的回答我";
    h.call_tool(in_group(FAMILY, MOM), asked, "spoken_answers", mine.clone()).await;
    let mom = ("媽媽", "chat", "setting_set");
    recorded(&h, FAMILY, n, mom, Some("語音回答：開（只有自己）")).await;
    h.call_tool(in_group(FAMILY, MOM), asked, "spoken_answers", mine).await;
    assert_eq!(count(&h, FAMILY).await, n + 1, "the same again changes nothing");
}

#[tokio::test]
async fn calendar_events_added_moved_and_cancelled_in_words_are_recorded_once_each() {
    let h = crate::calendar::start().await;
    let n = count(&h, FAMILY).await;
    let party = json!({"action": "add", "title": "阿公生日聚餐", "start": "2026-12-05T12:00"});
    let said = "小幫手 下週六中午阿公生日";
    let saved = h.call_tool(in_group(FAMILY, MOM), said, "calendar", party).await;
    recorded(&h, FAMILY, n, ("媽媽", "chat", "event_add"), Some("阿公生日聚餐")).await;
    let id = saved["event"]["id"].clone();
    let moved =
        json!({"action": "move", "id": id, "title": "阿公生日聚餐", "start": "2026-12-06T12:00"});
    h.call_tool(in_group(FAMILY, DAD), "小幫手 改到週日", "calendar", moved).await;
    recorded(&h, FAMILY, n + 1, ("爸爸", "chat", "event_move"), Some("阿公生日聚餐")).await;
    let cancel = json!({"action": "cancel", "id": id});
    h.call_tool(in_group(FAMILY, MOM), "小幫手 取消", "calendar", cancel.clone()).await;
    recorded(&h, FAMILY, n + 2, ("媽媽", "chat", "event_cancel"), Some("阿公生日聚餐")).await;
    h.call_tool(in_group(FAMILY, MOM), "小幫手 取消", "calendar", cancel).await;
    assert_eq!(count(&h, FAMILY).await, n + 3, "a second cancel records nothing");
}

#[tokio::test]
async fn calendar_events_added_moved_and_cancelled_on_the_page_are_recorded_once_each() {
    let h = start().await;
    let browser = signed_in(&h, in_group(FAMILY, DAD)).await;
    let n = count(&h, FAMILY).await;
    let send = |op: &'static str, fields: Vec<(&'static str, String)>| {
        let browser = &browser;
        async move {
            let csrf = browser.get("/family?tab=calendar").await.csrf();
            let mut form: Vec<(&str, &str)> = vec![("csrf", &csrf), ("op", op)];
            form.extend(fields.iter().map(|(k, v)| (*k, v.as_str())));
            let sent = browser.post("/family/calendar", &form).await;
            assert_eq!(sent.status, 303, "{}", sent.body);
        }
    };
    send("add", vec![("title", "尾牙".into()), ("day", "2027-01-15".into())]).await;
    recorded(&h, FAMILY, n, ("爸爸", "page", "event_add"), Some("尾牙")).await;
    let id = h.app.store.calendar().live(FAMILY).await.expect("events")[0].id.to_string();
    send("move", vec![("id", id.clone()), ("start", "2027-01-22".into())]).await;
    recorded(&h, FAMILY, n + 1, ("爸爸", "page", "event_move"), Some("尾牙")).await;
    send("cancel", vec![("id", id.clone())]).await;
    recorded(&h, FAMILY, n + 2, ("爸爸", "page", "event_cancel"), Some("尾牙")).await;
    send("cancel", vec![("id", id)]).await;
    assert_eq!(count(&h, FAMILY).await, n + 3, "a second cancel records nothing");
}
