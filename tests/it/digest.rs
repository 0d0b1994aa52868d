//! The morning digest end to end: set, changed and cancelled in Chinese and English through the
//! fake LLM; pushed once a day at its local time on a manual clock (across midnight in Taipei,
//! and across a daylight-saving change in New York), with the weather, today's reminders and
//! birthdays, open list items, watched prices that moved and the lunar date; "only when there is
//! something" keeping a quiet day silent; several processes sending each day once; bad input
//! changing nothing. The card is checked within LINE's limits here and by LINE's SDK in CI. Runs
//! on SQLite, and on PostgreSQL with `HEARTH_TEST_BACKEND=postgres`.

use crate::common::PushMode;
use crate::common::harness::{FAMILY, Harness, MOM, in_dm, in_group, messages_of};
use hearth::features::digest::ops::sender::DigestReport;
use hearth::server::app::Hearth;
use hearth::store::{DigestStatus, Store};
use jiff::{SignedDuration, Timestamp};
use serde_json::json;

async fn tick(h: &Harness) -> DigestReport {
    h.app.loops.digests.tick().await.expect("digest tick")
}

/// Sets the clock to `instant` and runs a digest tick.
async fn at(h: &Harness, instant: &str) -> DigestReport {
    h.clock.set(instant.parse::<Timestamp>().expect("instant"));
    tick(h).await
}

/// Mom asks for a digest every day at 07:00 for Taipei, in her 1:1 chat.
async fn seven_o_clock_digest(h: &Harness) {
    let set = h
        .call_tool(
            in_dm(MOM),
            "小幫手 每天七點摘要",
            "digest",
            json!({"time": "07:00", "place": "台北"}),
        )
        .await;
    assert!(set.get("error").is_none(), "{set}");
}

/// The flex message of the `n`th accepted push, as JSON text.
fn pushed_card(h: &Harness, n: usize) -> String {
    let pushes = h.line.accepted_pushes();
    let body = &pushes.get(n).unwrap_or_else(|| panic!("push {n} of {}", pushes.len())).body;
    let flex = messages_of(body).into_iter().find(|m| m["type"] == "flex").expect("a card");
    assert!(flex["contents"].to_string().len() <= 28_000, "within a bubble's size");
    flex.to_string()
}

#[tokio::test]
async fn a_digest_set_in_chinese_comes_once_at_seven_with_the_day_across_midnight() {
    let h = Harness::start().await; // 2026-11-30 20:00 in Taipei
    let set = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手 每天早上七點給我今日摘要，天氣看台北",
            "digest",
            json!({"time": "07:00", "place": "台北", "only_when_something": null}),
        )
        .await;
    assert_eq!(set["time"], "07:00", "{set}");
    assert_eq!(set["first"], "2026-12-01（二）07:00", "{set}");
    assert_eq!(set["changed"], false);
    h.call_tool(
        in_group(FAMILY, MOM),
        "小幫手 明天八點半提醒我帶便當",
        "reminder",
        json!({"text": "帶便當", "at": "2026-12-01T08:30"}),
    )
    .await;
    h.call_tool(
        in_group(FAMILY, MOM),
        "小幫手 牛奶加到購物清單",
        "list",
        json!({"action": "add", "list": null, "items": [{"name": "牛奶"}, {"name": "雞蛋"}]}),
    )
    .await;
    h.line.clear();

    assert_eq!(at(&h, "2026-11-30T16:00:00Z").await, DigestReport::default(), "midnight: not yet");
    assert_eq!(at(&h, "2026-11-30T22:59:59Z").await.sent, 0, "06:59:59: not yet");
    assert_eq!(at(&h, "2026-11-30T23:00:00Z").await.sent, 1, "07:00 on 1 December");
    let pushes = h.line.accepted_pushes();
    assert_eq!(pushes.len(), 1);
    assert_eq!(pushes[0].body["to"], FAMILY);
    let card = pushed_card(&h, 0);
    for part in
        ["今日摘要 12/1（二）", "農曆十月廿三", "台北 ", "08:30 帶便當", "1 個清單共 2 項待辦"]
    {
        assert!(card.contains(part), "{part} in {card}");
    }
    assert!(at(&h, "2026-11-30T23:00:20Z").await.sent == 0, "once a day");
    assert_eq!(at(&h, "2026-12-01T22:59:00Z").await.sent, 0);
    assert_eq!(at(&h, "2026-12-01T23:00:00Z").await.sent, 1, "again on 2 December");
    assert_eq!(h.line.accepted_pushes().len(), 2);
    let keys: Vec<_> = h
        .line
        .pushes()
        .iter()
        .filter_map(|p| p.header("x-line-retry-key").map(str::to_string))
        .collect();
    assert_eq!(keys.len(), 2);
    assert_ne!(keys[0], keys[1], "each day has its own retry key");
}

