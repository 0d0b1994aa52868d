//! Care plans end to end, with the fake LINE API and the manual clock: 小美 sets 阿嬤's plan in
//! the family group (血壓藥 at 08:00 and 20:00; tell 小美 and 哥哥) and taps ✅ 開始. 阿嬤 is asked
//! in her own 1:1 chat with two big buttons; a dose confirmed on time tells nobody, ⏰ 等一下 asks
//! again 20 minutes later, a dose never confirmed tells each caregiver once in their 1:1 chat
//! and then the group once, 我來打電話 stops the rest and tells the others who is on it. A dose
//! due while hearth was down is asked when it comes back; two replicas ask and escalate once;
//! quiet hours hold nothing; near the end of the month's quota a digest waits and the care
//! message goes. Readings typed or read from a photo (after a confirm tap) are kept, those
//! outside the limits told at once; the weekly report carries a chart; a tap from another chat
//! changes nothing; stopping a plan deletes its records only after a tap; a real `hearth serve`
//! logging at debug level writes no reading and no medicine. Runs on SQLite, and on PostgreSQL
//! with `HEARTH_TEST_BACKEND=postgres` (the replicas always on PostgreSQL).

use hearth::features::care::ops::watcher::CareRound;
use serde_json::{Value, json};

use crate::common::fake_media::{FakeMedia, jpeg};
use crate::common::harness::{
    DAD, FAMILY, Harness, MOM, OTHER_GROUP, in_dm, in_group, messages_of, postback_data, temp_db,
    texts_of,
};

pub(crate) const GRANDMA: &str = "Ua1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";

/// 08:00 on Tuesday 1 December 2026 in Taipei.
pub(crate) const EIGHT: &str = "2026-12-01T00:00:00Z";

/// The family: 小美 (MOM), 哥哥 (DAD) and 阿嬤, each a friend of hearth and known in the group.
pub(crate) async fn family(h: &Harness) {
    let now = h.now_ms();
    for (id, name) in [(MOM, "小美"), (DAD, "哥哥"), (GRANDMA, "阿嬤")] {
        h.line.set_profile(id, name);
        h.app.store.chat_log().save_member(FAMILY, id, name, now).await.expect("member");
    }
}

/// 小美 sets 阿嬤's plan in the group (`extra` arguments over the usual ones) and taps ✅ 開始
/// on its card; the tool's result.
pub(crate) async fn plan(h: &Harness, extra: Value) -> Value {
    family(h).await;
    let mut args = json!({"action": "set", "person": "阿嬤", "what": "血壓藥",
        "times": ["08:00", "20:00"], "notify": ["我", "哥哥"]});
    if let (Some(all), Some(more)) = (args.as_object_mut(), extra.as_object()) {
        all.extend(more.clone());
    }
    let set = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手 阿嬤每天早上八點跟晚上八點要吃血壓藥，沒確認的話通知我跟哥哥",
            "care",
            args,
        )
        .await;
    assert_eq!(set["status"], "draft", "{set}");
    let body = h.line.replies().last().expect("the plan's card").body.clone();
    let start = postback_data(&body, "care_start").expect("✅ 開始 on the card");
    h.send(vec![h.postback(in_group(FAMILY, MOM), &start)]).await;
    assert!(last_reply(h).contains("開始"), "{}", last_reply(h));
    set
}

/// The text of the last reply.
pub(crate) fn last_reply(h: &Harness) -> String {
    let body = h.line.replies().last().map(|r| r.body.clone()).unwrap_or_default();
    format!("{}{}", texts_of(&body), body)
}

/// Sets the clock to `instant` and runs a round of the care loop.
pub(crate) async fn at(h: &Harness, instant: &str) -> CareRound {
    h.set_clock(instant);
    h.app.loops.care.tick().await.expect("care round")
}

/// The accepted pushes to `to`.
pub(crate) fn pushes_to(h: &Harness, to: &str) -> Vec<Value> {
    h.line.accepted_pushes().into_iter().filter(|p| p.body["to"] == to).map(|p| p.body).collect()
}

/// The last accepted push to `to`.
pub(crate) fn last_push(h: &Harness, to: &str) -> Value {
    pushes_to(h, to).pop().unwrap_or_else(|| panic!("nothing was pushed to {to}"))
}

/// `who` taps the button `action` of the last push to `chat`, from `chat`.
async fn tap(h: &Harness, chat: &str, source: Value, action: &str) {
    let data = postback_data(&last_push(h, chat), action)
        .unwrap_or_else(|| panic!("no {action} button in {}", last_push(h, chat)));
    h.send(vec![h.postback(source, &data)]).await;
}

/// The stored state of the plan's only dose due at `due` (RFC 3339).
pub(crate) async fn dose_state(h: &Harness, plan: i64, due: &str) -> String {
    let due = due.parse::<jiff::Timestamp>().expect("instant").as_millisecond();
    let doses = h.app.store.care().doses_between(plan, due, due + 1).await.expect("doses");
    doses.first().map(|d| d.state.clone()).unwrap_or_else(|| "none".into())
}

