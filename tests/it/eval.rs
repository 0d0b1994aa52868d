//! `hearth eval` against the fake LLM: a model that answers every case as expected scores full
//! marks, one that confuses the fenced pairs scores low and fails `--min-accuracy`, and what
//! the model is sent is what `hearth serve` sends (system prompt, tools).

use std::collections::HashSet;
use std::process::{Command, Output};

use crate::common::FakeLlm;
use serde_json::{Value, json};

const SET: &str = "eval/routing.jsonl";

/// The data set's cases, as JSON.
fn cases() -> Vec<Value> {
    let text = std::fs::read_to_string(SET).expect("the data set");
    text.lines().skip(1).map(|l| serde_json::from_str(l).expect("a case")).collect()
}

/// Arguments that satisfy a check (the first option of `$any`, the text of `$contains`…).
fn witness(check: &Value) -> Value {
    match check {
        Value::Object(map) if map.len() == 1 && map.keys().all(|k| k.starts_with('$')) => {
            let (key, arg) = map.iter().next().expect("one key");
            match key.as_str() {
                "$any" => witness(&arg[0]),
                "$present" => json!("x"),
                _ => arg.clone(),
            }
        }
        Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), witness(v))).collect(),
        Value::Array(items) => items.iter().map(witness).collect(),
        other => other.clone(),
    }
}

/// The latest request text and the tools offered, from a request body.
fn asked(request: &Value) -> (String, HashSet<String>) {
    let messages = request["messages"].as_array().expect("messages");
    let last = messages.last().and_then(|m| m["content"].as_str()).unwrap_or_default();
    // In a group the request is labelled "[name] …".
    let text = match last.strip_prefix('[').and_then(|rest| rest.split_once("] ")) {
        Some((_, text)) => text,
        None => last,
    };
    let tools = request["tools"].as_array().into_iter().flatten();
    (
        text.to_string(),
        tools.filter_map(|t| t["function"]["name"].as_str().map(String::from)).collect(),
    )
}

/// The case a request is for: its text, and the tools it leaves out all missing.
fn case_for<'a>(cases: &'a [Value], request: &Value) -> &'a Value {
    let (text, offered) = asked(request);
    let without = |c: &Value| -> Vec<String> {
        c["without"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|w| w.as_str().map(String::from))
            .collect()
    };
    cases
        .iter()
        .filter(|c| c["text"] == text.as_str() && without(c).iter().all(|w| !offered.contains(w)))
        .max_by_key(|c| without(c).len())
        .unwrap_or_else(|| panic!("no case for {text:?}"))
}

/// A model answering each case with `calls(expected calls)`: text when there are none.
fn model(llm: &FakeLlm, calls: fn(&[Value]) -> Vec<(String, Value)>) {
    let cases = cases();
    llm.respond_with(move |request| {
        let case = case_for(&cases, request);
        let answer = calls(case["expect"].as_array().map(Vec::as_slice).unwrap_or_default());
        if answer.is_empty() {
            return FakeLlm::text("好的！");
        }
        let answer: Vec<(&str, Value)> =
            answer.iter().map(|(t, a)| (t.as_str(), a.clone())).collect();
        FakeLlm::tool_calls(&answer)
    });
}

/// Every expected call, with arguments that pass its checks.
fn right(expected: &[Value]) -> Vec<(String, Value)> {
    expected
        .iter()
        .map(|c| (c["tool"].as_str().unwrap_or_default().to_string(), witness(&c["args"])))
        .collect()
}

/// The other tool of each fenced pair; a request for no tool gets a search.
fn confused(expected: &[Value]) -> Vec<(String, Value)> {
    let swap = |tool: &str| match tool {
        "get_quote" => Some("fx"),
        "fx" => Some("get_quote"),
        "memory" => Some("reminder"),
        "reminder" => Some("memory"),
        "recap" | "weather" | "summarize_url" => Some("web_search"),
        _ => Some("memory"),
    };
    if expected.is_empty() {
        return vec![("web_search".into(), json!({"query": "?"}))];
    }
    expected
        .iter()
        .filter_map(|c| swap(c["tool"].as_str().unwrap_or_default()))
        .map(|t| (t.to_string(), json!({})))
        .collect()
}

