//! The store's behaviour, independent of the backend.

use hearth::store::{NewMessage, Store};

async fn store() -> Store {
    Store::in_memory().await.expect("in-memory store")
}

fn message<'a>(conversation: &'a str, text: &'a str, at_ms: i64) -> NewMessage<'a> {
    NewMessage {
        conversation_id: conversation,
        message_id: None,
        user_id: Some("U1"),
        speaker: Some("媽媽"),
        from_bot: false,
        text,
        at_ms,
    }
}

#[tokio::test]
async fn an_event_id_is_new_only_once_until_pruned() {
    let s = store().await;
    assert!(s.record_event("01A", "message", 1_000).await.expect("insert"));
    assert!(!s.record_event("01A", "message", 2_000).await.expect("duplicate"));
    assert_eq!(s.prune_events(1_500).await.expect("prune"), 1);
    assert!(s.record_event("01A", "message", 3_000).await.expect("insert again"));
}

#[tokio::test]
async fn history_is_per_conversation_oldest_first_and_bounded() {
    let s = store().await;
    for i in 0..10 {
        s.log_message(&message("C1", &format!("m{i}"), i)).await.expect("log");
        s.log_message(&message("C2", "other", i)).await.expect("log");
    }
    let last = s.log_message(&message("C1", "now", 99)).await.expect("log");
    let h = s.history("C1", last, 3, 10_000).await.expect("history");
    let texts: Vec<&str> = h.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["m7", "m8", "m9"]);
    let h = s.history("C1", last, 10, 5).await.expect("history");
    assert_eq!(h.len(), 2, "at most 5 characters: m8, m9");
}

#[tokio::test]
async fn sent_message_ids_belong_to_their_conversation() {
    let s = store().await;
    let answer =
        NewMessage { from_bot: true, speaker: Some("hearth"), ..message("C1", "答案", 1) };
    s.record_answer(&answer, &["600".to_string(), "601".to_string()]).await.expect("record");
    assert!(s.is_bot_message("C1", "600").await.expect("query"));
    assert!(!s.is_bot_message("C2", "600").await.expect("query"));
    assert!(s.is_bot_message("C1", "601").await.expect("query"));
    assert!(!s.is_bot_message("C1", "602").await.expect("query"));
    let last = s.log_message(&message("C1", "next", 2)).await.expect("log");
    let history = s.history("C1", last, 5, 1000).await.expect("history");
    assert!(history[0].from_bot && history[0].text == "答案");
}

#[tokio::test]
async fn member_names_are_updated_in_place() {
    let s = store().await;
    assert_eq!(s.member_name("C1", "U1").await.expect("query"), None);
    s.save_member("C1", "U1", "媽媽", 1).await.expect("save");
    s.save_member("C1", "U1", "老媽", 2).await.expect("save");
    assert_eq!(s.member_name("C1", "U1").await.expect("query"), Some(("老媽".to_string(), 2)));
}

#[tokio::test]
async fn a_database_file_is_created_on_first_run() {
    let dir = std::env::temp_dir().join(format!("hearth-store-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("hearth.db");
    let url = format!("sqlite://{}", path.display());
    let s = Store::connect(&url).await.expect("file store");
    s.record_event("01F", "message", 1).await.expect("write");
    assert!(path.exists());
    drop(s);
    let reopened = Store::connect(&url).await.expect("reopen applies no migration twice");
    assert!(!reopened.record_event("01F", "message", 2).await.expect("persisted"));
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn unsupported_database_urls_are_refused_clearly() {
    let err = Store::connect("mysql://localhost/hearth").await.err().expect("refused");
    assert!(err.to_string().contains("DATABASE_URL"));
}
