//! Exactly once under leases, for every leased table from one list: each table of
//! `hearth::store::LEASED` has a row here (how to make one of its rows due, how its loop claims),
//! and every test below runs for each, on SQLite (a file, several connections) and, when
//! `TEST_DATABASE_URL` is set, on PostgreSQL. A new loop's table fails
//! `every_leased_table_has_its_row_here` until it is listed, and then gets the tests.
//!
//! What each row's claim promises: a due row goes to one of two claimants racing for it; a live
//! lease is never taken and an ended one is taken over (the first holder then holds nothing); a
//! stopping process's release lets another claim at once.

use std::sync::atomic::{AtomicU64, Ordering};

use futures::future::BoxFuture;
use hearth::store::{InboxEvent, Leased, Store, StoreError};

const MOM: &str = "U5eaf00d5eaf00d5eaf00d5eaf00d5eaf";
/// When the seeded rows are due, Unix ms.
const DUE: i64 = 1_000;
/// How long a test lease runs.
const LEASE: i64 = 60_000;

static NEXT_FILE: AtomicU64 = AtomicU64::new(1);

/// Makes one row of a table due at [`DUE`].
type Seed = fn(&Store, &str) -> BoxFuture<'static, ()>;
/// Claims for an owner at a time until a time: how many rows the claim took.
type Claim = for<'a> fn(&'a Store, &'a str, i64, i64) -> BoxFuture<'a, Result<usize, StoreError>>;

/// A leased table: its name in `LEASED`, how to seed a due row, how its loop claims.
struct Row {
    name: &'static str,
    seed: Seed,
    claim: Claim,
}

/// Runs one statement on the database at `url` (a row no public write makes directly).
fn insert(url: &str, sql: &'static str) -> BoxFuture<'static, ()> {
    let url = url.to_string();
    Box::pin(async move {
        if url.starts_with("sqlite:") {
            let pool = sqlx::SqlitePool::connect(&url).await.expect("sqlite");
            sqlx::query(sql).execute(&pool).await.expect("seed");
        } else {
            let pool = sqlx::PgPool::connect(&url).await.expect("postgres");
            sqlx::query(sql).execute(&pool).await.expect("seed");
        }
    })
}

const TABLE: &[Row] = &[
    Row {
        name: "reminders",
        seed: |store, _| {
            let store = store.clone();
            Box::pin(async move {
                let reminder = crate::common::rows::once_reminder(MOM, "吃藥", DUE);
                store.reminders().create(&reminder).await.expect("reminder");
            })
        },
        claim: |store, owner, now, until| {
            Box::pin(
                async move { Ok(store.reminders().claim_due(owner, now, until, 10).await?.len()) },
            )
        },
    },
    Row {
        name: "price symbols",
        seed: |_, url| {
            insert(
                url,
                "INSERT INTO alert_symbols (symbol, next_check_at) VALUES ('2330.TW', 1000)",
            )
        },
        claim: |store, owner, now, until| {
            Box::pin(async move {
                Ok(store.price_alerts().claim_due_symbols(owner, now, until, 10).await?.len())
            })
        },
    },
    Row {
        name: "price-alert deliveries",
        seed: |_, url| {
            insert(
                url,
                "INSERT INTO alert_deliveries (alert_id, fire_seq, conversation_id, retry_key, payload, status, first_attempt_at, lease_until) VALUES (1, 1, 'U5eaf00d5eaf00d5eaf00d5eaf00d5eaf', 'alert-1-1', '[]', 'pending', 1000, 1000)",
            )
        },
        claim: |store, owner, now, until| {
            Box::pin(async move {
                Ok(store.price_alerts().claim_deliveries(owner, now, until).await?.len())
            })
        },
    },
    Row {
        name: "inbox events",
        seed: |store, _| {
            let store = store.clone();
            Box::pin(async move {
                let event = InboxEvent {
                    event_id: "01LEASETABLE",
                    event_type: "message",
                    payload: "{}",
                    received_at_ms: DUE,
                };
                store.inbox().accept_events(&[event], None).await.expect("accept");
            })
        },
        claim: |store, owner, now, until| {
            Box::pin(
                async move { Ok(store.inbox().claim_events(owner, now, until, 10).await?.len()) },
            )
        },
    },
    Row {
        name: "outbox items",
        seed: |_, url| {
            insert(
                url,
                "INSERT INTO outbox (conversation_id, target, kind, retry_key, payload, due_at, created_at) VALUES ('U5eaf00d5eaf00d5eaf00d5eaf00d5eaf', 'U5eaf00d5eaf00d5eaf00d5eaf00d5eaf', 'reminder', 'outbox-1', '[]', 1000, 1000)",
            )
        },
        claim: |store, owner, now, until| {
            Box::pin(
                async move { Ok(store.outbox().claim(owner, MOM, now, until, now).await?.len()) },
            )
        },
    },
    Row {
        name: "digest deliveries",
        seed: |_, url| {
            insert(
                url,
                "INSERT INTO digest_deliveries (conversation_id, day, scheduled_for, retry_key) VALUES ('U5eaf00d5eaf00d5eaf00d5eaf00d5eaf', '2026-12-01', 1000, 'digest-1')",
            )
        },
        claim: |store, owner, now, until| {
            Box::pin(
                async move { Ok(store.digests().claim_deliveries(owner, now, until).await?.len()) },
            )
        },
    },
    Row {
        name: "care doses",
        seed: |_, url| {
            insert(
                url,
                "INSERT INTO care_doses (plan_id, conversation_id, due_at, state, step_at) VALUES (1, 'U5eaf00d5eaf00d5eaf00d5eaf00d5eaf', 1000, 'asked', 1000)",
            )
        },
        claim: |store, owner, now, until| {
            Box::pin(
                async move { Ok(store.care().claim_doses(owner, now, until, 10).await?.len()) },
            )
        },
    },
    Row {
        // Its one row is made by the first claim.
        name: "official alerts feed",
        seed: |_, _| Box::pin(async {}),
        claim: |store, owner, now, until| {
            Box::pin(async move {
                Ok(usize::from(
                    store.official_alerts().claim_feed(owner, now, until).await?.is_some(),
                ))
            })
        },
    },
    Row {
        name: "calendar server sync",
        seed: |_, url| {
            insert(
                url,
                "INSERT INTO calendar_events (conversation_id, uid, title, tz, starts_local, freq, created_at, updated_at) VALUES ('Cfamily', 'a@hearth', '尾牙', 'Asia/Taipei', '2027-01-15', 'once', 1000, 1000)",
            )
        },
        claim: |store, owner, now, until| {
            Box::pin(
                async move { Ok(store.calendar().claim_sync(owner, now, until, 10).await?.len()) },
            )
        },
    },
    Row {
        // Its one row is made by the first claim, due at once (never obtained).
        name: "HTTPS certificate",
        seed: |_, _| Box::pin(async {}),
        claim: |store, owner, now, until| {
            Box::pin(async move {
                let claimed =
                    store.certificates().claim("hearth.example", owner, now, until).await?;
                Ok(usize::from(claimed.is_some()))
            })
        },
    },
];

/// A fresh database per backend (SQLite in a file, so several connections share it), seeded
/// with one due row of `row`'s table.
async fn seeded(row: &Row) -> Vec<(String, Store)> {
    let mut out = Vec::new();
    for url in crate::common::db::test_databases().await {
        let url = if url.starts_with("sqlite:") {
            let path = std::env::temp_dir().join(format!(
                "hearth-leases-{}-{}.db",
                std::process::id(),
                NEXT_FILE.fetch_add(1, Ordering::SeqCst)
            ));
            format!("sqlite://{}", path.display())
        } else {
            url
        };
        let store = Store::connect(&url).await.expect("store");
        (row.seed)(&store, &url).await;
        out.push((url, store));
    }
    out
}

fn leased(name: &str) -> &'static Leased {
    hearth::store::LEASED.iter().find(|l| l.name == name).expect("a listed table")
}

