//! A family's kept things, made through the tools as the family would ask: a reminder, a
//! shopping list of two items, a memory, a price alert, a daily digest, quiet hours and a
//! message in the chat log, all in MOM's 1:1 chat (the export and copy-data tests read them).

use serde_json::json;

use super::harness::{Harness, MOM, in_dm, text_message};

/// Keeps one of each kind of thing for MOM's chat through `h`'s tools.
pub async fn keep_one_of_each(h: &Harness) {
    let reminder = json!({"text": "吃藥", "at": "2026-12-01T08:00"});
    h.call_tool(in_dm(MOM), "提醒我明天八點吃藥", "reminder", reminder).await;
    let milk = json!({"action": "add", "items": [{"name": "牛奶", "quantity": 2}, {"name": "雞蛋", "quantity": null}]});
    h.call_tool(in_dm(MOM), "要買兩瓶牛奶和雞蛋", "list", milk).await;
    let fact = json!({"action": "remember", "fact": "奶奶對花生過敏"});
    h.call_tool(in_dm(MOM), "記得奶奶對花生過敏", "memory", fact).await;
    h.quote("BTC-USD", 91_000.0);
    let alert = json!({"symbol": "BTC-USD", "direction": "rises_to", "level": 100000.5});
    h.call_tool(in_dm(MOM), "比特幣到十萬通知我", "price_alert", alert).await;
    let digest = json!({"time": "07:00", "place": "台北"});
    h.call_tool(in_dm(MOM), "每天七點摘要", "digest", digest).await;
    h.call_tool(in_dm(MOM), "晚上不要吵", "quiet_hours", json!({})).await;
    h.llm.reply_text("好");
    h.send(vec![h.event(in_dm(MOM), text_message("今天好冷"))]).await;
}
