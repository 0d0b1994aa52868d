//! LINE's monthly message quota end to end, against the fake LINE API's quota, consumption and
//! members-count endpoints: what a push into a chat costs, everything due for a chat in one push,
//! personal reminders set in a group pushed to the person's 1:1 chat, the cost told (and a
//! refusal over the quota) before a repeating reminder or an every-time price alert is created,
//! the 80 % notice once, and nothing lost when the month runs out.

use crate::common::harness::last_tool_result as tool_result;

use crate::common::harness::{
    DAD, FAMILY, Harness, MOM, OTHER_GROUP, in_dm, in_group, messages_of, postback_data, texts_of,
};
use hearth::platform::clock::Clock;
use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

/// Creates reminders through the fake LLM in `source` (one tool call each, one turn) and returns
/// the last tool result.
async fn create_all(h: &Harness, source: Value, args: &[Value]) -> Value {
    let before = h.llm.requests().len();
    let calls: Vec<(&str, Value)> = args.iter().map(|a| ("reminder", a.clone())).collect();
    h.llm.reply_tool_calls(&calls);
    h.llm.reply_text("好的");
    let event = h.event(source, crate::common::harness::text_message("小幫手 提醒"));
    h.send(vec![event]).await;
    tool_result(h, before + 1)
}

async fn create(h: &Harness, source: Value, args: Value) -> Value {
    create_all(h, source, &[args]).await
}

/// A turn in `source` answered "好的"; returns the texts of the reply.
async fn chat(h: &Harness, source: Value) -> String {
    h.llm.reply_text("好的");
    let event = h.event(source, crate::common::harness::text_message("小幫手 嗨"));
    h.send(vec![event]).await;
    texts_of(&h.line.replies().last().expect("a reply").body)
}

fn mins(m: i64) -> SignedDuration {
    SignedDuration::from_mins(m)
}

/// The family group has five members; MOM has hearth as a friend.
async fn family() -> Harness {
    let h = Harness::start().await;
    h.line.set_chat_size(FAMILY, 5);
    h.line.set_profile(MOM, "媽媽");
    h
}

/// Moves the clock to `at` (the harness starts at 2026-11-30 20:00 in Taipei).
fn set_clock(h: &Harness, at: &str) {
    h.clock.set(at.parse::<Timestamp>().expect("instant"));
}

/// LINE's quota is `limit` with `used` used; hearth reads it.
async fn quota(h: &Harness, limit: i64, used: i64) {
    h.line.set_quota(Some(limit));
    h.line.set_quota_used(used);
    h.app.quota.refresh().await;
}

fn pushes_to(h: &Harness, to: &str) -> Vec<crate::common::Recorded> {
    h.line.accepted_pushes().into_iter().filter(|p| p.body["to"] == to).collect()
}

#[tokio::test]
async fn a_push_into_a_group_costs_its_member_count_recorded_per_chat_and_month() {
    let h = family().await;
    create(&h, in_group(FAMILY, MOM), json!({"text": "倒垃圾", "in_minutes": 1, "everyone": true}))
        .await;
    create(&h, in_group(FAMILY, MOM), json!({"text": "收衣服", "in_minutes": 2, "everyone": true}))
        .await;
    h.advance_and_tick(mins(1)).await;
    h.advance_and_tick(mins(1)).await;
    assert_eq!(pushes_to(&h, FAMILY).len(), 2);
    assert_eq!(h.line.quota_used(), 10, "five members, twice");
    let month = h.app.quota.month().key();
    let spent = h.app.store.quota().cost_by_chat(&month).await.expect("spent");
    assert_eq!(
        (spent[0].conversation_id.as_str(), spent[0].pushes, spent[0].cost),
        (FAMILY, 2, 10)
    );
    let counts = h.line.requests().iter().filter(|r| r.path.ends_with("/members/count")).count();
    assert_eq!(counts, 1, "the member count is cached");
}

/// A group message that calls hearth, handled `late` after it was sent (its reply token is too
/// old to try), answered "好的" by push.
async fn answered_late(h: &Harness, late: SignedDuration) {
    h.llm.reply_text("好的");
    let event = h.event(in_group(FAMILY, MOM), crate::common::harness::text_message("小幫手 嗨"));
    h.clock.advance(late);
    h.send(vec![event]).await;
}

