//! hearth's rich menus against the fake LINE API: `hearth richmenu install` creates the
//! everyday, care and English everyday menus (validated, their images uploaded on the data
//! host, aliased, the everyday one everyone's default) and, run again, replaces them and leaves
//! one set and every other menu alone; `remove` takes hearth's away; the doctor says whether
//! they are current. A care plan started links the care menu to 阿嬤 at once, stopped unlinks it
//! at once (no care round needed); someone whose LINE profile says English gets the English
//! menu at their first message, the care menu first while a plan asks them and
//! the English menu back after; ✅ 我吃藥了 confirms her open dose once, and from no one else's
//! chat; 📞 叫家人 tells her caregivers at most once per 10 minutes; 🩺 量血壓 asks for the
//! reading.

use serde_json::{Value, json};

use crate::care::{EIGHT, GRANDMA, at, dose_state, last_reply, plan, pushes_to};
use crate::common::harness::{DAD, FAMILY, Harness, MOM, in_dm, in_group, postback_data};
use hearth::cli::doctor::Status;
use hearth::cli::richmenu;

/// A harness whose data host is the fake LINE API too.
async fn harness() -> Harness {
    let h = Harness::start().await;
    let mut h = h;
    h.config.line.line_data_api_base = h.line.url();
    h
}

/// Runs `hearth richmenu install`; what it printed.
pub(crate) async fn install(h: &Harness) -> String {
    richmenu::install(&h.config, &h.app.store).await.expect("install")
}

/// hearth's menus at LINE, by name.
fn hearths_menus(h: &Harness) -> Vec<Value> {
    h.line
        .rich_menus()
        .into_iter()
        .filter(|m| m["name"].as_str().unwrap_or("").starts_with("hearth-"))
        .collect()
}

/// The menu the alias names, as listed.
fn menu(h: &Harness, alias: &str) -> Value {
    let id = h.line.rich_menu_alias(alias).unwrap_or_else(|| panic!("no alias {alias}"));
    h.line.rich_menus().into_iter().find(|m| m["richMenuId"] == id.as_str()).expect("the menu")
}

/// `who` taps the care menu's button `action` in `source`.
pub(crate) async fn tap_menu(h: &Harness, source: Value, action: &str) {
    let data = postback_data(&menu(h, "hearth-care"), action).expect("the button on the menu");
    h.send(vec![h.postback(source, &data)]).await;
}

