//! The digest store on SQLite (in a file, several connections) and, when `TEST_DATABASE_URL` is
//! set, on PostgreSQL: processes racing to move a due digest on record its day once; a day is
//! claimed by one process at a time and finished only by its claimant; another chat's digest is
//! untouched; forgetting a chat removes its digest and its deliveries.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::common::harness::{FAMILY, MOM};
use hearth::platform::i18n::Lang;
use hearth::store::{DigestDay, DigestStatus, NewDigest, Store};

static NEXT_FILE: AtomicU64 = AtomicU64::new(1);

async fn stores() -> Vec<Store> {
    let mut out = Vec::new();
    for url in crate::common::db::test_databases().await {
        let url = if url.starts_with("sqlite:") {
            let path = std::env::temp_dir().join(format!(
                "hearth-digest-{}-{}.db",
                std::process::id(),
                NEXT_FILE.fetch_add(1, Ordering::SeqCst)
            ));
            format!("sqlite://{}", path.display())
        } else {
            url
        };
        out.push(Store::connect(&url).await.expect("store"));
    }
    out
}

async fn save(store: &Store, chat: &str, next_at: i64) {
    store
        .digests()
        .save(&NewDigest {
            conversation_id: chat,
            local_time: "07:00",
            tz: "Asia/Taipei",
            place: Some("台北"),
            lang: Lang::ZhTw,
            only_when_something: false,
            next_at,
            created_by: None,
            now_ms: 0,
        })
        .await
        .expect("save");
}

fn day(d: &str) -> DigestDay {
    DigestDay { day: d.into(), scheduled_for: 1_000, retry_key: format!("key-{d}") }
}

#[tokio::test]
async fn processes_racing_to_move_a_due_digest_on_record_its_day_once() {
    for store in stores().await {
        save(&store, FAMILY, 1_000).await;
        let d = day("2026-12-01");
        let races = (0..8).map(|_| store.digests().advance(FAMILY, 1_000, 87_400_000, Some(&d)));
        let won = futures::future::join_all(races).await;
        let winners = won.into_iter().filter(|w| *w.as_ref().expect("advance")).count();
        assert_eq!(winners, 1, "{}", store.backend_name());
        let claimed = store.digests().claim_deliveries("a", 2_000, 60_000).await.expect("claim");
        assert_eq!(claimed.len(), 1, "one day recorded");
        assert!(
            store.digests().claim_deliveries("b", 2_000, 60_000).await.expect("claim").is_empty()
        );
        assert_eq!(
            store.digests().get(FAMILY).await.expect("get").map(|r| r.next_at),
            Some(87_400_000)
        );
    }
}

#[tokio::test]
async fn only_the_claimant_keeps_the_payload_and_finishes_the_day() {
    for store in stores().await {
        save(&store, FAMILY, 1_000).await;
        store
            .digests()
            .advance(FAMILY, 1_000, 2_000, Some(&day("2026-12-01")))
            .await
            .expect("advance");
        let d =
            store.digests().claim_deliveries("a", 1_000, 60_000).await.expect("claim").remove(0);
        assert!(!store.digests().keep_payload("b", &d, "[]").await.expect("keep"), "not b's claim");
        assert!(store.digests().keep_payload("a", &d, "[1]").await.expect("keep"));
        assert!(!store.digests().keep_payload("a", &d, "[2]").await.expect("keep"), "kept once");
        store
            .digests()
            .finish_delivery("b", &d, Some(DigestStatus::Sent), 3_000, 0)
            .await
            .expect("b");
        assert_eq!(
            store.digests().status(FAMILY, "2026-12-01").await.expect("s"),
            Some(DigestStatus::Pending)
        );
        store.digests().finish_delivery("a", &d, None, 3_000, 70_000).await.expect("retry");
        assert!(
            store.digests().claim_deliveries("a", 60_000, 120_000).await.expect("c").is_empty(),
            "waiting"
        );
        let again = store.digests().claim_deliveries("b", 70_000, 130_000).await.expect("c");
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].payload.as_deref(), Some("[1]"), "the kept payload is sent again");
        store
            .digests()
            .finish_delivery("b", &again[0], Some(DigestStatus::Sent), 71_000, 0)
            .await
            .expect("b");
        assert_eq!(
            store.digests().status(FAMILY, "2026-12-01").await.expect("s"),
            Some(DigestStatus::Sent)
        );
    }
}

#[tokio::test]
async fn changing_cancelling_and_forgetting_touch_only_their_own_chat() {
    for store in stores().await {
        save(&store, FAMILY, 1_000).await;
        save(&store, MOM, 1_000).await;
        save(&store, FAMILY, 5_000).await;
        assert_eq!(
            store.digests().get(FAMILY).await.expect("get").map(|r| r.next_at),
            Some(5_000),
            "changed in place"
        );
        assert_eq!(
            store.digests().due(1_000, 10).await.expect("due").len(),
            1,
            "only MOM's is due"
        );
        store
            .digests()
            .advance(FAMILY, 5_000, 9_000, Some(&day("2026-12-01")))
            .await
            .expect("advance");
        store.forget_conversation(FAMILY).await.expect("forget");
        assert!(store.digests().get(FAMILY).await.expect("get").is_none());
        assert!(store.digests().status(FAMILY, "2026-12-01").await.expect("s").is_none());
        assert!(
            store.digests().get(MOM).await.expect("get").is_some(),
            "another chat's digest stays"
        );
        assert!(store.digests().cancel(MOM).await.expect("cancel"));
        assert!(!store.digests().cancel(MOM).await.expect("cancel"), "nothing left to cancel");
    }
}

#[tokio::test]
async fn a_daily_digest_counts_as_a_scheduled_push_for_the_quota_warning() {
    for store in stores().await {
        assert!(!store.quota().has_scheduled_pushes(FAMILY).await.expect("none"));
        save(&store, FAMILY, 1_000).await;
        assert!(
            store.quota().has_scheduled_pushes(FAMILY).await.expect("digest"),
            "{}",
            store.backend_name()
        );
        assert!(!store.quota().has_scheduled_pushes(MOM).await.expect("other chat"));
    }
}