#[tokio::test]
async fn a_plan_set_by_talking_shows_its_card_and_asks_nothing_until_started() {
    let h = Harness::start().await;
    family(&h).await;
    let set = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手 阿嬤每天早上八點跟晚上八點要吃血壓藥，沒確認的話通知我跟哥哥",
            "care",
            json!({"action": "set", "person": "阿嬤", "what": "血壓藥", "times": ["20:00", "08:00"],
                "notify": ["我", "哥哥"], "limits": {"systolic": [90, 160]}}),
        )
        .await;
    assert_eq!(set["times"], json!(["08:00", "20:00"]), "{set}");
    assert_eq!(set["confirmed_by"], "阿嬤");
    assert_eq!(set["caregivers"], json!(["小美", "哥哥"]));
    assert_eq!(
        (set["after_minutes"].as_i64(), set["group_after_minutes"].as_i64()),
        (Some(30), Some(30))
    );
    // Asked in her 1:1 chat: one message a dose, 60 a month.
    assert_eq!(set["messages_a_month"], 60, "{set}");
    let card = h.line.replies().last().expect("card").body.to_string();
    for words in [
        "照顧計畫：阿嬤",
        "08:00、20:00 每天",
        "30 分鐘沒確認通知 小美、哥哥",
        "收縮壓 ≤ 90 或 ≥ 160",
        "約 60 則",
    ] {
        assert!(card.contains(words), "{words} not on {card}");
    }
    assert!(at(&h, EIGHT).await == CareRound::default(), "a draft asks nothing");
    assert!(pushes_to(&h, GRANDMA).is_empty());
    let unknown = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手 阿公也要",
            "care",
            json!({"action": "set", "person": "阿公", "what": "藥", "times": ["08:00"], "notify": ["姑姑"]}),
        )
        .await;
    assert!(unknown["error"]["message"].as_str().unwrap_or("").contains("姑姑"), "{unknown}");
    let nonsense = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手",
            "care",
            json!({"action": "set", "person": "阿公", "what": "藥", "times": ["早上"]}),
        )
        .await;
    assert!(nonsense.get("error").is_some(), "{nonsense}");
}

#[tokio::test]
async fn a_dose_confirmed_on_time_tells_nobody() {
    let h = Harness::start().await;
    plan(&h, json!({})).await;
    let round = at(&h, EIGHT).await;
    assert_eq!((round.recorded, round.prompts), (1, 1), "{round:?}");
    let prompt = last_push(&h, GRANDMA);
    let text = prompt.to_string();
    assert!(text.contains("08:00 的血壓藥吃了嗎？"), "{text}");
    assert!(
        text.contains("\"3xl\"") && text.contains("\"primary\""),
        "large text, big buttons: {text}"
    );
    assert!(postback_data(&prompt, "care_later").is_some());
    h.set_clock("2026-12-01T00:10:00Z");
    tap(&h, GRANDMA, in_dm(GRANDMA), "care_taken").await;
    assert!(last_reply(&h).contains("記下了"), "{}", last_reply(&h));
    assert_eq!(at(&h, "2026-12-01T00:30:00Z").await, CareRound::default());
    assert_eq!(at(&h, "2026-12-01T01:30:00Z").await, CareRound::default());
    for chat in [MOM, DAD, FAMILY] {
        assert!(pushes_to(&h, chat).is_empty(), "{chat} was told");
    }
}

#[tokio::test]
async fn later_asks_again_twenty_minutes_on_and_a_late_confirmation_tells_nobody() {
    let h = Harness::start().await;
    let set = plan(&h, json!({})).await;
    at(&h, EIGHT).await;
    h.set_clock("2026-12-01T00:05:00Z");
    tap(&h, GRANDMA, in_dm(GRANDMA), "care_later").await;
    assert!(last_reply(&h).contains("20 分鐘後"), "{}", last_reply(&h));
    assert_eq!(at(&h, "2026-12-01T00:24:00Z").await, CareRound::default(), "not yet");
    assert_eq!(at(&h, "2026-12-01T00:25:00Z").await.prompts, 1, "asked again");
    assert_eq!(pushes_to(&h, GRANDMA).len(), 2);
    // 08:30 was the first escalation; after ⏰ it waits for 30 minutes after the new prompt.
    assert_eq!(at(&h, "2026-12-01T00:31:00Z").await.caregivers, 0);
    h.set_clock("2026-12-01T00:40:00Z");
    tap(&h, GRANDMA, in_dm(GRANDMA), "care_taken").await;
    assert_eq!(dose_state(&h, set["id"].as_i64().expect("id"), EIGHT).await, "taken");
    assert_eq!(at(&h, "2026-12-01T01:30:00Z").await, CareRound::default());
    assert!(pushes_to(&h, MOM).is_empty() && pushes_to(&h, DAD).is_empty());
}

#[tokio::test]
async fn a_dose_never_confirmed_tells_each_caregiver_once_then_the_group_once() {
    let h = Harness::start().await;
    plan(&h, json!({})).await;
    assert_eq!(at(&h, EIGHT).await.prompts, 1);
    assert_eq!(at(&h, "2026-12-01T00:29:00Z").await, CareRound::default());
    assert_eq!(at(&h, "2026-12-01T00:30:00Z").await.caregivers, 2);
    assert_eq!(at(&h, "2026-12-01T00:45:00Z").await, CareRound::default());
    assert_eq!(at(&h, "2026-12-01T01:00:00Z").await.groups, 1);
    assert_eq!(at(&h, "2026-12-01T03:00:00Z").await, CareRound::default());
    for (chat, n) in [(GRANDMA, 1), (MOM, 1), (DAD, 1), (FAMILY, 1)] {
        assert_eq!(pushes_to(&h, chat).len(), n, "pushes to {chat}");
    }
    for chat in [MOM, DAD, FAMILY] {
        let push = last_push(&h, chat);
        assert!(push.to_string().contains("阿嬤 08:00 的血壓藥還沒確認"), "{push}");
        assert!(
            postback_data(&push, "care_on_it").is_some()
                && postback_data(&push, "care_taken").is_some()
        );
    }
}