#[tokio::test]
async fn an_answer_pushed_because_its_reply_token_went_stale_is_counted_like_every_push() {
    let h = family().await;
    quota(&h, 200, 10).await;
    answered_late(&h, mins(30)).await;
    assert!(h.line.replies().is_empty(), "the old token is not tried");
    assert_eq!(pushes_to(&h, FAMILY).len(), 1, "answered by push");
    let month = h.app.quota.month().key();
    let spent = h.app.store.quota().cost_by_chat(&month).await.expect("spent");
    assert_eq!(
        spent.iter().map(|s| (s.conversation_id.as_str(), s.pushes, s.cost)).collect::<Vec<_>>(),
        [(FAMILY, 1, 5)],
        "five members, one push"
    );
    assert_eq!(
        h.app.quota.standing().await.expect("standing").used,
        15,
        "before LINE is read again"
    );
}

#[tokio::test]
async fn an_answer_pushed_after_the_month_ran_out_unseen_marks_the_month_out() {
    let h = family().await;
    quota(&h, 200, 190).await;
    // LINE's count moves past the limit (other pushes of the channel) before hearth reads it.
    h.line.set_quota_used(200);
    answered_late(&h, mins(30)).await;
    assert!(pushes_to(&h, FAMILY).is_empty(), "LINE refused it");
    let standing = h.app.quota.standing().await.expect("standing");
    assert!(
        standing.exhausted,
        "the month is marked out, so the loops hold their pushes: {standing:?}"
    );
}

#[tokio::test]
async fn three_reminders_due_together_in_a_group_go_in_one_push() {
    let h = family().await;
    let args: Vec<Value> = ["倒垃圾", "收衣服", "關瓦斯"]
        .iter()
        .map(|t| json!({"text": t, "at": "2026-11-30T20:30", "everyone": true}))
        .collect();
    create_all(&h, in_group(FAMILY, MOM), &args).await;
    let report = h.advance_and_tick(mins(30)).await;
    assert_eq!(report.sent, 3, "{report:?}");
    let pushes = pushes_to(&h, FAMILY);
    assert_eq!(pushes.len(), 1, "one request for the three");
    let body = pushes[0].body.to_string();
    assert!(
        body.contains("倒垃圾") && body.contains("收衣服") && body.contains("關瓦斯"),
        "{body}"
    );
    assert_eq!(messages_of(&pushes[0].body).len(), 3);
    assert_eq!(h.line.quota_used(), 5, "the group is charged once");
}

#[tokio::test]
async fn a_personal_reminder_set_in_a_group_goes_to_the_friend_s_1to1_chat() {
    let h = family().await;
    let result =
        create(&h, in_group(FAMILY, MOM), json!({"text": "帶便當", "in_minutes": 1})).await;
    assert_eq!(result["delivered_privately_to"], "媽媽", "{result}");
    let card = h.line.replies().last().expect("confirmation").body.to_string();
    assert!(card.contains("私訊"), "the confirmation says where it arrives: {card}");
    h.advance_and_tick(mins(1)).await;
    assert!(pushes_to(&h, FAMILY).is_empty(), "nothing pushed to the group");
    let private = pushes_to(&h, MOM);
    assert_eq!(private.len(), 1);
    assert_eq!(h.line.quota_used(), 1, "one message instead of five");

    // Its buttons work in the 1:1 chat it arrived in, and nowhere else.
    let snooze = postback_data(&private[0].body, "reminder_snooze").expect("snooze button");
    h.send(vec![h.postback(in_group(OTHER_GROUP, MOM), &snooze)]).await;
    let refused = texts_of(&h.line.replies().last().expect("reply").body);
    assert!(refused.contains("不屬於這個聊天室"), "{refused}");
    h.send(vec![h.postback(in_dm(MOM), &snooze)]).await;
    let snoozed = h.app.store.reminders().list(FAMILY).await.expect("list");
    assert_eq!(snoozed.len(), 1, "the snoozed copy");
    assert_eq!(snoozed[0].target(), MOM, "and it still goes to the 1:1 chat");
}

