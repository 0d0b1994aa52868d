//! The log of a real `hearth serve`: every line written while an event is handled carries the
//! event's span (its id, its chat and the tools its turn called), though no call site adds them;
//! every other line carries the span of the webhook or of the background loop that wrote it.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::replica::{Replica, envelope, event, shared_database};
use crate::common::{FakeLine, FakeLlm};

const MOM: &str = "U0123456789abcdef0123456789abcdef";

/// The spans a JSON log line was written in, outermost first.
fn spans(line: &Value) -> Vec<&Value> {
    line["spans"].as_array().map(|s| s.iter().collect()).unwrap_or_default()
}

fn span_named<'a>(line: &'a Value, name: &str) -> Option<&'a Value> {
    spans(line).into_iter().find(|s| s["name"] == name)
}

/// The JSON lines a real `hearth serve` (its database and log named after `name`) logged at
/// debug while it answered one message with a `memory` call, and the message's event id.
async fn log_of_one_turn(name: &str) -> (Vec<Value>, String) {
    let line = FakeLine::start().await;
    let llm = FakeLlm::start().await;
    llm.reply_tool_calls(&[("memory", json!({"action": "remember", "fact": "客廳的燈壞了"}))]);
    llm.reply_text("記住了：客廳的燈壞了。");
    let db = shared_database(name).await;
    let log_path = std::env::temp_dir().join(format!("hearth-{name}-{}.log", std::process::id()));
    let log = std::fs::File::create(&log_path).expect("log file");
    let env = [("RUST_LOG", "hearth=debug"), ("HEARTH_LOG_FORMAT", "json")];
    let mut hearth = Replica::spawn_logging(&db, &line, &llm, &env, log).await;
    let started = std::fs::read_to_string(&log_path).expect("log").lines().count();

    let asked = event(1, MOM, "記得客廳的燈壞了");
    let event_id = asked["webhookEventId"].as_str().expect("id").to_string();
    assert_eq!(hearth.post(&envelope(vec![asked])).await, 200);
    line.wait_for_answers(1, Duration::from_secs(20)).await;
    // The done mark is written after the answer is sent: give it a moment, then stop.
    tokio::time::sleep(Duration::from_millis(500)).await;
    hearth.kill();

    let text = std::fs::read_to_string(&log_path).expect("log");
    let _ = std::fs::remove_file(&log_path);
    let after = text
        .lines()
        .skip(started)
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    (after, event_id)
}

#[tokio::test]
async fn every_log_line_of_a_turn_carries_its_event_id_chat_and_tools() {
    let (after, event_id) = log_of_one_turn("spans").await;
    let in_event: Vec<&Value> = after.iter().filter(|l| span_named(l, "event").is_some()).collect();
    // Whatever is logged after the webhook arrived is inside a span: the webhook's, the event's,
    // or a background loop's.
    for l in &after {
        assert!(
            ["webhook", "event", "loop"].iter().any(|name| span_named(l, name).is_some()),
            "a line outside any span: {l}"
        );
    }
    for l in &in_event {
        let span = span_named(l, "event").expect("span");
        assert_eq!(span["event_id"], event_id.as_str(), "{l}");
        assert_eq!(span["chat"], format!("user:{MOM}"), "{l}");
    }
    // The turn logged from several layers (the turn, the tool registry, the LLM client, LINE),
    // and each of those lines came with the span, the tool included once it was called.
    let targets: std::collections::BTreeSet<&str> =
        in_event.iter().filter_map(|l| l["target"].as_str()).collect();
    assert!(targets.len() >= 2, "lines of one layer only: {targets:?}");
    let tool_call = in_event
        .iter()
        .find(|l| l["fields"]["message"] == "tool call")
        .expect("the tool call is logged in the event's span");
    assert_eq!(tool_call["fields"]["tool"], "memory");
    let last = in_event.last().expect("lines");
    assert_eq!(span_named(last, "event").expect("span")["tools"], "memory", "{last}");
}

/// The lines that end a call: its span with the outcome recorded, and how long it took.
fn calls_done<'a>(lines: &'a [Value], span: &str) -> Vec<(&'a Value, &'a Value)> {
    lines
        .iter()
        .filter(|l| l["fields"]["message"] == "call done")
        .filter_map(|l| Some((*spans(l).last()?, &l["fields"]["elapsed_ms"])))
        .filter(|(s, _)| s["name"] == span)
        .collect()
}

#[tokio::test]
async fn each_model_tool_and_line_call_of_a_turn_has_a_timed_span_with_its_outcome() {
    let (after, _) = log_of_one_turn("timed-spans").await;
    let in_event: Vec<Value> =
        after.into_iter().filter(|l| span_named(l, "event").is_some()).collect();

    let llm = calls_done(&in_event, "llm");
    assert_eq!(llm.len(), 2, "two rounds with the model: {llm:?}");
    assert!(llm.iter().all(|(s, ms)| s["outcome"] == "ok" && ms.is_u64()), "{llm:?}");

    let tools = calls_done(&in_event, "tool");
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!((&tools[0].0["tool"], &tools[0].0["outcome"]), (&json!("memory"), &json!("ok")));

    let line = calls_done(&in_event, "line");
    let reply = line.iter().find(|(s, _)| s["api"] == "/v2/bot/message/reply");
    let (span, elapsed) = reply.unwrap_or_else(|| panic!("no reply among {line:?}"));
    assert_eq!(span["outcome"], "200");
    assert!(elapsed.is_u64());
}