#[tokio::test]
async fn i_will_call_stops_the_rest_and_tells_the_others_who_is_on_it() {
    let h = Harness::start().await;
    let set = plan(&h, json!({})).await;
    at(&h, EIGHT).await;
    at(&h, "2026-12-01T00:30:00Z").await;
    h.set_clock("2026-12-01T00:35:00Z");
    tap(&h, DAD, in_dm(DAD), "care_on_it").await;
    assert!(last_reply(&h).contains("交給你了"), "{}", last_reply(&h));
    h.app.loops.outbox.flush_due().await.expect("outbox");
    let told = last_push(&h, MOM).to_string();
    assert!(told.contains("哥哥 會打電話給阿嬤"), "{told}");
    assert_eq!(at(&h, "2026-12-01T01:00:00Z").await.groups, 0, "the group is not told");
    assert!(pushes_to(&h, FAMILY).is_empty());
    // 小美's own 我來打電話 after him changes nothing.
    let hers = postback_data(&pushes_to(&h, MOM)[0], "care_on_it").expect("her 我來打電話");
    h.send(vec![h.postback(in_dm(MOM), &hers)]).await;
    assert!(last_reply(&h).contains("哥哥 已經在處理了"), "{}", last_reply(&h));
    // He calls; she had taken it: 她吃了.
    tap(&h, DAD, in_dm(DAD), "care_taken").await;
    assert_eq!(dose_state(&h, set["id"].as_i64().expect("id"), EIGHT).await, "taken");
    h.app.loops.outbox.flush_due().await.expect("outbox");
    assert!(last_push(&h, MOM).to_string().contains("哥哥 確認阿嬤 08:00 的血壓藥吃了"));
    assert_eq!(pushes_to(&h, MOM).len(), 3, "the escalation, who is on it, taken");
}

#[tokio::test]
async fn a_tap_from_another_chat_changes_nothing() {
    let h = Harness::start().await;
    let set = plan(&h, json!({})).await;
    at(&h, EIGHT).await;
    let data = postback_data(&last_push(&h, GRANDMA), "care_taken").expect("✅");
    for source in [in_group(OTHER_GROUP, MOM), in_dm(DAD), in_group(FAMILY, MOM)] {
        h.send(vec![h.postback(source, &data)]).await;
        assert!(last_reply(&h).contains("不屬於這個聊天室"), "{}", last_reply(&h));
    }
    assert_eq!(dose_state(&h, set["id"].as_i64().expect("id"), EIGHT).await, "asked");
    // A stranger's 1:1 chat sees no plan either.
    let other = h
        .call_tool(
            in_dm("Ub2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2"),
            "小幫手",
            "care",
            json!({"action": "show"}),
        )
        .await;
    assert_eq!(other["plans"], json!([]), "{other}");
    let caregiver =
        h.call_tool(in_dm(DAD), "小幫手 阿嬤今天吃藥了嗎", "care", json!({"action": "show"})).await;
    assert_eq!(caregiver["plans"][0]["today"], json!([["08:00", "asked"]]), "{caregiver}");
}

#[tokio::test]
async fn a_caregiver_who_left_the_group_no_longer_sees_the_plan_nor_acts_on_it_from_her_own_chat() {
    let h = Harness::start().await;
    let set = plan(&h, json!({})).await;
    let id = set["id"].as_i64().expect("id");
    at(&h, EIGHT).await;
    assert_eq!(at(&h, "2026-12-01T00:30:00Z").await.caregivers, 2);
    let show = json!({"action": "show"});
    let his = h.call_tool(in_dm(DAD), "小幫手 阿嬤今天吃藥了嗎", "care", show.clone()).await;
    assert_eq!(his["plans"].as_array().map(Vec::len), Some(1), "before: {his}");

    let mut left = h.bare("memberLeft", json!({"type": "group", "groupId": FAMILY}));
    left["left"] = json!({"members": [{"type": "user", "userId": DAD}]});
    h.send(vec![left]).await;

    let his = h.call_tool(in_dm(DAD), "小幫手 阿嬤今天吃藥了嗎", "care", show.clone()).await;
    assert_eq!(his["plans"], json!([]), "her plan and doses are no longer shown to him: {his}");
    let reading =
        json!({"action": "reading", "reading": {"systolic": 135, "diastolic": 85, "pulse": 72}});
    let typed = h.call_tool(in_dm(DAD), "小幫手 阿嬤血壓 135/85", "care", reading).await;
    assert!(typed.get("error").is_some(), "nor kept from him: {typed}");
    let kept = h.app.store.care().readings_between(id, 0, i64::MAX).await.expect("readings");
    assert!(kept.is_empty(), "{kept:?}");
    let state = dose_state(&h, id, EIGHT).await;
    tap(&h, DAD, in_dm(DAD), "care_on_it").await;
    assert!(last_reply(&h).contains("不在了"), "for him it is gone: {}", last_reply(&h));
    assert_eq!(dose_state(&h, id, EIGHT).await, state, "his 我來打電話 changes nothing");

    let group = h.call_tool(in_group(FAMILY, MOM), "小幫手 阿嬤的照顧計畫", "care", show).await;
    assert_eq!(group["plans"].as_array().map(Vec::len), Some(1), "the group keeps it: {group}");
}

#[tokio::test]
async fn a_dose_due_while_hearth_was_down_is_asked_after_the_restart_and_escalated() {
    let db = temp_db("care-restart");
    let h = Harness::start_with(|c| c.store.database_url = db.clone(), None).await;
    plan(&h, json!({})).await;
    // Down from 07:50 to 08:40; the process that comes back asks at once.
    h.set_clock("2026-12-01T00:40:00Z");
    let restarted = h.second_process(&db).await;
    let round = restarted.loops.care.tick().await.expect("round");
    assert_eq!((round.recorded, round.prompts), (1, 1), "{round:?}");
    assert!(last_push(&h, GRANDMA).to_string().contains("08:00 的血壓藥吃了嗎"));
    h.set_clock("2026-12-01T01:10:00Z");
    assert_eq!(restarted.loops.care.tick().await.expect("round").caregivers, 2);
}