#[tokio::test]
async fn reminders_for_everyone_for_non_friends_or_with_the_setting_off_stay_in_the_group() {
    let h = family().await;
    h.line.set_profile(DAD, "爸爸");
    h.line.set_not_friend(DAD);
    let all = create(
        &h,
        in_group(FAMILY, MOM),
        json!({"text": "開會", "in_minutes": 1, "everyone": true}),
    )
    .await;
    assert!(all["delivered_privately_to"].is_null(), "{all}");
    let dad = create(&h, in_group(FAMILY, DAD), json!({"text": "繳費", "in_minutes": 1})).await;
    assert!(dad["delivered_privately_to"].is_null(), "{dad}");
    h.advance_and_tick(mins(1)).await;
    assert_eq!(pushes_to(&h, FAMILY).len(), 1, "both in one push to the group");
    assert!(pushes_to(&h, MOM).is_empty() && pushes_to(&h, DAD).is_empty());

    let off = Harness::start_with(|c| c.push.personal_reminders_1to1 = false, None).await;
    off.line.set_profile(MOM, "媽媽");
    let mine =
        create(&off, in_group(FAMILY, MOM), json!({"text": "帶便當", "in_minutes": 1})).await;
    assert!(mine["delivered_privately_to"].is_null(), "{mine}");
    off.advance_and_tick(mins(1)).await;
    assert_eq!(pushes_to(&off, FAMILY).len(), 1);
    assert!(pushes_to(&off, MOM).is_empty());
}

#[tokio::test]
async fn a_repeating_reminder_over_the_month_s_quota_is_refused_on_its_card_until_accepted() {
    let h = family().await;
    set_clock(&h, "2026-11-30T17:00:00Z"); // 1 December, 01:00 in Taipei
    quota(&h, 200, 150).await;
    let daily =
        json!({"text": "吃藥", "at": "2026-12-01T19:00", "repeat": "daily", "everyone": true});
    let refused = create(&h, in_group(FAMILY, MOM), daily.clone()).await;
    assert!(refused["id"].is_null(), "not created: {refused}");
    assert_eq!(refused["spend"]["per_month"], 150, "{refused}");
    assert_eq!(refused["spend"]["left_this_month"], 50, "{refused}");
    assert_eq!(refused["spend"]["over_quota"], true, "{refused}");
    let reply = h.line.replies().last().expect("reply").body.clone();
    let card = reply.to_string();
    assert!(
        card.contains("超過本月訊息額度") && card.contains("每月約 150 則，本月免費額度剩 50 則"),
        "{card}"
    );
    let chips = crate::common::harness::chip_texts(&reply);
    assert!(chips.iter().any(|c| c.contains("只私訊提醒我")), "{chips:?}");
    assert!(chips.iter().any(|c| c.contains("照樣建立")), "{chips:?}");
    assert!(h.app.store.reminders().list(FAMILY).await.expect("list").is_empty());

    let mut anyway = daily;
    anyway["accept_cost"] = json!(true);
    let accepted = create(&h, in_group(FAMILY, MOM), anyway).await;
    assert!(accepted["id"].is_i64(), "created when accepted: {accepted}");
    let card = h.line.replies().last().expect("reply").body.to_string();
    assert!(card.contains("提醒已設定") && card.contains("每月約 150 則"), "{card}");
}

#[tokio::test]
async fn a_repeating_reminder_that_fits_tells_its_monthly_cost_on_the_confirmation() {
    let h = family().await;
    set_clock(&h, "2026-11-30T17:00:00Z");
    quota(&h, 200, 10).await;
    let weekly =
        json!({"text": "倒垃圾", "at": "2026-12-02T19:00", "repeat": "weekly", "everyone": true});
    let result = create(&h, in_group(FAMILY, MOM), weekly).await;
    assert!(result["id"].is_i64(), "{result}");
    assert_eq!(result["spend"]["over_quota"], false, "{result}");
    let card = h.line.replies().last().expect("reply").body.to_string();
    assert!(card.contains("每月約 25 則，本月免費額度剩 190 則"), "five Wednesdays × 5: {card}");
}

