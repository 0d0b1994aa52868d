//! The store's behaviour, the same on every backend: each test runs on SQLite and, when
//! `TEST_DATABASE_URL` is set (always in CI), on PostgreSQL.

use crate::common::db::test_databases;
use hearth::store::{
    Claim, DeliveryStatus, Finish, InboxEvent, Intake, LoggedEvent, NewDelivery, NewMessage,
    NewReminder, Next, Store,
};

async fn stores() -> Vec<Store> {
    let mut stores = Vec::new();
    for url in test_databases().await {
        stores.push(Store::connect(&url).await.unwrap_or_else(|e| panic!("{url}: {e:?}")));
    }
    stores
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
        tainted: false,
    }
}

fn event<'a>(id: &'a str, at: i64) -> InboxEvent<'a> {
    InboxEvent { event_id: id, event_type: "message", payload: "{}", received_at_ms: at }
}

fn claim<'a>(owner: &'a str, lease_until_ms: i64) -> Option<Claim<'a>> {
    Some(Claim { owner, lease_until_ms })
}

#[tokio::test]
async fn an_event_is_new_only_once_and_forgotten_only_after_it_was_handled() {
    for s in stores().await {
        let name = s.backend_name();
        assert_eq!(
            s.inbox()
                .accept_events(&[event("01A", 1_000), event("01A", 1_000)], claim("p1", 60_000))
                .await
                .expect("accept"),
            [true, false],
            "{name}"
        );
        assert_eq!(
            s.inbox()
                .accept_events(&[event("01A", 2_000)], claim("p2", 60_000))
                .await
                .expect("again"),
            [false]
        );
        assert_eq!(
            s.inbox().prune(10_000).await.expect("prune"),
            0,
            "{name}: pending events are kept"
        );
        assert!(
            !s.inbox().finish_event("01A", "p2", 1, 3_000).await.expect("finish"),
            "{name}: not p2's"
        );
        assert!(
            !s.inbox().finish_event("01A", "p1", 2, 3_000).await.expect("finish"),
            "{name}: token"
        );
        assert!(s.inbox().finish_event("01A", "p1", 1, 3_000).await.expect("finish"));
        assert_eq!(s.inbox().prune(10_000).await.expect("prune"), 1);
        assert_eq!(
            s.inbox()
                .accept_events(&[event("01A", 20_000)], claim("p1", 80_000))
                .await
                .expect("accept"),
            [true]
        );
    }
}

#[tokio::test]
async fn unfinished_events_are_claimed_by_another_process_after_their_lease() {
    for s in stores().await {
        let name = s.backend_name();
        s.inbox()
            .accept_events(&[event("01B", 1_000), event("01C", 1_000)], claim("dead", 5_000))
            .await
            .expect("accept");
        assert!(
            s.inbox().claim_events("alive", 4_000, 64_000, 10).await.expect("claim").is_empty(),
            "{name}: lease holds"
        );
        let claimed = s.inbox().claim_events("alive", 6_000, 66_000, 10).await.expect("claim");
        assert_eq!(claimed.len(), 2, "{name}");
        assert!(claimed.iter().all(|e| e.attempts == 2 && e.received_at == 1_000));
        assert!(
            s.inbox().claim_events("third", 7_000, 67_000, 10).await.expect("claim").is_empty(),
            "{name}: claimed once"
        );
        assert!(
            !s.inbox().finish_event("01B", "dead", 1, 8_000).await.expect("fenced"),
            "{name}: the old owner cannot finish"
        );
        assert!(
            s.inbox().confirm_claim("01B", "dead", 90_000).await.expect("fenced").is_none(),
            "{name}: nor start it"
        );
        assert_eq!(
            s.release_leases(&hearth::store::lease::INBOX, "alive").await.expect("release"),
            2
        );
        assert_eq!(
            s.inbox().claim_events("third", 8_000, 68_000, 10).await.expect("claim").len(),
            2,
            "{name}: handed back"
        );
    }
}

