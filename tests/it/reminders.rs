//! Reminders end to end: created through the LLM, pushed at the due time exactly once with their
//! buttons, managed by signed postbacks that only work in their own conversation, and delivered
//! safely through LINE failures, quota exhaustion, restarts and downtime.

use crate::common::harness::last_tool_result as tool_result;
use crate::common::harness::temp_db;

use crate::common::PushMode;
use crate::common::harness::{
    DAD, FAMILY, Harness, MOM, OTHER_GROUP, in_dm, in_group, messages_of, postback_data, texts_of,
};
use jiff::SignedDuration;
use serde_json::{Value, json};

/// Creates a reminder through the fake LLM in `source` and returns the tool's result.
async fn create(h: &Harness, source: Value, args: Value) -> Value {
    let before = h.llm.requests().len();
    h.llm.reply_tool_calls(&[("reminder", args)]);
    h.llm.reply_text("好的，已設定提醒");
    let event = h.event(source, crate::common::harness::text_message("小幫手 提醒我"));
    h.send(vec![event]).await;
    tool_result(h, before + 1)
}

#[tokio::test]
async fn one_off_reminder_is_confirmed_then_pushed_once_at_the_due_time() {
    let h = Harness::start().await; // 2026-11-30 20:00 in Taipei
    let result = create(&h, in_dm(MOM), json!({"text": "帶便當", "at": "2026-12-01T08:00"})).await;
    assert_eq!(result["first_time"], "2026-12-01（二）08:00", "{result}");
    let confirmation = h.line.replies()[0].body.clone();
    let card = messages_of(&confirmation)[1]["contents"].to_string();
    assert!(card.contains("⏰ 提醒已設定") && card.contains("台北時間"), "{card}");
    assert!(postback_data(&confirmation, "cancel_reminder").is_some());

    assert_eq!(
        h.advance_and_tick(SignedDuration::from_mins(719)).await.sent,
        0,
        "not due at 07:59"
    );
    let report = h.advance_and_tick(SignedDuration::from_mins(1)).await;
    assert_eq!(report.sent, 1);
    let pushes = h.line.accepted_pushes();
    assert_eq!(pushes.len(), 1);
    assert_eq!(pushes[0].body["to"], MOM);
    let body = &pushes[0].body;
    assert!(postback_data(body, "reminder_done").is_some());
    assert!(postback_data(body, "reminder_snooze").is_some());
    assert!(postback_data(body, "cancel_reminder").is_none(), "no stop button on a one-off");
    assert!(messages_of(body).iter().all(|m| m["type"] != "textV2"), "no mention in a 1:1 chat");

    assert_eq!(h.advance_and_tick(SignedDuration::from_hours(1)).await.sent, 0, "exactly once");
    assert_eq!(h.line.pushes().len(), 1);
}

#[tokio::test]
async fn relative_reminders_resolve_against_the_clock() {
    let h = Harness::start().await;
    let result = create(&h, in_dm(MOM), json!({"text": "關火", "in_minutes": 20})).await;
    assert_eq!(result["first_time"], "2026-11-30（一）20:20");
    assert_eq!(h.advance_and_tick(SignedDuration::from_mins(20)).await.sent, 1);
}

#[tokio::test]
async fn snooze_fires_again_ten_minutes_later_once() {
    let h = Harness::start().await;
    create(&h, in_dm(MOM), json!({"text": "吃藥", "in_minutes": 5})).await;
    h.advance_and_tick(SignedDuration::from_mins(5)).await;
    let snooze =
        postback_data(&h.line.accepted_pushes()[0].body, "reminder_snooze").expect("snooze button");
    h.send(vec![h.postback(in_dm(MOM), &snooze)]).await;
    assert!(texts_of(&h.line.replies().last().expect("reply").body).contains("20:15"));
    h.send(vec![h.postback(in_dm(MOM), &snooze)]).await;
    assert!(texts_of(&h.line.replies().last().expect("reply").body).contains("已經延後過了"));

    assert_eq!(h.advance_and_tick(SignedDuration::from_mins(9)).await.sent, 0);
    assert_eq!(h.advance_and_tick(SignedDuration::from_mins(1)).await.sent, 1);
    assert_eq!(h.line.accepted_pushes().len(), 2);
}