/// Sets a price alert through the fake LLM in `source` (BTC-USD at 91,000) and returns the
/// tool's result.
async fn set_alert(h: &Harness, source: Value, args: Value) -> Value {
    h.upstreams.set_price("BTC-USD", 91_000.0);
    h.upstreams.set_market_time("BTC-USD", h.clock.now().as_second());
    let before = h.llm.requests().len();
    h.llm.reply_tool_calls(&[("price_alert", args)]);
    h.llm.reply_text("好的");
    h.send(vec![h.event(source, crate::common::harness::text_message("小幫手 比特幣到95000通知"))])
        .await;
    tool_result(h, before + 1)
}

fn every_time_alert(everyone: Option<bool>) -> Value {
    json!({"symbol": "BTC-USD", "direction": "rises_to", "level": 95000, "frequency": "every_time", "everyone": everyone})
}

#[tokio::test]
async fn an_every_time_alert_over_the_month_s_quota_is_refused_with_the_cheaper_ways_offered() {
    let h = family().await;
    set_clock(&h, "2026-11-30T17:00:00Z"); // 1 December, 01:00 in Taipei
    quota(&h, 200, 190).await;
    let refused = set_alert(&h, in_group(FAMILY, MOM), every_time_alert(Some(true))).await;
    assert!(refused["id"].is_null(), "not created: {refused}");
    assert_eq!(refused["spend"]["per_month"], 20, "four fires × five members: {refused}");
    assert_eq!(refused["spend"]["left_this_month"], 10, "{refused}");
    assert_eq!(refused["spend"]["over_quota"], true, "{refused}");
    assert_eq!(refused["cheaper"], json!(["one_to_one", "once"]), "{refused}");
    let reply = h.line.replies().last().expect("reply").body.clone();
    let card = reply.to_string();
    assert!(
        card.contains("這個價格通知會超過本月訊息額度")
            && card.contains("每月約 20 則，本月免費額度剩 10 則")
            && card.contains("改成只私訊通知你"),
        "{card}"
    );
    let chips = crate::common::harness::chip_texts(&reply);
    assert!(chips.iter().any(|c| c.contains("只私訊通知我")), "{chips:?}");
    assert!(chips.iter().any(|c| c.contains("只通知一次")), "{chips:?}");
    assert!(chips.iter().any(|c| c.contains("照樣建立")), "{chips:?}");
    assert!(h.app.store.price_alerts().list(FAMILY).await.expect("list").is_empty());

    // The cheaper way: the asker's own alert, in her 1:1 chat (four fires × one).
    let own = set_alert(&h, in_group(FAMILY, MOM), every_time_alert(None)).await;
    assert!(own["id"].is_i64(), "created: {own}");
    assert_eq!(own["delivered_privately"], true, "{own}");
    assert_eq!(own["spend"]["per_month"], 4, "{own}");
    let card = h.line.replies().last().expect("reply").body.to_string();
    assert!(card.contains("每次通知 1 則，每月約 4 則，本月免費額度剩 10 則"), "{card}");
}

#[tokio::test]
async fn an_every_time_alert_over_the_quota_in_a_chat_with_a_digest_is_offered_the_digest() {
    let h = family().await;
    set_clock(&h, "2026-11-30T17:00:00Z");
    h.app
        .store
        .digests()
        .save(&hearth::store::NewDigest {
            conversation_id: MOM,
            local_time: "07:00",
            tz: "Asia/Taipei",
            place: Some("台北"),
            lang: hearth::platform::i18n::Lang::ZhTw,
            only_when_something: false,
            next_at: "2026-11-30T23:00:00Z".parse::<Timestamp>().expect("t").as_millisecond(),
            created_by: Some(MOM),
            now_ms: h.clock.now().as_millisecond(),
        })
        .await
        .expect("digest");
    quota(&h, 200, 170).await;
    let refused = set_alert(&h, in_dm(MOM), every_time_alert(None)).await;
    assert!(refused["id"].is_null(), "31 digests and 4 fires exceed 30: {refused}");
    assert_eq!(refused["cheaper"], json!(["once_and_digest"]), "{refused}");
    let reply = h.line.replies().last().expect("reply").body.clone();
    let chips = crate::common::harness::chip_texts(&reply);
    assert!(chips.iter().any(|c| c.contains("每日摘要")), "{chips:?}");
}