#[tokio::test]
async fn doses_too_old_to_ask_after_a_long_outage_go_to_the_caregivers_not_dropped() {
    let h = Harness::start().await;
    plan(&h, json!({})).await;
    // Down from Monday evening until Wednesday 10:00: Tuesday's two doses are too old to ask,
    // Wednesday 08:00 is asked.
    let round = at(&h, "2026-12-02T02:00:00Z").await;
    assert_eq!((round.recorded, round.prompts, round.caregivers), (3, 1, 4), "{round:?}");
    let told: String = pushes_to(&h, MOM).iter().map(Value::to_string).collect();
    for when in ["阿嬤 12/01 08:00 的血壓藥還沒確認", "阿嬤 12/01 20:00 的血壓藥還沒確認"]
    {
        assert!(told.contains(when), "{when}: {told}");
    }
    assert!(postback_data(&last_push(&h, MOM), "care_taken").is_some(), "with 她吃了");
    assert_eq!(pushes_to(&h, DAD).len(), 2);
    assert_eq!(pushes_to(&h, GRANDMA).len(), 1, "asked only about today's");
    assert!(last_push(&h, GRANDMA).to_string().contains("08:00 的血壓藥吃了嗎"));
    assert_eq!(at(&h, "2026-12-02T02:01:00Z").await.caregivers, 0, "told once");
    // Half an hour later, the group hears of the two old ones.
    assert_eq!(at(&h, "2026-12-02T02:30:00Z").await.groups, 2);
}

#[tokio::test]
#[ignore = "needs PostgreSQL: set TEST_DATABASE_URL and pass --include-ignored"]
async fn two_replicas_ask_once_and_escalate_once() {
    let db = crate::common::db::fresh_postgres().await.expect(crate::common::db::NEEDS_POSTGRES);
    let h = Harness::start_with(|c| c.store.database_url = db.clone(), None).await;
    plan(&h, json!({})).await;
    let other = h.second_process(&db).await;
    for instant in [EIGHT, "2026-12-01T00:30:00Z", "2026-12-01T01:00:00Z"] {
        h.set_clock(instant);
        let (a, b) = tokio::join!(h.app.loops.care.tick(), other.loops.care.tick());
        a.expect("round a");
        b.expect("round b");
    }
    for (chat, n) in [(GRANDMA, 1), (MOM, 1), (DAD, 1), (FAMILY, 1)] {
        assert_eq!(pushes_to(&h, chat).len(), n, "pushes to {chat}");
    }
}

#[tokio::test]
async fn quiet_hours_hold_no_care_prompt_nor_escalation() {
    let h = Harness::start().await;
    plan(&h, json!({})).await;
    for source in [in_group(FAMILY, MOM), in_dm(MOM), in_dm(DAD), in_dm(GRANDMA)] {
        let quiet = h
            .call_tool(
                source,
                "小幫手 早上七點到十點不要吵",
                "quiet_hours",
                json!({"start": "07:00", "end": "10:00"}),
            )
            .await;
        assert!(quiet.get("error").is_none(), "{quiet}");
    }
    assert_eq!(at(&h, EIGHT).await.prompts, 1);
    assert_eq!(at(&h, "2026-12-01T00:30:00Z").await.caregivers, 2);
    assert_eq!(at(&h, "2026-12-01T01:00:00Z").await.groups, 1);
    for chat in [GRANDMA, MOM, DAD, FAMILY] {
        assert_eq!(pushes_to(&h, chat).len(), 1, "{chat} was held");
    }
}

#[tokio::test]
async fn near_the_end_of_the_quota_the_digest_waits_and_the_care_escalation_goes() {
    let h = Harness::start().await;
    plan(&h, json!({})).await;
    h.line.set_chat_size(FAMILY, 5);
    let digest = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手 每天早上八點半摘要",
            "digest",
            json!({"time": "08:30", "place": "台北"}),
        )
        .await;
    assert!(digest.get("error").is_none(), "{digest}");
    // December: 200 a month, 185 used: 15 left, less than the care plan still needs this month.
    h.set_clock(EIGHT);
    h.line.set_quota(Some(200));
    h.line.set_quota_used(185);
    h.app.quota.refresh().await;
    assert!(h.app.quota.kept_back().await > 15);
    at(&h, EIGHT).await;
    h.set_clock("2026-12-01T00:30:00Z");
    h.app.loops.digests.tick().await.expect("digest round");
    assert!(pushes_to(&h, FAMILY).is_empty(), "the digest waits for the chat's next reply");
    assert_eq!(at(&h, "2026-12-01T00:30:00Z").await.caregivers, 2);
    assert_eq!(pushes_to(&h, MOM).len() + pushes_to(&h, DAD).len(), 2, "the care messages went");
}

#[tokio::test]
async fn a_typed_reading_is_kept_and_one_outside_the_limits_tells_the_other_caregivers_at_once() {
    let h = Harness::start().await;
    let set = plan(&h, json!({"limits": {"systolic": [90, 160]}})).await;
    let reading = |systolic: u32, diastolic: u32| json!({"action": "reading", "reading": {"systolic": systolic, "diastolic": diastolic, "pulse": 72}});
    let fine = h
        .call_tool(
            in_group(FAMILY, DAD),
            "小幫手 阿嬤血壓 135/85 心跳 72",
            "care",
            reading(135, 85),
        )
        .await;
    assert_eq!(
        (fine["kept"].as_bool(), fine["outside"].clone()),
        (Some(true), json!([])),
        "{fine}"
    );
    assert_eq!(at(&h, "2026-11-30T12:05:00Z").await.readings, 0);
    let high = h
        .call_tool(
            in_group(FAMILY, DAD),
            "小幫手 阿嬤血壓 172/95 心跳 72",
            "care",
            reading(172, 95),
        )
        .await;
    assert_eq!(high["outside"], json!(["收縮壓 172 ≥ 160"]), "{high}");
    assert_eq!(at(&h, "2026-11-30T12:06:00Z").await.readings, 1, "小美 only: 哥哥 reported it");
    let told = last_push(&h, MOM).to_string();
    assert!(told.contains("阿嬤 血壓 172/95、心跳 72（收縮壓 172 ≥ 160） — 哥哥"), "{told}");
    assert!(pushes_to(&h, DAD).is_empty());
    assert_eq!(at(&h, "2026-11-30T12:07:00Z").await.readings, 0, "told once");
    let absurd = h
        .call_tool(in_group(FAMILY, DAD), "小幫手 阿嬤血壓 1350/85", "care", reading(1350, 85))
        .await;
    assert!(absurd.get("error").is_some(), "{absurd}");
    let kept = h
        .app
        .store
        .care()
        .readings_between(set["id"].as_i64().expect("id"), 0, i64::MAX)
        .await
        .expect("readings");
    assert_eq!(kept.len(), 2);
    assert_eq!(kept[1].reporter_name.as_deref(), Some("哥哥"));
}