#[tokio::test]
async fn weekly_group_reminder_mentions_the_member_and_its_buttons_only_work_in_that_group() {
    let h = Harness::start().await;
    h.line.set_profile(MOM, "媽媽");
    h.line.set_profile(DAD, "爸爸");
    // Dad has not added hearth as a friend, so his reminder stays in the group.
    h.line.set_not_friend(DAD);
    // Dad has written in the group, so hearth knows his user id.
    h.send(vec![h.group_text(FAMILY, DAD, "晚餐好了")]).await;
    let result = create(
        &h,
        in_group(FAMILY, MOM),
        json!({"text": "倒垃圾", "at": "2026-12-02T19:00", "repeat": "weekly", "weekdays": ["wed"], "for_member": "爸爸"}),
    )
    .await;
    assert_eq!(result["repeats"], "每週三 19:00");
    assert_eq!(result["mention"], "爸爸");

    // Wednesday 19:00 Taipei = 11:00 UTC, 47 hours after the start.
    assert_eq!(h.advance_and_tick(SignedDuration::from_hours(47)).await.sent, 1);
    let push = h.line.accepted_pushes()[0].body.clone();
    let first = &messages_of(&push)[0];
    assert_eq!(first["type"], "textV2");
    assert_eq!(first["substitution"]["who"]["mentionee"]["userId"], DAD);
    let done = postback_data(&push, "reminder_done").expect("done");
    let cancel =
        postback_data(&push, "cancel_reminder").expect("stop button on a repeating reminder");

    // Done: acknowledged, next week still scheduled.
    h.send(vec![h.postback(in_group(FAMILY, DAD), &done)]).await;
    assert!(texts_of(&h.line.replies().last().expect("reply").body).contains("2026-12-09"));

    // The same cancel button tapped in another group (a forwarded card): refused, nothing changed.
    h.send(vec![h.postback(in_group(OTHER_GROUP, DAD), &cancel)]).await;
    assert!(texts_of(&h.line.replies().last().expect("reply").body).contains("不屬於這個聊天室"));
    // Forged data: refused.
    let forged = cancel.replace(&cancel[cancel.len() - 4..], "AAAA");
    h.send(vec![h.postback(in_group(FAMILY, DAD), &forged)]).await;
    assert!(texts_of(&h.line.replies().last().expect("reply").body).contains("不屬於這個聊天室"));
    assert_eq!(h.app.store.reminders().list(FAMILY).await.expect("list").len(), 1);

    assert_eq!(
        h.advance_and_tick(SignedDuration::from_hours(7 * 24)).await.sent,
        1,
        "next Wednesday"
    );
    // Cancel in the right group stops it.
    h.send(vec![h.postback(in_group(FAMILY, MOM), &cancel)]).await;
    assert!(texts_of(&h.line.replies().last().expect("reply").body).contains("已取消"));
    assert_eq!(h.advance_and_tick(SignedDuration::from_hours(7 * 24)).await.sent, 0);
}

#[tokio::test]
async fn list_and_cancel_see_only_this_conversations_reminders() {
    let h = Harness::start().await;
    create(
        &h,
        in_group(FAMILY, MOM),
        json!({"text": "繳房租", "at": "2026-12-05T09:00", "repeat": "monthly", "day_of_month": 5}),
    )
    .await;
    let other = create(
        &h,
        in_group(OTHER_GROUP, MOM),
        json!({"text": "別組的事", "at": "2026-12-05T09:00"}),
    )
    .await;

    h.llm.reply_tool_calls(&[(
        "reminders",
        json!({"action": "show", "id": null, "description": null}),
    )]);
    h.llm.reply_text("這是提醒清單");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 有哪些提醒")]).await;
    let listed = tool_result(&h, h.llm.requests().len() - 1);
    let texts: Vec<&str> = listed["reminders"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|r| r["text"].as_str())
        .collect();
    assert_eq!(texts, ["繳房租"]);
    let card = h.line.replies().last().expect("reply").body.clone();
    assert!(postback_data(&card, "cancel_reminder").is_some(), "each row has a cancel button");

    h.llm.reply_tool_calls(&[(
        "reminders",
        json!({"action": "cancel", "id": other["id"], "description": null}),
    )]);
    h.llm.reply_text("找不到");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 取消那個")]).await;
    assert_eq!(tool_result(&h, h.llm.requests().len() - 1)["error"]["kind"], "not_found");
    assert_eq!(
        h.app.store.reminders().list(OTHER_GROUP).await.expect("list").len(),
        1,
        "untouched"
    );

    h.llm.reply_tool_calls(&[(
        "reminders",
        json!({"action": "cancel", "id": null, "description": "房租"}),
    )]);
    h.llm.reply_text("已取消");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 取消繳房租提醒")]).await;
    assert_eq!(tool_result(&h, h.llm.requests().len() - 1)["text"], "繳房租");
    assert!(h.app.store.reminders().list(FAMILY).await.expect("list").is_empty());
}

