//! The list store on SQLite (in a file, with several connections as in production) and, when
//! `TEST_DATABASE_URL` is set, on PostgreSQL: additions racing for the last places of a list
//! never pass its cap and start the list once; another chat can touch none of a chat's lists.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::common::harness::{FAMILY, MOM};
use hearth::features::lists::ListError;
use hearth::features::lists::MAX_ITEMS_PER_LIST;
use hearth::features::lists::plan::{Wanted, plan_additions};
use hearth::store::{ListEdit, Store};

static NEXT_FILE: AtomicU64 = AtomicU64::new(1);

/// The stores to test: SQLite in a file of its own, and PostgreSQL when configured.
async fn stores() -> Vec<(Store, Option<std::path::PathBuf>)> {
    let mut out = Vec::new();
    for url in crate::common::db::test_databases().await {
        if url.starts_with("sqlite:") {
            let path = std::env::temp_dir().join(format!(
                "hearth-lists-{}-{}.db",
                std::process::id(),
                NEXT_FILE.fetch_add(1, Ordering::SeqCst)
            ));
            let url = format!("sqlite://{}", path.display());
            out.push((Store::connect(&url).await.expect("sqlite"), Some(path)));
        } else {
            out.push((Store::connect(&url).await.expect("postgres"), None));
        }
    }
    out
}

fn remove_sqlite_files(file: Option<std::path::PathBuf>) {
    for suffix in ["", "-wal", "-shm"] {
        if let Some(path) = &file {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }
}

#[tokio::test]
async fn concurrent_additions_to_one_list_never_pass_its_cap_on_either_database() {
    for (store, file) in stores().await {
        let extra = 12;
        let adds = (0..MAX_ITEMS_PER_LIST + extra).map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let edit = ListEdit {
                    conversation_id: FAMILY,
                    key: "shopping",
                    name: "",
                    user_id: Some(MOM),
                    user_name: Some("媽媽"),
                    at_ms: 0,
                };
                let wanted = [Wanted { name: format!("item {i}"), quantity: None }];
                store
                    .lists()
                    .add_to_list(&edit, |state| {
                        plan_additions(state, &wanted, "shopping list").map(|p| p.changes)
                    })
                    .await
            })
        });
        let results = futures::future::join_all(adds).await;
        let (mut added, mut full) = (0, 0);
        for result in results {
            match result.expect("task") {
                Ok(_) => added += 1,
                Err(ListError::ListFull { .. }) => full += 1,
                Err(other) => panic!("{} failed: {other}", store.backend_name()),
            }
        }
        assert_eq!((added, full), (MAX_ITEMS_PER_LIST, extra), "{}", store.backend_name());
        let (_, items) =
            store.lists().list_by_key(FAMILY, "shopping").await.expect("read").expect("list");
        assert_eq!(items.len(), MAX_ITEMS_PER_LIST, "{}", store.backend_name());
        assert_eq!(
            store.lists().of_chat(FAMILY).await.expect("lists").len(),
            1,
            "one list, not one per writer"
        );
        remove_sqlite_files(file);
    }
}

#[tokio::test]
async fn another_chat_can_neither_read_check_remove_nor_clear_a_chats_list() {
    use hearth::store::{Checked, ItemChange};

    const OTHER: &str = "Cother";
    for (store, file) in stores().await {
        let edit = ListEdit {
            conversation_id: FAMILY,
            key: "shopping",
            name: "",
            user_id: Some(MOM),
            user_name: Some("媽媽"),
            at_ms: 1,
        };
        let add = |_: &_| {
            Ok::<_, ListError>(vec![ItemChange::Add {
                name: "牛奶".into(),
                key: "牛奶".into(),
                quantity: 1,
            }])
        };
        let (list, items) = store.lists().add_to_list(&edit, add).await.expect("added");
        let item = items[0].id;

        assert!(store.lists().list_by_id(OTHER, list.id).await.expect("read").is_none());
        assert!(store.lists().list_by_key(OTHER, "shopping").await.expect("read").is_none());
        assert!(store.lists().of_chat(OTHER).await.expect("read").is_empty());
        let checked = store.lists().check_list_item(OTHER, item, Some("U9"), None, 2).await;
        assert_eq!(checked.expect("check"), Checked::Gone);
        assert!(store.lists().remove_list_item(OTHER, item).await.expect("remove").is_none());
        assert_eq!(store.lists().clear_list(OTHER, list.id, false).await.expect("clear"), 0);

        let (_, kept) =
            store.lists().list_by_id(FAMILY, list.id).await.expect("read").expect("kept");
        assert_eq!((kept.len(), kept[0].is_open()), (1, true), "{}", store.backend_name());
        let summary = store.lists().of_chat(FAMILY).await.expect("lists");
        assert_eq!((summary[0].open, summary[0].checked), (1, 0));
        let checked =
            store.lists().check_list_item(FAMILY, item, Some("U2"), Some("爸爸"), 3).await;
        let Ok(Checked::Now(done)) = checked else { panic!("checked in its own chat") };
        assert_eq!((done.checked_by_name.as_deref(), done.checked_at), (Some("爸爸"), Some(3)));
        remove_sqlite_files(file);
    }
}