#[tokio::test]
async fn a_photo_of_the_monitor_is_kept_only_after_a_confirm_tap() {
    let media = FakeMedia::start().await;
    media.put("7301", "image/jpeg", jpeg(600, 400));
    media.put("7302", "image/jpeg", jpeg(600, 400));
    let url = media.url();
    let h = Harness::start_with(move |c| c.line.line_data_api_base = url, None).await;
    let set = plan(&h, json!({"limits": {"systolic": [90, 160]}})).await;
    let plan_id = set["id"].as_i64().expect("id");
    let photo = |id: &str| json!({"id": id, "type": "image", "quoteToken": format!("q-{id}"), "contentProvider": {"type": "line"}});
    for (id, tapped) in [("7301", "confirm_call"), ("7302", "discard_call")] {
        h.send(vec![h.event(in_group(FAMILY, DAD), photo(id))]).await;
        h.llm.reply_tool_calls(&[(
            "care",
            json!({"action": "reading", "reading": {"systolic": 168, "diastolic": 92, "pulse": 80}}),
        )]);
        h.llm.reply_text("血壓計上是 168/92，按確認就幫你記下。");
        h.send(vec![h.group_text(FAMILY, DAD, "小幫手 這是阿嬤剛量的")]).await;
        let body = h.line.replies().last().expect("reply").body.clone();
        assert!(body.to_string().contains("168"), "the numbers are shown: {body}");
        assert!(
            h.app
                .store
                .care()
                .readings_between(plan_id, 0, i64::MAX)
                .await
                .expect("readings")
                .len()
                <= 1
        );
        let data = postback_data(&body, tapped).expect("the confirm card");
        h.send(vec![h.postback(in_group(FAMILY, DAD), &data)]).await;
    }
    let kept = h.app.store.care().readings_between(plan_id, 0, i64::MAX).await.expect("readings");
    assert_eq!(kept.len(), 1, "the confirmed photo only");
    assert_eq!(kept[0].systolic, Some(168));
    assert_eq!(at(&h, "2026-11-30T12:10:00Z").await.readings, 1);
}

#[tokio::test]
async fn the_weekly_report_goes_to_each_caregiver_on_sunday_evening_with_its_chart() {
    let h =
        Harness::start_with(|c| c.server.public_url = Some("https://hearth.example".into()), None)
            .await;
    plan(&h, json!({})).await;
    at(&h, EIGHT).await;
    tap(&h, GRANDMA, in_dm(GRANDMA), "care_taken").await;
    h.call_tool(
        in_group(FAMILY, MOM),
        "小幫手 阿嬤血壓 135/85",
        "care",
        json!({"action": "reading", "reading": {"systolic": 135, "diastolic": 85}}),
    )
    .await;
    // Nobody confirms anything else until Sunday 6 December, 20:00.
    let round = at(&h, "2026-12-06T12:00:00Z").await;
    assert_eq!(round.reports, 2, "{round:?}");
    let report = last_push(&h, MOM);
    let text = report.to_string();
    assert!(text.contains("阿嬤 這週的血壓藥") && text.contains("確認 1/"), "{text}");
    let flex = messages_of(&report).into_iter().find(|m| m["type"] == "flex").expect("a card");
    let hero = flex["contents"]["hero"]["url"].as_str().expect("the chart").to_string();
    assert!(hero.starts_with("https://hearth.example/charts/"), "{hero}");
    let path = hero.trim_start_matches("https://hearth.example");
    let png = crate::common::get(format!("{}{path}", h.url)).await.expect("chart");
    assert_eq!(png.headers()["content-type"], "image/png");
    // 哥哥: each dose nobody could be asked about while hearth was idle, then the report.
    let reports = pushes_to(&h, DAD).iter().filter(|p| p.to_string().contains("這週的")).count();
    assert_eq!(reports, 1, "one report push");
    assert!(last_push(&h, DAD).to_string().contains("阿嬤 這週的血壓藥"));
    assert_eq!(at(&h, "2026-12-06T12:30:00Z").await.reports, 0, "once a week");
    let asked =
        h.call_tool(in_dm(DAD), "小幫手 阿嬤這週狀況", "care", json!({"action": "report"})).await;
    assert_eq!(asked["taken"], 1, "{asked}");
}

/// A started plan with its 08:00 dose asked and a reading kept; the plan's id.
async fn a_plan_with_a_dose_and_a_reading() -> (Harness, i64) {
    let h = Harness::start().await;
    let set = plan(&h, json!({})).await;
    at(&h, EIGHT).await;
    let reading = json!({"action": "reading", "reading": {"systolic": 135, "diastolic": 85}});
    h.call_tool(in_group(FAMILY, MOM), "小幫手 阿嬤血壓 135/85", "care", reading).await;
    (h, set["id"].as_i64().expect("id"))
}

/// Nothing is kept of plan `id`: not the plan, its doses or its readings.
async fn assert_nothing_kept(h: &Harness, id: i64) {
    assert!(h.app.store.care().plan(id).await.expect("plan").is_none());
    assert!(h.app.store.care().doses_between(id, 0, i64::MAX).await.expect("doses").is_empty());
    assert!(
        h.app.store.care().readings_between(id, 0, i64::MAX).await.expect("readings").is_empty()
    );
}

