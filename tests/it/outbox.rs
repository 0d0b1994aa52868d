//! The per-chat outbox end to end, against the fake LINE API on the manual clock: a reminder, a
//! price-alert fire and the digest due for one group within the window go in one push request
//! (the group is charged once); a digest held by quiet hours goes with the alert fires held with
//! it when they end; a personal alert routed to its person's 1:1 chat follows that chat's quiet
//! hours; a quota `429` after LINE accepted one request of a chat's batch holds only the rest
//! (what was accepted is never sent again, the rest comes with the next reply). Runs on SQLite,
//! and on PostgreSQL with `HEARTH_TEST_BACKEND=postgres`.

use crate::common::PushMode;
use crate::common::harness::{DAD, FAMILY, Harness, MOM, in_dm, in_group, texts_of};
use hearth::store::DigestStatus;
use jiff::SignedDuration;
use serde_json::{Value, json};

fn pushes_to(h: &Harness, to: &str) -> Vec<crate::common::Recorded> {
    h.line.accepted_pushes().into_iter().filter(|p| p.body["to"] == to).collect()
}

fn cards_of(body: &Value) -> usize {
    crate::common::harness::messages_of(body)
        .iter()
        .map(|m| match m["contents"]["type"].as_str() {
            Some("carousel") => m["contents"]["contents"].as_array().map_or(0, Vec::len),
            _ => 1,
        })
        .sum()
}

#[tokio::test]
async fn a_reminder_an_alert_fire_and_the_digest_due_together_for_a_group_go_in_one_push() {
    let h = Harness::start_with(
        |c| {
            c.loops.price_poll_secs = 0;
            c.push.outbox_window_secs = 3;
        },
        None,
    )
    .await; // 2026-11-30 20:00 in Taipei
    h.line.set_chat_size(FAMILY, 5);
    h.quote("BTC-USD", 99_000.0);
    let group = || in_group(FAMILY, MOM);
    let digest = h
        .call_tool(
            group(),
            "小幫手 每天八點摘要",
            "digest",
            json!({"time": "08:00", "place": "台北"}),
        )
        .await;
    assert!(digest.get("error").is_none(), "{digest}");
    let reminder = json!({"text": "倒垃圾", "at": "2026-12-01T08:00", "everyone": true});
    let created = h.call_tool(group(), "小幫手 明天八點提醒大家倒垃圾", "reminder", reminder).await;
    assert!(created["id"].is_i64(), "{created}");
    let alert =
        json!({"symbol": "BTC-USD", "direction": "rises_to", "level": 100000, "everyone": true});
    let created = h.call_tool(group(), "小幫手 比特幣到十萬通知大家", "price_alert", alert).await;
    assert!(created["id"].is_i64(), "{created}");
    h.app.loops.price_alerts.tick().await.expect("tick");
    h.line.clear();

    h.set_clock("2026-12-01T00:00:00Z"); // 08:00
    h.quote("BTC-USD", 100_500.0);
    let reminders = h.app.loops.reminders.tick().await.expect("reminders");
    let alerts = h.app.loops.price_alerts.tick().await.expect("alerts");
    let digests = h.app.loops.digests.tick().await.expect("digests");
    assert_eq!((reminders.sent, reminders.queued), (0, 1), "{reminders:?}");
    assert_eq!((alerts.fired, alerts.sent, alerts.queued), (1, 0, 1), "{alerts:?}");
    assert_eq!((digests.sent, digests.held), (0, 1), "{digests:?}");
    assert!(h.line.pushes().is_empty(), "waiting for the window");

    h.clock.advance(SignedDuration::from_secs(3));
    // The sender (this call, or the server's own loop if it comes first).
    h.app.loops.outbox.flush_due().await.expect("outbox");
    let pushes = pushes_to(&h, FAMILY);
    assert_eq!(pushes.len(), 1, "one request for the three");
    assert_eq!(cards_of(&pushes[0].body), 3);
    let body = pushes[0].body.to_string();
    assert!(body.contains("倒垃圾") && body.contains("100,500"), "{body}");
    assert_eq!(h.line.quota_used(), 5, "the group is charged once");
    assert_eq!(
        h.app.store.digests().status(FAMILY, "2026-12-01").await.expect("status"),
        Some(DigestStatus::Sent),
        "the outbox records the outcome on the digest's day"
    );
    assert!(h.app.loops.outbox.flush_due().await.expect("outbox").is_empty(), "nothing twice");
    assert_eq!(h.app.store.outbox().pending().await.expect("pending"), 0);
}