#[tokio::test]
async fn an_every_time_alert_over_the_quota_is_created_once_when_the_family_accepts() {
    let h = family().await;
    set_clock(&h, "2026-11-30T17:00:00Z");
    quota(&h, 200, 190).await;
    let refused = set_alert(&h, in_group(FAMILY, MOM), every_time_alert(Some(true))).await;
    assert!(refused["id"].is_null(), "{refused}");
    let mut anyway = every_time_alert(Some(true));
    anyway["accept_cost"] = json!(true);
    let accepted = set_alert(&h, in_group(FAMILY, MOM), anyway.clone()).await;
    assert!(accepted["id"].is_i64(), "created when accepted: {accepted}");
    let card = h.line.replies().last().expect("reply").body.to_string();
    assert!(card.contains("價格通知已設定") && card.contains("每月約 20 則"), "{card}");
    set_alert(&h, in_group(FAMILY, MOM), anyway).await;
    let alerts = h.app.store.price_alerts().list(FAMILY).await.expect("list");
    assert_eq!(alerts.len(), 1, "created once: {alerts:?}");
}

#[tokio::test]
async fn an_every_time_alert_that_fits_tells_its_monthly_cost_on_the_confirmation() {
    let h = family().await;
    set_clock(&h, "2026-11-30T17:00:00Z");
    quota(&h, 200, 10).await;
    let result = set_alert(&h, in_group(FAMILY, MOM), every_time_alert(Some(true))).await;
    assert!(result["id"].is_i64(), "{result}");
    assert_eq!(result["spend"]["over_quota"], false, "{result}");
    assert!(result.get("cheaper").is_none(), "{result}");
    let card = h.line.replies().last().expect("reply").body.to_string();
    assert!(card.contains("每次通知 5 則，每月約 20 則，本月免費額度剩 190 則"), "{card}");
    assert_eq!(h.app.store.price_alerts().list(FAMILY).await.expect("list").len(), 1);
}

#[tokio::test]
async fn from_80_percent_a_chat_with_pushes_scheduled_is_told_once() {
    let h = family().await;
    quota(&h, 200, 100).await;
    create(&h, in_dm(MOM), json!({"text": "繳電費", "at": "2026-11-30T23:00"})).await;
    quota(&h, 200, 160).await;
    let told = chat(&h, in_dm(MOM)).await;
    assert!(told.starts_with("⚠️ 本月 LINE 免費訊息已用 160/200 則"), "{told}");
    let again = chat(&h, in_dm(MOM)).await;
    assert!(!again.contains("免費訊息"), "told once: {again}");
    let elsewhere = chat(&h, in_dm(DAD)).await;
    assert!(!elsewhere.contains("免費訊息"), "nothing scheduled there: {elsewhere}");
}

