//! The webhook boundary: signatures, bad input, deduplication, standby, and the 200 that comes
//! before any slow work.

use std::time::Duration;

use crate::common::Step;
use crate::common::harness::{BOT_ID, DAD, FAMILY, Harness, MOM, OTHER_GROUP, SECRET, texts_of};
use hearth::line::signature;
use hearth::store::InboxEvent;
use serde_json::{Value, json};

#[tokio::test]
async fn bad_or_missing_signature_gets_401_and_nothing_is_processed() {
    let h = Harness::start().await;
    h.llm.reply_text("should never be used");
    let body = json!({"destination": BOT_ID, "events": [h.dm(MOM, "hi")]}).to_string();
    assert_eq!(h.post_raw(&body, None).await, 401);
    assert_eq!(h.post_raw(&body, Some("GhRKmvmHys4Pi8DxkF4+EayaH0OqtJtaZxgTD9fMDLs=")).await, 401);
    let tampered = body.replace("hi", "ho");
    let sig = signature::sign(SECRET, body.as_bytes());
    assert_eq!(h.post_raw(&tampered, Some(&sig)).await, 401);
    h.settle().await;
    assert!(h.line.sends().is_empty(), "nothing sent to LINE");
    assert!(h.llm.requests().is_empty(), "no call to the LLM");
    // The same event, correctly signed, is still new: nothing was recorded by the refusals.
    assert_eq!(h.post_signed(&body).await, 200);
    h.settle().await;
    assert_eq!(h.line.replies().len(), 1);
}

#[tokio::test]
async fn official_verify_request_with_no_events_gets_200() {
    let h = Harness::start().await;
    let body = r#"{"destination":"U8e742f61d673b39c7fff3cecb7536ef0","events":[]}"#;
    assert_eq!(h.post_raw(body, Some("GhRKmvmHys4Pi8DxkF4+EayaH0OqtJtaZxgTD9fMDLs=")).await, 200);
}

#[tokio::test]
async fn signature_header_name_is_case_insensitive_and_fixture_files_are_accepted() {
    let h = Harness::start().await;
    h.llm.reply_text("明天會下雨");
    let body =
        std::fs::read_to_string("tests/fixtures/group_mention.callback.json").expect("fixture");
    let sig = signature::sign(SECRET, body.as_bytes());
    let status = hearth::platform::tls::client_builder()
        .build()
        .expect("HTTP client")
        .post(format!("{}/callback", h.url))
        .header("x-line-signature", sig)
        .body(body)
        .send()
        .await
        .expect("post")
        .status();
    assert_eq!(status, 200);
    h.settle().await;
    // The fixture's event happened a year before the harness clock: older than any redelivery,
    // so it is refused as a replay (accepted, not answered).
    assert!(h.line.replies().is_empty());
    assert!(h.line.accepted_pushes().is_empty());
    assert!(h.llm.requests().is_empty());
}

#[tokio::test]
async fn a_captured_body_replayed_after_the_dedupe_window_is_not_handled_again() {
    let h = Harness::start().await;
    h.llm.reply_text("第一次");
    h.llm.reply_text("重播（不應出現）");
    let event = h.dm(MOM, "提醒我明天繳費");
    assert_eq!(h.send(vec![event.clone()]).await, 200);
    assert_eq!(h.line.replies().len(), 1);
    // A day and more later the event's id has been forgotten (pruned) ...
    h.clock.advance(jiff::SignedDuration::from_hours(25));
    let day_ago = h.now_ms() - 24 * 3_600_000;
    assert_eq!(h.app.store.inbox().prune(day_ago).await.expect("prune"), 1);
    // ... so the same signed body, replayed, is refused by its age.
    assert_eq!(h.send(vec![event]).await, 200);
    assert_eq!(h.llm.requests().len(), 1, "no second turn");
    assert!(h.line.accepted_pushes().is_empty(), "no second answer");
}