#[tokio::test]
async fn a_digest_held_by_quiet_hours_goes_with_the_held_alerts_when_they_end() {
    let h = Harness::start_with(|c| c.loops.price_poll_secs = 0, None).await;
    let dm = || in_dm(MOM);
    h.call_tool(
        dm(),
        "小幫手 晚上十點到早上七點不要吵",
        "quiet_hours",
        json!({"start": "22:00", "end": "07:00"}),
    )
    .await;
    h.call_tool(dm(), "小幫手 每天五點摘要", "digest", json!({"time": "05:00", "place": "台北"}))
        .await;
    h.quote("BTC-USD", 99_000.0);
    let alert = json!({"symbol": "BTC-USD", "direction": "rises_to", "level": 100000});
    h.call_tool(dm(), "小幫手 比特幣到十萬通知我", "price_alert", alert).await;
    h.app.loops.price_alerts.tick().await.expect("tick");
    h.line.clear();

    h.set_clock("2026-11-30T15:30:00Z"); // 23:30
    h.quote("BTC-USD", 100_500.0);
    assert_eq!(h.app.loops.price_alerts.tick().await.expect("tick").fired, 1);
    h.set_clock("2026-11-30T21:00:00Z"); // 05:00
    let early = h.app.loops.digests.tick().await.expect("tick");
    assert_eq!((early.sent, early.held), (0, 1), "{early:?}");
    assert!(h.line.pushes().is_empty(), "both held");

    h.set_clock("2026-11-30T23:00:00Z"); // 07:00
    let morning = h.app.loops.digests.tick().await.expect("tick");
    assert_eq!(morning.sent, 1, "{morning:?}");
    let pushes = pushes_to(&h, MOM);
    assert_eq!(pushes.len(), 1, "the digest and the alert together");
    assert_eq!(cards_of(&pushes[0].body), 2);
    assert!(pushes[0].body.to_string().contains("100,500"));
    assert_eq!(h.app.loops.price_alerts.tick().await.expect("tick").sent, 0, "already delivered");
    assert_eq!(h.line.accepted_pushes().len(), 1);
}

#[tokio::test]
async fn a_personal_alert_routed_to_a_1to1_chat_follows_that_chat_s_quiet_hours() {
    let h = Harness::start_with(|c| c.loops.price_poll_secs = 0, None).await;
    h.line.set_chat_size(FAMILY, 5);
    h.line.set_profile(DAD, "爸爸");
    // Dad's own chat with hearth is quiet at night; the family group is not.
    h.call_tool(
        in_dm(DAD),
        "小幫手 晚上十點到早上七點不要吵",
        "quiet_hours",
        json!({"start": "22:00", "end": "07:00"}),
    )
    .await;
    h.quote("ETH-USD", 3_400.0);
    let alert = json!({"symbol": "ETH-USD", "direction": "rises_to", "level": 3500});
    let created =
        h.call_tool(in_group(FAMILY, DAD), "小幫手 以太幣到3500通知我", "price_alert", alert).await;
    assert_eq!(created["delivered_privately"], true, "{created}");
    assert_eq!(created["quiet_hours_end"], "07:00", "the 1:1 chat's quiet hours: {created}");
    h.app.loops.price_alerts.tick().await.expect("tick");
    h.line.clear();

    h.set_clock("2026-11-30T15:30:00Z"); // 23:30
    h.quote("ETH-USD", 3_600.0);
    assert_eq!(h.app.loops.price_alerts.tick().await.expect("tick").fired, 1);
    assert!(h.line.pushes().is_empty(), "held for dad's quiet hours");
    h.set_clock("2026-11-30T23:00:00Z"); // 07:00
    assert_eq!(h.app.loops.price_alerts.tick().await.expect("tick").sent, 1);
    assert_eq!(pushes_to(&h, DAD).len(), 1);
    assert!(pushes_to(&h, FAMILY).is_empty());
}