#[tokio::test]
async fn install_twice_leaves_one_set_of_hearth_s_menus_and_every_other_menu_alone() {
    let h = harness().await;
    let foreign = h.line.add_foreign_rich_menu("spring sale", true);
    let first = install(&h).await;
    assert!(first.contains("hearth-everyday is everyone's default"), "{first}");
    let second = install(&h).await;
    assert!(second.contains("deleted the older"), "{second}");
    let ours = hearths_menus(&h);
    assert_eq!(ours.len(), 3, "one everyday, one care and one English menu: {ours:#?}");
    let everyday = menu(&h, "hearth-everyday");
    assert_eq!(h.line.default_rich_menu().as_deref(), everyday["richMenuId"].as_str());
    let labels: Vec<&str> = everyday["areas"]
        .as_array()
        .expect("areas")
        .iter()
        .filter_map(|a| a["action"]["label"].as_str())
        .collect();
    assert_eq!(labels, ["今天天氣", "我的提醒", "購物清單", "股價", "家庭網頁", "說明"]);
    assert_eq!(
        everyday["areas"][0]["action"],
        json!({"type": "message", "label": "今天天氣", "text": "今天天氣"})
    );
    let care = menu(&h, "hearth-care");
    assert_eq!(care["areas"].as_array().map(Vec::len), Some(6));
    assert!(postback_data(&care, "care_menu_taken").is_some(), "✅ is a signed postback: {care}");
    for m in &ours {
        let id = m["richMenuId"].as_str().expect("id");
        let image = h.line.rich_menu_image(id).expect("an image uploaded");
        assert_eq!((image["width"].as_u64(), image["height"].as_u64()), (Some(2500), Some(1686)));
        assert_eq!(image["contentType"], "image/png");
        assert!(image["bytes"].as_u64().is_some_and(|b| b > 10_000 && b <= 1024 * 1024), "{image}");
    }
    // The other menu and its alias are as they were.
    assert!(h.line.rich_menus().iter().any(|m| m["richMenuId"] == foreign.as_str()));
    assert_eq!(h.line.rich_menu_alias("spring-sale").as_deref(), Some(foreign.as_str()));
    // Validated before each creation; the image went to the data host.
    let paths: Vec<String> =
        h.line.requests().iter().map(|r| format!("{} {}", r.method, r.path)).collect();
    assert_eq!(paths.iter().filter(|p| *p == "POST /v2/bot/richmenu/validate").count(), 6);
    assert_eq!(paths.iter().filter(|p| p.ends_with("/content")).count(), 6);
    let english = menu(&h, "hearth-everyday-en");
    let labels: Vec<&str> = english["areas"]
        .as_array()
        .expect("areas")
        .iter()
        .filter_map(|a| a["action"]["label"].as_str())
        .collect();
    assert_eq!(
        labels,
        ["Weather today", "My reminders", "Shopping list", "Stocks", "Family page", "Help"]
    );
    assert_eq!(
        english["areas"][0]["action"],
        json!({"type": "message", "label": "Weather today", "text": "Weather today"}),
        "what typing it in English would do"
    );
    assert!(postback_data(&english, "open_page").is_some(), "🏠 as on the zh-TW menu");
    let found =
        hearth::cli::doctor::menus::check(&h.config, &line_client(&h)).await.expect("check");
    assert_eq!(found.status, Status::Pass, "{found:?}");

    let removed = richmenu::remove(&h.config, &h.app.store).await.expect("remove");
    assert!(removed.contains("deleted"), "{removed}");
    assert!(hearths_menus(&h).is_empty());
    assert_eq!(h.line.rich_menu_aliases(), vec![("spring-sale".to_string(), foreign.clone())]);
    assert!(h.line.rich_menus().iter().any(|m| m["richMenuId"] == foreign.as_str()));
    let found =
        hearth::cli::doctor::menus::check(&h.config, &line_client(&h)).await.expect("check");
    assert!(found.message.contains("not installed"), "{found:?}");
}

fn line_client(h: &Harness) -> hearth::line::client::LineClient {
    hearth::line::client::LineClient::new(&h.line.url(), "test-access-token".into(), 1)
        .expect("client")
}

#[tokio::test]
async fn doctor_says_menus_of_another_key_are_out_of_date() {
    let h = harness().await;
    install(&h).await;
    let mut other = h.config.clone();
    other.line.postback_key = "another key".into();
    let found = hearth::cli::doctor::menus::check(&other, &line_client(&h)).await.expect("check");
    assert_eq!(found.status, Status::Warn);
    assert!(found.message.contains("out of date"), "{found:?}");
}

/// `user` says hello in their 1:1 chat, where hearth first learns their profile.
async fn says_hello(h: &Harness, user: &str) {
    h.llm.reply_text("Hello!");
    h.send(vec![h.dm(user, "Hello")]).await;
}

/// 小美 stops 阿嬤's plan: 🛑 on the stop card in the group.
async fn stop_plan(h: &Harness) {
    h.call_tool(
        in_group(FAMILY, MOM),
        "小幫手 阿嬤的照顧計畫停掉",
        "care",
        json!({"action": "stop"}),
    )
    .await;
    let body = h.line.replies().last().expect("card").body.clone();
    let stop = postback_data(&body, "care_stop").expect("🛑");
    h.send(vec![h.postback(in_group(FAMILY, MOM), &stop)]).await;
}

