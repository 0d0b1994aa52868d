//! The per-chat outbox in the store, the same on every backend: each test runs on SQLite and,
//! when `TEST_DATABASE_URL` is set (always in CI), on PostgreSQL.

use crate::common::db::test_databases;
use hearth::store::{NewOutboxItem, Store};

const GROUP: &str = "C0123456789abcdef0123456789abcdef";
const USER: &str = "U0123456789abcdef0123456789abcdef";

async fn stores() -> Vec<Store> {
    let mut stores = Vec::new();
    for url in test_databases().await {
        stores.push(Store::connect(&url).await.unwrap_or_else(|e| panic!("{url}: {e:?}")));
    }
    stores
}

fn item<'a>(home: &'a str, target: &'a str, key: &'a str, due_at: i64) -> NewOutboxItem<'a> {
    NewOutboxItem {
        conversation_id: home,
        target,
        kind: "alert",
        occurrence: key,
        payload: "[]",
        silent: true,
        due_at,
    }
}

#[tokio::test]
async fn an_item_is_recorded_once_and_its_chat_is_due_only_after_the_window() {
    for s in stores().await {
        let name = s.backend_name();
        s.outbox().record(&[item(GROUP, GROUP, "k1", 1_000)], 1_000).await.expect("record");
        s.outbox().record(&[item(GROUP, GROUP, "k1", 9_000)], 9_000).await.expect("again");
        assert_eq!(s.outbox().pending().await.expect("pending"), 1, "{name}");
        let stored = s.outbox().item("k1").await.expect("item").expect("kept");
        assert_eq!(
            (stored.due_at, stored.silent, stored.status.as_str()),
            (1_000, true, "pending")
        );
        assert!(
            s.outbox().due_targets(3_000, 999, 3_000, 10).await.expect("due").is_empty(),
            "{name}"
        );
        assert_eq!(s.outbox().due_targets(4_000, 1_000, 4_000, 10).await.expect("due"), [GROUP]);
        assert_eq!(s.outbox().oldest_due(GROUP, 4_000).await.expect("oldest"), Some(1_000));
    }
}

#[tokio::test]
async fn each_item_gets_a_random_retry_key_when_recorded_and_recording_again_keeps_the_first() {
    for s in stores().await {
        let name = s.backend_name();
        s.outbox().record(&[item(GROUP, GROUP, "k1", 1_000)], 1_000).await.expect("record");
        let first = s.outbox().item("k1").await.expect("item").expect("kept").line_key;
        s.outbox().record(&[item(GROUP, GROUP, "k1", 2_000)], 2_000).await.expect("again");
        let again = s.outbox().item("k1").await.expect("item").expect("kept").line_key;
        assert_eq!(first, again, "{name}: a retry of the item reuses its key");
        s.outbox().record(&[item(USER, USER, "k2", 1_000)], 1_000).await.expect("record");
        let other = s.outbox().item("k2").await.expect("item").expect("kept").line_key;
        let key = |k: &Option<String>| {
            uuid::Uuid::parse_str(k.as_deref().expect("a key")).expect("a UUID").get_version_num()
        };
        assert_eq!((key(&first), key(&other)), (4, 4), "{name}: random (v4)");
        assert_ne!(first, other, "{name}: a new item never gets an old key");
        assert_ne!(first.as_deref(), Some("k1"), "{name}: not its occurrence's name");
    }
}

#[tokio::test]
async fn an_item_just_handed_over_is_left_to_the_loop_that_recorded_it() {
    for s in stores().await {
        let name = s.backend_name();
        // Held since 1 s (quiet hours ended at 5 s), and one just recorded at 9.5 s.
        s.outbox().record(&[item(USER, USER, "held", 5_000)], 1_000).await.expect("record");
        s.outbox().record(&[item(USER, USER, "fresh", 9_500)], 9_500).await.expect("record");
        // A round at 10 s taking what was recorded by 9 s leaves the chat to the recording loop.
        assert!(s.outbox().due_targets(10_000, 10_000, 9_000, 10).await.expect("due").is_empty());
        let round = s.outbox().claim("round", USER, 10_000, 70_000, 9_000).await.expect("claim");
        let keys: Vec<_> = round.iter().map(|i| i.retry_key.as_str()).collect();
        assert_eq!(keys, ["held"], "{name}: never the item another loop is pushing");
        let own = s.outbox().claim("loop", USER, 10_000, 70_000, 10_000).await.expect("claim");
        let keys: Vec<_> = own.iter().map(|i| i.retry_key.as_str()).collect();
        assert_eq!(keys, ["fresh"], "{name}");
    }
}

