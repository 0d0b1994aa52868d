//! Nobody spends without limit: chats waiting for approval are told once and then ignored,
//! turn rates per person and per chat, daily token budgets per chat and for the service (reset
//! at local midnight), and a cap on tool calls per LLM round — each checked before any LLM call.

use crate::common::harness::{
    DAD, FAMILY, Harness, MOM, OTHER_GROUP, in_dm, texts_of, tool_results,
};
use crate::common::{FakeLlm, Step};
use hearth::platform::config::Config;
use hearth::store::Store;
use jiff::SignedDuration;
use serde_json::{Value, json};

const NOT_ALLOWED: &str = "isn't set up yet";
const RATE_NOTICE: &str = "訊息有點多";
const CHAT_BUDGET_NOTICE: &str = "這個聊天室今天的額度用完了";
const SERVICE_BUDGET_NOTICE: &str = "我今天的額度用完了";

/// The texts of every reply and push hearth sent.
fn sent_texts(h: &Harness) -> Vec<String> {
    h.line
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/reply") || r.path.ends_with("/push"))
        .map(|r| texts_of(&r.body))
        .collect()
}

/// The value of one series in `/metrics` (0 when absent). Tests share the process's recorder,
/// so a test only asserts that its own events were counted.
async fn metric(h: &Harness, series: &str) -> f64 {
    h.metrics_text()
        .await
        .lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or(0.0)
}

/// A database a second process can open: the PostgreSQL schema of this run, or an SQLite file.
async fn shared_database(name: &str) -> String {
    let url = crate::common::db::harness_database().await;
    if url.starts_with("sqlite") { sqlite_file(name) } else { url }
}

/// A fresh SQLite file that several stores can open.
fn sqlite_file(name: &str) -> String {
    let dir = crate::common::scratch_dir(&format!("hearth-limits-{name}"));
    format!("sqlite://{}", dir.join("hearth.db").display())
}

fn only(chats: &[&str]) -> impl Fn(&mut Config) {
    let chats: Vec<String> = chats.iter().map(|c| c.to_string()).collect();
    move |c: &mut Config| {
        c.access.allowed_chats = chats.clone();
        c.access.open = false;
    }
}