#[tokio::test]
async fn bad_reminder_requests_are_refused_and_change_nothing() {
    let h = Harness::start().await;
    for args in [
        json!({"text": "過去", "at": "2026-11-30T19:00"}),
        json!({"text": "不存在的日子", "at": "2026-02-30T08:00"}),
        json!({"text": "怪時區", "at": "2026-12-01T08:00", "timezone": "Mars/Olympus"}),
        json!({"text": "零間隔", "at": "2026-12-01T08:00", "repeat": "daily", "interval": 0}),
        json!({"text": "錯配", "at": "2026-12-01T08:00", "repeat": "daily", "weekdays": ["mon"]}),
        json!({"text": "第40天", "at": "2026-12-01T08:00", "repeat": "monthly", "day_of_month": 40}),
        json!({"text": "x".repeat(600), "at": "2026-12-01T08:00"}),
        json!({"text": "沒說時間"}),
        json!({"text": "", "at": "2026-12-01T08:00"}),
    ] {
        let result = create(&h, in_dm(MOM), args.clone()).await;
        assert_eq!(result["error"]["kind"], "invalid_arguments", "{args} → {result}");
    }
    let past = create(&h, in_dm(MOM), json!({"text": "過去", "at": "2026-11-30T19:00"})).await;
    assert!(past["error"]["message"].as_str().unwrap_or("").contains("already passed"));
    assert!(h.app.store.reminders().list(MOM).await.expect("list").is_empty());
}

#[tokio::test]
async fn line_500_then_200_delivers_once_with_the_same_retry_key() {
    let h = Harness::start().await;
    create(&h, in_dm(MOM), json!({"text": "澆花", "in_minutes": 1})).await;
    h.line.set_push_mode(PushMode::FailTimes(1));
    let report = h.advance_and_tick(SignedDuration::from_mins(1)).await;
    assert_eq!(report.sent, 1);
    let pushes = h.line.pushes();
    assert_eq!(pushes.len(), 2);
    assert_eq!(pushes[0].status, 500);
    assert_eq!(pushes[0].header("x-line-retry-key"), pushes[1].header("x-line-retry-key"));
    assert_eq!(h.line.accepted_pushes().len(), 1);
}

#[tokio::test]
async fn a_daily_reminder_line_refuses_once_keeps_its_next_time_and_comes_the_next_day() {
    let h = Harness::start().await;
    create(
        &h,
        in_dm(MOM),
        json!({"text": "吃維他命", "at": "2026-12-01T08:00", "repeat": "daily"}),
    )
    .await;
    h.line.set_push_mode(PushMode::RefuseTimes(1));
    h.set_clock("2026-12-01T00:00:00Z");
    let report = h.app.loops.reminders.tick().await.expect("tick");
    assert_eq!(report.failed, 1, "{report:?}");
    let rows = h.app.store.reminders().list(MOM).await.expect("list");
    assert_eq!(rows[0].status, hearth::store::ReminderStatus::Active, "not paused for good");
    h.set_clock("2026-12-02T00:00:00Z");
    let report = h.app.loops.reminders.tick().await.expect("tick");
    assert_eq!(report.sent, 1, "the next day's comes: {report:?}");
    assert!(h.line.accepted_pushes().iter().any(|p| p.body.to_string().contains("吃維他命")));
}

#[tokio::test]
async fn line_down_for_a_while_retries_later_with_the_same_key() {
    let h = Harness::start().await;
    create(&h, in_dm(MOM), json!({"text": "澆花", "in_minutes": 1})).await;
    h.line.set_push_mode(PushMode::ServerError);
    let report = h.advance_and_tick(SignedDuration::from_mins(1)).await;
    assert_eq!((report.sent, report.retrying), (0, 1));
    h.line.set_push_mode(PushMode::Ok);
    assert_eq!(h.advance_and_tick(SignedDuration::from_secs(30)).await.sent, 0, "backing off");
    assert_eq!(h.advance_and_tick(SignedDuration::from_secs(31)).await.sent, 1);
    let keys: std::collections::HashSet<String> = h
        .line
        .pushes()
        .iter()
        .filter_map(|p| p.header("x-line-retry-key").map(str::to_string))
        .collect();
    assert_eq!(keys.len(), 1, "every attempt carried the same key");
    assert_eq!(h.line.accepted_pushes().len(), 1);
}

#[tokio::test]
async fn a_crash_after_recording_the_delivery_is_finished_by_the_next_process_once() {
    let db = temp_db("crash-before-push");
    let h = Harness::start_with(|c| c.store.database_url = db.clone(), None).await;
    create(&h, in_dm(MOM), json!({"text": "接小孩", "in_minutes": 1})).await;
    h.clock.advance(SignedDuration::from_mins(1));
    // The first process claims the reminder and records the delivery, then dies before pushing.
    let (prepared, _) = h.app.loops.reminders.claim_and_prepare().await.expect("claim");
    assert_eq!(prepared.len(), 1);
    drop(prepared);
    let restarted = h.second_process(&db).await;
    assert_eq!(
        restarted.loops.reminders.tick().await.expect("tick").sent,
        0,
        "the lease still holds"
    );
    h.clock.advance(SignedDuration::from_mins(3));
    assert_eq!(restarted.loops.reminders.tick().await.expect("tick").sent, 1);
    assert_eq!(h.line.accepted_pushes().len(), 1);
}

