//! Charts on cards end to end: with `HEARTH_PUBLIC_URL` set, the quote card carries the day's
//! (or the month's) chart as its Flex hero, the weather card the coming days, a fired price
//! alert the day with its level; hearth serves the PNG under an unguessable path until it
//! expires; a chart that cannot be drawn leaves the card as it was; many requests for one symbol
//! draw once. Without the setting, cards stay as they were.

use crate::common::Route;
use crate::common::harness::{FAMILY, Harness, MOM, in_dm, in_group, messages_of, text_message};
use hearth::contract::chart::{ChartSpec, Period};
use hearth::platform::clock::Clock;
use serde_json::{Value, json};

const PUBLIC: &str = "https://hearth.example";

async fn start() -> Harness {
    Harness::start_with(
        |c| {
            c.server.public_url = Some(PUBLIC.into());
            c.loops.price_poll_secs = 0;
        },
        None,
    )
    .await
}

/// Asks in a 1:1 chat for `tool` with `args`; returns the reply's Flex contents.
async fn card(h: &Harness, tool: &str, args: Value) -> Value {
    let before = h.line.replies().len();
    h.llm.reply_tool_calls(&[(tool, args)]);
    h.llm.reply_text("好的");
    h.send(vec![h.event(in_dm(MOM), text_message("小幫手 看一下"))]).await;
    let body = h.line.replies().get(before).map(|r| r.body.clone()).expect("a reply");
    flex_of(&body)
}

fn flex_of(body: &Value) -> Value {
    messages_of(body)
        .into_iter()
        .find(|m| m["type"] == "flex")
        .map(|m| m["contents"].clone())
        .expect("a Flex card")
}

/// The hero's URL of a bubble.
fn hero(bubble: &Value) -> Option<String> {
    bubble["hero"]["url"].as_str().map(str::to_string)
}

/// Fetches a published URL from hearth itself (LINE would fetch it at `HEARTH_PUBLIC_URL`).
async fn fetch(h: &Harness, url: &str) -> reqwest::Response {
    let path = url.strip_prefix(PUBLIC).expect("under the public URL");
    crate::common::get(format!("{}{path}", h.url)).await.expect("image request")
}

fn png_size(bytes: &[u8]) -> (u32, u32) {
    let reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().expect("a PNG");
    (reader.info().width, reader.info().height)
}

fn series_requests(h: &Harness) -> Vec<String> {
    let requests = h.upstreams.requests(Route::Yahoo);
    requests.into_iter().filter(|r| !r.contains("interval=1d&range=1d")).collect()
}

#[tokio::test]
async fn a_quote_card_carries_the_days_chart_served_by_hearth_as_a_png_of_the_stated_size() {
    let h = start().await;
    let bubble = card(&h, "get_quote", json!({"symbol": "台積電"})).await;
    let url = hero(&bubble).expect("a hero");
    assert!(url.starts_with("https://hearth.example/charts/") && url.ends_with(".png"), "{url}");
    let token = url.trim_start_matches("https://hearth.example/charts/").trim_end_matches(".png");
    assert!(token.len() >= 32, "unguessable: {token}");
    assert_eq!(bubble["hero"]["type"], "image");
    assert_eq!(series_requests(&h), ["/v8/finance/chart/2330.TW?interval=5m&range=1d"]);
    let response = fetch(&h, &url).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "image/png");
    let bytes = response.bytes().await.expect("body");
    assert_eq!(png_size(&bytes), (1024, 512));
    assert!(bytes.len() < 200 * 1024, "{} bytes", bytes.len());
}

#[tokio::test]
async fn asking_how_the_month_went_draws_the_month() {
    let h = start().await;
    let bubble = card(&h, "get_quote", json!({"symbol": "2330", "chart": "month"})).await;
    assert!(hero(&bubble).is_some());
    assert_eq!(series_requests(&h), ["/v8/finance/chart/2330.TW?interval=1d&range=1mo"]);
}

#[tokio::test]
async fn without_a_public_url_cards_stay_as_they_were_and_nothing_is_served() {
    let h = Harness::start().await;
    let bubble = card(&h, "get_quote", json!({"symbol": "2330"})).await;
    assert!(bubble.get("hero").is_none(), "{bubble}");
    assert!(series_requests(&h).is_empty(), "no series fetched");
    let response =
        crate::common::get(format!("{}/charts/0123456789abcdef0123456789abcdef.png", h.url))
            .await
            .expect("request");
    assert_eq!(response.status(), 404);
}