#[tokio::test]
async fn a_quota_429_after_an_accepted_request_holds_only_the_rest() {
    let h = Harness::start().await;
    h.line.set_quota(Some(200));
    h.app.quota.refresh().await;
    for (text, at) in
        [("吃藥", "2026-11-30T20:30"), ("量血壓", "2026-11-30T20:30"), ("喝水", "2026-11-30T20:31")]
    {
        h.call_tool(in_dm(MOM), "小幫手 提醒我", "reminder", json!({"text": text, "at": at})).await;
    }
    h.line.clear();
    // The first two are due together; LINE fails them with an unknown outcome (four 500s:
    // every quick retry), so they are tried again later as the same request.
    h.line.set_push_mode(PushMode::FailTimes(4));
    let first = h.advance_and_tick(SignedDuration::from_mins(30)).await;
    assert_eq!(first.retrying, 2, "{first:?}");
    let key =
        h.line.pushes().last().expect("attempted").header("x-line-retry-key").map(str::to_string);
    // LINE's month is nearly out (hearth has not read it since): one more message fits.
    h.line.set_quota_used(199);
    let second = h.advance_and_tick(SignedDuration::from_mins(1)).await;
    // The new one's tick pushes the chat's outbox: the earlier request first, then the new one.
    assert_eq!(second.held, 1, "{second:?}");
    let accepted = h.line.accepted_pushes();
    assert_eq!(accepted.len(), 1);
    assert_eq!(accepted[0].header("x-line-retry-key").map(str::to_string), key, "the same request");
    let body = accepted[0].body.to_string();
    assert!(body.contains("吃藥") && body.contains("量血壓") && !body.contains("喝水"), "{body}");
    // Next month: nothing accepted is sent again; the held one came with a reply.
    h.set_clock("2026-12-01T00:00:00Z");
    h.line.set_quota_used(0);
    h.app.quota.refresh().await;
    h.app.loops.reminders.tick().await.expect("tick");
    assert_eq!(h.line.accepted_pushes().len(), 1, "nothing duplicated");
    h.llm.reply_text("好的");
    h.send(vec![h.event(in_dm(MOM), crate::common::harness::text_message("小幫手 嗨"))]).await;
    let reply = texts_of(&h.line.replies().last().expect("reply").body);
    assert!(reply.contains("喝水"), "{reply}");
}

/// hearth with Mom's daily reminder to take her medicine at 20:30 (the clock at 20:00), and
/// nothing recorded of LINE yet.
async fn with_a_daily_reminder() -> Harness {
    let h = Harness::start().await;
    let daily = json!({"text": "吃藥", "at": "2026-11-30T20:30", "repeat": "daily"});
    let r = h.call_tool(in_dm(MOM), "小幫手 每天八點半提醒我吃藥", "reminder", daily).await;
    assert!(r.get("error").is_none(), "{r}");
    h.line.clear();
    h
}

#[tokio::test]
async fn a_push_refused_for_hearth_s_access_token_waits_for_the_fix_and_the_daily_reminder_goes_on()
{
    let h = with_a_daily_reminder().await;
    // The token was issued again in LINE's console: the one hearth holds now gets 401.
    h.line.set_valid_token("issued-again");
    let refused = h.advance_and_tick(SignedDuration::from_mins(30)).await;
    assert_eq!((refused.sent, refused.failed), (0, 0), "not sent, not given up: {refused:?}");
    assert!(h.line.accepted_pushes().is_empty());
    // Refused for an hour, past the half hour after which an attempt that may have reached
    // LINE is abandoned: these surely did not, and wait.
    for _ in 0..6 {
        h.advance_and_tick(SignedDuration::from_mins(10)).await;
        h.app.loops.outbox.flush_due().await.expect("outbox");
    }
    assert!(h.line.accepted_pushes().is_empty());
    let waiting = h.app.store.outbox().pending().await.expect("pending");
    assert_eq!(waiting, 1, "still waiting");
    // The operator puts the token hearth holds back in place: the same request goes.
    h.line.set_valid_token("test-access-token");
    h.advance_and_tick(SignedDuration::from_mins(2)).await;
    h.app.loops.outbox.flush_due().await.expect("outbox");
    let accepted = h.line.accepted_pushes();
    assert_eq!(accepted.len(), 1, "delivered once fixed");
    assert!(accepted[0].body.to_string().contains("吃藥"), "{}", accepted[0].body);
    // Not paused: the next day's is pushed too.
    h.set_clock("2026-12-01T12:30:00Z");
    h.app.loops.reminders.tick().await.expect("tick");
    h.app.loops.outbox.flush_due().await.expect("outbox");
    assert_eq!(h.line.accepted_pushes().len(), 2, "the next day's occurrence");
}