#[tokio::test]
async fn stopping_a_plan_deletes_its_records_only_after_the_tap() {
    let (h, id) = a_plan_with_a_dose_and_a_reading().await;
    let stop = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手 阿嬤的照顧計畫停掉",
            "care",
            json!({"action": "stop"}),
        )
        .await;
    assert_eq!(stop["needs_tap"], true, "{stop}");
    assert!(h.app.store.care().plan(id).await.expect("plan").is_some(), "nothing deleted yet");
    let body = h.line.replies().last().expect("card").body.clone();
    let data = postback_data(&body, "care_stop").expect("🛑");
    h.send(vec![h.postback(in_group(OTHER_GROUP, MOM), &data)]).await;
    assert!(h.app.store.care().plan(id).await.expect("plan").is_some(), "not from another chat");
    h.send(vec![h.postback(in_group(FAMILY, MOM), &data)]).await;
    assert!(last_reply(&h).contains("刪除"), "{}", last_reply(&h));
    assert_nothing_kept(&h, id).await;
    assert_eq!(at(&h, "2026-12-01T01:00:00Z").await, CareRound::default());
}

#[tokio::test]
async fn forgetting_the_group_deletes_its_plans_doses_and_readings() {
    let (h, id) = a_plan_with_a_dose_and_a_reading().await;
    h.app.store.forget_conversation(FAMILY).await.expect("forget");
    assert_nothing_kept(&h, id).await;
}