#[tokio::test]
async fn a_renewed_lease_is_never_taken_over_and_a_lost_one_is_never_renewed() {
    for s in stores().await {
        let name = s.backend_name();
        s.inbox()
            .accept_events(&[event("01R", 1_000)], claim("slow", 16_000))
            .await
            .expect("accept");
        // The heartbeat renews it again and again, long past the first lease.
        for now in [10_000, 20_000, 30_000] {
            let renewed =
                s.inbox().renew_events("slow", &[("01R", 1)], now + 15_000).await.expect("renew");
            assert_eq!(renewed, ["01R"], "{name}");
            assert!(
                s.inbox()
                    .claim_events("other", now + 1, now + 15_000, 10)
                    .await
                    .expect("claim")
                    .is_empty()
            );
        }
        // A renewal never shortens a lease.
        s.inbox().renew_events("slow", &[("01R", 1)], 1).await.expect("renew");
        assert!(
            s.inbox().claim_events("other", 44_000, 60_000, 10).await.expect("claim").is_empty()
        );
        // Unrenewed, it is taken over; the old holder's renewal then finds nothing.
        let taken = s.inbox().claim_events("other", 46_000, 61_000, 10).await.expect("claim");
        assert_eq!(taken.len(), 1, "{name}");
        assert!(
            s.inbox().renew_events("slow", &[("01R", 1)], 70_000).await.expect("renew").is_empty()
        );
        assert_eq!(
            s.inbox().confirm_claim("01R", "other", 75_000).await.expect("confirm"),
            Some(2)
        );
        assert!(s.inbox().finish_event("01R", "other", 2, 47_000).await.expect("finish"));
    }
}

#[tokio::test]
async fn a_process_that_claimed_its_own_lapsed_event_again_confirms_it_with_the_new_token() {
    for s in stores().await {
        let name = s.backend_name();
        s.inbox().accept_events(&[event("01S", 1_000)], claim("me", 5_000)).await.expect("accept");
        // Its lease lapsed (a stalled heartbeat) and its own loop took the event back.
        let again = s.inbox().claim_events("me", 6_000, 21_000, 10).await.expect("claim");
        assert_eq!(again.len(), 1, "{name}");
        assert_eq!(again[0].attempts, 2, "{name}");
        // The job already queued still knows the first token: the store says which is current.
        assert_eq!(
            s.inbox().confirm_claim("01S", "me", 30_000).await.expect("confirm"),
            Some(2),
            "{name}"
        );
        assert!(s.inbox().finish_event("01S", "me", 2, 7_000).await.expect("finish"), "{name}");
        assert_eq!(
            s.inbox().confirm_claim("01S", "me", 40_000).await.expect("done"),
            None,
            "{name}"
        );
    }
}

#[tokio::test]
async fn events_left_unclaimed_wait_in_order_for_whoever_has_room() {
    for s in stores().await {
        let name = s.backend_name();
        let ids: Vec<String> = (0..5).map(|i| format!("01Q{i}")).collect();
        let events: Vec<InboxEvent<'_>> =
            ids.iter().enumerate().map(|(i, id)| event(id, 1_000 + i as i64)).collect();
        assert_eq!(s.inbox().accept_events(&events, None).await.expect("accept"), [true; 5]);
        let first = s.inbox().claim_events("p", 2_000, 17_000, 2).await.expect("claim");
        let got: Vec<&str> = first.iter().map(|e| e.event_id.as_str()).collect();
        assert_eq!(got, ["01Q0", "01Q1"], "{name}: oldest first");
        assert!(first.iter().all(|e| e.attempts == 1), "{name}: a first claim is token 1");
        assert_eq!(s.inbox().claim_events("p", 2_000, 17_000, 10).await.expect("claim").len(), 3);
    }
}