#[test]
fn every_leased_table_has_its_row_here() {
    let listed: Vec<&str> = hearth::store::LEASED.iter().map(|l| l.name).collect();
    let here: Vec<&str> = TABLE.iter().map(|r| r.name).collect();
    assert_eq!(listed, here, "each table of LEASED, in its order");
}

#[tokio::test]
async fn a_due_row_goes_to_one_of_two_claimants_racing_for_it() {
    for row in TABLE {
        for (url, store) in seeded(row).await {
            let (a, b) = tokio::join!(
                (row.claim)(&store, "a", DUE, DUE + LEASE),
                (row.claim)(&store, "b", DUE, DUE + LEASE)
            );
            let (a, b) = (a.expect("claim"), b.expect("claim"));
            assert_eq!(a + b, 1, "{} on {url}: a took {a}, b took {b}", row.name);
        }
    }
}

#[tokio::test]
async fn a_live_lease_is_kept_and_an_ended_one_is_taken_over() {
    for row in TABLE {
        let what = leased(row.name);
        for (url, store) in seeded(row).await {
            let name = format!("{} on {url}", row.name);
            assert_eq!(
                (row.claim)(&store, "a", DUE, DUE + LEASE).await.expect("claim"),
                1,
                "{name}"
            );
            assert_eq!(store.leases_held(what, "a", DUE).await.expect("held"), 1, "{name}");
            let before_the_end = DUE + LEASE - 1;
            let early = (row.claim)(&store, "b", before_the_end, before_the_end + LEASE).await;
            assert_eq!(early.expect("claim"), 0, "{name}: a live lease is kept");
            let ended = DUE + LEASE;
            let late = (row.claim)(&store, "b", ended, ended + LEASE).await;
            assert_eq!(late.expect("claim"), 1, "{name}: an ended lease is taken over");
            assert_eq!(store.leases_held(what, "a", ended).await.expect("held"), 0, "{name}");
            assert_eq!(store.leases_held(what, "b", ended).await.expect("held"), 1, "{name}");
        }
    }
}

#[tokio::test]
async fn a_stopping_process_releases_what_it_holds_for_another_to_claim_at_once() {
    for row in TABLE {
        let what = leased(row.name);
        for (url, store) in seeded(row).await {
            let name = format!("{} on {url}", row.name);
            assert_eq!(
                (row.claim)(&store, "a", DUE, DUE + LEASE).await.expect("claim"),
                1,
                "{name}"
            );
            assert_eq!(store.release_leases(what, "b").await.expect("release"), 0, "{name}");
            assert_eq!(store.release_leases(what, "a").await.expect("release"), 1, "{name}");
            let at_once = (row.claim)(&store, "b", DUE + 1, DUE + 1 + LEASE).await;
            assert_eq!(at_once.expect("claim"), 1, "{name}: claimed before the lease's end");
        }
    }
}
