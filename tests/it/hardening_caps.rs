//! Per-chat caps (200 reminders, 50 price alerts, 500 memories) hold under concurrency: in the
//! store on every backend, and end to end when one LLM round asks for more than the room left.

use crate::common::harness::{Harness, MOM, in_dm, text_message, tool_results};
use hearth::platform::i18n::Lang;
use hearth::store::{
    Direction, Frequency, MAX_ALERTS, MAX_MEMORIES, MAX_REMINDERS, NewAlert, NewMemory,
    NewReminder, Side, Store, StoreError,
};
use serde_json::json;

/// The stores to test: those of `test_databases` and an SQLite file (several connections).
async fn stores() -> Vec<(Store, Option<std::path::PathBuf>)> {
    let mut stores = Vec::new();
    for url in crate::common::db::test_databases().await {
        stores.push((Store::connect(&url).await.expect("store"), None));
    }
    let file = std::env::temp_dir().join(format!(
        "hearth-caps-{}-{}.db",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    let url = format!("sqlite://{}", file.display());
    stores.push((Store::connect(&url).await.expect("file store"), Some(file)));
    stores
}

fn reminder(text: &str) -> NewReminder<'_> {
    crate::common::rows::once_reminder("C1", text, 1_000)
}

fn alert(level: f64) -> NewAlert<'static> {
    NewAlert {
        conversation_id: "C1",
        created_by: None,
        symbol: "AAPL",
        name: None,
        currency: Some("USD"),
        direction: Direction::Up,
        level,
        band_pct: 0.2,
        frequency: Frequency::Once,
        cooldown_s: 3600,
        initial_side: Side::Below,
        tz: "Asia/Taipei",
        lang: Lang::ZhTw,
        now_ms: 0,
        deliver_to: None,
    }
}

fn memory(text: &str) -> NewMemory<'_> {
    NewMemory { conversation_id: "C1", text, user_id: Some("U1"), speaker: None, at_ms: 1 }
}

/// Counts the successes of `results`; every failure must be the cap.
fn successes<T>(results: Vec<Result<T, StoreError>>, name: &str) -> usize {
    results
        .into_iter()
        .filter(|r| match r {
            Ok(_) => true,
            Err(StoreError::Full { .. }) => false,
            Err(e) => panic!("{name}: an insert failed otherwise than at the cap: {e:?}"),
        })
        .count()
}

#[tokio::test]
async fn fifty_concurrent_inserts_into_a_chat_ten_below_its_cap_add_exactly_ten() {
    for (s, file) in stores().await {
        let name = s.backend_name();
        let texts: Vec<String> = (0..MAX_REMINDERS + 40).map(|n| format!("提醒 {n}")).collect();
        for text in &texts[..MAX_REMINDERS - 10] {
            s.reminders().create(&reminder(text)).await.expect("fill reminders");
        }
        let burst = texts[MAX_REMINDERS - 10..]
            .iter()
            .map(|t| async { s.reminders().create(&reminder(t)).await });
        let added = successes(futures::future::join_all(burst).await, name);
        assert_eq!(added, 10, "{name}: reminders");
        assert_eq!(s.reminders().list("C1").await.expect("list").len(), MAX_REMINDERS, "{name}");
        let elsewhere = NewReminder { conversation_id: "C2", ..reminder("別的群組") };
        s.reminders().create(&elsewhere).await.expect("another chat has its own cap");

        for n in 0..MAX_ALERTS - 10 {
            s.price_alerts().create(&alert(100.0 + n as f64)).await.expect("fill alerts");
        }
        let burst = (0..50).map(|n| {
            let s = &s;
            async move { s.price_alerts().create(&alert(1000.0 + f64::from(n))).await }
        });
        let added = successes(futures::future::join_all(burst).await, name);
        assert_eq!(added, 10, "{name}: alerts");
        assert_eq!(s.price_alerts().list("C1").await.expect("list").len(), MAX_ALERTS, "{name}");
        let same = s.price_alerts().create(&alert(100.0)).await;
        assert!(matches!(same, Err(StoreError::Full { .. })), "{name}: {same:?}");

        let texts: Vec<String> = (0..MAX_MEMORIES + 40).map(|n| format!("記得 {n}")).collect();
        for text in &texts[..MAX_MEMORIES - 10] {
            s.memory().add(&memory(text)).await.expect("fill memories");
        }
        let burst =
            texts[MAX_MEMORIES - 10..].iter().map(|t| async { s.memory().add(&memory(t)).await });
        let added = successes(futures::future::join_all(burst).await, name);
        assert_eq!(added, 10, "{name}: memories");
        assert_eq!(s.memory().memories("C1").await.expect("list").len(), MAX_MEMORIES, "{name}");
        if let Some(file) = file {
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
            }
        }
    }
}

#[tokio::test]
async fn one_round_asking_for_more_reminders_than_room_is_left_stops_at_the_cap() {
    let h = Harness::start().await;
    let texts: Vec<String> = (0..MAX_REMINDERS).map(|n| format!("提醒 {n}")).collect();
    for text in &texts[..MAX_REMINDERS - 3] {
        let r = NewReminder { conversation_id: MOM, ..reminder(text) };
        h.app.store.reminders().create(&r).await.expect("fill reminders");
    }
    let calls: Vec<(&str, serde_json::Value)> = (0..8)
        .map(|n| ("reminder", json!({"text": format!("新提醒 {n}"), "in_minutes": 30 + n})))
        .collect();
    h.llm.reply_tool_calls(&calls);
    h.llm.reply_text("好的");
    h.send(vec![h.event(in_dm(MOM), text_message("提醒我八件事"))]).await;
    let reminders = h.app.store.reminders().list(MOM).await.expect("list");
    assert_eq!(reminders.len(), MAX_REMINDERS, "the cap holds");
    let results = tool_results(&h.llm.requests()[1]);
    assert_eq!(results.len(), 8);
    let refused: Vec<_> = results.iter().filter(|r| r.get("error").is_some()).collect();
    assert_eq!(refused.len(), 5, "{results:#?}");
    for r in refused {
        let message = r["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("200 reminders"), "a clear reason: {r}");
    }
}
