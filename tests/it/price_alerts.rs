//! Price alerts end to end: created through the LLM, watched by the poller against the fake Yahoo
//! with the manual clock, pushed to the conversation once per real cross, managed by signed
//! postbacks that only work in their own conversation — and one upstream fetch per symbol per
//! tick however many conversations watch it.

use crate::common::harness::last_tool_result as tool_result;

use crate::common::harness::{
    FAMILY, Harness, MOM, OTHER_GROUP, in_dm, in_group, messages_of, postback_data, texts_of,
};
use crate::common::{Mode, PushMode, Route};
use hearth::features::price_alerts::ops::poller::TickReport;
use hearth::platform::clock::Clock;
use jiff::SignedDuration;
use serde_json::{Value, json};

/// hearth with the background poller off: the tests tick it themselves.
async fn start() -> Harness {
    Harness::start_with(|c| c.loops.price_poll_secs = 0, None).await
}

/// Sets `symbol`'s price with a provider timestamp of "now" on the harness clock.
fn quote(h: &Harness, symbol: &str, price: f64) {
    h.upstreams.set_price(symbol, price);
    h.upstreams.set_market_time(symbol, h.clock.now().as_second());
}

/// Moves the clock and runs one poller tick.
async fn tick(h: &Harness, by: SignedDuration) -> TickReport {
    h.clock.advance(by);
    h.app.loops.price_alerts.tick().await.expect("alert tick")
}

fn mins(m: i64) -> SignedDuration {
    SignedDuration::from_mins(m)
}

/// Calls `tool` through the fake LLM in `source` and returns the tool's result.
async fn call(h: &Harness, source: Value, tool: &str, args: Value) -> Value {
    let before = h.llm.requests().len();
    h.llm.reply_tool_calls(&[(tool, args)]);
    h.llm.reply_text("好的");
    let event = h.event(source, crate::common::harness::text_message("小幫手 價格通知"));
    h.send(vec![event]).await;
    tool_result(h, before + 1)
}

async fn create(h: &Harness, source: Value, args: Value) -> Value {
    call(h, source, "price_alert", args).await
}

#[tokio::test]
async fn an_alert_fires_once_when_the_price_crosses_its_level() {
    let h = start().await;
    quote(&h, "BTC-USD", 91_234.5);
    let result = create(
        &h,
        in_dm(MOM),
        json!({"symbol": "比特幣", "direction": "rises_to", "level": 100000}),
    )
    .await;
    assert_eq!(result["symbol"], "BTC-USD", "{result}");
    assert_eq!(result["already_past_level"], false);
    let confirmation = h.line.replies()[0].body.clone();
    assert!(confirmation.to_string().contains("價格通知已設定"), "{confirmation}");
    assert!(postback_data(&confirmation, "cancel_price_alert").is_some());

    let first = tick(&h, mins(0)).await;
    assert_eq!((first.symbols_due, first.fired), (1, 0));
    h.clock.advance(mins(10));
    quote(&h, "BTC-USD", 100_500.0);
    let report = tick(&h, mins(0)).await;
    assert_eq!((report.fired, report.sent), (1, 1), "{report:?}");
    let pushes = h.line.accepted_pushes();
    assert_eq!(pushes.len(), 1);
    let body = &pushes[0].body;
    assert_eq!(body["to"], MOM);
    let card = body.to_string();
    assert!(card.contains("100,500") && card.contains("漲到 100,000"), "{card}");
    assert!(postback_data(body, "cancel_price_alert").is_some());
    assert!(postback_data(body, "mute_price_alert").is_none(), "no mute on a once alert");
    assert!(pushes[0].header("x-line-retry-key").is_some());

    h.clock.advance(mins(10));
    quote(&h, "BTC-USD", 101_000.0);
    assert_eq!(tick(&h, mins(0)).await.fired, 0, "a once alert is done");
    assert_eq!(h.line.pushes().len(), 1);
    assert!(h.app.store.price_alerts().list(MOM).await.expect("list").is_empty());
}