#[tokio::test]
async fn a_care_plan_started_links_the_care_menu_to_her_and_stopped_unlinks_it() {
    let h = harness().await;
    install(&h).await;
    let care = h.line.rich_menu_alias("hearth-care").expect("care menu");
    plan(&h, json!({})).await;
    // At once: the tap on ✅ 開始 linked it, no care round ran.
    assert_eq!(h.line.linked_rich_menu(GRANDMA), Some(care.clone()));
    for caregiver in [MOM, DAD] {
        assert_eq!(h.line.linked_rich_menu(caregiver), None, "the everyday menu stays theirs");
    }
    assert_eq!(h.app.loops.care_menus.sync().await.expect("links"), Default::default(), "once");
    // A new install moves her to the new care menu.
    install(&h).await;
    let new = h.line.rich_menu_alias("hearth-care").expect("care menu");
    assert_ne!(new, care);
    assert_eq!(h.line.linked_rich_menu(GRANDMA), Some(new));
    // Stopped: 🛑 on the stop card takes it away at once.
    stop_plan(&h).await;
    assert_eq!(h.line.linked_rich_menu(GRANDMA), None);
    assert_eq!(h.app.loops.care_menus.sync().await.expect("links"), Default::default(), "done");
}

#[tokio::test]
async fn pausing_and_resuming_a_plan_by_the_tool_keeps_her_menu_and_stopping_takes_it_at_once() {
    let h = harness().await;
    install(&h).await;
    let care = h.line.rich_menu_alias("hearth-care").expect("care menu");
    plan(&h, json!({})).await;
    let group = in_group(FAMILY, MOM);
    for action in ["pause", "resume"] {
        h.call_tool(group.clone(), "小幫手 阿嬤的照顧計畫", "care", json!({"action": action}))
            .await;
        assert_eq!(h.line.linked_rich_menu(GRANDMA), Some(care.clone()), "{action}");
    }
    // Stopped by the tool's 🛑: taken away at once.
    stop_plan(&h).await;
    assert_eq!(h.line.linked_rich_menu(GRANDMA), None);
}

#[tokio::test]
async fn an_english_speaker_gets_the_english_menu_and_the_care_menu_comes_first() {
    let h = harness().await;
    install(&h).await;
    let english = h.line.rich_menu_alias("hearth-everyday-en").expect("English menu");
    let care = h.line.rich_menu_alias("hearth-care").expect("care menu");
    h.line.set_profile(GRANDMA, "Grandma");
    h.line.set_profile_language(GRANDMA, "en");
    says_hello(&h, GRANDMA).await;
    assert_eq!(h.line.linked_rich_menu(GRANDMA), Some(english.clone()), "at her first message");
    // A plan asks her: the care menu, at once; stopped: the English menu again, not the default.
    plan(&h, json!({})).await;
    assert_eq!(h.line.linked_rich_menu(GRANDMA), Some(care));
    stop_plan(&h).await;
    assert_eq!(h.line.linked_rich_menu(GRANDMA), Some(english.clone()));
    // A new install moves her to the new English menu; remove takes it away.
    install(&h).await;
    let new = h.line.rich_menu_alias("hearth-everyday-en").expect("English menu");
    assert_ne!(new, english);
    assert_eq!(h.line.linked_rich_menu(GRANDMA), Some(new));
}

#[tokio::test]
async fn an_english_speaker_s_first_message_links_the_english_menu_and_others_keep_the_default() {
    let h = harness().await;
    install(&h).await;
    let english = h.line.rich_menu_alias("hearth-everyday-en").expect("English menu");
    h.line.set_profile(DAD, "Dad");
    h.line.set_profile_language(DAD, "en-GB");
    h.line.set_profile(MOM, "媽媽");
    for (who, said) in [(DAD, "What's the weather today?"), (MOM, "今天天氣")] {
        h.llm.reply_text("☀️");
        h.send(vec![h.dm(who, said)]).await;
    }
    assert_eq!(h.line.linked_rich_menu(DAD), Some(english));
    assert_eq!(h.line.linked_rich_menu(MOM), None, "the default (zh-TW) menu");
    // In a group, whose member profiles carry no language, nothing is linked.
    h.line.set_profile(GRANDMA, "Grandma");
    h.line.set_profile_language(GRANDMA, "en");
    h.llm.reply_text("☀️");
    h.send(vec![h.group_text(FAMILY, GRANDMA, "小幫手 weather")]).await;
    assert_eq!(h.line.linked_rich_menu(GRANDMA), None);
}