#[tokio::test]
async fn one_process_holds_a_chat_s_items_and_a_request_keeps_its_key_across_attempts() {
    for s in stores().await {
        let name = s.backend_name();
        s.outbox()
            .record(&[item(GROUP, GROUP, "a", 1_000), item(GROUP, GROUP, "b", 1_000)], 1_000)
            .await
            .expect("record");
        let mine = s.outbox().claim("p1", GROUP, 1_000, 61_000, 1_000).await.expect("claim");
        assert_eq!(mine.len(), 2, "{name}");
        assert!(
            s.outbox().claim("p2", GROUP, 2_000, 62_000, 2_000).await.expect("claim").is_empty()
        );
        assert!(s.outbox().due_targets(2_000, 2_000, 2_000, 10).await.expect("due").is_empty());
        for i in &mine {
            s.outbox().set_request("p1", i.id, "K").await.expect("request");
        }
        let attempted: Vec<_> = mine.iter().collect();
        s.outbox().retry("p1", &attempted, 1_000, 5_000, true).await.expect("retry");
        assert!(
            s.outbox().claim("p2", GROUP, 4_999, 64_999, 4_999).await.expect("claim").is_empty()
        );
        let again = s.outbox().claim("p2", GROUP, 5_000, 65_000, 5_000).await.expect("claim");
        assert_eq!(again.len(), 2, "{name}: after the wait");
        assert!(again.iter().all(|i| i.request_key.as_deref() == Some("K") && i.attempts == 1));
        assert!(again.iter().all(|i| i.first_attempt_at == Some(1_000)));
        // LINE surely refused the next attempt (rate limited, or hearth's channel): not counted.
        let refused: Vec<_> = again.iter().collect();
        s.outbox().retry("p2", &refused, 5_000, 7_000, false).await.expect("retry");
        let again = s.outbox().claim("p2", GROUP, 7_000, 67_000, 7_000).await.expect("claim");
        assert!(
            again.iter().all(|i| i.attempts == 1 && i.first_attempt_at == Some(1_000)),
            "{name}: a refusal is not an attempt that may have reached LINE"
        );
        s.outbox().set_request("p2", again[0].id, "other").await.expect("request");
        let first = s.outbox().item("a").await.expect("item").expect("kept");
        assert_eq!(
            first.request_key.as_deref(),
            Some("K"),
            "{name}: fixed before the first attempt"
        );
        let done: Vec<_> = again.iter().collect();
        s.outbox().settle("p1", &done, "sent", 6_000).await.expect("not p1's");
        assert_eq!(
            s.outbox().pending().await.expect("pending"),
            2,
            "{name}: only the holder settles"
        );
        s.outbox().settle("p2", &done, "sent", 6_000).await.expect("settle");
        assert_eq!(s.outbox().pending().await.expect("pending"), 0, "{name}");
        assert_eq!(s.outbox().item("b").await.expect("item").expect("kept").status, "sent");
    }
}