#[tokio::test]
async fn an_every_time_alert_fires_again_only_after_a_real_re_cross_outside_the_cooldown() {
    let h = start().await;
    quote(&h, "BTC-USD", 99_000.0);
    create(
        &h,
        in_dm(MOM),
        json!({"symbol": "BTC-USD", "direction": "rises_to", "level": 100000, "frequency": "every_time"}),
    )
    .await;
    tick(&h, mins(0)).await;
    let step = |price: f64, by: i64| {
        let h = &h;
        async move {
            h.clock.advance(mins(by));
            quote(h, "BTC-USD", price);
            tick(h, mins(0)).await.fired
        }
    };
    assert_eq!(step(100_500.0, 2).await, 1, "first cross");
    assert_eq!(step(99_950.0, 1).await, 0, "back into the dead band");
    assert_eq!(step(100_500.0, 1).await, 0, "not re-armed: it never left the band");
    assert_eq!(step(99_000.0, 1).await, 0, "re-armed below the band");
    assert_eq!(step(100_500.0, 2).await, 0, "a real re-cross, but inside the hour's cooldown");
    assert_eq!(step(99_000.0, 1).await, 0);
    assert_eq!(step(99_000.0, 60).await, 0, "an hour later, still below");
    assert_eq!(step(100_600.0, 2).await, 1, "a real re-cross after the cooldown");
    let pushes = h.line.accepted_pushes();
    assert_eq!(pushes.len(), 2);
    assert_ne!(pushes[0].header("x-line-retry-key"), pushes[1].header("x-line-retry-key"));

    // 🔕 mutes it for a day; a cross in that time is not pushed.
    let mute = postback_data(&pushes[1].body, "mute_price_alert").expect("mute button");
    h.send(vec![h.postback(in_dm(MOM), &mute)]).await;
    assert!(texts_of(&h.line.replies().last().expect("reply").body).contains("不再通知"));
    assert_eq!(step(99_000.0, 61).await, 0);
    assert_eq!(step(100_500.0, 2).await, 0, "muted");
    assert_eq!(h.line.accepted_pushes().len(), 2);
}

#[tokio::test]
async fn a_price_hovering_at_the_level_fires_once() {
    let h = start().await;
    quote(&h, "BTC-USD", 99_000.0);
    create(
        &h,
        in_dm(MOM),
        json!({"symbol": "BTC-USD", "direction": "rises_to", "level": 100000, "frequency": "every_time"}),
    )
    .await;
    tick(&h, mins(0)).await;
    // Hovering around 100,000 for three hours, never leaving the 0.2 % band after the cross.
    let mut fired = 0;
    // Samples 30 minutes apart: each is due whatever the cadence.
    for price in [100_300.0, 99_900.0, 100_100.0, 99_850.0, 100_250.0, 99_950.0, 100_300.0] {
        h.clock.advance(mins(30));
        quote(&h, "BTC-USD", price);
        fired += tick(&h, mins(0)).await.fired;
    }
    assert_eq!(fired, 1);
    assert_eq!(h.line.accepted_pushes().len(), 1);
}

#[tokio::test]
async fn two_conversations_on_one_symbol_cost_one_upstream_fetch_per_tick() {
    let h = start().await;
    quote(&h, "BTC-USD", 91_234.5);
    create(&h, in_dm(MOM), json!({"symbol": "BTC", "direction": "rises_to", "level": 95000})).await;
    create(
        &h,
        in_group(FAMILY, MOM),
        json!({"symbol": "BTC-USD", "direction": "rises_to", "level": 96000}),
    )
    .await;
    assert_eq!(h.upstreams.hits(Route::Yahoo), 1, "the second creation used the shared cache");

    h.clock.advance(mins(10));
    quote(&h, "BTC-USD", 91_500.0);
    let report = tick(&h, mins(0)).await;
    assert_eq!((report.symbols_due, report.quotes), (1, 1));
    assert_eq!(h.upstreams.hits(Route::Yahoo), 2, "one fetch for both conversations");

    h.clock.advance(mins(10));
    quote(&h, "BTC-USD", 97_000.0);
    let report = tick(&h, mins(0)).await;
    assert_eq!(h.upstreams.hits(Route::Yahoo), 3);
    assert_eq!((report.fired, report.sent), (2, 2));
    let mut to: Vec<String> = h
        .line
        .accepted_pushes()
        .iter()
        .map(|p| p.body["to"].as_str().unwrap_or_default().to_string())
        .collect();
    to.sort();
    assert_eq!(to, vec![FAMILY.to_string(), MOM.to_string()]);
}