#[tokio::test]
async fn without_an_installed_english_menu_nobody_is_linked_until_install() {
    let h = harness().await;
    h.line.set_profile(DAD, "Dad");
    h.line.set_profile_language(DAD, "en");
    says_hello(&h, DAD).await;
    assert_eq!(h.line.linked_rich_menu(DAD), None);
    let said = install(&h).await;
    assert!(said.contains("hearth-everyday-en is linked to 1 person"), "{said}");
    let english = h.line.rich_menu_alias("hearth-everyday-en").expect("English menu");
    assert_eq!(h.line.linked_rich_menu(DAD), Some(english));
}

#[tokio::test]
async fn i_took_it_confirms_her_open_dose_once_and_from_no_one_else_s_chat() {
    let h = harness().await;
    install(&h).await;
    let set = plan(&h, json!({})).await;
    let id = set["id"].as_i64().expect("id");
    at(&h, EIGHT).await;
    h.set_clock("2026-12-01T00:10:00Z");
    // Her son taps it in his own chat, and someone in the group: nothing moves.
    tap_menu(&h, in_dm(DAD), "care_menu_taken").await;
    assert!(last_reply(&h).contains("沒有等你確認的藥"), "{}", last_reply(&h));
    let data = postback_data(&menu(&h, "hearth-care"), "care_menu_taken").expect("✅");
    h.send(vec![h.postback(in_group(FAMILY, GRANDMA), &data)]).await;
    assert!(last_reply(&h).contains("不屬於這個聊天室"), "{}", last_reply(&h));
    assert_eq!(dose_state(&h, id, EIGHT).await, "asked");
    // She taps it in hers.
    tap_menu(&h, in_dm(GRANDMA), "care_menu_taken").await;
    assert!(last_reply(&h).contains("記下了：08:00 的血壓藥吃了"), "{}", last_reply(&h));
    assert_eq!(dose_state(&h, id, EIGHT).await, "taken");
    tap_menu(&h, in_dm(GRANDMA), "care_menu_taken").await;
    assert!(last_reply(&h).contains("沒有等你確認的藥"), "{}", last_reply(&h));
    assert_eq!(at(&h, "2026-12-01T01:30:00Z").await, Default::default(), "nobody is told");
    for chat in [MOM, DAD, FAMILY] {
        assert!(pushes_to(&h, chat).is_empty(), "{chat} was told");
    }
}

#[tokio::test]
async fn call_the_family_tells_her_caregivers_at_most_once_every_ten_minutes() {
    let h = harness().await;
    install(&h).await;
    plan(&h, json!({})).await;
    h.set_clock("2026-12-01T02:00:00Z");
    tap_menu(&h, in_dm(GRANDMA), "care_menu_call").await;
    assert!(last_reply(&h).contains("已經通知 小美、哥哥"), "{}", last_reply(&h));
    h.app.loops.outbox.flush_due().await.expect("outbox");
    for caregiver in [MOM, DAD] {
        let told = pushes_to(&h, caregiver);
        assert_eq!(told.len(), 1, "{caregiver}");
        assert!(told[0].to_string().contains("阿嬤 按了「叫家人」"), "{}", told[0]);
    }
    h.set_clock("2026-12-01T02:09:00Z");
    tap_menu(&h, in_dm(GRANDMA), "care_menu_call").await;
    assert!(last_reply(&h).contains("剛剛已經通知家人了"), "{}", last_reply(&h));
    h.app.loops.outbox.flush_due().await.expect("outbox");
    assert_eq!(pushes_to(&h, MOM).len(), 1, "not told again within 10 minutes");
    h.set_clock("2026-12-01T02:11:00Z");
    tap_menu(&h, in_dm(GRANDMA), "care_menu_call").await;
    h.app.loops.outbox.flush_due().await.expect("outbox");
    assert_eq!((pushes_to(&h, MOM).len(), pushes_to(&h, DAD).len()), (2, 2));
    // Someone no plan asks: nobody is told.
    tap_menu(&h, in_dm(MOM), "care_menu_call").await;
    assert!(last_reply(&h).contains("沒有通知任何人"), "{}", last_reply(&h));
}

#[tokio::test]
async fn measure_blood_pressure_asks_for_the_reading() {
    let h = harness().await;
    install(&h).await;
    plan(&h, json!({})).await;
    tap_menu(&h, in_dm(GRANDMA), "care_menu_reading").await;
    assert!(last_reply(&h).contains("血壓 135/85"), "{}", last_reply(&h));
}
