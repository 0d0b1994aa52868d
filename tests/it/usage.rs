//! What a family's LLM use costs: the tokens the provider served from its prompt cache are read
//! from the model's `usage` and kept per chat and day beside the budget's count, shown in
//! `/metrics` and by `hearth usage` (with the money when the prices are set); an optional
//! `prompt_cache_key` goes with every request.

use std::process::Command;

use crate::common::FakeLlm;
use crate::common::harness::{FAMILY, Harness, MOM, temp_db};
use hearth::store::{Charge, TokenParts};
use serde_json::json;

#[tokio::test]
async fn the_cached_tokens_the_model_reports_are_counted_per_chat_and_day_and_in_the_metrics() {
    let h = Harness::start().await;
    let call = FakeLlm::tool_calls(&[("weather", json!({"location": "台北", "days": 1}))]);
    h.llm.push(crate::common::Step::Json(FakeLlm::with_cached_usage(call, 5000, 4096, 20)));
    let text = FakeLlm::text("台北今天晴。");
    h.llm.push(crate::common::Step::Json(FakeLlm::with_cached_usage(text, 5200, 4992, 30)));
    h.send(vec![h.dm(MOM, "台北今天天氣")]).await;
    // DeepSeek's way of saying it.
    let mut deepseek = FakeLlm::with_usage(FakeLlm::text("好"), 1100, 5);
    deepseek["usage"]["prompt_cache_hit_tokens"] = json!(1024);
    h.llm.push(crate::common::Step::Json(deepseek));
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 你好")]).await;

    let month = h.app.store.usage().month_usage("2026-11").await.expect("usage");
    let of = |scope: &str| month.iter().find(|r| r.scope == scope).map(|r| r.parts);
    let one = TokenParts { turns: 1, input: 10_200, cached: 9_088, output: 50 };
    assert_eq!(of(MOM), Some(one), "{month:?}");
    let group = TokenParts { turns: 1, input: 1_100, cached: 1_024, output: 5 };
    assert_eq!(of(FAMILY), Some(group));
    assert_eq!(of(hearth::store::SERVICE_SCOPE).map(|p| p.cached), Some(10_112));
    let budget = h.app.store.usage().tokens_used("2026-11-30", MOM).await.expect("budget");
    assert_eq!(budget.chat, 10_250, "the budget still counts every token");

    let metrics = h.metrics_text().await;
    let cached = metrics
        .lines()
        .find(|l| l.starts_with("hearth_llm_tokens_total{kind=\"cached\"}"))
        .unwrap_or_default();
    let counted: u64 = cached.rsplit(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0);
    assert!(counted >= 10_112, "{cached}");
}

#[tokio::test]
async fn a_prompt_cache_key_goes_with_every_request_only_when_set() {
    let h = Harness::start().await;
    h.llm.reply_text("好");
    h.send(vec![h.dm(MOM, "你好")]).await;
    assert!(h.llm.requests()[0].get("prompt_cache_key").is_none(), "off by default");

    let h =
        Harness::start_with(|c| c.llm.prompt_cache_key = Some("family-hearth".into()), None).await;
    h.llm.reply_tool_calls(&[("weather", json!({"location": "台北"}))]);
    h.llm.reply_text("好");
    h.send(vec![h.dm(MOM, "台北天氣")]).await;
    let requests = h.llm.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests.iter().all(|r| r["prompt_cache_key"] == "family-hearth"), "{requests:?}");
}

/// Runs `hearth usage` on `db` with `args` and extra settings: whether it succeeded, what it said.
fn usage_cli(db: &str, args: &[&str], settings: &[(&str, &str)]) -> (bool, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hearth"));
    command.arg("usage").args(args).env("DATABASE_URL", db);
    for (former, new) in hearth::platform::config::renamed::RENAMED {
        command.env_remove(former).env_remove(new);
    }
    command.envs(settings.iter().copied());
    let out = command.output().expect("run hearth");
    let said =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), said)
}