#[tokio::test]
async fn an_unknown_path_is_404_and_a_chart_expires_after_a_day() {
    let h = start().await;
    let url = hero(&card(&h, "get_quote", json!({"symbol": "2330"})).await).expect("a hero");
    for path in ["/charts/0123456789abcdef0123456789abcdef.png", "/charts/", "/charts/..%2Fx"] {
        let response = crate::common::get(format!("{}{path}", h.url)).await.expect("request");
        assert_eq!(response.status(), 404, "{path}");
    }
    h.clock.advance(jiff::SignedDuration::from_hours(23));
    assert_eq!(fetch(&h, &url).await.status(), 200, "still served the same day");
    h.clock.advance(jiff::SignedDuration::from_hours(2));
    assert_eq!(fetch(&h, &url).await.status(), 404, "expired");
}

#[tokio::test]
async fn a_chart_that_cannot_be_drawn_leaves_a_valid_card_without_a_picture() {
    let h = start().await;
    // A symbol with a single bar of history: nothing to draw a line through.
    h.upstreams.set_price("ZZZ-USD", 12.5);
    let bubble = card(&h, "get_quote", json!({"symbol": "ZZZ-USD"})).await;
    assert!(bubble.get("hero").is_none(), "{bubble}");
    assert!(bubble.to_string().contains("12.5"), "the card is still there: {bubble}");
    assert_eq!(h.app.published.charts.as_ref().map(|c| c.drawings()), Some(0));
}

#[tokio::test]
async fn a_busy_family_asking_for_one_symbol_gets_one_drawing() {
    let h = start().await;
    let first = hero(&card(&h, "get_quote", json!({"symbol": "2330"})).await).expect("a hero");
    let again = hero(&card(&h, "get_quote", json!({"symbol": "台積電"})).await).expect("a hero");
    assert_eq!(first, again, "the same picture");
    let charts = h.app.published.charts.clone().expect("charts on");
    let spec = ChartSpec::Price { symbol: "2330.TW".into(), period: Period::Day, level: None };
    let tz = jiff::tz::TimeZone::get("Asia/Taipei").expect("zone");
    let at_once = futures::future::join_all((0..20).map(|_| charts.url(&spec, &tz))).await;
    assert!(at_once.iter().all(|u| u.as_deref() == Some(first.as_str())), "{at_once:?}");
    assert_eq!(charts.drawings(), 1);
    assert_eq!(series_requests(&h).len(), 1);
}

#[tokio::test]
async fn many_requests_at_once_for_a_new_chart_wait_for_one_drawing() {
    let h = start().await;
    let charts = h.app.published.charts.clone().expect("charts on");
    let spec = ChartSpec::Price { symbol: "AAPL".into(), period: Period::Month, level: None };
    let tz = jiff::tz::TimeZone::get("Asia/Taipei").expect("zone");
    let at_once = futures::future::join_all((0..20).map(|_| charts.url(&spec, &tz))).await;
    assert!(at_once[0].is_some());
    assert!(at_once.iter().all(|u| u == &at_once[0]), "{at_once:?}");
    assert_eq!(charts.drawings(), 1);
    assert_eq!(series_requests(&h).len(), 1);
}

#[tokio::test]
async fn the_weather_card_carries_the_coming_days() {
    let h = start().await;
    let bubble = card(&h, "weather", json!({"location": "台北", "days": 5})).await;
    let url = hero(&bubble).expect("a hero");
    let bytes = fetch(&h, &url).await.bytes().await.expect("body");
    assert_eq!(png_size(&bytes), (1024, 512));
}

#[tokio::test]
async fn a_fired_alert_carries_the_day_with_its_level() {
    let h = start().await;
    let fresh = |h: &Harness, price: f64| {
        h.upstreams.set_price("BTC-USD", price);
        h.upstreams.set_market_time("BTC-USD", h.clock.now().as_second());
    };
    fresh(&h, 91_234.5);
    h.llm.reply_tool_calls(&[(
        "price_alert",
        json!({"symbol": "BTC-USD", "direction": "rises_to", "level": 92000}),
    )]);
    h.llm.reply_text("好的");
    h.send(vec![h.event(in_group(FAMILY, MOM), text_message("小幫手 比特幣到92000通知我"))]).await;
    h.app.loops.price_alerts.tick().await.expect("tick");
    h.clock.advance(jiff::SignedDuration::from_mins(10));
    fresh(&h, 92_500.0);
    let report = h.app.loops.price_alerts.tick().await.expect("tick");
    assert_eq!((report.fired, report.sent), (1, 1), "{report:?}");
    let push = h.line.accepted_pushes().pop().expect("a push");
    let url = hero(&flex_of(&push.body)).expect("a hero");
    assert_eq!(fetch(&h, &url).await.status(), 200);
    assert!(series_requests(&h).iter().any(|r| r.contains("BTC-USD?interval=5m")));
}