#[tokio::test]
async fn a_quote_source_429_delays_only_that_symbol() {
    let h = start().await;
    quote(&h, "BTC-USD", 91_234.5);
    quote(&h, "ETH-USD", 3_000.0);
    create(&h, in_dm(MOM), json!({"symbol": "BTC-USD", "direction": "rises_to", "level": 95000}))
        .await;
    create(&h, in_dm(MOM), json!({"symbol": "ETH-USD", "direction": "rises_to", "level": 3100}))
        .await;
    tick(&h, mins(0)).await;
    h.upstreams.set_symbol_mode("BTC-USD", Mode::RateLimited);
    h.clock.advance(mins(10));
    quote(&h, "BTC-USD", 96_000.0);
    quote(&h, "ETH-USD", 3_200.0);
    let report = tick(&h, mins(0)).await;
    assert_eq!((report.failed_fetches, report.quotes, report.fired), (1, 1, 1), "{report:?}");
    assert!(h.line.accepted_pushes()[0].body.to_string().contains("ETH-USD"));

    // BTC backs off for a minute; nothing is fetched before then.
    let hits = h.upstreams.hits(Route::Yahoo);
    assert_eq!(tick(&h, SignedDuration::from_secs(30)).await.symbols_due, 0);
    assert_eq!(h.upstreams.hits(Route::Yahoo), hits);
    h.upstreams.set_symbol_mode("BTC-USD", Mode::Normal);
    quote(&h, "BTC-USD", 96_000.0);
    let report = tick(&h, SignedDuration::from_secs(30)).await;
    assert_eq!((report.symbols_due, report.fired), (1, 1), "{report:?}");
    assert_eq!(h.line.accepted_pushes().len(), 2);
}

#[tokio::test]
async fn the_cancel_button_only_works_in_its_own_group() {
    let h = start().await;
    quote(&h, "BTC-USD", 91_234.5);
    create(
        &h,
        in_group(FAMILY, MOM),
        json!({"symbol": "BTC-USD", "direction": "falls_to", "level": 80000}),
    )
    .await;
    let cancel = postback_data(&h.line.replies()[0].body, "cancel_price_alert").expect("cancel");
    h.send(vec![h.postback(in_group(OTHER_GROUP, MOM), &cancel)]).await;
    assert!(texts_of(&h.line.replies().last().expect("reply").body).contains("不屬於這個聊天室"));
    assert_eq!(h.app.store.price_alerts().list(FAMILY).await.expect("list").len(), 1);
    h.send(vec![h.postback(in_group(FAMILY, MOM), &cancel)]).await;
    assert!(texts_of(&h.line.replies().last().expect("reply").body).contains("已取消價格通知"));
    assert!(h.app.store.price_alerts().list(FAMILY).await.expect("list").is_empty());
}

#[tokio::test]
async fn creating_an_alert_past_its_level_says_so_and_waits_for_a_fresh_cross() {
    let h = start().await;
    quote(&h, "BTC-USD", 91_234.5);
    let result = create(
        &h,
        in_dm(MOM),
        json!({"symbol": "BTC-USD", "direction": "rises_to", "level": 90000}),
    )
    .await;
    assert_eq!(result["already_past_level"], true, "{result}");
    assert!(result["note"].as_str().unwrap_or("").contains("already above"), "{result}");
    let card = messages_of(&h.line.replies()[0].body).last().cloned().unwrap_or_default();
    assert!(card.to_string().contains("下次重新穿越"), "{card}");

    let step = |price: f64| {
        let h = &h;
        async move {
            h.clock.advance(mins(10));
            quote(h, "BTC-USD", price);
            tick(h, mins(0)).await.fired
        }
    };
    assert_eq!(step(91_234.5).await, 0, "already above: no fire");
    assert_eq!(step(95_000.0).await, 0);
    assert_eq!(step(89_000.0).await, 0, "below: armed");
    assert_eq!(step(91_000.0).await, 1, "a fresh cross");
}

#[tokio::test]
async fn stale_quotes_and_closed_markets_never_trigger() {
    let h = start().await; // Monday 20:00 in Taipei: TWSE closed.
    quote(&h, "BTC-USD", 91_234.5);
    quote(&h, "2330.TW", 1_450.0);
    create(&h, in_dm(MOM), json!({"symbol": "BTC-USD", "direction": "rises_to", "level": 95000}))
        .await;
    create(&h, in_dm(MOM), json!({"symbol": "台積電", "direction": "rises_to", "level": 1500}))
        .await;
    let hits = h.upstreams.hits(Route::Yahoo);
    let report = tick(&h, mins(0)).await;
    assert_eq!(report.closed, 1, "{report:?}");

    // The provider's timestamp is an hour old: the cross is not acted on.
    h.clock.advance(mins(10));
    h.upstreams.set_price("BTC-USD", 96_000.0);
    h.upstreams.set_market_time("BTC-USD", h.clock.now().as_second() - 3600);
    assert_eq!(tick(&h, mins(0)).await.fired, 0);
    assert_eq!(h.upstreams.hits(Route::Yahoo), hits + 1, "2330.TW not fetched while closed");
    h.clock.advance(mins(10));
    quote(&h, "BTC-USD", 96_000.0);
    assert_eq!(tick(&h, mins(0)).await.fired, 1, "fresh now");

    // Tuesday 09:00 in Taipei: the session opens and TSMC is fetched.
    h.clock.set("2026-12-01T01:00:00Z".parse().expect("instant"));
    quote(&h, "2330.TW", 1_520.0);
    let report = tick(&h, mins(0)).await;
    assert_eq!(report.fired, 1, "{report:?}");
    assert!(h.line.accepted_pushes()[1].body.to_string().contains("2330.TW"));
}