#[tokio::test]
async fn a_message_logged_as_its_event_is_stored_is_done_at_once_and_logged_once() {
    for s in stores().await {
        let name = s.backend_name();
        let rows = [
            (event("01L1", 1_000), Intake::Logged(message("C1", "晚餐吃什麼", 900))),
            (event("01L2", 1_000), claim("p", 60_000).into()),
            (event("01L1", 1_000), Intake::Logged(message("C1", "晚餐吃什麼", 900))),
            (event("01L3", 1_000), Intake::Logged(message("C1", "滷味", 950))),
        ];
        assert_eq!(
            s.inbox().accept(&rows).await.expect("accept"),
            [true, true, false, true],
            "{name}"
        );
        assert_eq!(
            s.inbox().pending_events().await.expect("count"),
            1,
            "{name}: only the claimed one"
        );
        assert!(
            s.inbox().claim_events("q", 2_000, 62_000, 10).await.expect("claim").is_empty(),
            "{name}"
        );
        let again = [(event("01L3", 2_000), Intake::Logged(message("C1", "滷味", 950)))];
        assert_eq!(s.inbox().accept(&again).await.expect("again"), [false], "{name}: a redelivery");
        let claimed_first = [
            (event("01L4", 3_000), claim("p", 60_000).into()),
            (event("01L4", 3_000), Intake::Logged(message("C1", "重送", 2_900))),
        ];
        assert_eq!(s.inbox().accept(&claimed_first).await.expect("both"), [true, false], "{name}");
        assert_eq!(
            s.inbox().pending_events().await.expect("count"),
            2,
            "{name}: stored as claimed"
        );
        let log: Vec<String> = s
            .chat_log()
            .history("C1", i64::MAX, 10, 10_000)
            .await
            .expect("history")
            .into_iter()
            .map(|m| m.text)
            .collect();
        assert_eq!(log, ["晚餐吃什麼", "滷味"], "{name}: each once, in order; 重送 is its lane's");
        assert_eq!(s.inbox().prune(1_001).await.expect("prune"), 2, "{name}: done when stored");
    }
}

#[tokio::test]
async fn a_webhook_with_thousands_of_events_is_stored_whole() {
    for s in stores().await {
        let ids: Vec<String> = (0..5000).map(|i| format!("01BIG{i:05}")).collect();
        let events: Vec<InboxEvent<'_>> = ids.iter().map(|id| event(id, 1_000)).collect();
        let new = s.inbox().accept_events(&events, claim("p", 60_000)).await.expect("stored");
        assert_eq!(new.len(), 5000, "{}", s.backend_name());
        assert!(new.iter().all(|n| *n));
        let again = s.inbox().accept_events(&events, None).await.expect("stored");
        assert!(again.iter().all(|n| !*n), "all duplicates now");
    }
}

#[tokio::test]
async fn history_is_per_conversation_oldest_first_and_bounded() {
    for s in stores().await {
        for i in 0..10 {
            s.chat_log().log_message(&message("C1", &format!("m{i}"), i)).await.expect("log");
            s.chat_log().log_message(&message("C2", "other", i)).await.expect("log");
        }
        let last = s.chat_log().log_message(&message("C1", "now", 99)).await.expect("log");
        let h = s.chat_log().history("C1", last, 3, 10_000).await.expect("history");
        let texts: Vec<&str> = h.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(texts, ["m7", "m8", "m9"], "{}", s.backend_name());
        let h = s.chat_log().history("C1", last, 10, 5).await.expect("history");
        assert_eq!(h.len(), 2, "at most 5 characters: m8, m9");
    }
}

#[tokio::test]
async fn sent_message_ids_belong_to_their_conversation() {
    for s in stores().await {
        let answer =
            NewMessage { from_bot: true, speaker: Some("hearth"), ..message("C1", "答案", 1) };
        s.chat_log()
            .record_answer(&answer, &["600".to_string(), "601".to_string()])
            .await
            .expect("record");
        assert!(s.chat_log().is_bot_message("C1", "600").await.expect("query"));
        assert!(!s.chat_log().is_bot_message("C2", "600").await.expect("query"));
        assert!(s.chat_log().is_bot_message("C1", "601").await.expect("query"));
        assert!(!s.chat_log().is_bot_message("C1", "602").await.expect("query"));
        let last = s.chat_log().log_message(&message("C1", "next", 2)).await.expect("log");
        let history = s.chat_log().history("C1", last, 5, 1000).await.expect("history");
        assert!(history[0].from_bot && history[0].text == "答案", "{}", s.backend_name());
    }
}