#[tokio::test]
async fn a_push_whose_outcome_stays_unknown_for_half_an_hour_is_told_with_the_next_reply_not_lost()
{
    let h = with_a_daily_reminder().await;
    // LINE answers 500: the attempt may or may not have reached it.
    h.line.set_push_mode(PushMode::ServerError);
    h.advance_and_tick(SignedDuration::from_mins(30)).await;
    assert_eq!(h.app.store.outbox().pending().await.expect("pending"), 1, "tried again later");
    // LINE answers again, but the attempt is over half an hour old.
    h.line.set_push_mode(PushMode::Ok);
    h.advance_and_tick(SignedDuration::from_mins(31)).await;
    h.app.loops.outbox.flush_due().await.expect("outbox");
    assert!(h.line.accepted_pushes().is_empty(), "never sent again: LINE may have delivered it");
    assert_eq!(h.app.store.outbox().pending().await.expect("pending"), 0);
    // Not lost: the next reply tells it.
    h.llm.reply_text("好的");
    h.send(vec![h.event(in_dm(MOM), crate::common::harness::text_message("小幫手 嗨"))]).await;
    let reply = texts_of(&h.line.replies().last().expect("reply").body);
    assert!(reply.contains("你錯過的提醒") && reply.contains("吃藥"), "{reply}");
    // And the daily reminder goes on: the next day's is pushed.
    h.set_clock("2026-12-01T12:30:00Z");
    h.app.loops.reminders.tick().await.expect("tick");
    h.app.loops.outbox.flush_due().await.expect("outbox");
    assert_eq!(h.line.accepted_pushes().len(), 1, "the next day's occurrence");
}

const TWO_SECONDS: std::time::Duration = std::time::Duration::from_secs(2);

