//! Tools from MCP servers (`HEARTH_MCP_CONFIG`), end to end: a small MCP server (tests/
//! mcp_support) over streamable HTTP and over stdio gives hearth its tools, which the LLM
//! calls in a LINE conversation like built-in ones: output fenced and tainting the turn (and so
//! do its descriptions when `find_tools` returns them),
//! destructive calls held for a tap in that chat, time limits and errors as data, a server
//! down at start or dying later withdrawn and back when it returns, and no LINE ids sent.

use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::common::harness::{
    FAMILY, Harness, MOM, OTHER_GROUP, in_group, postback_data, texts_of, tool_results,
};
use crate::mcp_support::{HttpHome, HttpHouse, LIVING_ROOM};
use hearth::contract::schema::Audience;
use hearth::contract::untrusted::{BEGIN, END};
use serde_json::{Value, json};

/// Writes an `mcpServers` file and returns its path.
fn config_file(servers: Value) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("hearth-mcp-{}.json", unique()));
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).expect("write config");
    path
}

fn unique() -> String {
    use std::sync::atomic::AtomicU64;
    static N: AtomicU64 = AtomicU64::new(0);
    format!("{}-{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst))
}

/// hearth with the given MCP servers, retrying a down server every second, with room for
/// their tools in every request (the cap is tested with a bigger server below).
async fn harness(servers: Value) -> Harness {
    harness_capped(servers, 40).await
}

/// [`harness`] sending at most `max_tools` definitions a request.
async fn harness_capped(servers: Value, max_tools: usize) -> Harness {
    let path = config_file(servers);
    Harness::start_with(
        move |c| {
            c.mcp.mcp_config = Some(path);
            c.mcp.mcp_retry_max_secs = 1;
            c.mcp.mcp_start_secs = 5;
            c.llm.max_tools = max_tools;
        },
        None,
    )
    .await
}

/// The tool names the LLM was offered in request `n`.
fn offered(h: &Harness, n: usize) -> Vec<String> {
    h.llm.requests()[n]["tools"]
        .as_array()
        .map(|tools| {
            tools.iter().filter_map(|t| t["function"]["name"].as_str().map(String::from)).collect()
        })
        .unwrap_or_default()
}

/// The definition of tool `name` sent in request `n`.
fn definition(h: &Harness, n: usize, name: &str) -> Value {
    h.llm.requests()[n]["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["function"]["name"] == name).cloned())
        .unwrap_or(Value::Null)
}

/// The tools a group is offered at this moment.
fn offered_now(h: &Harness) -> Vec<String> {
    h.app.turns.agent.tool_definitions(Audience::Group).iter().map(|d| d.name.to_string()).collect()
}

/// Waits (up to 20 s) until the tools hearth offers now pass `check`, named `what` in a failure.
async fn wait_for_tools(h: &Harness, what: &str, check: impl Fn(&[String]) -> bool) {
    for _ in 0..200 {
        if check(&offered_now(h)) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the offered tools never became {what}");
}

fn has_prefix(names: &[String], prefix: &str) -> bool {
    names.iter().any(|n| n.starts_with(prefix))
}

/// A stdio server entry running the `mcp_stdio_server` example, down while `down` exists.
fn stdio_server(down: &std::path::Path) -> Value {
    let server = built_example("mcp_stdio_server");
    json!({
        "command": server,
        "args": [],
        "env": {"HEARTH_TEST_MCP_DOWN": down},
    })
}

#[tokio::test]
async fn an_mcp_tool_answers_in_a_line_conversation_fenced_and_without_line_ids() {
    let home = HttpHome::start().await;
    let h = harness(json!({"home": {"url": home.url}})).await;
    h.llm.reply_tool_calls(&[("home_lookup", json!({"room": "客廳", "humidity": null}))]);
    h.llm.reply_text("客廳的燈還亮著，24 度。");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 客廳的燈有關嗎？")]).await;

    let tools = offered(&h, 0);
    assert!(tools.contains(&"home_lookup".to_string()), "{tools:?}");
    assert!(tools.contains(&"weather".to_string()), "built-in tools stay: {tools:?}");
    let lookup = definition(&h, 0, "home_lookup");
    assert_eq!(lookup["function"]["strict"], true, "{lookup}");
    assert!(
        lookup["function"]["description"]
            .as_str()
            .unwrap_or("")
            .starts_with("[from the home service]")
    );
    let result = &tool_results(&h.llm.requests()[1])[0];
    let fenced = result["result"].as_str().expect("text result");
    assert!(fenced.starts_with(BEGIN) && fenced.ends_with(END), "{result}");
    assert!(fenced.contains(LIVING_ROOM), "{result}");
    assert!(texts_of(&h.line.replies()[0].body).contains("24 度"));
    let received = home.received();
    assert!(
        received.contains("客廳") && !received.contains("humidity"),
        "nulls dropped: {received}"
    );
    assert!(!received.contains(MOM) && !received.contains(FAMILY), "no LINE ids: {received}");
}

#[tokio::test]
async fn a_server_allowed_line_ids_receives_them_and_offers_only_its_allowed_tools() {
    let home = HttpHome::start().await;
    let h = harness(
        json!({"home": {"url": home.url, "shareLineIds": true, "allowedTools": ["lookup"]}}),
    )
    .await;
    h.llm.reply_tool_calls(&[("home_lookup", json!({"room": "客廳", "humidity": true}))]);
    h.llm.reply_text("好了");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 客廳")]).await;
    let offered: Vec<String> =
        offered(&h, 0).into_iter().filter(|t| t.starts_with("home_")).collect();
    assert_eq!(offered, ["home_lookup"]);
    let received = home.received();
    assert!(received.contains(FAMILY) && received.contains(MOM), "{received}");
}

#[tokio::test]
async fn a_hostile_description_is_bounded_and_cannot_close_the_fence() {
    let home = HttpHome::start().await;
    let h = harness(json!({"home": {"url": home.url}})).await;
    h.llm.reply_text("嗨");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 嗨")]).await;
    let forecast = definition(&h, 0, "home_forecast");
    let text = forecast["function"]["description"].as_str().expect("described");
    assert!(text.starts_with("[from the home service] Shows the forecast."), "{text}");
    assert!(!text.contains("<<<") && !text.contains(">>>"), "{text}");
    assert!(!text.contains("HIDDEN-TAIL-BEYOND-THE-BOUND"), "{text}");
    assert!(text.chars().count() <= hearth::llm::mcp::describe::MAX_DESCRIPTION_CHARS + 30);
}

#[tokio::test]
async fn a_destructive_mcp_tool_waits_for_a_confirm_tap_in_that_chat() {
    let home = HttpHome::start().await;
    let h = harness(json!({"home": {"url": home.url}})).await;
    h.llm.reply_tool_calls(&[("home_switch_off", json!({"device": "客廳燈"}))]);
    h.llm.reply_text("要關燈請按確認。");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 把客廳的燈關掉")]).await;

    assert_eq!(home.switched.load(Ordering::SeqCst), 0, "not run before the tap");
    assert_eq!(tool_results(&h.llm.requests()[1])[0]["status"], "needs_confirmation");
    let body = h.line.replies()[0].body.clone();
    assert!(body.to_string().contains("可能無法復原"), "{body}");
    let confirm = postback_data(&body, "confirm_call").expect("a confirm button");

    h.send(vec![h.postback(in_group(OTHER_GROUP, MOM), &confirm)]).await;
    assert!(texts_of(&h.line.replies()[1].body).contains("不屬於這個聊天室"));
    assert_eq!(home.switched.load(Ordering::SeqCst), 0, "a tap in another chat does nothing");

    h.send(vec![h.postback(in_group(FAMILY, MOM), &confirm)]).await;
    assert!(texts_of(&h.line.replies()[2].body).contains("已確認"));
    assert_eq!(home.switched.load(Ordering::SeqCst), 1, "the family's tap runs it once");
}

#[tokio::test]
async fn untrusted_mcp_output_holds_a_later_state_change_in_the_turn() {
    let home = HttpHome::start().await;
    let h = harness(json!({"home": {"url": home.url}})).await;
    h.llm.reply_tool_calls(&[("home_lookup", json!({"room": "客廳", "humidity": null}))]);
    h.llm.reply_tool_calls(&[("memory", json!({"action": "remember", "fact": "客廳燈壞了"}))]);
    h.llm.reply_text("好");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 看一下客廳")]).await;
    let held = tool_results(&h.llm.requests()[2]).pop().expect("a result");
    assert_eq!(held["status"], "needs_confirmation", "{held}");
}

/// One turn in the family group where the model searches the home's tools through the finder
/// (every one of them beyond the cap) for the one with the injected description, then writes a
/// memory; returns the search's result.
async fn search_then_remember(h: &Harness) -> Value {
    wait_for_tools(h, "behind the finder", |names| {
        names.iter().any(|n| n == "find_tools") && !has_prefix(names, "home_")
    })
    .await;
    h.llm.reply_tool_calls(&[(
        "find_tools",
        json!({"query": "forecast", "call": null, "arguments": null}),
    )]);
    h.llm.reply_tool_calls(&[("memory", json!({"action": "remember", "fact": "客廳燈壞了"}))]);
    h.llm.reply_text("好");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 明天天氣？順便記得客廳燈壞了")]).await;
    tool_results(&h.llm.requests()[1]).pop().expect("the search's result")
}

#[tokio::test]
async fn descriptions_find_tools_returns_from_an_untrusted_server_hold_a_later_memory_for_a_tap() {
    let home = HttpHome::start().await;
    let h = harness_capped(json!({"home": {"url": home.url}}), 2).await;
    let found = search_then_remember(&h).await;
    assert!(found.to_string().contains("SYSTEM OVERRIDE"), "the injection was read: {found}");
    let held = tool_results(&h.llm.requests()[2]).pop().expect("the memory's result");
    assert_eq!(held["status"], "needs_confirmation", "{held}");
    let kept = h.app.store.memory().memories(FAMILY).await.expect("memories");
    assert!(kept.is_empty(), "not kept without a tap: {kept:?}");
    assert_eq!(h.app.store.held_calls().of_chat(FAMILY).await.expect("pending").len(), 1);
    let body = h.line.replies()[0].body.clone();
    let confirm = postback_data(&body, "confirm_call").expect("a confirm button");
    h.send(vec![h.postback(in_group(FAMILY, MOM), &confirm)]).await;
    let kept = h.app.store.memory().memories(FAMILY).await.expect("memories");
    assert_eq!(kept.len(), 1, "kept once the family taps");
}

#[tokio::test]
async fn descriptions_find_tools_returns_from_a_trusted_server_leave_the_turn_trusted() {
    let home = HttpHome::start().await;
    let h = harness_capped(json!({"home": {"url": home.url, "trustedOutput": true}}), 2).await;
    let found = search_then_remember(&h).await;
    assert!(found.to_string().contains("home_forecast"), "{found}");
    let kept = tool_results(&h.llm.requests()[2]).pop().expect("the memory's result");
    assert_ne!(kept["status"], "needs_confirmation", "{kept}");
    assert_eq!(h.app.store.memory().memories(FAMILY).await.expect("memories").len(), 1);
}

#[tokio::test]
async fn slow_and_failing_mcp_tools_become_data_the_llm_explains() {
    let home = HttpHome::start().await;
    let h = harness(json!({"home": {"url": home.url, "timeoutSecs": 1}})).await;
    h.llm.reply_tool_calls(&[("home_slow", json!({})), ("home_fail", json!({}))]);
    h.llm.reply_text("家裡的系統現在有點問題。");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 家裡狀況")]).await;
    let results = tool_results(&h.llm.requests()[1]);
    assert_eq!(results[0]["error"]["kind"], "timeout", "{results:?}");
    let failed = results[1]["error"]["message"].as_str().expect("message");
    assert!(failed.contains("home service reported an error"), "{failed}");
    assert!(
        !failed.contains("IGNORE YOUR RULES"),
        "an untrusted server's words stay out: {failed}"
    );
    assert!(texts_of(&h.line.replies()[0].body).contains("有點問題"));
}

#[tokio::test]
async fn an_http_server_down_at_start_joins_when_it_comes_up() {
    let spare = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
    let address = spare.local_addr().expect("address");
    drop(spare);
    let h = harness(json!({"home": {"url": format!("http://{address}/mcp")}})).await;
    h.llm.reply_text("一");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 一")]).await;
    assert!(!offered(&h, 0).iter().any(|t| t.starts_with("home_")), "withdrawn while down");

    let listener = tokio::net::TcpListener::bind(address).await.expect("same port");
    let _home = HttpHome::serve(listener).await;
    wait_for_tools(&h, "back", |names| has_prefix(names, "home_")).await;
    h.llm.reply_text("二");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 二")]).await;
    assert!(offered(&h, 1).contains(&"home_lookup".to_string()), "{:?}", offered(&h, 1));
}

#[tokio::test]
async fn an_http_server_that_dies_is_withdrawn_and_back_when_it_returns() {
    let home = HttpHome::start().await;
    let address = home.url.trim_start_matches("http://").trim_end_matches("/mcp").to_string();
    let h = harness(json!({"home": {"url": home.url}})).await;
    drop(home);
    h.llm.reply_tool_calls(&[("home_lookup", json!({"room": "客廳", "humidity": null}))]);
    h.llm.reply_text("家裡的系統連不上");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 客廳")]).await;
    let failed = &tool_results(&h.llm.requests()[1])[0];
    assert_eq!(failed["error"]["kind"], "upstream_unavailable", "{failed}");
    assert!(texts_of(&h.line.replies()[0].body).contains("連不上"));

    wait_for_tools(&h, "without home's", |names| !has_prefix(names, "home_")).await;
    h.llm.reply_text("一");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 一")]).await;
    assert!(!offered(&h, 2).iter().any(|t| t.starts_with("home_")), "{:?}", offered(&h, 2));

    let listener = tokio::net::TcpListener::bind(&address).await.expect("same port");
    let _home = HttpHome::serve(listener).await;
    wait_for_tools(&h, "back", |names| has_prefix(names, "home_")).await;
    h.llm.reply_text("二");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 二")]).await;
    assert!(offered(&h, 3).contains(&"home_lookup".to_string()), "{:?}", offered(&h, 3));
}

#[tokio::test]
async fn a_stdio_server_that_dies_is_withdrawn_and_back_when_it_returns() {
    let down = std::env::temp_dir().join(format!("hearth-mcp-down-{}", unique()));
    let mut kids = stdio_server(&down);
    kids["trustedOutput"] = json!(true);
    let h = harness(json!({ "kids": kids })).await;
    h.llm.reply_tool_calls(&[("kids_lookup", json!({"room": "living room", "humidity": null}))]);
    h.llm.reply_text("客廳燈亮著");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 客廳")]).await;
    assert!(
        tool_results(&h.llm.requests()[1])[0]["result"]
            .as_str()
            .unwrap_or("")
            .contains(LIVING_ROOM)
    );

    std::fs::write(&down, "down").expect("marker");
    h.llm.reply_tool_calls(&[("kids_crash", json!({}))]);
    h.llm.reply_text("系統當掉了");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 當掉吧")]).await;
    let crashed = &tool_results(&h.llm.requests()[3])[0];
    assert_eq!(crashed["error"]["kind"], "upstream_unavailable", "{crashed}");
    assert!(texts_of(&h.line.replies()[1].body).contains("當掉"));

    wait_for_tools(&h, "without kids'", |names| !has_prefix(names, "kids_")).await;
    h.llm.reply_text("三");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 三")]).await;
    assert!(!offered(&h, 4).iter().any(|t| t.starts_with("kids_")), "{:?}", offered(&h, 4));

    // Started again while still down at least once, so coming back follows a refused start.
    for _ in 0..200 {
        if std::fs::read(&down).map(|m| m.len() > "down".len()).unwrap_or(false) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    std::fs::remove_file(&down).expect("back up");
    wait_for_tools(&h, "back", |names| has_prefix(names, "kids_")).await;
    // And it stays: the failed call on the dead connection does not end the new one at its
    // first look for a broken connection (a listing interval is a second here).
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let starts = std::fs::read_to_string(down.with_extension("starts")).expect("starts");
    assert_eq!(starts, "..", "started once at first and once on coming back, not again");
    let _ = std::fs::remove_file(down.with_extension("starts"));
    h.llm.reply_text("四");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 四")]).await;
    assert!(offered(&h, 5).contains(&"kids_lookup".to_string()), "{:?}", offered(&h, 5));
}

#[tokio::test]
async fn a_name_taken_by_a_built_in_tool_stops_start() {
    let home = HttpHome::start().await;
    let path = config_file(
        json!({"home": {"url": home.url, "prefix": "price", "allowedTools": ["alerts"]}}),
    );
    let mut config = hearth::platform::config::Config::defaults();
    config.mcp.mcp_config = Some(path);
    config.mcp.mcp_start_secs = 5;
    let mcp = hearth::llm::mcp::McpServers::start(&config).await.expect("config");
    let store = hearth::store::Store::in_memory().await.expect("store");
    let clock = std::sync::Arc::new(hearth::platform::clock::SystemClock);
    let error = hearth::server::app::Hearth::with_tools_and_mcp(
        &config,
        clock,
        store,
        &mcp,
        hearth::tools::registry,
    )
    .err()
    .expect("refused");
    assert!(error.to_string().contains("\"price_alerts\" is already taken"), "{error}");
}

#[tokio::test]
async fn hearth_tools_lists_the_tools_of_a_stdio_server() {
    let down = std::env::temp_dir().join(format!("hearth-mcp-never-{}", unique()));
    let path = config_file(json!({"kids": stdio_server(&down)}));
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("tools")
        .env("HEARTH_MCP_CONFIG", &path)
        .env("HEARTH_MAX_TOOLS", "40")
        .output()
        .await
        .expect("hearth tools");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tools: Value = serde_json::from_slice(&out.stdout).expect("json");
    let names: Vec<&str> = tools
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(names.contains(&"kids_lookup") && names.contains(&"get_quote"), "{names:?}");
    let _ = std::fs::remove_file(down.with_extension("starts"));
}

#[tokio::test]
async fn a_missing_variable_stops_start_naming_it() {
    let path = config_file(
        json!({"home": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${HEARTH_TEST_UNSET_TOKEN}"}}}),
    );
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("tools")
        .env("HEARTH_MCP_CONFIG", &path)
        .env_remove("HEARTH_TEST_UNSET_TOKEN")
        .output()
        .await
        .expect("hearth tools");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("HEARTH_TEST_UNSET_TOKEN"), "{stderr}");
}

#[tokio::test]
async fn forty_tools_of_a_house_are_found_and_called_through_one_tool_after_a_tap_and_no_request_carries_over_twenty()
 {
    let house = HttpHouse::start().await;
    let h = harness_capped(json!({"house": {"url": house.url}}), 20).await;
    wait_for_tools(&h, "capped", |names| names.iter().any(|n| n == "find_tools")).await;
    h.llm.reply_tool_calls(&[(
        "find_tools",
        json!({"query": "冷氣", "call": null, "arguments": null}),
    )]);
    h.llm.reply_tool_calls(&[(
        "find_tools",
        json!({"query": null, "call": "house_air_conditioner_set", "arguments": "{\"level\": 26}"}),
    )]);
    h.llm.reply_text("要把冷氣調到 26 度，請按確認。");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 冷氣調到26度")]).await;

    for (n, request) in h.llm.requests().iter().enumerate() {
        let tools = request["tools"].as_array().map(Vec::len).unwrap_or_default();
        assert!(tools <= 20, "request {n} carried {tools} tools");
        let offered = offered(&h, n);
        assert!(offered.iter().any(|t| t == "find_tools"), "request {n}: {offered:?}");
        // The room the built-in tools leave (none is taken by web search here) holds a few of
        // the house's tools beside the finder; the others are found through it.
        let listed = offered.iter().filter(|t| t.starts_with("house_")).count();
        assert!(listed <= 4, "{offered:?}");
    }
    let found = tool_results(&h.llm.requests()[1]).last().cloned().expect("a search");
    let names = found["found"].to_string();
    assert!(names.contains("house_air_conditioner_set"), "{found}");
    assert!(found["found"].as_array().is_some_and(|f| f.len() <= 5), "{found}");
    // The house's last tool is as reachable as its first: all 40 are kept.
    let ctx = hearth::contract::ToolCtx {
        conversation: hearth::platform::conversation::Conversation::group(FAMILY),
        user_id: Some(MOM.into()),
        display_name: None,
        tz: jiff::tz::TimeZone::UTC,
        lang: hearth::platform::i18n::Lang::ZhTw,
        clock: std::sync::Arc::new(hearth::platform::clock::SystemClock),
        surface: hearth::contract::Surface::Chat,
    };
    let search = r#"{"query": "tv set", "call": null, "arguments": null}"#;
    let beyond = h.app.turns.agent.registry().dispatch("find_tools", search, &ctx).await;
    let beyond = beyond.content.to_string();
    assert!(beyond.contains("house_tv_set"), "{beyond}");
    // The search showed the house's own words (it is not trusted): the change asked for after
    // it waits for the family's tap, and runs once on it.
    assert!(house.calls.lock().expect("calls").is_empty(), "not run before the tap");
    let held = tool_results(&h.llm.requests()[2]).last().cloned().expect("a call");
    assert_eq!(held["status"], "needs_confirmation", "{held}");
    let confirm = postback_data(&h.line.replies()[0].body, "confirm_call").expect("a button");
    h.send(vec![h.postback(in_group(FAMILY, MOM), &confirm)]).await;
    assert!(texts_of(&h.line.replies()[1].body).contains("已確認"));
    let calls = house.calls.lock().expect("calls").clone();
    assert_eq!(calls, [("air_conditioner_set".to_string(), r#"{"level":26}"#.to_string())]);

    // Called through the finder without a search first (in a chat whose history holds no
    // untrusted answer), a tool runs at once, its output fenced.
    let before = h.llm.requests().len();
    h.llm.reply_tool_calls(&[(
        "find_tools",
        json!({"query": null, "call": "house_tv_status", "arguments": null}),
    )]);
    h.llm.reply_text("電視開著。");
    h.send(vec![h.group_text(OTHER_GROUP, MOM, "小幫手 電視開著嗎")]).await;
    let done = tool_results(&h.llm.requests()[before + 1]).last().cloned().expect("a call");
    let done = done.to_string();
    assert!(done.contains("tv_status ok") && done.contains(BEGIN), "{done}");
}

/// The example `name`, built beside this test binary (in its profile) by the first test that
/// needs it: a filtered run (`cargo test --test it -- mcp::`) builds no example by itself.
fn built_example(name: &str) -> std::path::PathBuf {
    static BUILT: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    let exe = std::env::current_exe().expect("test binary");
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>");
    let profile = profile_dir.file_name().and_then(|p| p.to_str()).unwrap_or("debug");
    let built = BUILT.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let profile = if profile == "debug" { "dev" } else { profile };
        // Without the variables cargo sets for a test (`CARGO_PKG_NAME`, `CARGO_MANIFEST_DIR`…):
        // build scripts that read them (ring's) would see them changed, rebuild, and the next
        // `cargo` run would rebuild them back.
        let mut build = std::process::Command::new(cargo);
        for (key, _) in std::env::vars_os() {
            let key = key.to_string_lossy();
            let set_for_tests = ["CARGO_PKG_", "CARGO_MANIFEST_", "CARGO_CRATE_", "CARGO_BIN_"]
                .iter()
                .any(|prefix| key.starts_with(prefix))
                || ["CARGO_PRIMARY_PACKAGE", "CARGO_TARGET_TMPDIR", "OUT_DIR"].contains(&&*key);
            if set_for_tests {
                build.env_remove(&*key);
            }
        }
        let out = build
            .args(["build", "--quiet", "--manifest-path", manifest, "--profile", profile])
            .args(["--example", name])
            .output()
            .map_err(|e| format!("could not run cargo: {e}"))?;
        match out.status.success() {
            true => Ok(()),
            false => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
        }
    });
    if let Err(e) = built {
        panic!("building the example {name} failed: {e}");
    }
    profile_dir.join("examples").join(name)
}