/// An SQLite file (several connections, unlike `:memory:`) and PostgreSQL when configured.
async fn shared_stores() -> Vec<Store> {
    let dir = crate::common::scratch_dir("hearth-outbox-claims");
    let mut urls = vec![format!("sqlite://{}?mode=rwc", dir.join("hearth.db").display())];
    urls.extend(crate::common::db::fresh_postgres().await);
    let mut stores = Vec::new();
    for url in urls {
        stores.push(Store::connect(&url).await.unwrap_or_else(|e| panic!("{url}: {e:?}")));
    }
    stores
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_many_processes_claiming_one_chat_at_the_same_instant_one_gets_its_items() {
    for s in shared_stores().await {
        let name = s.backend_name();
        s.outbox()
            .record(&[item(GROUP, GROUP, "x", 1_000), item(GROUP, GROUP, "y", 1_000)], 1_000)
            .await
            .expect("record");
        for round in 0..5i64 {
            let now = 1_000 + round * 100_000;
            let claims = (0..12).map(|p| {
                let s = s.clone();
                tokio::spawn(async move {
                    s.outbox()
                        .claim(&format!("p{p}"), GROUP, now, now + 60_000, now)
                        .await
                        .expect("claim")
                })
            });
            let claimed: Vec<usize> = futures::future::join_all(claims)
                .await
                .into_iter()
                .map(|c| c.expect("task").len())
                .collect();
            assert_eq!(
                claimed.iter().filter(|n| **n > 0).count(),
                1,
                "{name}, round {round}: {claimed:?}"
            );
            assert_eq!(claimed.iter().sum::<usize>(), 2, "{name}: both items, to one claimer");
        }
    }
}

#[tokio::test]
async fn an_item_held_for_quiet_hours_waits_until_they_end() {
    for s in stores().await {
        let name = s.backend_name();
        s.outbox().record(&[item(GROUP, USER, "q", 1_000)], 1_000).await.expect("record");
        let claimed = s.outbox().claim("p1", USER, 1_000, 61_000, 1_000).await.expect("claim");
        s.outbox().defer("p1", claimed[0].id, 50_000).await.expect("defer");
        assert!(
            s.outbox().due_targets(49_999, 49_999, 49_999, 10).await.expect("due").is_empty(),
            "{name}"
        );
        assert!(
            s.outbox().claim("p2", USER, 49_999, 99_999, 49_999).await.expect("claim").is_empty()
        );
        assert_eq!(s.outbox().due_targets(50_000, 50_000, 50_000, 10).await.expect("due"), [USER]);
        assert_eq!(
            s.outbox().claim("p2", USER, 50_000, 99_999, 50_000).await.expect("claim").len(),
            1
        );
    }
}

#[tokio::test]
async fn forgetting_a_chat_forgets_what_waits_in_its_outbox() {
    for s in stores().await {
        let name = s.backend_name();
        // A personal item set in the group, pushed to the person's 1:1 chat, belongs to the group.
        s.outbox()
            .record(&[item(GROUP, USER, "g", 1_000), item(USER, USER, "u", 1_000)], 1_000)
            .await
            .expect("record");
        s.forget_conversation(GROUP).await.expect("forget");
        assert!(s.outbox().item("g").await.expect("item").is_none(), "{name}");
        assert!(
            s.outbox().item("u").await.expect("item").is_some(),
            "{name}: another chat's stays"
        );
    }
}

#[tokio::test]
async fn settled_items_older_than_the_cutoff_are_pruned_in_bounded_batches_and_waiting_ones_stay() {
    for s in stores().await {
        let name = s.backend_name();
        let items = ["old1", "old2", "recent", "waiting"].map(|k| item(GROUP, GROUP, k, 1_000));
        s.outbox().record(&items, 1_000).await.expect("record");
        let claimed = s.outbox().claim("p1", GROUP, 1_000, 61_000, 1_000).await.expect("claim");
        let by_key = |k: &str| claimed.iter().find(|i| i.retry_key == k).expect("claimed");
        s.outbox().settle("p1", &[by_key("old1")], "sent", 5_000).await.expect("settle");
        s.outbox().settle("p1", &[by_key("old2")], "held", 6_000).await.expect("settle");
        s.outbox().settle("p1", &[by_key("recent")], "sent", 20_000).await.expect("settle");
        assert_eq!(s.prune_settled_pushes(10_000, 1).await.expect("prune"), 1, "{name}: a batch");
        assert_eq!(s.prune_settled_pushes(10_000, 1).await.expect("prune"), 1, "{name}");
        assert_eq!(s.prune_settled_pushes(10_000, 1).await.expect("prune"), 0, "{name}: done");
        for gone in ["old1", "old2"] {
            assert!(s.outbox().item(gone).await.expect("item").is_none(), "{name}: {gone}");
        }
        assert!(s.outbox().item("recent").await.expect("item").is_some(), "{name}: newer");
        let waiting = s.outbox().item("waiting").await.expect("item").expect("kept");
        assert_eq!(waiting.status, "pending", "{name}: what waits is never pruned");
        assert_eq!(s.prune_settled_pushes(i64::MAX, 100).await.expect("prune"), 1, "{name}");
        assert!(s.outbox().item("waiting").await.expect("item").is_some(), "{name}");
    }
}
