//! Quiet hours end to end: set and cancelled in Chinese and English through the fake LLM; a
//! price alert firing at night is held and delivered when quiet hours end (the alert's
//! confirmation says it will wait); a reminder set for a time inside them still fires then; a
//! digest set inside them waits for their end; another chat is not held; bad input changes
//! nothing. On a manual clock across midnight in Taipei. Runs on SQLite, and on PostgreSQL with
//! `HEARTH_TEST_BACKEND=postgres`.

use crate::common::harness::{DAD, Harness, MOM, in_dm};
use serde_json::json;

async fn start() -> Harness {
    Harness::start_with(|c| c.loops.price_poll_secs = 0, None).await // 2026-11-30 20:00 in Taipei
}

async fn night(h: &Harness, who: &str) {
    let set = h
        .call_tool(
            in_dm(who),
            "小幫手 晚上十點到早上七點不要吵",
            "quiet_hours",
            json!({"start": "22:00", "end": "7:00"}),
        )
        .await;
    assert_eq!(
        (set["start"].as_str(), set["end"].as_str()),
        (Some("22:00"), Some("07:00")),
        "{set}"
    );
}

#[tokio::test]
async fn an_alert_firing_at_night_is_held_and_delivered_when_quiet_hours_end() {
    let h = start().await;
    night(&h, MOM).await;
    h.quote("BTC-USD", 99_000.0);
    let alert = h
        .call_tool(
            in_dm(MOM),
            "小幫手 比特幣到十萬通知我",
            "price_alert",
            json!({"symbol": "BTC-USD", "direction": "rises_to", "level": 100000}),
        )
        .await;
    assert_eq!(alert["quiet_hours_end"], "07:00", "the confirmation knows it will wait: {alert}");
    let confirmation = h.line.replies().last().expect("reply").body.to_string();
    assert!(confirmation.contains("會等到 07:00 再通知"), "{confirmation}");
    h.app.loops.price_alerts.tick().await.expect("tick");
    h.line.clear();

    h.set_clock("2026-11-30T15:30:00Z"); // 23:30
    h.quote("BTC-USD", 100_500.0);
    let fired = h.app.loops.price_alerts.tick().await.expect("tick");
    assert_eq!(fired.fired, 1, "{fired:?}");
    assert!(h.line.pushes().is_empty(), "held at 23:30");
    h.set_clock("2026-11-30T18:00:00Z"); // 02:00, after midnight
    h.app.loops.price_alerts.tick().await.expect("tick");
    assert!(h.line.pushes().is_empty(), "still held at 02:00");
    h.set_clock("2026-11-30T23:00:00Z"); // 07:00
    let morning = h.app.loops.price_alerts.tick().await.expect("tick");
    assert_eq!(morning.sent, 1, "{morning:?}");
    assert_eq!(h.line.accepted_pushes().len(), 1);
    assert!(h.line.accepted_pushes()[0].body.to_string().contains("100,500"));
}

#[tokio::test]
async fn a_reminder_set_for_the_night_still_fires_at_its_time() {
    let h = start().await;
    night(&h, MOM).await;
    h.call_tool(
        in_dm(MOM),
        "小幫手 十一點提醒我吃藥",
        "reminder",
        json!({"text": "吃藥", "at": "2026-11-30T23:00"}),
    )
    .await;
    h.line.clear();
    h.set_clock("2026-11-30T15:00:00Z"); // 23:00
    assert_eq!(h.app.loops.reminders.tick().await.expect("tick").sent, 1);
    assert_eq!(h.line.accepted_pushes().len(), 1);
}

#[tokio::test]
async fn a_digest_set_inside_quiet_hours_waits_for_their_end() {
    let h = start().await;
    night(&h, MOM).await;
    h.call_tool(
        in_dm(MOM),
        "小幫手 每天五點摘要",
        "digest",
        json!({"time": "05:00", "place": "台北"}),
    )
    .await;
    h.line.clear();
    h.set_clock("2026-11-30T21:00:00Z"); // 05:00
    let early = h.app.loops.digests.tick().await.expect("tick");
    assert_eq!((early.sent, early.held), (0, 1), "{early:?}");
    h.set_clock("2026-11-30T22:59:00Z");
    assert_eq!(h.app.loops.digests.tick().await.expect("tick").sent, 0);
    h.set_clock("2026-11-30T23:00:00Z"); // 07:00
    assert_eq!(h.app.loops.digests.tick().await.expect("tick").sent, 1);
    assert_eq!(h.line.accepted_pushes().len(), 1);
}

