//! Rows decode to the store's enums, on every backend: each value is written from its enum and
//! read back through SQL that compares the stored strings itself (`status IN ('active',
//! 'paused')`, `frequency = 'once'`), so a renamed string would fail here. Each test runs on
//! SQLite and, when `TEST_DATABASE_URL` is set, on PostgreSQL.

use hearth::platform::i18n::Lang;
use hearth::store::{
    AlertFire, AlertStatus, AlertUpdate, Direction, Finish, Freq, Frequency, LunarMonth, NewAlert,
    NewHeldCall, NewReminder, Next, Recurrence, ReminderStatus, Side, Store,
};

async fn stores() -> Vec<Store> {
    let mut stores = Vec::new();
    for url in crate::common::db::test_databases().await {
        stores.push(Store::connect(&url).await.unwrap_or_else(|e| panic!("{url}: {e:?}")));
    }
    stores
}

#[tokio::test]
async fn lunar_and_workday_reminders_keep_their_rule_through_create_list_and_claim() {
    for s in stores().await {
        let name = s.backend_name();
        let leap_birthday = Recurrence {
            freq: Freq::LunarYearly,
            lunar_days: 1 << 7,
            lunar_month: Some(LunarMonth { number: 4, leap: true }),
            ..Recurrence::once()
        };
        let every_workday = Recurrence { freq: Freq::Workdays, ..Recurrence::once() };
        let birthday = NewReminder {
            rule: leap_birthday,
            ..crate::common::rows::once_reminder("C1", "阿嬤生日", 1_000)
        };
        let workdays = NewReminder {
            rule: every_workday,
            ..crate::common::rows::once_reminder("C1", "打卡", 2_000)
        };
        let created = s.reminders().create(&birthday).await.expect("create");
        assert_eq!(created.rule, leap_birthday, "{name}");
        s.reminders().create(&workdays).await.expect("create");
        let listed = s.reminders().list("C1").await.expect("list");
        let rules: Vec<_> = listed.iter().map(|r| r.rule).collect();
        assert_eq!(rules, [leap_birthday, every_workday], "{name}");
        let claimed = s.reminders().claim_due("p1", 5_000, 60_000, 10).await.expect("claim");
        assert_eq!(claimed[0].rule, leap_birthday, "{name}");
    }
}

#[tokio::test]
async fn reminder_rows_decode_to_their_frequency_and_status() {
    for s in stores().await {
        let name = s.backend_name();
        let weekly = NewReminder {
            rule: Recurrence { freq: Freq::Weekly, ..Recurrence::once() },
            ..crate::common::rows::once_reminder("C1", "倒垃圾", 1_000)
        };
        let r = s.reminders().create(&weekly).await.expect("create");
        assert_eq!((r.rule.freq, r.status), (Freq::Weekly, ReminderStatus::Active), "{name}");
        s.reminders().claim_due("p1", 1_000, 60_000, 10).await.expect("claim");
        let next = Finish {
            reminder_id: r.id,
            claimed_fire_at: 1_000,
            delivery: None,
            next: Next::At(9_000, 1),
        };
        s.reminders().finish("p1", 1_000, &[next]).await.expect("advance (binds the status)");
        let listed = s.reminders().list("C1").await.expect("list (status IN ('active', 'paused'))");
        let statuses: Vec<_> = listed.iter().map(|r| r.status).collect();
        assert_eq!(statuses, [ReminderStatus::Active], "{name}");
        s.reminders().cancel("C1", r.id).await.expect("cancel");
        let cancelled = s.reminders().get("C1", r.id).await.expect("read").expect("kept");
        assert_eq!(cancelled.status, ReminderStatus::Cancelled, "{name}");
    }
}

#[tokio::test]
async fn alert_rows_decode_to_their_direction_frequency_side_language_and_status() {
    for s in stores().await {
        let name = s.backend_name();
        let new = NewAlert {
            conversation_id: "C1",
            created_by: None,
            symbol: "AAPL",
            name: None,
            currency: None,
            direction: Direction::Down,
            level: 100.0,
            band_pct: 0.2,
            frequency: Frequency::Once,
            cooldown_s: 3600,
            initial_side: Side::Above,
            tz: "Asia/Taipei",
            lang: Lang::En,
            now_ms: 0,
            deliver_to: None,
        };
        let id = s.price_alerts().create(&new).await.expect("create").expect("new");
        let row = s.price_alerts().get("C1", id).await.expect("read").expect("there");
        let read = (row.direction, row.frequency, row.last_side, row.lang, row.status);
        assert_eq!(
            read,
            (Direction::Down, Frequency::Once, Some(Side::Above), Lang::En, AlertStatus::Active),
            "{name}"
        );
        let fire = AlertFire {
            price: 99.0,
            conversation_id: "C1".into(),
            deliver_to: None,
            retry_key: "k".into(),
            payload: "[]".into(),
        };
        let update = AlertUpdate {
            alert_id: id,
            seen_seq: 0,
            last_side: Side::Below,
            armed: false,
            fire: Some(fire),
        };
        s.price_alerts()
            .record_evaluation("p1", "AAPL", &[update], (0, 0, None), 1, 2)
            .await
            .expect("fire");
        let fired = s.price_alerts().get("C1", id).await.expect("read").expect("there");
        // `frequency = 'once'` in the SQL turned it into `triggered`.
        let after = (fired.last_side, fired.status);
        assert_eq!(after, (Some(Side::Below), AlertStatus::Triggered), "{name}");
    }
}

#[tokio::test]
async fn a_held_call_keeps_its_language() {
    for s in stores().await {
        let call = NewHeldCall {
            conversation_id: "C1",
            tool: "reminder",
            args: "{}",
            lang: Lang::En,
            at_ms: 0,
        };
        let held = s.held_calls().add(&call).await.expect("hold");
        let taken = s.held_calls().take("C1", held).await.expect("take").expect("held");
        assert_eq!(taken.lang, Lang::En, "{}", s.backend_name());
    }
}
