//! Failures end in a short friendly message, never a raw error and never silence: data sources
//! failing, the LLM failing, a panicking tool, LINE refusing.

use crate::common::harness::tool_results;

use std::sync::Arc;
use std::time::Duration;

use crate::common::harness::{Harness, MOM, messages_of, texts_of};
use crate::common::{Mode, ReplyMode, Route, Step};
use hearth::contract::registry::Registry;
use hearth::contract::{Tool, ToolCtx, ToolError};
use hearth::tools::fx::Fx;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

async fn weather_with(mode: Mode) -> (Harness, Value) {
    let h = Harness::start().await;
    h.upstreams.set_mode(Route::Forecast, mode);
    h.llm.reply_tool_calls(&[("weather", json!({"location": "台北"}))]);
    h.llm.reply_text("抱歉，天氣服務暫時無法使用，請稍後再試。");
    h.send(vec![h.dm(MOM, "台北天氣")]).await;
    let result = tool_results(&h.llm.requests()[1]).remove(0);
    (h, result)
}

#[tokio::test]
async fn data_source_500_becomes_an_upstream_error_the_llm_explains() {
    let (h, result) = weather_with(Mode::ServerError).await;
    assert_eq!(result["error"]["kind"], "upstream_unavailable");
    assert!(result["error"]["message"].as_str().unwrap_or("").contains("weather service"));
    let body = &h.line.replies()[0].body;
    assert_eq!(texts_of(body), "抱歉，天氣服務暫時無法使用，請稍後再試。");
    assert_eq!(messages_of(body).len(), 1, "no card for a failed tool");
}

#[tokio::test]
async fn data_source_garbage_is_reported_without_its_body() {
    let (_h, result) = weather_with(Mode::Garbage).await;
    assert_eq!(result["error"]["kind"], "upstream_unavailable");
    assert!(!result.to_string().contains("maintenance"), "the raw body never reaches the LLM");
}

#[tokio::test]
async fn data_source_timeout_is_an_error_not_a_hang() {
    let (_h, result) = weather_with(Mode::Stall(Duration::from_secs(5))).await;
    assert_eq!(result["error"]["kind"], "upstream_unavailable");
    assert!(result["error"]["message"].as_str().unwrap_or("").contains("timeout"));
}

#[tokio::test]
async fn each_source_failing_is_reported_as_data() {
    for (route, tool, args) in [
        (Route::Geocoding, "weather", json!({"location": "Tokyo"})),
        (Route::Fx, "fx", json!({"amount": 1, "from": "USD", "to": "TWD"})),
        (Route::Yahoo, "get_quote", json!({"symbol": "AAPL"})),
    ] {
        for mode in [Mode::ServerError, Mode::Garbage, Mode::RateLimited] {
            let h = Harness::start().await;
            h.upstreams.set_mode(route, mode);
            h.llm.reply_tool_calls(&[(tool, args.clone())]);
            h.llm.reply_text("暫時查不到，請稍後再試");
            h.send(vec![h.dm(MOM, "查一下")]).await;
            let result = tool_results(&h.llm.requests()[1]).remove(0);
            assert_eq!(
                result["error"]["kind"], "upstream_unavailable",
                "{tool} with {mode:?}: {result}"
            );
            assert_eq!(texts_of(&h.line.replies()[0].body), "暫時查不到，請稍後再試");
        }
    }
}

#[tokio::test]
async fn unknown_place_and_symbol_are_not_found_errors() {
    let h = Harness::start().await;
    h.llm.reply_tool_calls(&[
        ("weather", json!({"location": "Atlantis"})),
        ("get_quote", json!({"symbol": "ZZZZ"})),
    ]);
    h.llm.reply_text("找不到");
    h.send(vec![h.dm(MOM, "查")]).await;
    let results = tool_results(&h.llm.requests()[1]);
    assert_eq!(results[0]["error"]["kind"], "not_found");
    assert_eq!(results[1]["error"]["kind"], "not_found");
}