/// Runs `hearth eval` against `llm`, writing the report to a temporary file.
async fn eval(llm: &FakeLlm, extra: &[&str]) -> (Output, Value) {
    eval_at(&llm.url(), extra).await
}

/// Runs `hearth eval` against the model at `base_url`.
async fn eval_at(base_url: &str, extra: &[&str]) -> (Output, Value) {
    let out = std::env::temp_dir().join(format!("hearth-eval-{}.json", uuid::Uuid::new_v4()));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hearth"));
    for var in
        ["HEARTH_SEARXNG_URL", "HEARTH_TAVILY_API_KEY", "HEARTH_BRAVE_API_KEY", "DATABASE_URL"]
    {
        cmd.env_remove(var);
    }
    cmd.env("OPENAI_BASE_URL", base_url)
        .env("OPENAI_API_KEY", "sk-test")
        .env("HEARTH_MODEL", "fake-model")
        .args(["eval", "--set", SET, "--out"])
        .arg(&out)
        .args(extra);
    let output = tokio::task::spawn_blocking(move || cmd.output().expect("run hearth eval"))
        .await
        .expect("join");
    let report = std::fs::read_to_string(&out)
        .map(|s| serde_json::from_str(&s).expect("report JSON"))
        .unwrap_or(Value::Null);
    let _ = std::fs::remove_file(&out);
    (output, report)
}

#[tokio::test]
async fn a_model_that_routes_every_case_right_scores_full_marks_on_at_least_200_cases() {
    let llm = FakeLlm::start().await;
    model(&llm, right);
    let (output, report) = eval(&llm, &["--min-accuracy", "0.99"]).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(report["cases"].as_u64().expect("cases") >= 200, "{report}");
    assert_eq!(report["accuracy"], 1.0, "{stdout}");
    assert_eq!(report["argument_accuracy"], 1.0);
    assert_eq!(report["model"], "fake-model");
    assert_eq!(report["tools"]["fx"]["precision"], 1.0);
    assert!(report["args_checked"].as_u64().expect("checked") >= 150, "{report}");
    assert!(stdout.contains("precision") && stdout.contains("get_quote / fx"), "{stdout}");
    assert_eq!(report["tokens"]["prompt_mean"], 42, "the fake counts 42 a request: {report}");
    assert_eq!(report["tokens"]["cached_mean"], 0, "and caches nothing: {report}");
    let stable = report["tokens"]["stable_prefix"].as_u64().unwrap_or_default();
    let tools = report["tokens"]["tools_one_to_one"].as_u64().unwrap_or_default();
    assert!(stable > tools + 300, "the instructions and the tools every request begins with");
    let tools = report["tokens"]["tools_one_to_one"].as_u64().expect("counted");
    assert!((1_000..=3_800).contains(&tools), "{report}");
    assert!(stdout.contains("tokens per request: prompt 42 mean"), "{stdout}");
}

#[test]
fn the_built_in_set_asks_for_every_tool_five_times_and_covers_the_hard_cases() {
    let cases = cases();
    let tools = [
        "weather",
        "fx",
        "get_quote",
        "reminder",
        "reminders",
        "price_alert",
        "price_alerts",
        "recap",
        "memory",
        "list",
        "digest",
        "quiet_hours",
        "quota",
        "care",
        "official_alerts",
        "web_search",
        "summarize_url",
    ];
    for tool in tools {
        let asked = cases
            .iter()
            .filter(|c| c["expect"].as_array().into_iter().flatten().any(|e| e["tool"] == tool))
            .count();
        assert!(asked >= 5, "{tool}: {asked} cases");
    }
    let after_midnight =
        cases.iter().filter(|c| c["now"].as_str().is_some_and(|n| n.contains("T00:"))).count();
    let in_groups = cases.iter().filter(|c| c["group"] == true).count();
    let lunar_offset = cases.iter().filter(|c| c.to_string().contains("days_before")).count();
    let held =
        cases.iter().filter(|c| c["id"].as_str().is_some_and(|i| i.starts_with("held-"))).count();
    assert!(after_midnight >= 3 && in_groups >= 4 && lunar_offset >= 2 && held >= 2);
}