#[tokio::test]
async fn member_names_are_updated_in_place() {
    for s in stores().await {
        assert_eq!(s.chat_log().member_name("C1", "U1").await.expect("query"), None);
        s.chat_log().save_member("C1", "U1", "媽媽", 1).await.expect("save");
        s.chat_log().save_member("C1", "U1", "老媽", 2).await.expect("save");
        assert_eq!(
            s.chat_log().member_name("C1", "U1").await.expect("query"),
            Some(("老媽".to_string(), 2))
        );
        assert_eq!(
            s.reminders().find_member("C1", "老").await.expect("find"),
            Some(("U1".to_string(), "老媽".to_string()))
        );
        assert_eq!(s.reminders().find_member("C2", "老").await.expect("find"), None);
    }
}

fn reminder<'a>(conversation: &'a str, text: &'a str, at: i64) -> NewReminder<'a> {
    crate::common::rows::once_reminder(conversation, text, at)
}

#[tokio::test]
async fn due_reminders_are_claimed_once_recorded_once_and_advanced_fenced() {
    for s in stores().await {
        let name = s.backend_name();
        let r = s.reminders().create(&reminder("C1", "帶便當", 1_000)).await.expect("create");
        assert!(
            s.reminders().claim_due("p1", 999, 60_000, 10).await.expect("claim").is_empty(),
            "{name}: not due"
        );
        let claimed = s.reminders().claim_due("p1", 1_000, 60_000, 10).await.expect("claim");
        assert_eq!(claimed.len(), 1);
        assert!(
            s.reminders().claim_due("p2", 2_000, 60_000, 10).await.expect("claim").is_empty(),
            "{name}: leased"
        );
        let delivery = |payload: &str| NewDelivery {
            reminder_id: r.id,
            scheduled_for: 1_000,
            conversation_id: "C1".into(),
            retry_key: "key-1".into(),
            payload: payload.into(),
            now_ms: 1_000,
        };
        let first = s.reminders().prepare_deliveries(&[delivery("[1]")]).await.expect("prepare");
        let again =
            s.reminders().prepare_deliveries(&[delivery("[2]")]).await.expect("prepare again");
        assert_eq!(again[0].payload, "[1]", "{name}: the first recorded payload wins");
        assert_eq!(first[0].status, DeliveryStatus::Pending);
        let finish = Finish {
            reminder_id: r.id,
            claimed_fire_at: 1_000,
            delivery: Some((1_000, DeliveryStatus::Sent)),
            next: Next::Done,
        };
        s.reminders().finish("p2", 3_000, std::slice::from_ref(&finish)).await.expect("fenced");
        assert_eq!(
            s.reminders().list("C1").await.expect("list").len(),
            1,
            "{name}: p2 does not own it"
        );
        s.reminders().finish("p1", 3_000, &[finish]).await.expect("finish");
        assert!(s.reminders().list("C1").await.expect("list").is_empty(), "{name}: done");
        let done = s.reminders().prepare_deliveries(&[delivery("[3]")]).await.expect("read");
        assert_eq!(done[0].status, DeliveryStatus::Sent);
    }
}