#[tokio::test]
async fn a_request_accepted_by_a_process_that_died_before_recording_it_is_repeated_with_its_key_and_seen_once()
 {
    // A window, so the server's own loop leaves the item to the dead process until the clock moves.
    let h = Harness::start_with(|c| c.push.outbox_window_secs = 3, None).await;
    let now = h.now_ms();
    let payload = json!([{"type": "text", "text": "接小孩"}]).to_string();
    let occurrence = hearth::push::delivery::occurrence_key("reminder:1:1").to_string();
    let item = hearth::store::NewOutboxItem {
        conversation_id: MOM,
        target: MOM,
        kind: "reminder",
        occurrence: &occurrence,
        payload: &payload,
        silent: false,
        due_at: now,
    };
    // A process claims the item, fixes its request, LINE accepts it, and the process dies.
    let store = &h.app.store;
    store.outbox().record(&[item], now).await.expect("record");
    let claimed = store.outbox().claim("dead", MOM, now, now + 120_000, now).await.expect("claim");
    assert_eq!(claimed.len(), 1);
    let own_key = claimed[0].line_key.clone().expect("recorded with a key of its own");
    store.outbox().set_request("dead", claimed[0].id, &own_key).await.expect("request");
    let accepted = hearth::platform::tls::client_builder()
        .build()
        .expect("HTTP client")
        .post(format!("{}/v2/bot/message/push", h.line.url()))
        .bearer_auth("test-access-token")
        .header("X-Line-Retry-Key", &own_key)
        .json(
            &json!({"to": MOM, "messages": serde_json::from_str::<Value>(&payload).expect("json")}),
        )
        .send()
        .await
        .expect("push");
    assert_eq!(accepted.status().as_u16(), 200);

    assert!(
        h.app.loops.outbox.flush_due().await.expect("outbox").is_empty(),
        "the lease still holds"
    );
    h.clock.advance(SignedDuration::from_mins(3));
    // The sender: this call, or the server's own loop if it comes first. Whichever claims the
    // item first sends it; the other finds nothing to claim (claims are exclusive:
    // `outbox_store::of_many_processes_claiming_one_chat_at_the_same_instant_one_gets_its_items`).
    // Done when the item is settled, not after a guessed wait.
    h.app.loops.outbox.flush_due().await.expect("outbox");
    let deadline = std::time::Instant::now() + TWO_SECONDS * 5;
    while store.outbox().item(&occurrence).await.expect("item").expect("kept").status != "sent" {
        assert!(std::time::Instant::now() < deadline, "the item was never settled");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let pushes = h.line.pushes();
    assert!(pushes.len() >= 2, "the request was repeated: {}", pushes.len());
    assert!(
        pushes.iter().all(|p| p.header("x-line-retry-key") == Some(own_key.as_str())),
        "only this request was sent, always with its key"
    );
    assert!(pushes[1..].iter().all(|p| p.status == 409), "every repeat is answered 409");
    assert_eq!(h.line.accepted_pushes().len(), 1, "the family saw it once");
}

#[tokio::test]
async fn two_processes_flushing_one_chat_at_once_push_it_once() {
    let dir = crate::common::scratch_dir("hearth-outbox-replicas");
    let db = match std::env::var("HEARTH_TEST_BACKEND").as_deref() {
        Ok("postgres") => crate::common::db::harness_database().await,
        _ => format!("sqlite://{}", dir.join("hearth.db").display()),
    };
    let h = Harness::start_with(
        |c| {
            c.store.database_url = db.clone();
            c.push.outbox_window_secs = 3;
        },
        None,
    )
    .await;
    h.line.set_chat_size(FAMILY, 5);
    for text in ["倒垃圾", "收衣服", "關瓦斯"] {
        let args = json!({"text": text, "at": "2026-11-30T20:30", "everyone": true});
        h.call_tool(in_group(FAMILY, MOM), "小幫手 提醒大家", "reminder", args).await;
    }
    let store = hearth::store::Store::connect(&db).await.expect("second connection");
    let other = hearth::server::app::Hearth::with_tools(
        &h.config,
        h.clock.clone(),
        store,
        hearth::tools::registry,
    )
    .expect("second process");
    h.line.clear();
    h.set_clock("2026-11-30T12:30:00Z"); // 20:30
    assert_eq!(h.app.loops.reminders.tick().await.expect("tick").queued, 3);
    h.clock.advance(SignedDuration::from_secs(3));
    let (mine, theirs) =
        tokio::join!(h.app.loops.outbox.flush_due(), other.loops.outbox.flush_due());
    let settled = mine.expect("outbox").len() + theirs.expect("outbox").len();
    assert!(settled <= 3, "each item settled by one process (the server's loop may take some)");
    assert_eq!(h.line.pushes().len(), 1, "one request, by one process");
    assert_eq!(h.app.store.outbox().pending().await.expect("pending"), 0);
    assert_eq!(h.line.quota_used(), 5);
}

#[tokio::test]
async fn a_delivered_reminder_is_forgotten_after_the_retention_and_never_pushed_again() {
    let h = Harness::start().await; // HEARTH_DELIVERY_RETENTION_DAYS: 30
    h.call_tool(
        in_dm(MOM),
        "小幫手 提醒我",
        "reminder",
        json!({"text": "吃藥", "at": "2026-11-30T20:30"}),
    )
    .await;
    h.line.clear();
    assert_eq!(h.advance_and_tick(SignedDuration::from_mins(30)).await.sent, 1);
    let pushed = h.line.accepted_pushes();
    let sent_with = pushed[0].header("x-line-retry-key").expect("retry key").to_string();
    let at: jiff::Timestamp = "2026-11-30T12:30:00Z".parse().expect("20:30 in Taipei");
    let occurrence = format!("reminder:1:{}", at.as_millisecond());
    let key = hearth::push::delivery::occurrence_key(&occurrence).to_string();
    let item = h.app.store.outbox().item(&key).await.expect("item").expect("kept");
    assert_eq!(item.status, "sent");
    assert_eq!(item.line_key.as_deref(), Some(sent_with.as_str()), "sent with its stored key");
    assert_ne!(sent_with, key, "never the occurrence's name");

    h.clock.advance(SignedDuration::from_hours(24 * 29));
    assert_eq!(h.app.prune_settled_pushes().await.expect("prune"), 0, "29 days: kept");
    assert!(h.app.store.outbox().item(&key).await.expect("item").is_some());
    h.clock.advance(SignedDuration::from_hours(24 * 2));
    let pruned = h.app.prune_settled_pushes().await.expect("prune");
    assert_eq!(pruned, 2, "31 days: the outbox item and the occurrence's record");
    assert!(h.app.store.outbox().item(&key).await.expect("item").is_none());
    h.app.loops.reminders.tick().await.expect("tick");
    h.app.loops.outbox.flush_due().await.expect("outbox");
    assert_eq!(h.line.accepted_pushes().len(), 1, "nothing sent again");
}

#[tokio::test]
async fn a_409_for_a_key_hearth_never_sent_is_not_told_counted_and_comes_with_the_next_reply() {
    let h = Harness::start_with(|c| c.push.outbox_window_secs = 3, None).await;
    let now = h.now_ms();
    let payload = json!([{"type": "text", "text": "接小孩"}]).to_string();
    let occurrence = hearth::push::delivery::occurrence_key("reminder:7:1").to_string();
    let item = hearth::store::NewOutboxItem {
        conversation_id: MOM,
        target: MOM,
        kind: "reminder",
        occurrence: &occurrence,
        payload: &payload,
        silent: false,
        due_at: now,
    };
    let store = &h.app.store;
    store.outbox().record(&[item], now).await.expect("record");
    let key = store.outbox().item(&occurrence).await.expect("item").expect("kept").line_key;
    let key = key.expect("recorded with a key");
    // Someone else's request already used the key (LINE remembers it for 24 hours).
    let theirs = hearth::platform::tls::client_builder()
        .build()
        .expect("HTTP client")
        .post(format!("{}/v2/bot/message/push", h.line.url()))
        .bearer_auth("test-access-token")
        .header("X-Line-Retry-Key", &key)
        .json(&json!({"to": MOM, "messages": [{"type": "text", "text": "別人的訊息"}]}))
        .send()
        .await
        .expect("push");
    assert_eq!(theirs.status().as_u16(), 200);

    h.clock.advance(SignedDuration::from_secs(3));
    h.app.loops.outbox.flush_due().await.expect("outbox");
    let deadline = std::time::Instant::now() + TWO_SECONDS * 5;
    while store.outbox().item(&occurrence).await.expect("item").expect("kept").status == "pending" {
        assert!(std::time::Instant::now() < deadline, "the item was never settled");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let settled = store.outbox().item(&occurrence).await.expect("item").expect("kept");
    assert_eq!(settled.status, "held", "not counted as told: kept for the next reply");
    assert_eq!(h.line.accepted_pushes().len(), 1, "only the other request was delivered");
    let metrics = h.metrics_text().await;
    assert!(metrics.contains("hearth_retry_key_conflicts_total 1"), "{metrics}");
    h.llm.reply_text("早安");
    h.send(vec![h.event(in_dm(MOM), crate::common::harness::text_message("早"))]).await;
    let reply = h.line.replies().last().expect("a reply").body.to_string();
    assert!(
        reply.contains("接小孩") && reply.contains("早安"),
        "told with the next reply: {reply}"
    );
}

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("read src").flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("read a source file");
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
            let name = path.strip_prefix(root).unwrap_or(&path).display().to_string();
            out.push((name.replace('\\', "/"), text));
        }
    }
}