#[tokio::test]
async fn bad_input_is_refused_and_changes_nothing() {
    let h = start().await;
    quote(&h, "BTC-USD", 91_234.5);
    let err = |v: &Value| v["error"]["kind"].as_str().unwrap_or("").to_string();
    let unknown =
        create(&h, in_dm(MOM), json!({"symbol": "ZZZZ", "direction": "rises_to", "level": 10}))
            .await;
    assert_eq!(err(&unknown), "not_found", "{unknown}");
    for level in [json!(-5), json!(0), json!(2e9), json!(1_000_000)] {
        let bad = create(
            &h,
            in_dm(MOM),
            json!({"symbol": "BTC-USD", "direction": "rises_to", "level": level}),
        )
        .await;
        assert_eq!(err(&bad), "invalid_arguments", "{level}: {bad}");
    }
    let ok = create(
        &h,
        in_dm(MOM),
        json!({"symbol": "BTC-USD", "direction": "rises_to", "level": 95000}),
    )
    .await;
    let id = ok["id"].as_i64().expect("id");
    let dup =
        create(&h, in_dm(MOM), json!({"symbol": "BTC", "direction": "rises_to", "level": 95000}))
            .await;
    assert_eq!(err(&dup), "invalid_arguments", "{dup}");
    assert!(dup["error"]["message"].as_str().unwrap_or("").contains("already"));

    // Another conversation can neither see nor cancel it.
    let by_id = json!({"action": "cancel", "id": id, "symbol": null});
    let other = call(&h, in_group(FAMILY, MOM), "price_alerts", by_id).await;
    assert_eq!(err(&other), "not_found", "{other}");
    let show = json!({"action": "show", "id": null, "symbol": null});
    let listed = call(&h, in_group(FAMILY, MOM), "price_alerts", show.clone()).await;
    assert_eq!(listed["alerts"], json!([]));
    assert_eq!(h.app.store.price_alerts().list(MOM).await.expect("list").len(), 1);

    // Its own conversation lists it and cancels it by symbol.
    let listed = call(&h, in_dm(MOM), "price_alerts", show).await;
    assert_eq!(listed["alerts"][0]["id"], id);
    let by_symbol = json!({"action": "cancel", "id": null, "symbol": "比特幣"});
    let cancelled = call(&h, in_dm(MOM), "price_alerts", by_symbol).await;
    assert_eq!(cancelled["cancelled"][0]["id"], id, "{cancelled}");
    assert!(h.app.store.price_alerts().list(MOM).await.expect("list").is_empty());
}

#[tokio::test]
async fn a_fire_refused_for_the_monthly_quota_comes_with_the_next_reply_and_a_removed_chat_loses_its_alerts()
 {
    let h = start().await;
    quote(&h, "BTC-USD", 91_234.5);
    create(&h, in_dm(MOM), json!({"symbol": "BTC-USD", "direction": "rises_to", "level": 95000}))
        .await;
    create(
        &h,
        in_group(FAMILY, MOM),
        json!({"symbol": "BTC-USD", "direction": "falls_to", "level": 85000}),
    )
    .await;
    h.line.set_push_mode(PushMode::QuotaExhausted);
    h.clock.advance(mins(10));
    quote(&h, "BTC-USD", 96_000.0);
    let report = tick(&h, mins(0)).await;
    assert_eq!((report.fired, report.held, report.retrying), (1, 1, 0), "{report:?}");
    h.line.set_push_mode(PushMode::Ok);
    assert_eq!(tick(&h, mins(10)).await.sent, 0, "a quota miss is not retried");
    h.llm.reply_text("好的");
    h.send(vec![h.dm(MOM, "嗨")]).await;
    let text = texts_of(&h.line.replies().last().expect("reply").body);
    assert!(text.starts_with("你錯過的提醒：") && text.contains("Bitcoin"), "{text}");

    let removed = h.app.store.forget_conversation(FAMILY).await.expect("forget");
    assert_eq!(removed.alerts, 1);
    assert!(h.app.store.price_alerts().list(FAMILY).await.expect("list").is_empty());
    assert_eq!(h.app.store.price_alerts().list(MOM).await.expect("list").len(), 0, "MOM's fired");
}