#[tokio::test]
async fn a_model_that_confuses_the_fenced_pairs_scores_low_and_fails_min_accuracy() {
    let llm = FakeLlm::start().await;
    model(&llm, confused);
    let (output, report) = eval(&llm, &["--min-accuracy", "0.8"]).await;
    assert!(!output.status.success(), "under --min-accuracy the exit code is not zero");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("below --min-accuracy 0.8"), "{stderr}");
    let accuracy = report["accuracy"].as_f64().expect("accuracy");
    assert!(accuracy < 0.1, "{accuracy}");
    let pair = report["confusion"]
        .as_array()
        .expect("confusion")
        .iter()
        .find(|c| c["pair"] == json!(["get_quote", "fx"]))
        .expect("the pair");
    assert!(pair["counts"]["get_quote→fx"].as_u64() > Some(5), "{pair}");
    assert!(pair["counts"]["fx→get_quote"].as_u64() > Some(5), "{pair}");
    assert!(report["tools"]["web_search"]["precision"].as_f64() < Some(0.3), "{report}");
    assert!(report["misses"].as_array().expect("misses").len() > 200);
}

#[tokio::test]
async fn the_model_is_sent_hearths_own_prompt_and_tools_each_case_in_its_setting() {
    let llm = FakeLlm::start().await;
    model(&llm, right);
    let (output, _) = eval(&llm, &[]).await;
    assert!(output.status.success(), "without --min-accuracy a low score still exits 0");
    let requests = llm.requests();
    assert_eq!(requests.len(), cases().len(), "one request a case: the first round only");
    let find = |text: &str, offered: bool| {
        requests
            .iter()
            .find(|r| {
                let (t, tools) = asked(r);
                t == text && tools.contains("web_search") == offered
            })
            .unwrap_or_else(|| panic!("a request for {text:?}"))
    };
    let system = |r: &Value| crate::common::harness::instructions(r);
    let news = find("今天有什麼新聞", true);
    assert!(system(news).contains("web_search"));
    assert_eq!(news["tools"].as_array().map(Vec::len), Some(17), "every tool of hearth's own");
    assert_eq!(news["tool_choice"], "auto");
    let no_search = system(find("今天有什麼新聞", false));
    assert!(
        no_search.contains("cannot search the web") && !no_search.contains("web_search"),
        "{no_search}"
    );
    let remembered = requests
        .iter()
        .find(|r| system(r).contains("奶奶對花生過敏"))
        .expect("a case with memories");
    assert_eq!(asked(remembered).0, "奶奶對什麼過敏？");
    let umbrella = system(find("要帶傘嗎", true));
    assert!(
        umbrella.contains("2026-03-04 (週三) 09:30") && umbrella.contains("台北"),
        "{umbrella}"
    );
    assert!(umbrella.contains("nothing remembered yet"), "{umbrella}");
    let group = find("剛剛大家說了什麼", true);
    let last = group["messages"].as_array().and_then(|m| m.last()).expect("a message");
    assert_eq!(last["content"], "[媽媽] 剛剛大家說了什麼");
}

#[tokio::test]
async fn a_model_that_cannot_be_reached_is_an_error_not_a_score() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", closed.local_addr().expect("address"));
    drop(closed);
    let (output, report) = eval_at(&url, &[]).await;
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("did not answer any request"), "{stderr}");
    assert!(report.is_null(), "no report is written");
}

#[tokio::test]
async fn eval_runs_its_built_in_set_from_any_directory() {
    let llm = FakeLlm::start().await;
    model(&llm, right);
    let out = std::env::temp_dir().join(format!("hearth-eval-{}.json", uuid::Uuid::new_v4()));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hearth"));
    for var in
        ["HEARTH_SEARXNG_URL", "HEARTH_TAVILY_API_KEY", "HEARTH_BRAVE_API_KEY", "DATABASE_URL"]
    {
        cmd.env_remove(var);
    }
    cmd.current_dir(std::env::temp_dir())
        .env("OPENAI_BASE_URL", llm.url())
        .env("OPENAI_API_KEY", "sk-test")
        .env("HEARTH_MODEL", "fake-model")
        .args(["eval", "--out"])
        .arg(&out);
    let output = tokio::task::spawn_blocking(move || cmd.output().expect("run hearth eval"))
        .await
        .expect("join");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("report")).expect("JSON");
    let _ = std::fs::remove_file(&out);
    assert!(report["cases"].as_u64().expect("cases") >= 200, "{report}");
    assert_eq!(report["set"], "built-in");
}