/// A real `hearth serve` writing its log, at debug level: a reading outside the limits is
/// reported, kept and told to the caregiver, and neither its values nor the medicine appear in
/// a single log line.
#[tokio::test]
async fn a_reading_and_the_medicine_never_reach_the_log() {
    use crate::common::replica::{Replica, envelope, event, shared_database};
    use hearth::store::{CareStatus, NewCarePlan};
    let (line, llm) =
        (crate::common::FakeLine::start().await, crate::common::FakeLlm::start().await);
    let db = shared_database("care-log").await;
    let store = hearth::store::Store::connect(&db).await.expect("store");
    store.migrate().await.expect("migrate");
    let now = jiff::Timestamp::now();
    let new = NewCarePlan {
        conversation_id: MOM,
        person: "阿嬤",
        person_id: None,
        confirmer_id: None,
        confirmer_name: None,
        what: "降壓錠",
        times: "08:00,20:00",
        weekdays: 0,
        workdays: false,
        tz: "Asia/Taipei",
        lang: hearth::platform::i18n::Lang::ZhTw,
        caregivers: &json!([{"id": DAD, "name": "哥哥"}]).to_string(),
        after_mins: 30,
        again_mins: None,
        limits: r#"{"systolic": [90, 160]}"#,
        prompt_cost: 1,
        miss_cost: 1,
        created_by: Some(MOM),
        now_ms: now.as_millisecond(),
    };
    let plan = store.care().add_plan(&new).await.expect("plan").expect("kept");
    let (draft, active) = (CareStatus::Draft, CareStatus::Active);
    let later = now.as_millisecond() + 3_600_000;
    store
        .care()
        .set_status(plan.id, MOM, draft, active, Some(later), Some(later))
        .await
        .expect("on");
    line.set_profile(DAD, "哥哥");
    llm.reply_tool_calls(&[(
        "care",
        json!({"action": "reading", "reading": {"systolic": 187, "diastolic": 113, "pulse": 97}}),
    )]);
    llm.reply_text("記下了，已經通知哥哥。");
    let log_path = std::env::temp_dir().join(format!("hearth-care-log-{}.log", std::process::id()));
    let log = std::fs::File::create(&log_path).expect("log file");
    let env = [("RUST_LOG", "debug"), ("HEARTH_CARE_TICK_SECS", "1")];
    let mut hearth = Replica::spawn_logging(&db, &line, &llm, &env, log).await;
    assert_eq!(hearth.post(&envelope(vec![event(1, MOM, "阿嬤血壓 187/113 心跳 97")])).await, 200);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !line.accepted_pushes().iter().any(|p| p.body["to"] == DAD) {
        assert!(std::time::Instant::now() < deadline, "the caregiver was not told");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(last_push_of(&line, DAD).contains("187/113"), "the caregiver reads the values");
    hearth.kill();
    let text = std::fs::read_to_string(&log_path).expect("log");
    let _ = std::fs::remove_file(&log_path);
    assert!(text.lines().count() > 10, "the log was written: {text}");
    // The values as typed, as JSON arguments or as Rust's debug form; the medicine; the words.
    let secrets =
        ["187/113", "\"systolic\":187", "systolic: Some(187)", "降壓錠", "收縮壓", "血壓", "心跳"];
    for secret in secrets {
        let found: Vec<&str> = text.lines().filter(|l| l.contains(secret)).collect();
        assert!(found.is_empty(), "{secret:?} in the log: {found:#?}");
    }
}

fn last_push_of(line: &crate::common::FakeLine, to: &str) -> String {
    line.accepted_pushes()
        .iter()
        .rev()
        .find(|p| p.body["to"] == to)
        .map(|p| p.body.to_string())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_reading_after_a_restore_is_told_though_a_reading_told_before_it_had_the_same_id() {
    let db = temp_db("care-restore-keys");
    let h = Harness::start_with(|c| c.store.database_url = db.clone(), None).await;
    let set = plan(&h, json!({"limits": {"systolic": [90, 160]}})).await;
    let file = std::path::PathBuf::from(db.trim_start_matches("sqlite://"));
    let copy = file.with_file_name("before-the-readings.db");
    hearth::cli::backup::backup(&h.config, &copy).await.expect("backup");

    let reading = json!({"action": "reading", "reading": {"systolic": 172, "diastolic": 95}});
    h.call_tool(in_group(FAMILY, DAD), "小幫手 阿嬤血壓 172/95", "care", reading).await;
    assert_eq!(at(&h, "2026-11-30T12:06:00Z").await.readings, 1);
    assert!(last_push(&h, MOM).to_string().contains("172/95"));

    // The copy put back (as a restore on this machine or another would), and a new high
    // reading kept there: it gets the id the first one had.
    let mut config = h.config.clone();
    let restored = file.with_file_name("restored.db");
    config.store.database_url = format!("sqlite://{}", restored.display());
    hearth::cli::backup::restore(&config, &copy).await.expect("restore");
    let after = h.second_process(&config.store.database_url).await;
    let id = after
        .store
        .care()
        .add_reading(&hearth::store::NewReading {
            plan_id: set["id"].as_i64().expect("plan id"),
            conversation_id: FAMILY,
            taken_at: h.now_ms(),
            systolic: Some(181),
            diastolic: Some(99),
            pulse: None,
            glucose: None,
            reported_by: Some(DAD),
            reporter_name: Some("哥哥"),
            outside: Some("收縮壓 181 ≥ 160"),
        })
        .await
        .expect("reading");
    assert_eq!(id, 1, "the restored database gives the id again");
    h.set_clock("2026-11-30T12:07:00Z");
    assert_eq!(after.loops.care.tick().await.expect("round").readings, 1);
    let told = last_push(&h, MOM).to_string();
    assert!(told.contains("181/99"), "LINE delivered the new reading: {told}");
    assert_eq!(pushes_to(&h, MOM).len(), 2, "both readings reached 小美");
}

/// The feed of changes of `chat`, newest first: (who, surface, verb, what).
pub(crate) async fn feed(h: &Harness, chat: &str) -> Vec<(String, String, String, String)> {
    let rows = h.app.store.changes().recent(chat, 20).await.expect("changes");
    rows.into_iter()
        .map(|r| (r.member_name.unwrap_or_default(), r.surface, r.verb, r.what))
        .collect()
}

/// The changes of `chat` made to doses, newest first.
async fn doses_fed(h: &Harness, chat: &str) -> Vec<(String, String, String, String)> {
    feed(h, chat).await.into_iter().filter(|c| c.2.starts_with("care_dose")).collect()
}

#[tokio::test]
async fn a_dose_a_caregiver_says_in_words_was_taken_is_recorded_and_told_to_no_one_as_missed() {
    let h = Harness::start().await;
    let set = plan(&h, json!({})).await;
    let id = set["id"].as_i64().expect("id");
    assert_eq!(at(&h, EIGHT).await.prompts, 1, "阿嬤 is asked at 08:00");
    h.set_clock("2026-12-01T00:10:00Z");
    let said = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手 阿嬤早上的藥吃過了",
            "care",
            json!({"action": "taken", "person": "阿嬤", "times": ["08:00"]}),
        )
        .await;
    assert_eq!(said["status"], "taken", "{said}");
    assert_eq!((said["person"].as_str(), said["time"].as_str()), (Some("阿嬤"), Some("08:00")));
    assert_eq!(dose_state(&h, id, EIGHT).await, "taken");
    // Her button on the prompt now says so; the escalations never come.
    tap(&h, GRANDMA, in_dm(GRANDMA), "care_taken").await;
    assert!(last_reply(&h).contains("已經確認吃了（小美）"), "{}", last_reply(&h));
    assert_eq!(at(&h, "2026-12-01T00:30:00Z").await, CareRound::default());
    assert_eq!(at(&h, "2026-12-01T01:00:00Z").await, CareRound::default());
    h.app.loops.outbox.flush_due().await.expect("outbox");
    for chat in [MOM, DAD, FAMILY] {
        assert!(pushes_to(&h, chat).is_empty(), "{chat} was told");
    }
    let recorded = doses_fed(&h, FAMILY).await;
    assert_eq!(
        recorded,
        [("小美".into(), "chat".into(), "care_dose_taken".into(), "阿嬤 08:00 血壓藥".into())],
        "recorded once, with who and from where"
    );
    // Said again: already, by 小美; nothing more recorded.
    let again = h
        .call_tool(
            in_group(FAMILY, DAD),
            "小幫手 阿嬤早上的藥吃了",
            "care",
            json!({"action": "taken", "person": "阿嬤", "times": ["08:00"]}),
        )
        .await;
    assert_eq!(
        (again["status"].as_str(), again["by"].as_str()),
        (Some("already_taken"), Some("小美"))
    );
    assert_eq!(doses_fed(&h, FAMILY).await.len(), 1);
}

#[tokio::test]
async fn she_says_she_took_her_medicine_in_her_own_chat_and_it_counts_once() {
    let h = Harness::start().await;
    let set = plan(&h, json!({})).await;
    let id = set["id"].as_i64().expect("id");
    at(&h, EIGHT).await;
    h.set_clock("2026-12-01T00:20:00Z");
    let said = h.call_tool(in_dm(GRANDMA), "我吃藥了", "care", json!({"action": "taken"})).await;
    assert_eq!((said["status"].as_str(), said["what"].as_str()), (Some("taken"), Some("血壓藥")));
    assert_eq!(dose_state(&h, id, EIGHT).await, "taken");
    let again = h.call_tool(in_dm(GRANDMA), "我吃藥了", "care", json!({"action": "taken"})).await;
    assert_eq!(again["status"], "nothing_waiting", "{again}");
    assert_eq!(at(&h, "2026-12-01T01:30:00Z").await, CareRound::default());
    h.app.loops.outbox.flush_due().await.expect("outbox");
    for chat in [MOM, DAD, FAMILY] {
        assert!(pushes_to(&h, chat).is_empty(), "{chat} was told");
    }
    let recorded = doses_fed(&h, FAMILY).await;
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!((recorded[0].0.as_str(), recorded[0].1.as_str()), ("阿嬤", "chat"));
}

#[tokio::test]
async fn words_with_no_dose_waiting_record_nothing_and_the_dose_is_still_asked() {
    let h = Harness::start().await;
    let set = plan(&h, json!({})).await;
    let id = set["id"].as_i64().expect("id");
    h.set_clock("2026-11-30T23:50:00Z");
    let early = h.call_tool(in_dm(GRANDMA), "我吃藥了", "care", json!({"action": "taken"})).await;
    assert_eq!(early["status"], "nothing_waiting", "{early}");
    assert!(doses_fed(&h, FAMILY).await.is_empty());
    assert_eq!(at(&h, EIGHT).await.prompts, 1, "08:00 is still asked");
    assert_eq!(dose_state(&h, id, EIGHT).await, "asked");
}

#[tokio::test]
async fn a_dose_confirmed_in_words_after_the_caregivers_were_told_tells_them_who_confirmed() {
    let h = Harness::start().await;
    plan(&h, json!({})).await;
    at(&h, EIGHT).await;
    assert_eq!(at(&h, "2026-12-01T00:30:00Z").await.caregivers, 2, "the caregivers are told");
    h.app.loops.outbox.flush_due().await.expect("outbox");
    let told = pushes_to(&h, DAD).len();
    h.set_clock("2026-12-01T00:40:00Z");
    let said = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手 阿嬤的藥吃過了",
            "care",
            json!({"action": "taken", "person": "阿嬤"}),
        )
        .await;
    assert_eq!(said["status"], "taken", "{said}");
    h.app.loops.outbox.flush_due().await.expect("outbox");
    let to_dad = pushes_to(&h, DAD);
    assert_eq!(to_dad.len(), told + 1, "哥哥 is told once who confirmed");
    assert!(to_dad.last().expect("push").to_string().contains("小美"), "{:?}", to_dad.last());
}