#[tokio::test]
async fn an_english_chat_sets_changes_and_cancels_its_digest_in_english() {
    let h = Harness::start().await;
    let set = h
        .call_tool(
            in_dm(MOM),
            "send me a morning summary at 6:30 with the weather in Taipei",
            "digest",
            json!({"time": "6:30", "place": "Taipei", "only_when_something": null}),
        )
        .await;
    assert_eq!(set["time"], "06:30", "{set}");
    assert_eq!(set["first"], "Tue 2026-12-01 06:30", "{set}");
    let changed = h
        .call_tool(
            in_dm(MOM),
            "make the summary come at 7:15 instead",
            "digest",
            json!({"time": "07:15", "place": null, "only_when_something": null}),
        )
        .await;
    assert_eq!(changed["changed"], true, "{changed}");
    assert_eq!(changed["place"], "Taipei", "the place is kept");
    assert_eq!(at(&h, "2026-11-30T22:30:00Z").await.sent, 0, "the old time is gone");
    assert_eq!(at(&h, "2026-11-30T23:15:00Z").await.sent, 1);
    let card = pushed_card(&h, 0);
    assert!(card.contains("Today, Tue 12/1") && card.contains("Lunar month 10 day 23"), "{card}");

    let cancelled =
        h.call_tool(in_dm(MOM), "stop the morning summary", "digest", json!({"off": true})).await;
    assert_eq!(cancelled["off"], true, "{cancelled}");
    assert_eq!(
        at(&h, "2026-12-01T23:15:00Z").await,
        DigestReport::default(),
        "no digest after cancelling"
    );
    let again =
        h.call_tool(in_dm(MOM), "stop the morning summary", "digest", json!({"off": true})).await;
    assert_eq!(again["error"]["kind"], "not_found", "{again}");
}

#[tokio::test]
async fn bad_times_and_unknown_places_are_refused_and_change_nothing() {
    let h = Harness::start().await;
    for (args, kind) in [
        (json!({"time": "25:00", "place": "台北"}), "invalid_arguments"),
        (json!({"time": "7am", "place": "台北"}), "invalid_arguments"),
        (json!({"time": "07:00", "place": "亞特蘭提斯"}), "not_found"),
        (json!({"time": null, "place": "台北"}), "invalid_arguments"),
    ] {
        let result = h.call_tool(in_dm(MOM), "小幫手 每日摘要", "digest", args.clone()).await;
        assert_eq!(result["error"]["kind"], kind, "{args} → {result}");
    }
    assert!(h.app.store.digests().get(MOM).await.expect("store").is_none(), "nothing was saved");
}

#[tokio::test]
async fn a_digest_set_without_a_place_takes_the_family_s_home_and_without_one_asks_which_city() {
    let h = Harness::start_with(|c| c.family.home_location = Some("高雄".into()), None).await;
    let set = h
        .call_tool(in_dm(MOM), "小幫手 每天七點給我摘要", "digest", json!({"time": "07:00"}))
        .await;
    assert_eq!(set["place"], "高雄", "{set}");
    let h = Harness::start_with(
        |c| {
            c.family.home_location = None;
            c.family.timezone = "UTC".into();
        },
        None,
    )
    .await;
    let asked = h
        .call_tool(in_dm(MOM), "小幫手 每天七點給我摘要", "digest", json!({"time": "07:00"}))
        .await;
    assert_eq!(asked["error"]["kind"], "invalid_arguments", "{asked}");
    assert!(asked["error"]["message"].as_str().unwrap_or_default().contains("ask which city"));
    assert!(h.app.store.digests().get(MOM).await.expect("store").is_none(), "nothing was saved");
}

#[tokio::test]
async fn only_when_something_keeps_a_quiet_day_silent_and_sends_a_busy_one() {
    let h = Harness::start().await;
    h.call_tool(
        in_dm(MOM),
        "小幫手 每天七點給我摘要，有事才通知",
        "digest",
        json!({"time": "07:00", "place": "台北", "only_when_something": true}),
    )
    .await;
    h.line.clear();
    let quiet = at(&h, "2026-11-30T23:00:00Z").await;
    assert_eq!((quiet.sent, quiet.skipped), (0, 1), "1 December holds nothing");
    assert!(h.line.pushes().is_empty());
    assert_eq!(
        h.app.store.digests().status(MOM, "2026-12-01").await.expect("status"),
        Some(DigestStatus::Skipped)
    );

    h.call_tool(
        in_dm(MOM),
        "小幫手 後天中午提醒我阿嬤生日",
        "reminder",
        json!({"text": "阿嬤生日", "at": "2026-12-02T12:00"}),
    )
    .await;
    h.line.clear();
    assert_eq!(at(&h, "2026-12-01T23:00:00Z").await.sent, 1, "2 December has a birthday");
    assert!(pushed_card(&h, 0).contains("🎂 阿嬤生日"));
}

#[tokio::test]
async fn watched_prices_that_moved_are_in_the_digest() {
    let h = Harness::start().await;
    let alert = h
        .call_tool(
            in_dm(MOM),
            "小幫手 台積電到1500通知我",
            "price_alert",
            json!({"symbol": "2330.TW", "direction": "rises_to", "level": 1500}),
        )
        .await;
    assert!(alert.get("error").is_none(), "{alert}");
    h.upstreams.set_price("2330.TW", 1400.0); // −2.4% from the previous close of 1435
    seven_o_clock_digest(&h).await;
    h.line.clear();
    assert_eq!(at(&h, "2026-11-30T23:00:00Z").await.sent, 1);
    let card = pushed_card(&h, 0);
    assert!(card.contains("台積電") && card.contains("-2.4%"), "{card}");
}