fn charge(day: &str, chat: &str, turns: u64, input: u64, cached: u64, output: u64) -> Charge {
    let parts = TokenParts { turns, input, cached, output };
    Charge { day: day.into(), conversation_id: chat.into(), tokens: input + output, parts }
}

#[tokio::test]
async fn hearth_usage_prints_each_chats_turns_tokens_and_cost_for_the_month_asked() {
    let db = temp_db("usage-month");
    let store = hearth::store::Store::connect(&db).await.expect("store");
    for c in [
        charge("2026-12-01", FAMILY, 20, 200_000, 160_000, 1_500),
        charge("2026-12-02", FAMILY, 10, 100_000, 85_000, 700),
        charge("2026-12-02", MOM, 5, 40_000, 30_000, 300),
        charge("2026-11-30", MOM, 99, 990_000, 0, 9_900),
    ] {
        store.usage().add_charge(&c).await.expect("counted");
    }
    let prices = [
        ("HEARTH_LLM_PRICE_INPUT", "0.15"),
        ("HEARTH_LLM_PRICE_CACHED", "0.075"),
        ("HEARTH_LLM_PRICE_OUTPUT", "0.60"),
    ];
    let (ok, said) = usage_cli(&db, &["--month", "2026-12"], &prices);
    println!("{said}");
    assert!(ok, "{said}");
    let lines: Vec<&str> = said.lines().collect();
    assert!(lines[0].contains("chat (2026-12)") && lines[0].contains("US$"), "{said}");
    assert!(lines[1].starts_with(FAMILY) && lines[1].contains("group"), "{said}");
    assert!(
        lines[1].contains(" 30 ") && lines[1].contains("300000") && lines[1].contains("245000")
    );
    assert!(lines[2].starts_with(MOM) && lines[2].contains(" 5 ") && lines[2].contains("40000"));
    assert!(lines[3].starts_with("all chats") && lines[3].contains("340000"), "{said}");
    // 65,000 uncached × 0.15 + 275,000 cached × 0.075 + 2,500 output × 0.60, per million.
    assert!(lines[3].contains("$0.0319"), "{said}");
    assert!(!said.contains("990000"), "November stays out of December");

    let former = [
        ("HEARTH_PRICE_INPUT", "0.15"),
        ("HEARTH_PRICE_CACHED", "0.075"),
        ("HEARTH_PRICE_OUTPUT", "0.60"),
    ];
    let (ok, said) = usage_cli(&db, &["--month", "2026-12"], &former);
    assert!(ok && said.contains("$0.0319"), "the prices' former names still work: {said}");
    let mixed = [("HEARTH_PRICE_INPUT", "cheap"), ("HEARTH_LLM_PRICE_INPUT", "0.15")];
    let (ok, said) = usage_cli(&db, &["--month", "2026-12"], &[&prices[1..], &mixed].concat());
    assert!(ok && said.contains("$0.0319"), "the new name wins over the former: {said}");

    let (ok, said) = usage_cli(&db, &["--month", "2026-12"], &[]);
    assert!(ok && !said.lines().next().unwrap_or_default().contains("US$"), "{said}");
    assert!(said.contains("HEARTH_LLM_PRICE_INPUT"), "says how to see the money: {said}");
    let (ok, said) = usage_cli(&db, &["--month", "2026-10"], &prices);
    assert!(ok && said.contains("no LLM use recorded in 2026-10"), "{said}");
    let (ok, said) = usage_cli(&db, &["--month", "2026-13"], &prices);
    assert!(!ok && said.contains("is not a month like 2026-12"), "{said}");
    let (ok, said) =
        usage_cli(&db, &["--month", "2026-12"], &[("HEARTH_LLM_PRICE_INPUT", "cheap")]);
    assert!(!ok && said.contains("not a price"), "{said}");
}
