//! What a family's month of LLM costs: 30 turns a day for 30 days, the requests of hearth's eval
//! set in an interleaved mix (its group cases in the family group, the others in 媽媽's or
//! 爸爸's 1:1 chat), replayed through the real server on a manual clock (07:00 to 21:30, half
//! an hour apart) against a fake model with a provider's prompt cache
//! (`tests/it/common/prompt_cache.rs`: the longest prefix seen before is cached, in steps of 128
//! tokens from 1,024). The model calls the tools the eval case expects, then answers in a short
//! sentence. Prints the input, cached and output tokens and the cost at gpt-4o-mini's prices,
//! then what hearth counted itself (`hearth usage`).
//!
//! Run with `cargo bench --bench family_month` (not run in CI). `BENCH_DAYS` (default 30) and
//! `BENCH_TURNS_PER_DAY` (default 30) change the month.

#[path = "../tests/it/common/mod.rs"]
mod common;

use std::collections::HashMap;

use common::FakeLlm;
use common::harness::{DAD, FAMILY, Harness, MOM};
use serde_json::Value;

/// gpt-4o-mini, US$ per million tokens: input, cached input, output.
const PRICES: [f64; 3] = [0.15, 0.075, 0.60];
/// What the model answers after its tools, or without them.
const ANSWER: &str = "好的，明天台北多雲時晴，氣溫 18 到 24 度，降雨機率兩成，出門不用帶傘。";

/// A case of the eval set: what is said, where, and the calls the model makes.
struct Case {
    text: String,
    group: bool,
    speaker: String,
    calls: Vec<(String, Value)>,
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The eval set's cases (its first line is the shared setting).
fn cases() -> Vec<Case> {
    hearth::cli::eval::BUILT_IN_SET
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .map(|case| Case {
            text: case["text"].as_str().unwrap_or_default().to_string(),
            group: case["group"].as_bool().unwrap_or(false),
            speaker: case["speaker"].as_str().unwrap_or("媽媽").to_string(),
            calls: case["expect"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    let tool = c["tool"].as_str().unwrap_or_default().to_string();
                    (tool, concrete(&c["args"]))
                })
                .collect(),
        })
        .collect()
}

/// The expected arguments with each matcher replaced by a value it accepts.
fn concrete(args: &Value) -> Value {
    match args {
        Value::Object(map) if map.len() == 1 && map.keys().all(|k| k.starts_with('$')) => {
            match map.iter().next() {
                Some((k, v)) if k == "$any" => {
                    v.as_array().and_then(|o| o.first()).cloned().unwrap_or_default()
                }
                Some((k, _)) if k == "$present" => Value::from("1"),
                Some((_, v)) => v.clone(),
                None => Value::Null,
            }
        }
        Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), concrete(v))).collect(),
        other => other.clone(),
    }
}

/// The text of the latest user message, without a group's "[name] " label.
fn latest_request(request: &Value) -> String {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let last = messages.iter().rev().find(|m| m["role"] == "user").cloned().unwrap_or_default();
    let text = last["content"].as_str().unwrap_or_default();
    match text.strip_prefix('[').and_then(|rest| rest.split_once("] ")) {
        Some((_, text)) => text.to_string(),
        None => text.to_string(),
    }
}

fn main() {
    let days = env_or("BENCH_DAYS", 30);
    let per_day = env_or("BENCH_TURNS_PER_DAY", 30);
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    runtime.block_on(async move {
        let cases = cases();
        let h = Harness::start().await;
        h.line.set_profile(MOM, "媽媽");
        h.line.set_profile(DAD, "爸爸");
        let calls: HashMap<String, Vec<(String, Value)>> =
            cases.iter().map(|c| (c.text.clone(), c.calls.clone())).collect();
        h.llm.cache_prompts();
        h.llm.respond_with(move |request| {
            let messages = request["messages"].as_array().cloned().unwrap_or_default();
            if messages.last().is_some_and(|m| m["role"] == "tool") {
                return FakeLlm::text(ANSWER);
            }
            match calls.get(&latest_request(request)) {
                Some(calls) if !calls.is_empty() => {
                    let calls: Vec<(&str, Value)> =
                        calls.iter().map(|(t, a)| (t.as_str(), a.clone())).collect();
                    FakeLlm::tool_calls(&calls)
                }
                _ => FakeLlm::text(ANSWER),
            }
        });
        let started = std::time::Instant::now();
        let mut turns = 0usize;
        for day in 0..days {
            for slot in 0..per_day {
                // 331 cases, a prime: a stride walks through all of them, tools interleaved.
                let case = &cases[(turns * 97) % cases.len()];
                let minutes = 7 * 60 + slot * 30;
                // Taipei is UTC+8; the month starts on 2026-12-01.
                let local = jiff::civil::date(2026, 12, 1)
                    .checked_add(jiff::Span::new().days(day as i64))
                    .expect("date")
                    .at((minutes / 60) as i8, (minutes % 60) as i8, 0, 0);
                let zone = jiff::tz::TimeZone::get("Asia/Taipei").expect("zone");
                let at = zone.to_ambiguous_zoned_datetime(local).compatible().expect("instant");
                h.set_clock(&at.timestamp().to_string());
                let user = if case.speaker == "爸爸" { DAD } else { MOM };
                let event = if case.group {
                    h.group_text(FAMILY, user, &format!("小幫手 {}", case.text))
                } else {
                    h.dm(user, &case.text)
                };
                h.send(vec![event]).await;
                turns += 1;
            }
        }
        let t = h.llm.cache_totals();
        let uncached = t.input - t.cached;
        let cost = (uncached as f64 * PRICES[0]
            + t.cached as f64 * PRICES[1]
            + t.output as f64 * PRICES[2])
            / 1e6;
        println!(
            "family month: {days} days x {per_day} turns = {turns} turns, {} requests",
            t.requests
        );
        println!(
            "input tokens      {:>12}  ({:.0} a request)",
            t.input,
            t.input as f64 / t.requests.max(1) as f64
        );
        println!(
            "cached tokens     {:>12}  ({:.1} % of input; longest cached prefix {})",
            t.cached,
            100.0 * t.cached as f64 / t.input.max(1) as f64,
            t.longest_cached
        );
        println!("output tokens     {:>12}", t.output);
        println!(
            "cost at gpt-4o-mini prices (${}/{}/{} per M): US${cost:.2}",
            PRICES[0], PRICES[1], PRICES[2]
        );
        println!("replayed in {:.1} s", started.elapsed().as_secs_f64());
        // What hearth itself counted, as `hearth usage` prints it.
        let prices =
            hearth::cli::usage::Prices { input: PRICES[0], cached: PRICES[1], output: PRICES[2] };
        let spent = hearth::features::budget::Spent::new(h.app.store.clone());
        let month = hearth::cli::usage::report(&spent, "2026-12", Some(prices)).await;
        println!("\nhearth usage --month 2026-12:\n{}", month.expect("usage"));
    });
}
