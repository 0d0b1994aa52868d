//! Taiwan securities by the names the family uses, end to end: quotes and alerts found by Chinese
//! name, near name or code on the right market (TWSE `.TW` or TPEx `.TWO`), an ambiguous name
//! sent back to the model as a short list, cards titled "元太 8069" in Chinese and with the
//! English name in English, and a newer securities table chosen by setting.

use crate::common::Route;
use crate::common::harness::{Harness, MOM, in_dm, last_tool_result, messages_of, text_message};
use hearth::platform::clock::Clock;
use serde_json::{Value, json};

/// The webhook body of the first reply.
fn reply(h: &Harness) -> Value {
    h.line.replies()[0].body.clone()
}

/// The Flex card of a recorded body, as JSON text.
fn card_of(body: &Value) -> String {
    messages_of(body)
        .iter()
        .find(|m| m["type"] == "flex")
        .map(|m| m["contents"].to_string())
        .unwrap_or_default()
}

/// Asks, in a 1:1 chat with `text`, for `tool` with `args`; returns the tool's result.
async fn call(h: &Harness, text: &str, tool: &str, args: Value) -> Value {
    let before = h.llm.requests().len();
    h.llm.reply_tool_calls(&[(tool, args)]);
    h.llm.reply_text("好的");
    h.send(vec![h.event(in_dm(MOM), text_message(text))]).await;
    last_tool_result(h, before + 1)
}

/// The Yahoo chart symbols requested so far.
fn charted(h: &Harness) -> Vec<String> {
    let requests = h.upstreams.requests(Route::Yahoo);
    let symbols = requests.iter().filter_map(|r| r.strip_prefix("/v8/finance/chart/"));
    symbols.map(|r| r.split('?').next().unwrap_or(r).to_string()).collect()
}

#[tokio::test]
async fn an_otc_stock_asked_by_its_chinese_name_is_quoted_on_tpex_and_titled_the_family_way() {
    let h = Harness::start().await;
    let result = call(&h, "元太多少", "get_quote", json!({"symbol": "元太"})).await;
    assert_eq!(result["symbol"], "8069.TWO", "{result}");
    assert_eq!(result["taiwan"], json!({"name": "元太", "market": "TPEx"}));
    assert_eq!(charted(&h), ["8069.TWO"]);
    let card = card_of(&reply(&h));
    assert!(card.contains("\"元太 8069\""), "titled as the family says it: {card}");
    assert!(!card.contains("E Ink Holdings"), "{card}");
}

#[tokio::test]
async fn a_bare_otc_code_gets_the_tpex_suffix_and_a_wrong_suffix_is_corrected() {
    let h = Harness::start().await;
    let bare = call(&h, "8069 今天怎樣", "get_quote", json!({"symbol": "8069"})).await;
    assert_eq!(bare["symbol"], "8069.TWO", "{bare}");
    let wrong = call(&h, "8069.TW 多少", "get_quote", json!({"symbol": "8069.TW"})).await;
    assert_eq!(wrong["symbol"], "8069.TWO", "{wrong}");
    let etf = call(&h, "00878 多少", "get_quote", json!({"symbol": "00878"})).await;
    assert_eq!(etf["symbol"], "00878.TW", "{etf}");
    assert!(!charted(&h).contains(&"8069.TW".to_string()), "8069.TW does not exist");
}

#[tokio::test]
async fn a_near_name_that_fits_one_security_is_quoted() {
    let h = Harness::start().await;
    let result = call(&h, "台積多少", "get_quote", json!({"symbol": "台積"})).await;
    assert_eq!(result["symbol"], "2330.TW", "{result}");
    assert!(card_of(&reply(&h)).contains("\"台積電 2330\""));
}