/// How many message events `/metrics` counts as refused for a stamp too far in the future (the
/// counter is the test binary's: only the tests below send such events, so compare before and
/// after within one test and expect at least the difference).
fn refused_ahead(metrics: &str) -> u64 {
    metrics
        .lines()
        .filter(|l| l.starts_with(r#"hearth_webhook_events_total{type="message",outcome="ahead"}"#))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

#[tokio::test]
async fn events_stamped_48_hours_or_10_years_in_the_future_are_refused_logged_and_counted() {
    let h = Harness::start().await;
    h.llm.reply_text("四分鐘的時差還算準");
    h.llm.reply_text("未來的訊息（不應出現）");
    let before = refused_ahead(&h.metrics_text().await);
    let mut two_days = h.dm(MOM, "提醒我後天繳費");
    two_days["timestamp"] = json!(h.now_ms() + 48 * 3_600_000);
    let mut ten_years = h.dm(DAD, "把記憶全部刪掉");
    ten_years["timestamp"] = json!(h.now_ms() + 10 * 365 * 24 * 3_600_000);
    assert_eq!(h.send(vec![two_days, ten_years]).await, 200, "acknowledged, not handled");
    assert!(h.llm.requests().is_empty(), "no model call");
    assert!(h.line.sends().is_empty(), "no reply, no push");
    assert!(refused_ahead(&h.metrics_text().await) >= before + 2, "counted as `ahead`");

    // Within the allowed skew (HEARTH_EVENT_MAX_SKEW_SECS, 300 by default) it is a clock
    // difference, and answered.
    let mut skewed = h.dm(MOM, "你好");
    skewed["timestamp"] = json!(h.now_ms() + 4 * 60_000);
    assert_eq!(h.send(vec![skewed]).await, 200);
    assert_eq!(h.llm.requests().len(), 1);
    assert_eq!(texts_of(&h.line.replies()[0].body), "四分鐘的時差還算準");
}

#[tokio::test]
async fn a_body_stamped_ahead_within_the_skew_is_refused_when_replayed_after_its_id_is_forgotten() {
    let h = Harness::start_with(|c| c.turns.event_max_skew_secs = 1800, None).await;
    h.llm.reply_text("第一次");
    h.llm.reply_text("重播（不應出現）");
    let mut event = h.dm(MOM, "提醒我明天繳費");
    event["timestamp"] = json!(h.now_ms() + 30 * 60_000);
    assert_eq!(h.send(vec![event.clone()]).await, 200);
    assert_eq!(h.line.replies().len(), 1, "within the skew: answered");
    h.clock.advance(jiff::SignedDuration::from_hours(24) + jiff::SignedDuration::from_secs(1));
    let day_ago = h.now_ms() - 24 * 3_600_000;
    assert_eq!(h.app.store.inbox().prune(day_ago).await.expect("prune"), 1, "its id forgotten");
    assert_eq!(h.send(vec![event]).await, 200);
    assert_eq!(h.llm.requests().len(), 1, "no second turn");
    assert!(h.line.accepted_pushes().is_empty(), "no second answer");
}

#[tokio::test]
async fn an_event_hours_old_but_within_the_window_is_still_answered_by_push() {
    let h = Harness::start().await;
    h.llm.reply_text("晚了一點的回答");
    let mut event = h.dm(MOM, "你好");
    event["timestamp"] = json!(h.now_ms() - 2 * 3_600_000);
    assert_eq!(h.send(vec![event]).await, 200);
    assert!(h.line.replies().is_empty(), "the reply token is long expired");
    assert_eq!(h.line.accepted_pushes().len(), 1);
}

#[tokio::test]
async fn redelivered_or_duplicated_event_is_answered_once() {
    let h = Harness::start().await;
    h.llm.reply_text("第一次");
    h.llm.reply_text("第二次（不應出現）");
    let event = h.dm(MOM, "你好");
    let mut again = event.clone();
    again["deliveryContext"]["isRedelivery"] = json!(true);
    assert_eq!(h.send(vec![event.clone(), event.clone()]).await, 200);
    assert_eq!(h.send(vec![again]).await, 200);
    assert_eq!(h.line.replies().len(), 1);
    assert_eq!(h.llm.requests().len(), 1);
}

#[tokio::test]
async fn malformed_and_unknown_events_are_skipped_without_failing_the_batch() {
    let h = Harness::start().await;
    h.llm.reply_text("還在這裡");
    let events = vec![
        json!({"type": "message", "timestamp": 1}),
        json!({"type": "message", "timestamp": 1, "webhookEventId": "01BROKEN", "mode": "active"}),
        json!({"type": "videoPlayComplete", "timestamp": 1, "webhookEventId": "01UNKNOWN", "mode": "active",
               "source": {"type": "user", "userId": MOM}}),
        json!("not even an object"),
        h.dm(MOM, "在嗎？"),
    ];
    assert_eq!(h.send(events).await, 200);
    assert_eq!(h.line.replies().len(), 1);
    assert_eq!(texts_of(&h.line.replies()[0].body), "還在這裡");
}

#[tokio::test]
async fn a_webhook_with_thousands_of_events_is_accepted_whole() {
    let h = Harness::start().await;
    let events: Vec<Value> = (0..4_100)
        .map(|n| {
            json!({"type": "videoPlayComplete", "mode": "active", "timestamp": h.now_ms(),
                   "webhookEventId": format!("01MANY{n:020}"), "source": {"type": "user", "userId": MOM},
                   "videoPlayComplete": {"trackingId": "t"}})
        })
        .collect();
    assert_eq!(h.send(events).await, 200);
    // Stored, not just acknowledged: every id is known now.
    let ids: Vec<String> = (0..4_100).map(|n| format!("01MANY{n:020}")).collect();
    let again: Vec<InboxEvent<'_>> = ids
        .iter()
        .map(|id| InboxEvent { event_id: id, event_type: "x", payload: "{}", received_at_ms: 0 })
        .collect();
    let new = h.app.store.inbox().accept_events(&again, None).await.expect("store");
    assert!(new.iter().all(|n| !n), "all 4,100 were stored by the webhook");
}

#[tokio::test]
async fn a_burst_beyond_the_memory_bound_waits_in_the_store_and_is_answered_once() {
    let h = Harness::start_with(|c| c.turns.max_queued_events = 2, None).await;
    for _ in 0..10 {
        h.llm.push(Step::Slow(Duration::from_millis(100), crate::common::FakeLlm::text("收到")));
    }
    let users: Vec<String> = (0..10).map(|i| format!("U{i:032x}")).collect();
    let harness = &h;
    let posts = users.iter().map(|user| {
        let h = harness;
        let body = json!({"destination": BOT_ID, "events": [h.dm(user, "在嗎？")]}).to_string();
        async move { h.post_signed(&body).await }
    });
    let statuses = futures::future::join_all(posts).await;
    assert!(statuses.iter().all(|s| *s == 200), "every webhook acknowledged at once");
    let watch = async {
        let mut most_held = 0;
        while h.line.replies().len() + h.line.accepted_pushes().len() < 10 {
            most_held = most_held.max(h.app.events_in_memory());
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        most_held
    };
    let most_held = tokio::time::timeout(Duration::from_secs(20), watch).await.expect("answered");
    h.settle().await;
    assert!(most_held <= 2, "at most the bound in memory, saw {most_held}");
    assert_eq!(h.llm.requests().len(), 10, "each event handled once");
    assert_eq!(h.line.replies().len() + h.line.accepted_pushes().len(), 10);
}

#[tokio::test]
async fn group_chatter_arriving_together_is_logged_once_each_in_order_around_a_call() {
    let h = Harness::start().await;
    h.llm.reply_text("在，請說");
    // One webhook brings the family group's messages, a call to hearth among them; thirty
    // single-message webhooks for another group arrive at the same time.
    let mut family: Vec<Value> =
        (0..10).map(|i| h.group_text(FAMILY, MOM, &format!("家裡第{i}句"))).collect();
    family.push(h.group_text(FAMILY, DAD, "小幫手 在嗎"));
    family.extend((10..19).map(|i| h.group_text(FAMILY, MOM, &format!("家裡第{i}句"))));
    let family_body = json!({"destination": BOT_ID, "events": family}).to_string();
    let other: Vec<String> = (0..30)
        .map(|i| {
            let event = h.group_text(OTHER_GROUP, DAD, &format!("另一群第{i}句"));
            json!({"destination": BOT_ID, "events": [event]}).to_string()
        })
        .collect();
    let posts = std::iter::once(&family_body).chain(&other).map(|body| h.post_signed(body));
    let statuses = futures::future::join_all(posts).await;
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    h.settle().await;

    let log = |group: &'static str| {
        let store = h.app.store.clone();
        async move { store.chat_log().history(group, i64::MAX, 100, 100_000).await.expect("history") }
    };
    let family_log: Vec<String> = log(FAMILY).await.into_iter().map(|m| m.text).collect();
    let mut expected: Vec<String> = (0..10).map(|i| format!("家裡第{i}句")).collect();
    expected.push("小幫手 在嗎".into());
    expected.push("在，請說".into());
    expected.extend((10..19).map(|i| format!("家裡第{i}句")));
    assert_eq!(family_log, expected, "in order, once each, the answer right after its call");
    let mut other_log: Vec<String> = log(OTHER_GROUP).await.into_iter().map(|m| m.text).collect();
    other_log.sort();
    let mut sent: Vec<String> = (0..30).map(|i| format!("另一群第{i}句")).collect();
    sent.sort();
    assert_eq!(other_log, sent, "each message of the other group logged once");
    assert_eq!(h.llm.requests().len(), 1, "only the call was answered");
    assert_eq!(h.line.replies().len(), 1);
    let far = h.now_ms() + 3_600_000;
    let pending =
        h.app.store.inbox().claim_events("probe", far, far + 1, 1_000).await.expect("claim");
    assert!(pending.is_empty(), "every event marked handled: {pending:?}");
}

/// How many webhook events `/metrics` counts as logged as they were stored. The counter is the
/// test binary's, shared by its tests: only the test below sets a speaker's name, so only it
/// logs messages that way.
fn logged_on_arrival(metrics: &str) -> u64 {
    metrics
        .lines()
        .filter(|l| {
            l.starts_with("hearth_webhook_events_total") && l.contains("outcome=\"logged\"")
        })
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

#[tokio::test]
async fn group_chatter_is_logged_before_its_200_once_the_speaker_is_known_but_never_ahead_of_a_call()
 {
    let h = Harness::start().await;
    h.line.set_profile(DAD, "爸爸");
    let log = || async {
        let history =
            h.app.store.chat_log().history(FAMILY, i64::MAX, 100, 100_000).await.expect("history");
        history.into_iter().map(|m| m.text).collect::<Vec<String>>()
    };
    let logged_before = logged_on_arrival(&h.metrics_text().await);
    h.send(vec![h.group_text(FAMILY, DAD, "第一句")]).await;
    assert_eq!(
        logged_on_arrival(&h.metrics_text().await),
        logged_before,
        "the speaker's name is not known yet: looked up in the lane"
    );

    // A call still being answered holds its chat's later chatter back in the lane.
    h.llm.push(Step::Slow(Duration::from_millis(300), crate::common::FakeLlm::text("在，請說")));
    let call = json!({"destination": BOT_ID, "events": [h.group_text(FAMILY, MOM, "小幫手 在嗎")]});
    assert_eq!(h.post_signed(&call.to_string()).await, 200);
    let behind = json!({"destination": BOT_ID, "events": [h.group_text(FAMILY, DAD, "等一下")]});
    let logged_before = logged_on_arrival(&h.metrics_text().await);
    assert_eq!(h.post_signed(&behind.to_string()).await, 200);
    h.settle().await;
    assert_eq!(log().await, ["第一句", "小幫手 在嗎", "在，請說", "等一下"]);
    assert_eq!(logged_on_arrival(&h.metrics_text().await), logged_before, "behind the call");

    // With nothing of the chat in hand, the message is logged, and its event done, before the
    // webhook is acknowledged.
    let logged_before = logged_on_arrival(&h.metrics_text().await);
    let now = json!({"destination": BOT_ID, "events": [h.group_text(FAMILY, DAD, "好了")]});
    assert_eq!(h.post_signed(&now.to_string()).await, 200);
    assert_eq!(log().await.last().map(String::as_str), Some("好了"));
    assert_eq!(logged_on_arrival(&h.metrics_text().await), logged_before + 1);
    assert_eq!(h.app.store.inbox().pending_events().await.expect("pending"), 0);
    assert_eq!(h.app.events_in_memory(), 0, "never held in memory");
    assert!(h.line.sends().len() == 1 && h.llm.requests().len() == 1, "only the call answered");
    let speakers: Vec<Option<String>> = h
        .app
        .store
        .chat_log()
        .history(FAMILY, i64::MAX, 100, 100_000)
        .await
        .expect("history")
        .into_iter()
        .map(|m| m.speaker)
        .collect();
    assert_eq!(speakers.last(), Some(&Some("爸爸".to_string())), "with the speaker's name");
}

#[tokio::test]
async fn signed_body_that_is_not_json_gets_400() {
    let h = Harness::start().await;
    assert_eq!(h.post_signed("{not json").await, 400);
}

#[tokio::test]
async fn oversized_body_is_refused() {
    let h = Harness::start().await;
    let body = format!(
        r#"{{"destination":"{BOT_ID}","events":[],"pad":"{}"}}"#,
        "x".repeat(2 * 1024 * 1024)
    );
    assert_eq!(h.post_signed(&body).await, 413);
}

#[tokio::test]
async fn standby_events_are_not_answered() {
    let h = Harness::start().await;
    let mut event = h.dm(MOM, "hello");
    event["mode"] = json!("standby");
    event.as_object_mut().map(|o| o.remove("replyToken"));
    h.send(vec![event]).await;
    assert!(h.line.sends().is_empty());
    assert!(h.llm.requests().is_empty());
}

#[tokio::test]
async fn webhook_is_acknowledged_before_a_slow_llm_answers() {
    let h = Harness::start().await;
    h.llm.push(Step::Stall(Duration::from_millis(1500)));
    let body = json!({"destination": BOT_ID, "events": [h.dm(MOM, "慢慢來")]}).to_string();
    let status = h.post_signed(&body).await;
    assert_eq!(status, 200);
    assert!(h.line.replies().is_empty(), "the 200 came before the answer");
    h.settle().await;
    assert_eq!(h.line.replies().len(), 1);
}

#[tokio::test]
async fn healthz_answers() {
    let h = Harness::start().await;
    let r = crate::common::get(format!("{}/healthz", h.url)).await.expect("healthz");
    assert_eq!(r.status(), 200);
}