#[tokio::test]
async fn reminders_are_cancelled_and_snoozed_only_within_their_conversation() {
    for s in stores().await {
        let r = s.reminders().create(&reminder("C1", "倒垃圾", 1_000)).await.expect("create");
        assert!(s.reminders().get("C2", r.id).await.expect("get").is_none());
        assert!(!s.reminders().cancel("C2", r.id).await.expect("cancel"));
        assert_eq!(
            s.reminders()
                .snooze("C2", r.id, 0, "2026-12-01T08:10", 2_000, 1_000)
                .await
                .expect("snooze"),
            None
        );
        assert!(
            s.reminders()
                .snooze("C1", r.id, 0, "2026-12-01T08:10", 2_000, 1_000)
                .await
                .expect("snooze")
                .is_some()
        );
        assert_eq!(
            s.reminders()
                .snooze("C1", r.id, 0, "2026-12-01T08:10", 2_000, 1_000)
                .await
                .expect("again"),
            None
        );
        assert!(s.reminders().cancel("C1", r.id).await.expect("cancel"));
    }
}

#[tokio::test]
async fn push_costs_add_up_per_chat_and_month_and_between_readings() {
    for s in stores().await {
        let name = s.backend_name();
        s.quota().record_push_cost("C1", "2026-12", 5).await.expect("cost");
        s.quota().record_push_cost("C1", "2026-12", 5).await.expect("cost");
        s.quota().record_push_cost("U1", "2026-12", 1).await.expect("cost");
        s.quota().record_push_cost("C1", "2027-01", 5).await.expect("cost");
        assert_eq!(s.quota().month_cost("2026-12").await.expect("sum"), 11, "{name}");
        assert_eq!(s.quota().month_cost("2026-11").await.expect("sum"), 0, "{name}");
        let by_chat = s.quota().cost_by_chat("2026-12").await.expect("by chat");
        let rows: Vec<(&str, i64, i64)> =
            by_chat.iter().map(|c| (c.conversation_id.as_str(), c.pushes, c.cost)).collect();
        assert_eq!(rows, [("C1", 2, 10), ("U1", 1, 1)], "{name}");

        s.quota().save_reading("2026-12", Some(200), 120, 11, 1_000).await.expect("read");
        s.quota().mark_exhausted("2026-12", 2_000).await.expect("out");
        s.quota().save_reading("2026-12", Some(200), 200, 11, 3_000).await.expect("read again");
        let r = s.quota().reading("2026-12").await.expect("reading").expect("kept");
        assert_eq!(
            (r.quota_limit, r.used, r.recorded, r.exhausted_at),
            (Some(200), 200, 11, Some(2_000)),
            "{name}"
        );
        assert!(s.quota().reading("2027-01").await.expect("none").is_none(), "{name}");
    }
}

#[tokio::test]
async fn a_month_s_reading_spending_and_held_items_are_read_together_as_each_read_gives_them() {
    for s in stores().await {
        let name = s.backend_name();
        s.quota().record_push_cost("C1", "2026-12", 5).await.expect("cost");
        s.quota().record_push_cost("U1", "2026-12", 1).await.expect("cost");
        s.quota().record_push_cost("C1", "2027-01", 5).await.expect("cost");
        s.quota().save_reading("2026-12", None, 40, 6, 1_000).await.expect("read");
        s.quota().mark_exhausted("2027-02", 2_000).await.expect("out, unread");
        for month in ["2026-12", "2027-01", "2027-02", "2027-03"] {
            assert_eq!(
                s.quota().month_and_held(month, "C1").await.expect("month"),
                (
                    s.quota().reading(month).await.expect("reading"),
                    s.quota().month_cost(month).await.expect("spent"),
                    false
                ),
                "{name} {month}"
            );
        }
        let (reading, spent, _) = s.quota().month_and_held("2026-12", "").await.expect("month");
        let reading = reading.expect("a reading without a limit is a reading");
        assert_eq!((reading.quota_limit, reading.used, spent), (None, 40, 6), "{name}");
        assert_eq!(
            s.quota().month_and_held("2027-03", "").await.expect("month"),
            (None, 0, false),
            "{name}"
        );
    }
}