#[tokio::test]
async fn a_crash_after_the_push_is_not_shown_twice() {
    let db = temp_db("crash-after-push");
    let h = Harness::start_with(|c| c.store.database_url = db.clone(), None).await;
    create(&h, in_dm(MOM), json!({"text": "接小孩", "in_minutes": 1})).await;
    h.clock.advance(SignedDuration::from_mins(1));
    // The first process pushes, then dies before moving the reminder on. The outbox recorded
    // what LINE accepted as it accepted it (a crash between the two is repeated with the same
    // retry key: LINE's 409 counts as delivered, tests/failures.rs).
    let (prepared, _) = h.app.loops.reminders.claim_and_prepare().await.expect("claim");
    h.app.loops.reminders.deliver(prepared).await;
    assert_eq!(h.line.accepted_pushes().len(), 1);
    h.clock.advance(SignedDuration::from_mins(3));
    let restarted = h.second_process(&db).await;
    assert_eq!(restarted.loops.reminders.tick().await.expect("tick").sent, 0, "recorded as sent");
    assert_eq!(h.line.pushes().len(), 1, "not pushed again");
    assert_eq!(h.line.accepted_pushes().len(), 1, "the family saw it once");
    assert_eq!(restarted.loops.reminders.tick().await.expect("tick").sent, 0);
}

#[tokio::test]
async fn after_downtime_only_the_latest_missed_occurrence_is_sent_with_a_note() {
    let h = Harness::start().await;
    create(&h, in_dm(MOM), json!({"text": "量血壓", "at": "2026-12-01T08:00", "repeat": "daily"}))
        .await;
    // Down from before the first occurrence until three days later, 10:00 Taipei.
    let report = h.advance_and_tick(SignedDuration::from_hours(12 + 24 * 3 + 2)).await;
    assert_eq!(report.sent, 1, "no backlog replay");
    let body = h.line.accepted_pushes()[0].body.to_string();
    assert!(body.contains("2026-12-04") && body.contains("晚了送到"), "{body}");
    let next = h.app.store.reminders().list(MOM).await.expect("list")[0].next_fire_at;
    assert_eq!(
        next,
        Some("2026-12-05T00:00:00Z".parse::<jiff::Timestamp>().expect("t").as_millisecond())
    );
}

#[tokio::test]
async fn a_reminder_refused_for_the_monthly_quota_comes_with_the_next_reply() {
    let h = Harness::start().await;
    create(&h, in_dm(MOM), json!({"text": "繳電費", "in_minutes": 1})).await;
    h.line.set_push_mode(PushMode::QuotaExhausted);
    let report = h.advance_and_tick(SignedDuration::from_mins(1)).await;
    assert_eq!((report.sent, report.failed, report.held), (0, 0, 1));
    assert_eq!(
        h.advance_and_tick(SignedDuration::from_hours(1)).await.held,
        0,
        "not retried forever"
    );
    h.llm.reply_text("你好");
    h.send(vec![h.dm(MOM, "嗨")]).await;
    let text = texts_of(&h.line.replies().last().expect("reply").body);
    assert!(text.starts_with("你錯過的提醒：\n• ⏰ 繳電費（11/30 20:01）"), "{text}");
    h.llm.reply_text("你好");
    h.send(vec![h.dm(MOM, "再嗨")]).await;
    assert!(!texts_of(&h.line.replies().last().expect("reply").body).contains("錯過"), "told once");
}

#[tokio::test]
async fn a_group_that_removes_hearth_loses_its_reminders_and_gets_no_push() {
    let h = Harness::start().await;
    create(
        &h,
        in_group(FAMILY, MOM),
        json!({"text": "倒垃圾", "in_minutes": 30, "repeat": "daily"}),
    )
    .await;
    create(&h, in_group(OTHER_GROUP, MOM), json!({"text": "澆花", "in_minutes": 30})).await;
    let mut leave = h.postback(json!({"type": "group", "groupId": FAMILY}), "unused");
    leave["type"] = json!("leave");
    leave.as_object_mut().map(|o| {
        o.remove("postback");
        o.remove("replyToken")
    });
    h.send(vec![leave]).await;
    assert!(h.app.store.reminders().list(FAMILY).await.expect("list").is_empty());
    assert_eq!(
        h.advance_and_tick(SignedDuration::from_mins(30)).await.sent,
        1,
        "only the other group's"
    );
    assert_eq!(h.line.accepted_pushes()[0].body["to"], OTHER_GROUP);
}