#[tokio::test]
async fn absurd_arguments_are_refused_before_any_request() {
    let h = Harness::start().await;
    h.llm.reply_tool_calls(&[
        ("fx", json!({"amount": -5, "from": "USD", "to": "TWD"})),
        ("fx", json!({"amount": 1, "from": "BTC", "to": "TWD"})),
        ("weather", json!({"location": "台北", "days": 99})),
        ("get_quote", json!({"symbol": "../../etc/passwd"})),
        ("fx", json!({"amount": "lots"})),
        ("no_such_tool", json!({})),
    ]);
    h.llm.reply_text("參數有誤");
    h.send(vec![h.dm(MOM, "亂問")]).await;
    let kinds: Vec<Value> =
        tool_results(&h.llm.requests()[1]).iter().map(|r| r["error"]["kind"].clone()).collect();
    assert_eq!(
        kinds,
        [
            "invalid_arguments",
            "invalid_arguments",
            "invalid_arguments",
            "invalid_arguments",
            "invalid_arguments",
            "unknown_tool"
        ]
    );
    assert!(
        tool_results(&h.llm.requests()[1])[1]["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("get_quote")
    );
    assert_eq!(
        h.upstreams.hits(Route::Fx)
            + h.upstreams.hits(Route::Yahoo)
            + h.upstreams.hits(Route::Forecast),
        0
    );
}

#[tokio::test]
async fn llm_failures_end_in_a_friendly_message_in_the_users_language() {
    let cases = [
        (
            Step::Status(500, r#"{"error":{"message":"internal","type":"server_error"}}"#.into()),
            "抱歉，我的大腦暫時連不上",
        ),
        (
            Step::Status(
                429,
                r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#.into(),
            ),
            "抱歉，我現在有點忙不過來",
        ),
        (
            Step::Status(
                401,
                r#"{"error":{"message":"Incorrect API key","type":"authentication_error"}}"#.into(),
            ),
            "抱歉，我這邊出了點問題",
        ),
        (Step::Garbage, "抱歉，我的大腦暫時連不上"),
        (Step::Stall(Duration::from_secs(5)), "抱歉，我的大腦暫時連不上"),
    ];
    for (step, expected) in cases {
        let h = Harness::start().await;
        h.llm.push(step.clone());
        h.send(vec![h.dm(MOM, "你好")]).await;
        let text = texts_of(&h.line.replies()[0].body);
        assert!(text.starts_with(expected), "{step:?}: {text}");
        assert!(!text.contains("error") && !text.contains("API key"), "no raw error: {text}");
    }
    let h = Harness::start().await;
    h.llm.push(Step::Status(503, "Service Unavailable".into()));
    h.send(vec![h.dm(MOM, "Hello there")]).await;
    assert!(texts_of(&h.line.replies()[0].body).starts_with("Sorry"), "English for English");
}

#[tokio::test]
async fn a_model_that_keeps_calling_tools_is_made_to_answer() {
    let h = Harness::start_with(|c| c.llm.max_tool_rounds = 2, None).await;
    for _ in 0..5 {
        h.llm.reply_tool_calls(&[("fx", json!({"amount": 1, "from": "USD", "to": "TWD"}))]);
    }
    h.send(vec![h.dm(MOM, "匯率")]).await;
    let requests = h.llm.requests();
    assert_eq!(requests.len(), 3, "two tool rounds, then one without tools");
    assert_eq!(requests[2]["tool_choice"], "none");
    // The last scripted step still had calls: they are ignored, and the fx cards gathered on the
    // way carry the answer.
    let body = &h.line.replies()[0].body;
    assert!(messages_of(body).iter().any(|m| m["type"] == "flex"));
}

#[tokio::test]
async fn reply_with_an_unknown_outcome_is_not_pushed_again() {
    let h = Harness::start().await;
    h.line.set_reply_mode(ReplyMode::ServerError);
    h.llm.reply_text("你好");
    h.send(vec![h.dm(MOM, "你好")]).await;
    assert_eq!(h.line.replies().len(), 1);
    assert!(h.line.pushes().is_empty(), "a 5xx reply may have been delivered");
}

/// A tool that always panics.
struct Panicky;

/// No arguments.
#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

impl Tool for Panicky {
    const NAME: &'static str = "panicky";
    const DESCRIPTION: &'static str = "Always panics.";
    type Args = NoArgs;
    type Output = Value;

    async fn run(&self, _ctx: &ToolCtx, _args: NoArgs) -> Result<Value, ToolError> {
        panic!("boom")
    }
}

/// A tool whose calls only finish if two of them run at the same time.
struct Rendezvous(Arc<tokio::sync::Barrier>);

impl Tool for Rendezvous {
    const NAME: &'static str = "rendezvous";
    const DESCRIPTION: &'static str = "Waits for a second concurrent call.";
    type Args = NoArgs;
    type Output = Value;

    async fn run(&self, _ctx: &ToolCtx, _args: NoArgs) -> Result<Value, ToolError> {
        self.0.wait().await;
        Ok(json!({"met": true}))
    }

    fn timeout(&self) -> Duration {
        Duration::from_secs(2)
    }
}

/// A tool whose card and chips panic.
struct BadPresentation;

impl Tool for BadPresentation {
    const NAME: &'static str = "bad_presentation";
    const DESCRIPTION: &'static str = "Works, but its card and chips panic.";
    type Args = NoArgs;
    type Output = Value;

    async fn run(&self, _ctx: &ToolCtx, _args: NoArgs) -> Result<Value, ToolError> {
        Ok(json!({"fine": true}))
    }

    fn card(&self, _ctx: &ToolCtx, _out: &Value) -> Option<hearth::contract::Card> {
        panic!("card bug")
    }

    fn quick_replies(&self, _ctx: &ToolCtx, _out: &Value) -> Vec<hearth::contract::Chip> {
        panic!("chip bug")
    }
}

async fn harness_with_test_tools() -> Harness {
    Harness::start_with(
        |_| {},
        Some(|services| {
            Registry::builder()
                .tool(Panicky)
                .tool(Fx::new(services.sources.fx.clone()))
                .tool(Rendezvous(Arc::new(tokio::sync::Barrier::new(2))))
                .tool(BadPresentation)
                .build()
                .expect("test registry")
        }),
    )
    .await
}

#[tokio::test]
async fn a_panicking_tool_does_not_spoil_the_other_result() {
    let h = harness_with_test_tools().await;
    h.llm.reply_tool_calls(&[
        ("panicky", json!({})),
        ("fx", json!({"amount": 10, "from": "USD", "to": "TWD"})),
    ]);
    h.llm.reply_text("10 美金約 319 台幣");
    h.send(vec![h.dm(MOM, "換匯")]).await;
    let results = tool_results(&h.llm.requests()[1]);
    assert_eq!(results[0]["error"]["kind"], "internal");
    assert_eq!(results[1]["result"], 319.0);
    let body = &h.line.replies()[0].body;
    assert_eq!(texts_of(body), "10 美金約 319 台幣");
    assert!(messages_of(body).iter().any(|m| m["type"] == "flex"), "the fx card survives");
}

#[tokio::test]
async fn tool_calls_of_one_round_run_concurrently() {
    let h = harness_with_test_tools().await;
    h.llm.reply_tool_calls(&[("rendezvous", json!({})), ("rendezvous", json!({}))]);
    h.llm.reply_text("done");
    h.send(vec![h.dm(MOM, "go")]).await;
    let results = tool_results(&h.llm.requests()[1]);
    assert_eq!(
        results,
        vec![json!({"met": true}), json!({"met": true})],
        "sequential calls would time out"
    );
}

#[tokio::test]
async fn a_panicking_card_or_chip_builder_still_delivers_the_answer() {
    let h = harness_with_test_tools().await;
    h.llm.reply_tool_calls(&[("bad_presentation", json!({}))]);
    h.llm.reply_text("結果在這裡");
    h.send(vec![h.dm(MOM, "go")]).await;
    assert_eq!(tool_results(&h.llm.requests()[1])[0], json!({"fine": true}));
    let body = &h.line.replies()[0].body;
    assert_eq!(messages_of(body).len(), 1);
    assert_eq!(texts_of(body), "結果在這裡");
}