#[tokio::test]
async fn held_items_wait_per_chat_and_are_taken_once_oldest_first() {
    for s in stores().await {
        let name = s.backend_name();
        s.quota().hold_push("C1", "⏰ 吃藥", 1_000).await.expect("hold");
        s.quota().hold_push("C1", "⏰ 倒垃圾", 2_000).await.expect("hold");
        s.quota().hold_push("C2", "📈 2330", 3_000).await.expect("hold");
        assert_eq!(s.quota().held_count().await.expect("count"), 3, "{name}");
        let held_here = |chat: &'static str| {
            let s = s.clone();
            async move { s.quota().month_and_held("2026-12", chat).await.expect("read").2 }
        };
        assert!(held_here("C1").await && held_here("C2").await && !held_here("C3").await);
        let held = s.quota().take_held("C1").await.expect("take");
        let summaries: Vec<&str> = held.iter().map(|h| h.summary.as_str()).collect();
        assert_eq!(summaries, ["⏰ 吃藥", "⏰ 倒垃圾"], "{name}");
        assert!(s.quota().take_held("C1").await.expect("again").is_empty(), "{name}");
        assert!(!held_here("C1").await, "{name}: none left to take");
        assert_eq!(s.quota().held_count().await.expect("count"), 1, "{name}");
    }
}

#[tokio::test]
async fn chat_sizes_friends_and_monthly_warnings_are_remembered() {
    for s in stores().await {
        let name = s.backend_name();
        assert_eq!(s.quota().chat_size("C1").await.expect("none"), None, "{name}");
        s.quota().save_chat_size("C1", 5, 10).await.expect("size");
        s.quota().save_chat_size("C1", 6, 20).await.expect("size");
        assert_eq!(s.quota().chat_size("C1").await.expect("size"), Some((6, 20)), "{name}");
        s.quota().save_friend("U1", true, 10).await.expect("friend");
        s.quota().save_friend("U2", false, 10).await.expect("friend");
        assert_eq!(s.quota().friend("U1").await.expect("friend"), Some((true, 10)), "{name}");
        assert_eq!(s.quota().friend("U2").await.expect("friend"), Some((false, 10)), "{name}");
        assert!(!s.quota().warned("C1", "2026-12").await.expect("warned"), "{name}");
        assert!(s.quota().note_warning("C1", "2026-12").await.expect("warn"), "{name}");
        assert!(!s.quota().note_warning("C1", "2026-12").await.expect("once"), "{name}");
        assert!(s.quota().warned("C1", "2026-12").await.expect("warned"), "{name}");
        assert!(s.quota().note_warning("C1", "2027-01").await.expect("next month"), "{name}");
    }
}

#[tokio::test]
async fn a_reminder_routed_to_a_1to1_chat_is_scheduled_there_and_managed_from_there() {
    for s in stores().await {
        let name = s.backend_name();
        let routed = NewReminder {
            deliver_to: Some("Ugrandma"),
            ..crate::common::rows::once_reminder("C1", "吃藥", 5_000)
        };
        let r = s.reminders().create(&routed).await.expect("create");
        assert_eq!(r.target(), "Ugrandma", "{name}");
        assert!(s.quota().has_scheduled_pushes("Ugrandma").await.expect("scheduled"), "{name}");
        assert!(s.quota().has_scheduled_pushes("C1").await.expect("scheduled"), "{name}");
        assert!(!s.quota().has_scheduled_pushes("C2").await.expect("none"), "{name}");
        assert_eq!(s.reminders().scheduled(6_000, 10).await.expect("all").len(), 1, "{name}");
        assert!(s.reminders().scheduled(5_000, 10).await.expect("later").is_empty(), "{name}");
        assert!(s.reminders().get("Ugrandma", r.id).await.expect("read").is_some(), "{name}");
        assert!(s.reminders().get("C2", r.id).await.expect("read").is_none(), "{name}");
        assert!(s.reminders().cancel("Ugrandma", r.id).await.expect("cancel"), "{name}");
    }
}