#[tokio::test]
async fn an_ambiguous_name_comes_back_as_a_short_list_for_the_model_to_ask_about() {
    let h = Harness::start().await;
    let result = call(&h, "國泰多少", "get_quote", json!({"symbol": "國泰"})).await;
    assert_eq!(result["error"]["kind"], "invalid_arguments", "{result}");
    let message = result["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("國泰金 (2882.TW)"), "{message}");
    assert!(message.contains("ask the user which one"), "{message}");
    assert!(message.matches(".TW").count() <= 5, "a short list: {message}");
    assert!(charted(&h).is_empty(), "no guess was quoted");
}

#[tokio::test]
async fn english_speakers_see_the_english_name_on_the_card() {
    let h = Harness::start().await;
    let result = call(&h, "How is E Ink doing?", "get_quote", json!({"symbol": "8069"})).await;
    assert_eq!(result["name"], "E Ink Holdings Inc.", "{result}");
    let card = card_of(&reply(&h));
    assert!(card.contains("\"E Ink Holdings Inc.\""), "{card}");
    assert!(!card.contains("元太"), "{card}");
}

#[tokio::test]
async fn alerts_on_a_taiwan_security_by_name_are_named_the_family_way_on_every_card() {
    let h = Harness::start_with(|c| c.loops.price_poll_secs = 0, None).await;
    let args =
        json!({"symbol": "元太", "direction": "rises_to", "level": 300, "frequency": "every_time"});
    let created = call(&h, "元太每次漲到300都通知我", "price_alert", args).await;
    assert_eq!(created["symbol"], "8069.TWO", "{created}");
    assert_eq!(created["taiwan"], json!({"name": "元太", "market": "TPEx"}));
    let confirmation = card_of(&reply(&h));
    assert!(confirmation.contains("\"元太 8069\""), "{confirmation}");

    let show = json!({"action": "show", "id": null, "symbol": null});
    let listed = call(&h, "我的價格通知", "price_alerts", show).await;
    assert_eq!(listed["alerts"][0]["taiwan"]["name"], "元太", "{listed}");
    let list = card_of(&h.line.replies()[1].body);
    assert!(list.contains("\"元太 8069\""), "the list row: {list}");
    assert!(list.contains("❌ 取消 元太 8069"), "the cancel button echoes the name: {list}");

    // Tuesday 09:05 in Taipei: the session is open and the price crosses 300.
    h.clock.set("2026-12-01T01:05:00Z".parse().expect("instant"));
    h.upstreams.set_price("8069.TWO", 301.0);
    h.upstreams.set_market_time("8069.TWO", h.clock.now().as_second());
    let report = h.app.loops.price_alerts.tick().await.expect("alert tick");
    assert_eq!(report.fired, 1, "{report:?}");
    let pushed = h.line.accepted_pushes()[0].body.clone();
    assert!(card_of(&pushed).contains("\"元太 8069\""), "{pushed}");
    assert!(messages_of(&pushed)[0]["altText"].as_str().unwrap_or("").contains("元太 8069"));

    let by_symbol = json!({"action": "cancel", "id": null, "symbol": "元太"});
    let cancelled = call(&h, "取消元太的通知", "price_alerts", by_symbol).await;
    assert_eq!(cancelled["cancelled"][0]["symbol"], "8069.TWO", "{cancelled}");
}

#[tokio::test]
async fn a_newer_securities_file_is_used_when_the_setting_points_at_one() {
    let dir = std::env::temp_dir().join(format!("hearth-securities-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("newer.tsv");
    let table = "# source: a newer list\n9962\t新上櫃\ttpex\tstock\n2330\t台積電\ttwse\tstock\n";
    std::fs::write(&file, table).expect("write");
    let path = file.clone();
    let h = Harness::start_with(move |c| c.sources.tw_securities_file = Some(path), None).await;
    h.upstreams.set_price("9962.TWO", 50.0);
    let result = call(&h, "新上櫃多少", "get_quote", json!({"symbol": "新上櫃"})).await;
    assert_eq!(result["symbol"], "9962.TWO", "{result}");
    let gone = call(&h, "元太多少", "get_quote", json!({"symbol": "元太"})).await;
    assert_eq!(gone["error"]["kind"], "invalid_arguments", "only the configured table: {gone}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_code_newer_than_the_table_is_tried_listed_and_the_model_is_told_to_try_tpex() {
    let h = Harness::start().await;
    let result = call(&h, "9998 多少", "get_quote", json!({"symbol": "9998"})).await;
    assert_eq!(result["error"]["kind"], "not_found", "{result}");
    let message = result["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("try 9998.TWO"), "{message}");
    assert_eq!(charted(&h), ["9998.TW"]);
}