#[tokio::test]
async fn an_unlisted_user_gets_exactly_one_refusal_across_messages_and_a_restart_and_no_llm_call() {
    let db = shared_database("unlisted").await;
    let allow = only(&[DAD, FAMILY]);
    let h = Harness::start_with(
        |c| {
            allow(c);
            c.store.database_url = db.clone();
        },
        None,
    )
    .await;
    h.send(vec![h.dm(MOM, "你好")]).await;
    h.send(vec![h.dm(MOM, "在嗎？")]).await;
    let texts = sent_texts(&h);
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(texts[0].contains(NOT_ALLOWED) && texts[0].contains("還沒開通"), "{texts:?}");
    assert!(metric(&h, r#"hearth_turns_refused_total{reason="pending"}"#).await >= 2.0);

    let restarted = Harness::start_with(
        |c| {
            allow(c);
            c.store.database_url = db.clone();
        },
        None,
    )
    .await;
    restarted.send(vec![restarted.dm(MOM, "哈囉？")]).await;
    assert!(restarted.line.sends().is_empty(), "silence after a restart");
    assert!(h.llm.requests().is_empty() && restarted.llm.requests().is_empty());
    let logged =
        h.app.store.chat_log().history(MOM, i64::MAX, 100, 100_000).await.expect("history");
    assert!(logged.iter().all(|m| m.from_bot), "nothing the chat said is kept: {logged:?}");

    restarted.send(vec![restarted.dm(DAD, "你好")]).await;
    assert_eq!(restarted.llm.requests().len(), 1, "a listed user is served");
}

#[tokio::test]
async fn an_unlisted_group_waits_until_a_listed_member_speaks_in_it() {
    let h = Harness::start_with(only(&[MOM, FAMILY]), None).await;
    h.send(vec![h.group_text(OTHER_GROUP, DAD, "晚餐吃什麼")]).await;
    assert!(h.line.sends().is_empty(), "not called, so not even a notice");
    h.send(vec![h.group_text(OTHER_GROUP, DAD, "小幫手 台北天氣")]).await;
    h.send(vec![h.group_text(OTHER_GROUP, DAD, "小幫手 在嗎")]).await;
    let texts = sent_texts(&h);
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(texts[0].contains(NOT_ALLOWED));
    assert!(h.llm.requests().is_empty());

    h.send(vec![h.group_text(FAMILY, DAD, "小幫手 在嗎")]).await;
    h.send(vec![h.dm(MOM, "在嗎")]).await;
    assert_eq!(h.llm.requests().len(), 2, "the listed group and the listed user are served");
    h.send(vec![h.group_text(OTHER_GROUP, MOM, "小幫手 在嗎")]).await;
    assert_eq!(h.llm.requests().len(), 3, "a listed member brings hearth into her group");
}

#[tokio::test]
async fn an_unlisted_user_who_adds_hearth_gets_the_refusal_instead_of_the_greeting() {
    let h = Harness::start_with(only(&[DAD]), None).await;
    let mut follow = h.event(in_dm(MOM), json!({}));
    follow["type"] = json!("follow");
    follow.as_object_mut().expect("object").remove("message");
    h.send(vec![follow]).await;
    h.send(vec![h.dm(MOM, "你好")]).await;
    let texts = sent_texts(&h);
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(texts[0].contains(NOT_ALLOWED));
    assert!(h.llm.requests().is_empty());
}

#[tokio::test]
async fn a_hundred_messages_from_one_person_make_at_most_the_limit_of_llm_calls_and_one_notice() {
    let h = Harness::start_with(|c| c.limits.user_turns_per_minute = 5, None).await;
    for batch in 0..10 {
        let events: Vec<Value> =
            (0..10).map(|i| h.dm(MOM, &format!("第 {} 則", batch * 10 + i))).collect();
        h.send(events).await;
    }
    assert_eq!(h.llm.requests().len(), 5);
    let texts = sent_texts(&h);
    assert_eq!(texts.iter().filter(|t| t.contains(RATE_NOTICE)).count(), 1, "{texts:?}");
    assert_eq!(texts.len(), 6, "five answers and one notice");
    assert!(metric(&h, r#"hearth_turns_refused_total{reason="rate_limited"}"#).await >= 95.0);

    h.clock.advance(SignedDuration::from_mins(1));
    h.send(vec![h.dm(MOM, "現在可以了嗎")]).await;
    assert_eq!(h.llm.requests().len(), 6, "the limit refills after a minute");
}

#[tokio::test]
async fn a_busy_group_is_limited_as_a_whole_and_told_once() {
    let h = Harness::start_with(|c| c.limits.chat_turns_per_minute = 3, None).await;
    for who in [MOM, DAD, MOM, DAD, MOM, DAD] {
        h.send(vec![h.group_text(FAMILY, who, "小幫手 在嗎")]).await;
    }
    assert_eq!(h.llm.requests().len(), 3);
    let texts = sent_texts(&h);
    assert_eq!(texts.iter().filter(|t| t.contains(RATE_NOTICE)).count(), 1, "{texts:?}");
}

#[tokio::test]
async fn group_messages_that_do_not_call_hearth_use_up_no_limit() {
    let h = Harness::start_with(
        |c| {
            c.limits.user_turns_per_minute = 2;
            c.limits.daily_tokens_per_chat = 100;
        },
        None,
    )
    .await;
    for _ in 0..10 {
        h.send(vec![h.group_text(FAMILY, MOM, "晚餐吃什麼")]).await;
    }
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 在嗎")]).await;
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 你好")]).await;
    assert_eq!(h.llm.requests().len(), 2);
    assert_eq!(sent_texts(&h).len(), 2);
}

#[tokio::test]
async fn the_chat_budget_stops_turns_after_the_crossing_one_until_local_midnight() {
    let h = Harness::start_with(|c| c.limits.daily_tokens_per_chat = 1000, None).await; // 20:00 Taipei
    let fx = json!({"amount": 1, "from": "USD", "to": "TWD"});
    h.llm.push(Step::Json(FakeLlm::with_usage(FakeLlm::tool_calls(&[("fx", fx)]), 250, 50)));
    h.llm.push(Step::Json(FakeLlm::with_usage(FakeLlm::text("約 32 元"), 250, 50)));
    h.send(vec![h.dm(MOM, "1 美金多少台幣")]).await;
    let used = h.app.store.usage().tokens_used("2026-11-30", MOM).await.expect("used");
    assert_eq!((used.chat, used.service), (600, 600), "both rounds of the turn count");

    h.llm.push(Step::Json(FakeLlm::with_usage(FakeLlm::text("好的"), 500, 100)));
    h.send(vec![h.dm(MOM, "謝謝")]).await;
    h.send(vec![h.dm(MOM, "再問一次")]).await;
    assert_eq!(h.llm.requests().len(), 3, "no LLM call once the budget is used up");
    let texts = sent_texts(&h);
    assert_eq!(texts.len(), 3);
    assert!(texts[2].contains(CHAT_BUDGET_NOTICE), "{texts:?}");
    assert!(metric(&h, r#"hearth_turns_refused_total{reason="budget_exhausted"}"#).await >= 1.0);
    assert!(metric(&h, "hearth_budget_tokens_total").await >= 1200.0);

    h.clock.advance(SignedDuration::from_mins(3 * 60 + 59)); // 23:59
    h.send(vec![h.dm(MOM, "還不行嗎")]).await;
    assert_eq!(h.llm.requests().len(), 3);
    h.send(vec![h.dm(DAD, "你好")]).await;
    assert_eq!(h.llm.requests().len(), 4, "another chat has its own budget");

    h.clock.advance(SignedDuration::from_mins(1)); // midnight in Taipei
    h.send(vec![h.dm(MOM, "早安")]).await;
    assert_eq!(h.llm.requests().len(), 5, "a new day, a new budget");
}

#[tokio::test]
async fn the_service_budget_covers_every_chat() {
    let h = Harness::start_with(
        |c| {
            c.limits.daily_tokens_per_chat = 0;
            c.limits.daily_tokens_total = 1000;
        },
        None,
    )
    .await;
    h.llm.push(Step::Json(FakeLlm::with_usage(FakeLlm::text("好的"), 1100, 100)));
    h.send(vec![h.dm(MOM, "寫一篇長文")]).await;
    h.send(vec![h.dm(DAD, "hello there")]).await;
    assert_eq!(h.llm.requests().len(), 1);
    let texts = sent_texts(&h);
    assert!(texts[1].contains("I've used up today's allowance"), "English for English: {texts:?}");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 在嗎")]).await;
    assert!(sent_texts(&h)[2].contains(SERVICE_BUDGET_NOTICE));
}

#[tokio::test]
async fn token_counts_add_up_across_concurrent_writers_on_every_backend() {
    let mut urls = vec![sqlite_file("concurrent")];
    urls.extend(crate::common::db::fresh_postgres().await);
    for url in urls {
        let a = Store::connect(&url).await.expect("store");
        let b = Store::open(&url).await.expect("second connection");
        let writes = (0..20).map(|i| {
            let store = if i % 2 == 0 { a.clone() } else { b.clone() };
            async move { store.usage().add_tokens("2026-11-30", FAMILY, 10).await }
        });
        for result in futures::future::join_all(writes).await {
            result.expect("add");
        }
        a.usage().add_tokens("2026-11-30", MOM, 5).await.expect("add");
        a.usage().add_tokens("2026-11-29", FAMILY, 7).await.expect("add");
        let used = b.usage().tokens_used("2026-11-30", FAMILY).await.expect("used");
        assert_eq!((used.chat, used.service), (200, 205), "{url}");
        assert_eq!(a.usage().prune_tokens("2026-11-30").await.expect("prune"), 2, "{url}");
        assert_eq!(a.usage().tokens_used("2026-11-30", MOM).await.expect("used").chat, 5, "{url}");
        assert!(a.access().note_unapproved(MOM, 1).await.expect("note"), "{url}");
        assert!(!b.access().note_unapproved(MOM, 2).await.expect("note"), "told once: {url}");
    }
}

#[tokio::test]
async fn only_the_cap_of_250_tool_calls_in_one_round_run_and_the_rest_are_errors_as_data() {
    let h = Harness::start().await;
    let calls: Vec<(&str, Value)> = (0..250)
        .map(|i| ("reminder", json!({"text": format!("喝水 {i}"), "in_minutes": 10 + i})))
        .collect();
    h.llm.reply_tool_calls(&calls);
    h.llm.reply_text("我一次只能設 8 個提醒");
    h.send(vec![h.dm(MOM, "每分鐘提醒我喝水，設 250 個")]).await;
    let results = tool_results(&h.llm.requests()[1]);
    assert_eq!(results.len(), 250, "every call gets a result");
    assert!(results[..8].iter().all(|r| r.get("error").is_none()), "{:?}", &results[..8]);
    assert!(results[8..].iter().all(|r| r["error"]["kind"] == "too_many_calls"));
    let message = results[8]["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("too many tool calls in one round"), "{message}");
    assert_eq!(h.app.store.reminders().list(MOM).await.expect("list").len(), 8);
    assert!(metric(&h, "hearth_tool_calls_dropped_total").await >= 242.0);
}