#[tokio::test]
async fn a_digest_keeps_its_local_time_across_new_york_daylight_saving() {
    let h = Harness::start_with(|c| c.family.timezone = "America/New_York".into(), None).await;
    h.clock.set("2026-03-06T20:00:00Z".parse().expect("instant")); // 15:00 EST, Friday
    let set = h
        .call_tool(
            in_dm(MOM),
            "send me a morning summary at 7:00 for New York",
            "digest",
            json!({"time": "07:00", "place": "Taipei"}),
        )
        .await;
    assert_eq!(set["first"], "Sat 2026-03-07 07:00", "{set}");
    h.line.clear();
    assert_eq!(at(&h, "2026-03-07T12:00:00Z").await.sent, 1, "07:00 EST");
    assert_eq!(at(&h, "2026-03-08T10:59:00Z").await.sent, 0, "06:59 EDT");
    assert_eq!(at(&h, "2026-03-08T11:00:00Z").await.sent, 1, "07:00 EDT, after springing forward");
    assert_eq!(at(&h, "2026-03-08T12:00:00Z").await.sent, 0, "not again at the old UTC hour");
}

#[tokio::test]
async fn a_day_missed_while_hearth_was_down_is_not_sent_late() {
    let h = Harness::start().await;
    seven_o_clock_digest(&h).await;
    h.line.clear();
    assert_eq!(at(&h, "2026-12-01T06:00:00Z").await, DigestReport::default(), "14:00: too late");
    assert!(h.line.pushes().is_empty());
    assert_eq!(at(&h, "2026-12-01T23:00:00Z").await.sent, 1, "the next morning comes as usual");
}

#[tokio::test]
async fn a_push_of_unknown_outcome_is_retried_with_the_same_key_and_sent_once() {
    let h = Harness::start().await;
    seven_o_clock_digest(&h).await;
    h.line.clear();
    h.line.set_push_mode(PushMode::ServerError);
    let first = at(&h, "2026-11-30T23:00:00Z").await;
    assert_eq!((first.sent, first.retrying), (0, 1));
    h.line.set_push_mode(PushMode::Ok);
    assert_eq!(at(&h, "2026-11-30T23:00:30Z").await.sent, 0, "waiting before the retry");
    assert_eq!(at(&h, "2026-11-30T23:01:00Z").await.sent, 1);
    let pushes = h.line.pushes();
    let keys: std::collections::BTreeSet<_> =
        pushes.iter().filter_map(|p| p.header("x-line-retry-key")).collect();
    assert_eq!(keys.len(), 1, "every attempt carried the same key");
    let bodies: std::collections::BTreeSet<_> = pushes.iter().map(|p| p.body.to_string()).collect();
    assert_eq!(bodies.len(), 1, "every attempt sent the same digest");
    assert_eq!(h.line.accepted_pushes().len(), 1);
}

#[tokio::test]
async fn several_processes_on_one_database_send_each_day_once() {
    let db = match std::env::var("HEARTH_TEST_BACKEND").as_deref() {
        Ok("postgres") => crate::common::db::fresh_postgres().await.expect("TEST_DATABASE_URL"),
        _ => {
            let dir = crate::common::scratch_dir("hearth-digest-replicas");
            format!("sqlite://{}", dir.join("hearth.db").display())
        }
    };
    let h = Harness::start_with(|c| c.store.database_url = db.clone(), None).await;
    seven_o_clock_digest(&h).await;
    let mut replicas = vec![h.app.clone()];
    for _ in 0..3 {
        let store = Store::connect(&db).await.expect("reopen");
        replicas.push(
            Hearth::with_tools(&h.config, h.clock.clone(), store, hearth::tools::registry)
                .expect("replica"),
        );
    }
    h.line.clear();
    for day in 0..3 {
        h.clock.set(
            "2026-11-30T23:00:00Z"
                .parse::<Timestamp>()
                .expect("instant")
                .checked_add(SignedDuration::from_hours(24 * day))
                .expect("day"),
        );
        let ticks = replicas.iter().map(|r| r.loops.digests.tick());
        let reports = futures::future::join_all(ticks).await;
        let sent: usize = reports.into_iter().map(|r| r.expect("tick").sent).sum();
        // What LINE received is the guarantee. A tick's report may also count a digest another
        // replica handed over and its own end-of-tick flush pushed (reported twice, sent once).
        assert!(sent >= 1, "day {day} reported sent");
        let expected = usize::try_from(day + 1).expect("days");
        assert_eq!(h.line.pushes().len(), expected, "day {day} pushed once");
    }
    assert_eq!(h.line.pushes().len(), 3, "one push per day, no duplicate attempt");
}