#[tokio::test]
async fn another_chat_without_quiet_hours_is_not_held() {
    let h = start().await;
    night(&h, MOM).await;
    h.call_tool(
        in_dm(DAD),
        "小幫手 每天五點摘要",
        "digest",
        json!({"time": "05:00", "place": "台北"}),
    )
    .await;
    h.line.clear();
    h.set_clock("2026-11-30T21:00:00Z");
    assert_eq!(h.app.loops.digests.tick().await.expect("tick").sent, 1);
}

#[tokio::test]
async fn quiet_hours_are_cancelled_in_english_and_bad_windows_change_nothing() {
    let h = start().await;
    for args in
        [json!({"start": "22:00", "end": "22:00"}), json!({"start": "10pm", "end": "07:00"})]
    {
        let r = h.call_tool(in_dm(MOM), "be quiet at night", "quiet_hours", args.clone()).await;
        assert_eq!(r["error"]["kind"], "invalid_arguments", "{args} → {r}");
    }
    assert!(h.app.store.chats().quiet_hours(MOM).await.expect("store").is_none());
    let none = h
        .call_tool(
            in_dm(MOM),
            "you can message us at night again",
            "quiet_hours",
            json!({"off": true}),
        )
        .await;
    assert_eq!(none["error"]["kind"], "not_found");
    night(&h, MOM).await;
    let off = h
        .call_tool(
            in_dm(MOM),
            "you can message us at night again",
            "quiet_hours",
            json!({"off": true}),
        )
        .await;
    assert_eq!(off["off"], true, "{off}");
    h.call_tool(in_dm(MOM), "summary at 5", "digest", json!({"time": "05:00", "place": "Taipei"}))
        .await;
    h.set_clock("2026-11-30T21:00:00Z");
    assert_eq!(h.app.loops.digests.tick().await.expect("tick").sent, 1, "no longer held");
}

#[tokio::test]
async fn alerts_held_overnight_come_together_in_one_push_when_quiet_hours_end() {
    let h = start().await;
    night(&h, MOM).await;
    h.quote("BTC-USD", 99_000.0);
    h.quote("ETH-USD", 3_000.0);
    for (symbol, level) in [("BTC-USD", 100_000), ("ETH-USD", 3_500)] {
        let args = json!({"symbol": symbol, "direction": "rises_to", "level": level});
        h.call_tool(in_dm(MOM), "小幫手 價格通知", "price_alert", args).await;
    }
    h.app.loops.price_alerts.tick().await.expect("tick");
    h.line.clear();
    h.set_clock("2026-11-30T15:30:00Z"); // 23:30
    h.quote("BTC-USD", 100_500.0);
    h.app.loops.price_alerts.tick().await.expect("tick");
    h.set_clock("2026-11-30T19:00:00Z"); // 03:00
    h.quote("ETH-USD", 3_600.0);
    h.app.loops.price_alerts.tick().await.expect("tick");
    assert!(h.line.pushes().is_empty(), "both held");
    h.set_clock("2026-11-30T23:00:00Z"); // 07:00
    h.quote("BTC-USD", 100_600.0);
    h.quote("ETH-USD", 3_650.0);
    let morning = h.app.loops.price_alerts.tick().await.expect("tick");
    assert_eq!(morning.sent, 2, "{morning:?}");
    let pushes = h.line.accepted_pushes();
    assert_eq!(pushes.len(), 1, "delivered together");
    let body = pushes[0].body.to_string();
    assert!(body.contains("100,500") && body.contains("3,600"), "{body}");
}

#[tokio::test]
async fn quiet_hours_asked_for_without_times_are_ten_at_night_to_seven_in_the_morning() {
    let h = Harness::start().await;
    let set = h.call_tool(in_dm(MOM), "小幫手 晚上不要吵我們", "quiet_hours", json!({})).await;
    assert_eq!(
        (set["start"].as_str(), set["end"].as_str()),
        (Some("22:00"), Some("07:00")),
        "{set}"
    );
    let row = h.app.store.chats().quiet_hours(MOM).await.expect("store").expect("kept");
    assert_eq!((row.start_local.as_str(), row.end_local.as_str()), ("22:00", "07:00"));
}

#[tokio::test]
async fn changing_one_end_of_the_quiet_hours_keeps_the_other() {
    let h = Harness::start().await;
    let both = json!({"start": "21:30", "end": "06:00"});
    h.call_tool(in_dm(MOM), "小幫手 九點半到六點不要吵", "quiet_hours", both).await;
    let later = json!({"start": "23:00", "end": null});
    let set = h.call_tool(in_dm(MOM), "小幫手 改成十一點開始", "quiet_hours", later).await;
    assert_eq!(
        (set["start"].as_str(), set["end"].as_str()),
        (Some("23:00"), Some("06:00")),
        "{set}"
    );
}