#[tokio::test]
async fn when_the_month_is_out_nothing_is_pushed_and_the_next_reply_delivers_what_was_due() {
    let h = family().await;
    quota(&h, 200, 198).await;
    create(&h, in_group(FAMILY, MOM), json!({"text": "倒垃圾", "in_minutes": 1, "everyone": true}))
        .await;
    let report = h.advance_and_tick(mins(1)).await;
    assert_eq!((report.sent, report.held), (0, 1), "{report:?}");
    assert!(h.line.pushes().is_empty(), "no push attempted: the month cannot pay five");

    // LINE's own refusal (hearth's count said there was room) holds too, and stops pushing.
    create(&h, in_dm(MOM), json!({"text": "吃藥", "in_minutes": 1})).await;
    h.line.set_quota_used(200);
    let report = h.advance_and_tick(mins(1)).await;
    assert_eq!(report.held, 1, "{report:?}");
    assert_eq!(h.line.pushes().len(), 1, "one refused attempt");
    create(&h, in_dm(MOM), json!({"text": "量血壓", "in_minutes": 1})).await;
    let carried = texts_of(&h.line.replies().last().expect("reply").body);
    assert!(
        carried.starts_with("你錯過的提醒：\n• ⏰ 吃藥"),
        "the next reply carries it: {carried}"
    );
    h.advance_and_tick(mins(1)).await;
    assert_eq!(h.line.pushes().len(), 1, "no further push while the month is out");

    let missed = chat(&h, in_group(FAMILY, MOM)).await;
    assert!(missed.contains("你錯過的提醒：") && missed.contains("倒垃圾"), "{missed}");
    let missed = chat(&h, in_dm(MOM)).await;
    assert!(missed.contains("量血壓") && !missed.contains("吃藥"), "{missed}");
    let later = chat(&h, in_dm(MOM)).await;
    assert!(!later.contains("你錯過的提醒"), "delivered once: {later}");

    // The month turns: pushing resumes on its own.
    h.line.set_quota_used(0);
    set_clock(&h, "2026-11-30T16:30:00Z"); // 1 December, 00:30 in Taipei
    create(&h, in_dm(MOM), json!({"text": "新的一個月", "in_minutes": 1})).await;
    let report = h.advance_and_tick(mins(1)).await;
    assert_eq!(report.sent, 1, "{report:?}");
    assert_eq!(pushes_to(&h, MOM).len(), 1);
}

#[tokio::test]
async fn the_quota_tool_shows_used_left_and_what_is_scheduled_by_chat() {
    let h = family().await;
    set_clock(&h, "2026-11-30T17:00:00Z");
    quota(&h, 200, 40).await;
    let weekly =
        json!({"text": "倒垃圾", "at": "2026-12-02T19:00", "repeat": "weekly", "everyone": true});
    create(&h, in_group(FAMILY, MOM), weekly).await;
    let before = h.llm.requests().len();
    h.llm.reply_tool_calls(&[("quota", json!({}))]);
    h.llm.reply_text("還剩 160 則");
    h.send(vec![h.event(
        in_group(FAMILY, MOM),
        crate::common::harness::text_message("小幫手 這個月訊息額度還剩多少？"),
    )])
    .await;
    let out = tool_result(&h, before + 1);
    assert_eq!(
        (out["limit"].as_i64(), out["used"].as_i64(), out["left"].as_i64()),
        (Some(200), Some(40), Some(160)),
        "{out}"
    );
    assert_eq!(out["scheduled"][0]["chat"], "這個聊天", "{out}");
    assert_eq!(out["scheduled"][0]["messages"], 25, "{out}");
    assert_eq!(out["projected"], 65, "{out}");
    let card = h.line.replies().last().expect("reply").body.to_string();
    assert!(card.contains("本月 LINE 訊息額度") && card.contains("40 / 200"), "{card}");
}

#[tokio::test]
async fn metrics_show_the_limit_the_used_count_and_the_projection() {
    let h = family().await;
    quota(&h, 200, 42).await;
    h.app.read_quota().await;
    let text = h.metrics_text().await;
    for name in ["hearth_line_quota_limit", "hearth_line_quota_used", "hearth_line_quota_projected"]
    {
        assert!(text.contains(name), "{name} missing");
    }
}

#[tokio::test]
async fn a_re_fire_of_an_every_time_alert_is_pushed_without_a_notification_sound() {
    let h = Harness::start_with(|c| c.loops.price_poll_secs = 0, None).await;
    let price = |p: f64| {
        h.upstreams.set_price("BTC-USD", p);
        h.upstreams.set_market_time("BTC-USD", h.clock.now().as_second());
    };
    price(91_000.0);
    h.llm.reply_tool_calls(&[(
        "price_alert",
        json!({"symbol": "BTC-USD", "direction": "rises_to", "level": 95000, "frequency": "every_time"}),
    )]);
    h.llm.reply_text("好的");
    h.send(vec![h.dm(MOM, "小幫手 比特幣到 95000 每次都通知我")]).await;
    for p in [96_000.0, 90_000.0, 96_000.0] {
        h.clock.advance(SignedDuration::from_hours(2));
        price(p);
        h.app.loops.price_alerts.tick().await.expect("tick");
    }
    let confirmation = h.line.replies()[0].body.to_string();
    assert!(confirmation.contains("每次通知 1 則"), "what each fire costs: {confirmation}");
    let pushes = pushes_to(&h, MOM);
    assert_eq!(pushes.len(), 2, "fired twice");
    assert!(pushes[0].body.get("notificationDisabled").is_none(), "the first fire rings");
    assert_eq!(pushes[1].body["notificationDisabled"], true, "the re-fire is quiet");
}