#[tokio::test]
async fn the_caregivers_still_reached_are_told_once_that_one_left_the_group() {
    let h = Harness::start().await;
    plan(&h, json!({})).await;
    let before_mom = pushes_to(&h, MOM).len();
    let mut left = h.bare("memberLeft", json!({"type": "group", "groupId": FAMILY}));
    left["left"] = json!({"members": [{"type": "user", "userId": DAD}]});
    h.send(vec![left]).await;
    h.clock.advance(jiff::SignedDuration::from_secs(5));
    h.app.loops.outbox.flush_due().await.expect("outbox");
    let told: Vec<String> = pushes_to(&h, MOM)[before_mom..].iter().map(texts_of).collect();
    assert_eq!(told.len(), 1, "told once: {told:?}");
    assert!(told[0].contains("哥哥 離開了群組") && told[0].contains("阿嬤"), "{told:?}");
    assert!(pushes_to(&h, DAD).is_empty(), "nothing to the one who left");
    // A member who is no caregiver leaving tells nobody.
    let mut other = h.bare("memberLeft", json!({"type": "group", "groupId": FAMILY}));
    other["left"] =
        json!({"members": [{"type": "user", "userId": "Uffffffffffffffffffffffffffffffff"}]});
    h.send(vec![other]).await;
    h.clock.advance(jiff::SignedDuration::from_secs(5));
    h.app.loops.outbox.flush_due().await.expect("outbox");
    assert_eq!(pushes_to(&h, MOM).len(), before_mom + 1, "nothing more");
}

#[tokio::test]
async fn a_caregiver_who_left_the_group_is_told_nothing_of_her_plan_until_he_is_back() {
    let mut h = Harness::start().await;
    h.config.line.line_data_api_base = h.line.url();
    crate::richmenu::install(&h).await;
    plan(&h, json!({"limits": {"systolic": [90, 160]}})).await;
    let mut left = h.bare("memberLeft", json!({"type": "group", "groupId": FAMILY}));
    left["left"] = json!({"members": [{"type": "user", "userId": DAD}]});
    h.send(vec![left]).await;
    // 08:00 unconfirmed: at 08:30 the caregivers are told — 小美 only.
    at(&h, EIGHT).await;
    assert_eq!(at(&h, "2026-12-01T00:30:00Z").await.caregivers, 1, "哥哥 is not told");
    // 阿嬤 taps 📞 叫家人: 小美 is told, and she hears so.
    h.set_clock("2026-12-01T02:00:00Z");
    crate::richmenu::tap_menu(&h, in_dm(GRANDMA), "care_menu_call").await;
    let said = last_reply(&h);
    assert!(said.contains("已經通知 小美") && !said.contains("哥哥"), "{said}");
    // 小美 types a reading outside the limits: told to the caregivers reached.
    let high = json!({"action": "reading", "reading": {"systolic": 187, "diastolic": 99}});
    h.call_tool(in_group(FAMILY, MOM), "小幫手 阿嬤血壓 187/99", "care", high).await;
    at(&h, "2026-12-01T02:01:00Z").await;
    h.app.loops.outbox.flush_due().await.expect("outbox");
    assert!(pushes_to(&h, DAD).is_empty(), "nothing reaches 哥哥: {:?}", pushes_to(&h, DAD));
    assert!(!pushes_to(&h, MOM).is_empty(), "小美 is told");
    // He is back in the group: told again.
    let mut joined = h.bare("memberJoined", json!({"type": "group", "groupId": FAMILY}));
    joined["joined"] = json!({"members": [{"type": "user", "userId": DAD}]});
    h.send(vec![joined]).await;
    h.set_clock("2026-12-01T02:30:00Z");
    crate::richmenu::tap_menu(&h, in_dm(GRANDMA), "care_menu_call").await;
    assert!(last_reply(&h).contains("哥哥"), "{}", last_reply(&h));
}
