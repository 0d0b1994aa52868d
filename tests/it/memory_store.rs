//! The store's memory and chat-log privacy methods: every one is keyed by the conversation.
//! Each test runs on SQLite and, when `TEST_DATABASE_URL` is set, on PostgreSQL.

use hearth::store::{NewMemory, NewMessage, Removed, Store};

async fn stores() -> Vec<Store> {
    let mut stores = Vec::new();
    for url in crate::common::db::test_databases().await {
        stores.push(Store::connect(&url).await.expect("store"));
    }
    stores
}

fn memory<'a>(conversation: &'a str, text: &'a str) -> NewMemory<'a> {
    NewMemory { conversation_id: conversation, text, user_id: Some("U1"), speaker: None, at_ms: 1 }
}

fn message<'a>(conversation: &'a str, id: &'a str, text: &'a str, at_ms: i64) -> NewMessage<'a> {
    NewMessage {
        conversation_id: conversation,
        message_id: Some(id),
        user_id: Some("U1"),
        speaker: Some("媽媽"),
        from_bot: false,
        text,
        at_ms,
        tainted: false,
    }
}

#[tokio::test]
async fn memories_belong_to_their_conversation() {
    for s in stores().await {
        let a = s.memory().add(&memory("C1", "奶奶對花生過敏")).await.expect("add");
        let b = s.memory().add(&memory("C2", "別的群組")).await.expect("add");
        assert_eq!(s.memory().memories("C1").await.expect("list").len(), 1);
        assert_eq!(
            s.memory().delete("C1", b).await.expect("delete"),
            None,
            "C2's memory untouched"
        );
        assert_eq!(s.memory().memories("C2").await.expect("list").len(), 1);
        let gone = s.memory().delete("C1", a).await.expect("delete").expect("deleted");
        assert_eq!(gone.text, "奶奶對花生過敏");
        assert!(s.memory().memories("C1").await.expect("list").is_empty());
    }
}

#[tokio::test]
async fn a_turn_reads_its_history_and_memories_at_once_as_each_read_gives_them() {
    for s in stores().await {
        s.memory().add(&memory("C1", "奶奶對花生過敏")).await.expect("add");
        s.memory().add(&memory("C2", "別的群組")).await.expect("add");
        s.memory().add(&memory("C1", "爸爸週三加班")).await.expect("add");
        s.chat_log().log_message(&message("C1", "m1", "第一句很長很長很長", 1)).await.expect("log");
        s.chat_log().log_message(&message("C2", "x1", "別的群組的話", 2)).await.expect("log");
        let tainted = NewMessage { from_bot: true, tainted: true, ..message("C1", "m2", "答", 3) };
        s.chat_log().log_message(&tainted).await.expect("log");
        s.chat_log().log_message(&message("C1", "m3", "第三句", 4)).await.expect("log");
        let now = s.chat_log().log_message(&message("C1", "m4", "現在這句", 5)).await.expect("log");
        for (limit, max_chars) in [(10, 1000), (2, 1000), (10, 4), (10, 0)] {
            let (history, memories) =
                s.memory().history_and_memories("C1", now, limit, max_chars).await.expect("read");
            assert_eq!(
                history,
                s.chat_log().history("C1", now, limit, max_chars).await.expect("history"),
                "limit {limit}, {max_chars} chars"
            );
            assert_eq!(memories, s.memory().memories("C1").await.expect("memories"));
        }
        let (history, memories) =
            s.memory().history_and_memories("C1", now, 10, 1000).await.expect("read");
        let texts: Vec<&str> = history.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(
            texts,
            ["第一句很長很長很長", "答", "第三句"],
            "oldest first, before the turn's own"
        );
        assert!(history[1].from_bot && history[1].tainted && !history[0].tainted);
        let facts: Vec<&str> = memories.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(facts, ["奶奶對花生過敏", "爸爸週三加班"], "this conversation's, oldest first");
        let (history, memories) =
            s.memory().history_and_memories("C3", i64::MAX, 10, 1000).await.expect("read");
        assert!(history.is_empty() && memories.is_empty(), "a new conversation has neither");
    }
}