#[tokio::test]
async fn a_database_file_is_created_on_first_run() {
    let dir = std::env::temp_dir().join(format!("hearth-store-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("hearth.db");
    let url = format!("sqlite://{}", path.display());
    let s = Store::connect(&url).await.expect("file store");
    s.inbox().accept_events(&[event("01F", 1)], claim("p", 10)).await.expect("write");
    assert!(path.exists());
    assert!(s.ready().await.expect("ready"));
    drop(s);
    let reopened = Store::connect(&url).await.expect("reopen applies no migration twice");
    assert_eq!(
        reopened
            .inbox()
            .accept_events(&[event("01F", 2)], claim("p", 10))
            .await
            .expect("persisted"),
        [false]
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn an_unmigrated_database_is_not_ready() {
    for url in test_databases().await {
        let s = Store::open(&url).await.expect("open");
        assert!(s.ready().await.is_err() || !s.ready().await.unwrap_or(true), "{url}");
        s.migrate().await.expect("migrate");
        assert!(s.ready().await.expect("ready"), "{url}");
    }
}

#[tokio::test]
async fn unsupported_database_urls_are_refused_clearly() {
    let err = Store::connect("mysql://localhost/hearth").await.err().expect("refused");
    assert!(err.to_string().contains("DATABASE_URL"));
}

#[tokio::test]
async fn a_database_error_names_its_cause() {
    let err = Store::connect("sqlite:///no/such/directory/hearth.db").await.err().expect("fails");
    let message = err.to_string();
    assert_ne!(message, "database error", "the cause is part of the message");
    assert!(message.contains("unable to open database file"), "{message}");
}

#[tokio::test]
async fn a_thousand_and_more_events_in_hand_are_renewed_and_finished_in_one_call() {
    // SQLite refuses a statement nested 1,000 deep: the (id, claim) matches must be chunked.
    for s in stores().await {
        let name = s.backend_name();
        let ids: Vec<String> = (0..1_200).map(|n| format!("01BIG{n:020}")).collect();
        let events: Vec<InboxEvent<'_>> = ids.iter().map(|id| event(id, 1_000)).collect();
        s.inbox().accept_events(&events, claim("busy", 16_000)).await.expect("accept");
        let held: Vec<(&str, i64)> = ids.iter().map(|id| (id.as_str(), 1)).collect();
        let renewed = s.inbox().renew_events("busy", &held, 30_000).await.expect("renew");
        assert_eq!(renewed.len(), 1_200, "{name}");
        let logged: Vec<LoggedEvent<'_>> = ids
            .iter()
            .map(|id| LoggedEvent { event_id: id, token: 1, message: message("C1", "嗨", 2_000) })
            .collect();
        let finished = s.inbox().finish_logged("busy", 3_000, &logged).await.expect("finish");
        assert!(finished.iter().all(|done| *done), "{name}: every one finished");
        assert_eq!(finished.len(), 1_200, "{name}");
    }
}

#[tokio::test]
async fn pairing_guesses_are_counted_once_each_per_minute_by_concurrent_callers() {
    for s in stores().await {
        let name = s.backend_name();
        let minute = 29_434_320; // 2025-12-18 00:00 UTC
        let counts =
            futures::future::join_all((0..40).map(|_| s.access().count_pairing_guess(minute)));
        let mut places: Vec<i64> = counts.await.into_iter().map(|c| c.expect("counted")).collect();
        places.sort_unstable();
        assert_eq!(places, (1..=40).collect::<Vec<i64>>(), "each its own place: {name}");
        assert_eq!(
            s.access().count_pairing_guess(minute + 1).await.expect("next minute"),
            1,
            "{name}"
        );
        s.access().count_pairing_guess(minute - 2000).await.expect("long ago");

        let over = s.access().pairing_guesses_over(minute - 10, 30).await.expect("over");
        assert_eq!((over.minutes, over.last), (1, Some(minute)), "{name}");
        let none = s.access().pairing_guesses_over(minute + 1, 30).await.expect("over");
        assert_eq!((none.minutes, none.last), (0, None), "{name}");
        assert_eq!(
            s.access().prune_pairing_guesses(minute - 10).await.expect("pruned"),
            1,
            "{name}"
        );
    }
}