#[tokio::test]
async fn more_than_five_cards_due_together_become_one_carousel_in_one_push() {
    let h = family().await;
    for texts in [["倒垃圾", "收衣服", "關瓦斯", "餵貓"], ["澆花", "鎖門", "關窗", "充電"]]
    {
        let args: Vec<Value> = texts
            .iter()
            .map(|t| json!({"text": t, "at": "2026-11-30T20:30", "everyone": true}))
            .collect();
        create_all(&h, in_group(FAMILY, MOM), &args).await;
    }
    assert_eq!(h.advance_and_tick(mins(30)).await.sent, 8);
    let pushes = pushes_to(&h, FAMILY);
    assert_eq!(pushes.len(), 1, "one request for the eight");
    let messages = messages_of(&pushes[0].body);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0]["contents"]["type"], "carousel");
    assert_eq!(messages[0]["contents"]["contents"].as_array().map(Vec::len), Some(8));
    assert_eq!(h.line.quota_used(), 5);
}

#[tokio::test]
async fn a_personal_price_alert_set_in_a_group_fires_in_the_friend_s_1to1_chat() {
    let h = Harness::start_with(|c| c.loops.price_poll_secs = 0, None).await;
    h.line.set_chat_size(FAMILY, 5);
    h.line.set_profile(MOM, "媽媽");
    h.upstreams.set_price("ETH-USD", 3_400.0);
    h.upstreams.set_market_time("ETH-USD", h.clock.now().as_second());
    let before = h.llm.requests().len();
    h.llm.reply_tool_calls(&[(
        "price_alert",
        json!({"symbol": "ETH-USD", "direction": "rises_to", "level": 3500, "frequency": "every_time"}),
    )]);
    h.llm.reply_text("好的");
    h.send(vec![h.event(
        in_group(FAMILY, MOM),
        crate::common::harness::text_message("小幫手 以太幣到3500通知我"),
    )])
    .await;
    let result = tool_result(&h, before + 1);
    assert_eq!(result["delivered_privately"], true, "{result}");
    assert_eq!(result["messages_per_fire"], 1, "{result}");
    let card = h.line.replies().last().expect("confirmation").body.to_string();
    assert!(card.contains("私訊") && card.contains("每次通知 1 則"), "{card}");
    h.clock.advance(SignedDuration::from_mins(10));
    h.upstreams.set_price("ETH-USD", 3_600.0);
    h.upstreams.set_market_time("ETH-USD", h.clock.now().as_second());
    assert_eq!(h.app.loops.price_alerts.tick().await.expect("tick").sent, 1);
    assert!(pushes_to(&h, FAMILY).is_empty());
    let private = pushes_to(&h, MOM);
    assert_eq!(private.len(), 1);
    assert_eq!(h.line.quota_used(), 1);
    let cancel = postback_data(&private[0].body, "cancel_price_alert").expect("cancel button");
    h.send(vec![h.postback(in_dm(MOM), &cancel)]).await;
    assert!(
        h.app.store.price_alerts().list(FAMILY).await.expect("list").is_empty(),
        "cancelled from the 1:1 chat"
    );
}

#[tokio::test]
async fn a_follow_event_makes_the_user_a_friend_without_asking_line() {
    let h = Harness::start().await;
    let mut follow = h.dm(DAD, "x");
    follow["type"] = json!("follow");
    follow["follow"] = json!({"isUnblocked": false});
    follow.as_object_mut().map(|o| o.remove("message"));
    h.send(vec![follow]).await;
    assert!(h.app.quota.is_friend(DAD).await, "no profile on the fake, so only the event tells");
    let asked = h.line.requests().iter().filter(|r| r.path.starts_with("/v2/bot/profile/")).count();
    assert_eq!(asked, 0);
}