#[tokio::test]
async fn forgetting_all_stops_at_the_confirmed_id_and_at_the_conversation() {
    for s in stores().await {
        let first = s.memory().add(&memory("C1", "一")).await.expect("add");
        let second = s.memory().add(&memory("C1", "二")).await.expect("add");
        s.memory().add(&memory("C2", "別的")).await.expect("add");
        let later = s.memory().add(&memory("C1", "三")).await.expect("add");
        assert!(first < second && second < later);
        assert_eq!(s.memory().delete_up_to("C1", second).await.expect("delete"), 2);
        let left: Vec<String> =
            s.memory().memories("C1").await.expect("list").into_iter().map(|m| m.text).collect();
        assert_eq!(left, ["三"]);
        assert_eq!(s.memory().memories("C2").await.expect("list").len(), 1);
    }
}

#[tokio::test]
async fn the_log_window_is_the_familys_messages_newest_first() {
    for s in stores().await {
        s.chat_log().log_message(&message("C1", "1", "早", 1_000)).await.expect("log");
        s.chat_log().log_message(&message("C1", "2", "午", 2_000)).await.expect("log");
        let answer = NewMessage { from_bot: true, ..message("C1", "3", "hearth 的回答", 2_500) };
        s.chat_log().record_answer(&answer, &["3".to_string()]).await.expect("answer");
        s.chat_log().log_message(&message("C2", "4", "別的群組", 2_600)).await.expect("log");
        s.chat_log().log_message(&message("C1", "5", "晚", 3_000)).await.expect("log");
        let texts = |rows: Vec<hearth::store::LoggedMessage>| {
            rows.into_iter().map(|m| m.text).collect::<Vec<_>>()
        };
        assert_eq!(
            texts(s.memory().log_window("C1", 2_000, 10).await.expect("window")),
            ["晚", "午"]
        );
        assert_eq!(texts(s.memory().log_window("C1", 0, 1).await.expect("window")), ["晚"]);
    }
}

#[tokio::test]
async fn unsend_prune_and_forget_conversation_delete_what_they_say() {
    for s in stores().await {
        s.chat_log().log_message(&message("C1", "1", "收回的訊息", 1_000)).await.expect("log");
        s.chat_log().log_message(&message("C1", "2", "舊訊息", 1_000)).await.expect("log");
        s.chat_log().log_message(&message("C1", "3", "新訊息", 5_000)).await.expect("log");
        s.chat_log().log_message(&message("C2", "1", "同 id 不同群組", 5_000)).await.expect("log");
        assert_eq!(s.memory().unsend_message("C1", "1").await.expect("unsend"), 1);
        assert_eq!(
            s.memory().log_window("C2", 0, 10).await.expect("window").len(),
            1,
            "other chat kept"
        );

        let answer = NewMessage { from_bot: true, ..message("C1", "9", "答", 1_000) };
        s.chat_log().record_answer(&answer, &["9".to_string()]).await.expect("answer");
        assert_eq!(
            s.memory().prune_chat_log(2_000).await.expect("prune"),
            2,
            "舊訊息 and the old answer"
        );
        assert!(
            !s.chat_log().is_bot_message("C1", "9").await.expect("query"),
            "old sent ids pruned too"
        );

        s.memory().add(&memory("C1", "記得")).await.expect("add");
        s.chat_log().save_member("C1", "U1", "媽媽", 1).await.expect("member");
        let removed = s.forget_conversation("C1").await.expect("forget");
        assert_eq!(removed, Removed { messages: 1, memories: 1, reminders: 0, alerts: 0 });
        assert_eq!(s.chat_log().member_name("C1", "U1").await.expect("query"), None);
        assert_eq!(s.memory().log_window("C2", 0, 10).await.expect("window").len(), 1);
    }
}

#[tokio::test]
async fn a_chat_log_longer_than_a_batch_is_pruned_whole_and_the_newer_lines_stay() {
    for s in stores().await {
        let name = s.backend_name();
        for n in 0..2_500 {
            let id = format!("old-{n}");
            s.chat_log().log_message(&message("C1", &id, "舊訊息", 1_000)).await.expect("log");
        }
        for n in 0..3 {
            let id = format!("new-{n}");
            s.chat_log().log_message(&message("C1", &id, "新訊息", 5_000)).await.expect("log");
        }
        assert_eq!(s.memory().prune_chat_log(2_000).await.expect("prune"), 2_500, "{name}");
        let kept = s.memory().log_window("C1", 0, 10_000).await.expect("window");
        assert_eq!(kept.len(), 3, "{name}: the newer lines stay");
    }
}