#[test]
fn no_retry_key_sent_to_line_is_derived_from_an_id() {
    // The only name-based UUIDs in hearth, each with why it may be: none is made from a row id
    // and sent to LINE, since ids come back after a restore and LINE drops a repeated key.
    let allowed = [
        // The identity of an occurrence (how a loop finds its record); never sent to LINE.
        "src/push/delivery/mod.rs",
        // LINE's own webhookEventId: unique across every chat and never reused by LINE, so a
        // re-run of the same event cannot answer (or apologise) twice.
        "src/turn/deliver.rs",
        "src/server/inbox/poison.rs",
        // A push made at once (the family page's private link), its key a fresh v4 made by the
        // caller for that one message.
        "src/push/quota/tracking.rs",
    ];
    let mut files = Vec::new();
    sources(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    assert!(files.len() > 50, "the sources were found");
    let mut derived = Vec::new();
    for (name, text) in &files {
        for (n, line) in text.lines().enumerate() {
            // A v5 UUID, or a key-making function fed a name (`retry_key(&format!("care:{id}"))`).
            let deriving = line.contains("new_v5(")
                || line.contains("retry_key(&")
                || (line.contains("Retry-Key") && line.contains("format!("));
            if deriving && !allowed.contains(&name.as_str()) {
                derived.push(format!("{name}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(derived.is_empty(), "retry keys derived from ids:\n{}", derived.join("\n"));
    let pushers: Vec<&str> = files
        .iter()
        .filter(|(_, text)| text.contains("push_with_retry("))
        .map(|(name, _)| name.as_str())
        .collect();
    for name in pushers {
        let from_stored = name == "src/push/delivery/outbox.rs" || name == "src/line/client.rs";
        assert!(
            from_stored || allowed.contains(&name),
            "{name} pushes to LINE: its key must be the outbox's stored random key"
        );
    }
}
