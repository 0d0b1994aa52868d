//! Taiwan's official alerts end to end, against a fake of NCDR's feed serving real-format CAP
//! documents: a chat that follows them is told of a suspension for its place once, within the
//! tick after it is published; an update saying the same is not told again, one that changes it
//! is told as an update, a cancellation as lifted; another county's alert, a town's elsewhere,
//! an expired one and an earthquake felt below the chat's threshold are not told; quiet hours
//! hold a typhoon warning but not a suspension, unless the chat asked; hostile documents (a
//! billion laughs, 100 MB, deep nesting, malformed) change nothing and the feed keeps being read;
//! 「明天要上班嗎？」 is answered from the calendar and the announcements; the digest carries
//! today's; two replicas push each alert once. A feed of thousands of entries is read; a
//! document that fails (an error, throttling, too slow) or leads away from the feed's host
//! never holds back a newer suspension and is not hammered; a cancellation names the place and
//! what was lifted; 「剛剛是不是有地震」 and 「明天」 after midnight are answered; feed text
//! reaches the card plain. Runs on SQLite, and on PostgreSQL with `HEARTH_TEST_BACKEND=postgres`.

use std::time::Duration;

use crate::common::fake_cap::{self, FakeCap, FeedMode, Misbehave};
use crate::common::harness::{DAD, FAMILY, Harness, MOM, in_dm, in_group, messages_of};
use hearth::features::official_alerts::ops::watcher::WatchReport;
use serde_json::{Value, json};

/// hearth reading `cap`'s feed, the loops ticked by hand.
async fn start(cap: &FakeCap) -> Harness {
    let url = cap.feed_url();
    Harness::start_with(
        move |c| {
            c.loops.official_alerts_feed_url = url;
            c.loops.official_alerts_poll_secs = 0;
            c.loops.official_alerts_request_gap_ms = 0;
            c.loops.price_poll_secs = 0;
        },
        None,
    )
    .await
}

async fn tick(h: &Harness) -> WatchReport {
    h.app.loops.official_alerts.tick().await.expect("official alerts tick")
}

/// The chat `source` follows the alerts (for `place`, or its home: Taipei).
async fn follow(h: &Harness, source: Value, place: Option<&str>, args: Value) {
    let mut all = json!({"action": "follow", "date": null, "place": place, "min_intensity": null, "quiet_holds_all": null});
    if let (Some(all), Some(more)) = (all.as_object_mut(), args.as_object()) {
        all.extend(more.clone());
    }
    let r =
        h.call_tool(source, "小幫手 颱風假、地震有消息就通知我們", "official_alerts", all).await;
    assert_eq!(r["following"], true, "{r}");
}

/// Asks about `date` in the family group.
async fn check(h: &Harness, date: &str, place: Option<&str>) -> Value {
    h.call_tool(
        in_group(FAMILY, MOM),
        "小幫手 明天要上班上課嗎？",
        "official_alerts",
        json!({"action": "check", "date": date, "place": place, "min_intensity": null, "quiet_holds_all": null}),
    )
    .await
}

/// The accepted pushes to `to`, each as (notification text, card JSON text).
fn pushes_to(h: &Harness, to: &str) -> Vec<(String, String)> {
    h.line
        .accepted_pushes()
        .iter()
        .filter(|p| p.body["to"] == to)
        .flat_map(|p| messages_of(&p.body))
        .map(|m| (m["altText"].as_str().unwrap_or("").to_string(), m["contents"].to_string()))
        .collect()
}

const TAIPEI_OFF: &str = "明天停止上班、停止上課";

fn taipei_suspension(
    id: &str,
    msg_type: &str,
    refs: &[&str],
    sent: &str,
    announced: &str,
) -> String {
    fake_cap::suspension(id, msg_type, refs, sent, "臺北市", "63", announced)
}

#[tokio::test]
async fn a_suspension_for_taipei_reaches_the_group_once_within_a_tick_and_a_repeat_is_not_told() {
    let cap = FakeCap::start().await;
    let h = start(&cap).await; // 2026-11-30 20:00 in Taipei
    follow(&h, in_group(FAMILY, MOM), None, json!({})).await;
    h.line.clear();

    let sent = "2026-11-30T20:10:00+08:00";
    cap.publish(
        "dgpa-63-001",
        "停班停課",
        taipei_suspension("dgpa-63-001", "Alert", &[], sent, TAIPEI_OFF),
    );
    h.set_clock("2026-11-30T12:10:30Z");
    let report = tick(&h).await;
    assert_eq!((report.kept, report.told), (1, 1), "{report:?}");
    let told = pushes_to(&h, FAMILY);
    assert_eq!(told.len(), 1);
    assert_eq!(told[0].0, "🏫 臺北市明天停止上班、停止上課");
    for part in ["12/1（二）", "行政院人事行政總處", "2026-11-30（一）20:10", "停班停課"]
    {
        assert!(told[0].1.contains(part), "{part} in {}", told[0].1);
    }

    // The next minute: the feed is unchanged (a 304), nothing is told again.
    h.set_clock("2026-11-30T12:11:30Z");
    assert_eq!(tick(&h).await.told, 0);
    let (hits, not_modified) = cap.feed_hits();
    assert_eq!((hits, not_modified), (2, 1), "a conditional request the second time");
    // DGPA re-announces with an Update saying the same: not repeated.
    let later = "2026-11-30T21:00:00+08:00";
    cap.publish(
        "dgpa-63-002",
        "停班停課",
        taipei_suspension("dgpa-63-002", "Update", &["dgpa-63-001"], later, TAIPEI_OFF),
    );
    h.set_clock("2026-11-30T13:00:30Z");
    let report = tick(&h).await;
    assert_eq!((report.kept, report.told), (1, 0), "{report:?}");
    assert_eq!(pushes_to(&h, FAMILY).len(), 1, "told once");
    assert_eq!(cap.doc_hits("dgpa-63-001"), 1, "each document fetched once");
}

#[tokio::test]
async fn an_update_that_changes_the_announcement_is_told_as_such_and_a_cancelled_warning_as_lifted()
{
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    follow(&h, in_group(FAMILY, MOM), None, json!({})).await;
    h.line.clear();
    cap.publish(
        "dgpa-1",
        "停班停課",
        taipei_suspension(
            "dgpa-1",
            "Alert",
            &[],
            "2026-11-30T20:00:00+08:00",
            "明天照常上班、停止上課",
        ),
    );
    cap.publish(
        "cwa-ty-1",
        "颱風",
        fake_cap::Warning {
            identifier: "cwa-ty-1",
            event_code: "typhoon",
            msg_type: "Alert",
            references: &[],
            sent: "2026-11-30T20:00:00+08:00",
            expires: "2026-12-01T08:00:00+08:00",
            headline: "陸上颱風警報",
            areas: &[("臺北市", "63"), ("新北市", "65")],
        }
        .xml(),
    );
    h.set_clock("2026-11-30T12:01:00Z");
    assert_eq!(tick(&h).await.told, 2);
    cap.publish(
        "dgpa-2",
        "停班停課",
        taipei_suspension("dgpa-2", "Update", &["dgpa-1"], "2026-11-30T21:30:00+08:00", TAIPEI_OFF),
    );
    cap.publish(
        "cwa-ty-2",
        "颱風",
        fake_cap::Warning {
            identifier: "cwa-ty-2",
            event_code: "typhoon",
            msg_type: "Cancel",
            references: &["cwa-ty-1"],
            sent: "2026-11-30T21:30:00+08:00",
            expires: "2026-12-01T08:00:00+08:00",
            headline: "解除颱風警報",
            areas: &[],
        }
        .xml(),
    );
    h.set_clock("2026-11-30T13:31:00Z");
    assert_eq!(tick(&h).await.told, 2);
    let mut told = pushes_to(&h, FAMILY);
    told.sort();
    let alts: Vec<&str> = told.iter().map(|(alt, _)| alt.as_str()).collect();
    assert_eq!(
        alts,
        vec![
            "🌀 陸上颱風警報：臺北市",
            "🌀 颱風警報解除",
            "🏫 臺北市明天停止上班、停止上課",
            "🏫 臺北市明天照常上班、停止上課",
        ],
    );
    assert!(told[1].1.contains("解除：颱風警報"), "{}", told[1].1);
    assert!(told[2].1.contains("更新：停班停課"), "{}", told[2].1);
    assert!(!told[3].1.contains("更新"), "the first announcement is not an update");
    // A cancel of something never told is not told; the same cancel again neither.
    h.set_clock("2026-11-30T13:32:00Z");
    assert_eq!(tick(&h).await.told, 0);
}

#[tokio::test]
async fn another_county_a_town_elsewhere_an_expired_warning_and_an_unfelt_earthquake_are_not_told()
{
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    follow(&h, in_group(FAMILY, MOM), None, json!({})).await; // Taipei (home)
    follow(&h, in_dm(MOM), Some("新北市烏來區"), json!({})).await;
    follow(&h, in_dm(DAD), Some("新北市板橋區"), json!({"min_intensity": 5})).await;
    h.line.clear();
    let sent = "2026-11-30T20:00:00+08:00";
    cap.publish(
        "dgpa-66",
        "停班停課",
        fake_cap::suspension("dgpa-66", "Alert", &[], sent, "臺中市", "66", TAIPEI_OFF),
    );
    cap.publish(
        "dgpa-wulai",
        "停班停課",
        fake_cap::suspension(
            "dgpa-wulai",
            "Alert",
            &[],
            sent,
            "新北市烏來區",
            "6502900",
            "明天照常上班、停止上課",
        ),
    );
    cap.publish(
        "cwa-rain-old",
        "降雨",
        fake_cap::Warning {
            identifier: "cwa-rain-old",
            event_code: "rainfall",
            msg_type: "Alert",
            references: &[],
            sent: "2026-11-30T14:00:00+08:00",
            expires: "2026-11-30T17:00:00+08:00",
            headline: "大雨特報",
            areas: &[("臺北市信義區", "6300200")],
        }
        .xml(),
    );
    cap.publish(
        "CWA-EQ115001",
        "地震",
        fake_cap::earthquake(
            "CWA-EQ115001",
            sent,
            &[("4級", "花蓮縣", "10015"), ("3級", "臺北市", "63"), ("4級", "新北市", "65")],
        ),
    );
    h.set_clock("2026-11-30T12:01:00Z");
    let report = tick(&h).await;
    assert_eq!(report.kept, 4);
    assert!(
        pushes_to(&h, FAMILY).is_empty(),
        "Taichung's, Wulai's, an expired warning, 3級 in Taipei"
    );
    let mut mom: Vec<String> = pushes_to(&h, MOM).into_iter().map(|(alt, _)| alt).collect();
    mom.sort();
    assert_eq!(
        mom,
        vec![
            "⚠️ 花蓮縣壽豐鄉規模5.5地震，新北市最大震度4級",
            "🏫 新北市烏來區明天照常上班、停止上課"
        ]
    );
    assert!(pushes_to(&h, DAD).is_empty(), "Banqiao is not Wulai, and 4級 is below Dad's 5");
}

#[tokio::test]
async fn quiet_hours_hold_a_typhoon_warning_but_not_a_suspension_unless_the_chat_asked() {
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    follow(&h, in_group(FAMILY, MOM), None, json!({})).await;
    follow(&h, in_dm(MOM), Some("台北"), json!({"quiet_holds_all": true})).await;
    for source in [in_group(FAMILY, MOM), in_dm(MOM)] {
        let q = h
            .call_tool(
                source,
                "小幫手 晚上十點到早上七點不要吵",
                "quiet_hours",
                json!({"start": "22:00", "end": "07:00", "off": null}),
            )
            .await;
        assert_eq!(q["start"], "22:00", "{q}");
    }
    h.line.clear();
    let sent = "2026-11-30T23:00:00+08:00";
    cap.publish(
        "dgpa-night",
        "停班停課",
        taipei_suspension("dgpa-night", "Alert", &[], sent, TAIPEI_OFF),
    );
    cap.publish(
        "cwa-ty-night",
        "颱風",
        fake_cap::Warning {
            identifier: "cwa-ty-night",
            event_code: "typhoon",
            msg_type: "Alert",
            references: &[],
            sent,
            expires: "2026-12-01T11:00:00+08:00",
            headline: "陸上颱風警報",
            areas: &[("臺北市", "63")],
        }
        .xml(),
    );
    h.set_clock("2026-11-30T15:01:00Z"); // 23:01 in Taipei
    assert_eq!(tick(&h).await.told, 4, "two chats, two alerts each, recorded");
    let family: Vec<String> = pushes_to(&h, FAMILY).into_iter().map(|(alt, _)| alt).collect();
    assert_eq!(family, vec!["🏫 臺北市明天停止上班、停止上課"], "the suspension comes at night");
    assert!(pushes_to(&h, MOM).is_empty(), "Mom asked for everything to wait");
    h.set_clock("2026-11-30T23:00:05Z"); // 07:00:05
    h.app.loops.outbox.flush_waiting().await.expect("outbox");
    assert_eq!(pushes_to(&h, FAMILY).len(), 2, "the warning comes in the morning");
    assert_eq!(pushes_to(&h, MOM).len(), 2, "both come in the morning");
}

#[tokio::test]
async fn a_chat_that_stops_following_is_told_nothing_more() {
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    follow(&h, in_group(FAMILY, MOM), None, json!({})).await;
    let stopped = h
        .call_tool(in_group(FAMILY, MOM), "小幫手 不用再通知颱風假了", "official_alerts", json!({"action": "stop", "date": null, "place": null, "min_intensity": null, "quiet_holds_all": null}))
        .await;
    assert_eq!(stopped["stopped"], true, "{stopped}");
    h.line.clear();
    cap.publish(
        "dgpa-1",
        "停班停課",
        taipei_suspension("dgpa-1", "Alert", &[], "2026-11-30T20:00:00+08:00", TAIPEI_OFF),
    );
    h.set_clock("2026-11-30T12:01:00Z");
    assert_eq!(tick(&h).await.told, 0);
    assert!(h.line.accepted_pushes().is_empty());
    let again = h
        .call_tool(in_group(FAMILY, MOM), "小幫手 不用再通知颱風假了", "official_alerts", json!({"action": "stop", "date": null, "place": null, "min_intensity": null, "quiet_holds_all": null}))
        .await;
    assert_eq!(again["error"]["kind"], "not_found", "{again}");
}

#[tokio::test]
async fn hostile_documents_change_nothing_and_the_feed_keeps_being_read() {
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    follow(&h, in_group(FAMILY, MOM), None, json!({})).await;
    h.line.clear();
    let laughs = r#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><alert xmlns="urn:oasis:names:tc:emergency:cap:1.2"><identifier>&lol3;</identifier></alert>"#;
    cap.publish_raw("laughs", "停班停課", laughs);
    cap.publish_endless("huge", "停班停課", 100 << 20);
    let deep = format!("{}{}", "<alert>".repeat(50_000), "</alert>".repeat(50_000));
    cap.publish_raw("deep", "地震", &deep);
    cap.publish_raw(
        "broken",
        "降雨",
        "<alert xmlns=\"urn:oasis:names:tc:emergency:cap:1.2\"><identifier>x</identifier><sent>",
    );
    h.set_clock("2026-11-30T12:01:00Z");
    let report = tick(&h).await;
    assert_eq!((report.unreadable, report.told), (4, 0), "{report:?}");
    assert!(h.line.accepted_pushes().is_empty());
    // The next real alert is read and told; the hostile ones are never fetched again.
    cap.publish(
        "dgpa-1",
        "停班停課",
        taipei_suspension("dgpa-1", "Alert", &[], "2026-11-30T20:02:00+08:00", TAIPEI_OFF),
    );
    h.set_clock("2026-11-30T12:02:00Z");
    assert_eq!(tick(&h).await.told, 1);
    for id in ["laughs", "huge", "deep", "broken"] {
        assert_eq!(cap.doc_hits(id), 1, "{id} fetched once");
    }
}

#[tokio::test]
async fn a_feed_that_is_down_or_asks_for_a_login_is_read_again_the_next_minute() {
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    follow(&h, in_group(FAMILY, MOM), None, json!({})).await;
    h.line.clear();
    cap.publish(
        "dgpa-1",
        "停班停課",
        taipei_suspension("dgpa-1", "Alert", &[], "2026-11-30T20:00:00+08:00", TAIPEI_OFF),
    );
    for mode in [FeedMode::Down, FeedMode::Login] {
        cap.set_mode(mode);
        let report = tick(&h).await;
        assert!(report.feed_failed && report.told == 0, "{mode:?}: {report:?}");
    }
    cap.set_mode(FeedMode::Normal);
    assert_eq!(tick(&h).await.told, 1);
    assert_eq!(pushes_to(&h, FAMILY).len(), 1);
}

#[tokio::test]
async fn the_question_is_answered_from_the_calendar_and_the_announcements_with_source_and_time() {
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    tick(&h).await;
    let nothing = check(&h, "2026-12-01", None).await;
    assert_eq!(nothing["verdict"], "nothing_announced", "{nothing}");
    assert_eq!(nothing["place"], "臺北市");
    assert_eq!(nothing["alerts_read_at"], "2026-11-30（一）20:00", "{nothing}");

    cap.publish(
        "dgpa-1",
        "停班停課",
        taipei_suspension("dgpa-1", "Alert", &[], "2026-11-30T20:10:00+08:00", TAIPEI_OFF),
    );
    cap.publish(
        "dgpa-66",
        "停班停課",
        fake_cap::suspension(
            "dgpa-66",
            "Alert",
            &[],
            "2026-11-30T20:10:00+08:00",
            "臺中市",
            "66",
            "明天照常上班、照常上課",
        ),
    );
    h.set_clock("2026-11-30T12:11:00Z");
    tick(&h).await;
    let off = check(&h, "2026-12-01", None).await;
    assert_eq!(off["verdict"], "work_and_classes_suspended", "{off}");
    assert_eq!(off["announcements"][0]["source"], "行政院人事行政總處");
    assert_eq!(off["announcements"][0]["announced_at"], "2026-11-30（一）20:10");
    let taichung = check(&h, "2026-12-01", Some("台中")).await;
    assert_eq!(taichung["verdict"], "normal_announced", "{taichung}");
    let kaohsiung = check(&h, "2026-12-01", Some("高雄")).await;
    assert_eq!(kaohsiung["verdict"], "nothing_announced", "another county's says nothing here");
    let holiday = check(&h, "2026-12-25", None).await;
    assert_eq!(holiday["verdict"], "day_off", "{holiday}");
    assert_eq!(holiday["calendar"]["holiday"], "行憲紀念日");
    let abroad = check(&h, "2026-12-01", Some("Tokyo")).await;
    assert_eq!(abroad["error"]["kind"], "not_found", "{abroad}");
}

#[tokio::test]
async fn a_make_up_workday_is_a_workday_and_without_the_feed_the_answer_says_alerts_are_not_read() {
    let dir = std::env::temp_dir().join(format!("hearth-makeup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("calendar.json");
    let calendar = json!({"years": [{"year": 2026, "source": "test", "days_off": [],
        "make_up_workdays": [{"date": "2026-12-05", "name": "補班"}], "twse_closed": []}]});
    std::fs::write(&file, calendar.to_string()).expect("calendar");
    let h = Harness::start_with(move |c| c.family.work_calendar = Some(file), None).await;
    let saturday = check(&h, "2026-12-05", None).await;
    assert_eq!(saturday["calendar"]["make_up_workday"], true, "{saturday}");
    assert_eq!(saturday["calendar"]["workday"], true);
    assert_eq!(saturday["verdict"], "nothing_announced");
    assert_eq!(saturday["alerts_read_at"], Value::Null, "the feed is off: say so");
}

#[tokio::test]
async fn the_morning_digest_carries_today_s_suspension() {
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    let set = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手 每天七點摘要",
            "digest",
            json!({"time": "07:00", "place": "台北", "only_when_something": true, "off": null}),
        )
        .await;
    assert!(set.get("error").is_none(), "{set}");
    cap.publish(
        "dgpa-1",
        "停班停課",
        taipei_suspension("dgpa-1", "Alert", &[], "2026-11-30T20:10:00+08:00", TAIPEI_OFF),
    );
    h.set_clock("2026-11-30T12:11:00Z");
    tick(&h).await;
    h.line.clear();
    h.set_clock("2026-11-30T23:00:00Z"); // 07:00 on 1 December
    assert_eq!(
        h.app.loops.digests.tick().await.expect("digest").sent,
        1,
        "a day with a suspension"
    );
    let card = pushes_to(&h, FAMILY).remove(0).1;
    assert!(card.contains("臺北市 停止上班、停止上課"), "{card}");
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs PostgreSQL: set TEST_DATABASE_URL and pass --include-ignored"]
async fn two_replicas_push_each_alert_once() {
    use crate::common::replica::Replica;
    use crate::common::{FakeLine, FakeLlm};
    let db = crate::common::db::fresh_postgres().await.expect(crate::common::db::NEEDS_POSTGRES);
    let (line, llm, cap) =
        (FakeLine::start().await, FakeLlm::start().await, FakeCap::start().await);
    let store = hearth::store::Store::connect(&db).await.expect("store");
    store.migrate().await.expect("migrate");
    let follow = hearth::store::FollowRow {
        conversation_id: FAMILY.into(),
        place: Some("臺北市".into()),
        lang: hearth::platform::i18n::Lang::ZhTw,
        min_intensity: 4,
        quiet_holds_urgent: false,
    };
    store.official_alerts().follow(&follow, 0).await.expect("follow");
    let url = cap.feed_url();
    let env = [
        ("HEARTH_OFFICIAL_ALERTS_FEED_URL", url.as_str()),
        ("HEARTH_OFFICIAL_ALERTS_POLL_SECS", "1"),
    ];
    let _a = Replica::spawn(&db, &line, &llm, &env).await;
    let _b = Replica::spawn(&db, &line, &llm, &env).await;
    let sent = jiff::Timestamp::now()
        .to_zoned_datetime(jiff::tz::TimeZone::get("Asia/Taipei").expect("zone"))
        .strftime("%Y-%m-%dT%H:%M:%S+08:00")
        .to_string();
    cap.publish("dgpa-1", "停班停課", taipei_suspension("dgpa-1", "Alert", &[], &sent, TAIPEI_OFF));
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while line.accepted_pushes().is_empty() {
        assert!(std::time::Instant::now() < deadline, "the alert was not pushed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await; // a second push would show by now
    let pushes = line.accepted_pushes();
    assert_eq!(pushes.len(), 1, "one push for two replicas");
    assert_eq!(cap.doc_hits("dgpa-1"), 1, "fetched by one replica, once");
}

#[tokio::test]
async fn a_second_day_off_announced_the_next_evening_is_told_and_a_lifted_warning_no_longer_stands()
{
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    follow(&h, in_group(FAMILY, MOM), None, json!({})).await;
    h.line.clear();
    let first = "2026-11-30T20:00:00+08:00";
    cap.publish(
        "dgpa-d1",
        "停班停課",
        taipei_suspension("dgpa-d1", "Alert", &[], first, TAIPEI_OFF),
    );
    let warning = fake_cap::Warning {
        identifier: "cwa-ty-a",
        event_code: "typhoon",
        msg_type: "Alert",
        references: &[],
        sent: first,
        expires: "2026-12-02T20:00:00+08:00",
        headline: "陸上颱風警報",
        areas: &[("臺北市", "63")],
    };
    cap.publish("cwa-ty-a", "颱風", warning.xml());
    h.set_clock("2026-11-30T12:01:00Z");
    assert_eq!(tick(&h).await.told, 2);
    let standing = check(&h, "2026-12-01", None).await;
    assert_eq!(standing["warnings"].as_array().map(Vec::len), Some(1), "{standing}");

    // The next evening DGPA re-announces 「明天停止上班」: the same words, another day off.
    let second = "2026-12-01T20:00:00+08:00";
    let again = taipei_suspension("dgpa-d2", "Update", &["dgpa-d1"], second, TAIPEI_OFF);
    cap.publish("dgpa-d2", "停班停課", again);
    let lifted = fake_cap::Warning {
        identifier: "cwa-ty-b",
        msg_type: "Cancel",
        references: &["cwa-ty-a"],
        sent: second,
        headline: "解除颱風警報",
        areas: &[],
        ..warning
    };
    cap.publish("cwa-ty-b", "颱風", lifted.xml());
    h.set_clock("2026-12-01T12:01:00Z");
    assert_eq!(tick(&h).await.told, 2, "the second day off and the lifted warning");
    let cards: Vec<String> = pushes_to(&h, FAMILY).into_iter().map(|(_, card)| card).collect();
    assert!(
        cards.iter().any(|c| c.contains("更新：停班停課") && c.contains("12/2（三）")),
        "{cards:?}"
    );
    let day_two = check(&h, "2026-12-02", None).await;
    assert_eq!(day_two["verdict"], "work_and_classes_suspended", "{day_two}");
    assert_eq!(day_two["warnings"], json!([]), "the warning was lifted: {day_two}");
}

#[tokio::test]
async fn a_feed_of_five_thousand_entries_still_yields_a_new_suspension_for_taipei() {
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    follow(&h, in_group(FAMILY, MOM), None, json!({})).await;
    h.line.clear();
    // A typhoon week: thunderstorms and road closures by the thousand, and last week's
    // suspensions, all listed before today's.
    cap.publish_filler(3_000, "雷雨", "2026-11-30T20:00:00+08:00");
    cap.publish_filler(1_000, "道路封閉", "2026-11-30T20:00:00+08:00");
    cap.publish_filler(999, "停班停課", "2026-11-25T20:00:00+08:00");
    let sent = "2026-11-30T20:10:00+08:00";
    cap.publish(
        "dgpa-63-001",
        "停班停課",
        taipei_suspension("dgpa-63-001", "Alert", &[], sent, TAIPEI_OFF),
    );
    h.set_clock("2026-11-30T12:10:30Z");
    let started = std::time::Instant::now();
    let report = tick(&h).await;
    let took = started.elapsed();
    eprintln!("a tick over a feed of 5,000 entries took {took:?}");
    assert!(!report.feed_failed, "{report:?}");
    assert_eq!((report.kept, report.told), (1, 1), "{report:?}");
    let told = pushes_to(&h, FAMILY);
    assert_eq!(told[0].0, "🏫 臺北市明天停止上班、停止上課");
    assert_eq!(cap.doc_hits("filler-停班停課-0"), 0, "last week's entries are not fetched");
    // Read in full: the next read is a conditional one.
    h.set_clock("2026-11-30T12:11:30Z");
    tick(&h).await;
    assert_eq!(cap.feed_hits(), (2, 1));
}

#[tokio::test]
async fn a_suspension_behind_thousands_of_newer_or_undated_rain_entries_whose_documents_are_missing_is_told_at_once()
 {
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    follow(&h, in_group(FAMILY, MOM), None, json!({})).await;
    h.line.clear();
    // A suspension announced three hours ago, then 1,200 newer rain entries and 1,000 without a
    // time (taken as the newest), none of whose documents is there (404).
    let sent = "2026-11-30T17:10:00+08:00";
    cap.publish(
        "dgpa-63-001",
        "停班停課",
        taipei_suspension("dgpa-63-001", "Alert", &[], sent, TAIPEI_OFF),
    );
    cap.publish_filler(1_200, "降雨", "2026-11-30T20:09:00+08:00");
    cap.publish_filler_undated(1_000, "降雨");
    h.set_clock("2026-11-30T12:10:30Z");
    let report = tick(&h).await;
    assert_eq!((report.kept, report.told), (1, 1), "{report:?}");
    assert_eq!(pushes_to(&h, FAMILY)[0].0, "🏫 臺北市明天停止上班、停止上課");
    // 75 s of ticks every 5 s: the missing documents are asked a few at a time, each on its own
    // backoff, never all at once.
    for second in (35..=105).step_by(5) {
        let at: jiff::Timestamp = "2026-11-30T12:10:00Z".parse().expect("time");
        h.set_clock(&(at + jiff::SignedDuration::from_secs(second)).to_string());
        tick(&h).await;
    }
    let hits: Vec<usize> = (0..1_200)
        .map(|i| format!("filler-降雨-{i}"))
        .chain((0..1_000).map(|i| format!("undated-降雨-{i}")))
        .map(|id| cap.doc_hits(&id))
        .collect();
    let asked: usize = hits.iter().sum();
    println!("{asked} asks of missing documents in 75 s");
    assert!(asked <= 16 * 10, "{asked} asks of missing documents in 75 s");
    assert!(hits.iter().all(|n| *n <= 1), "none asked twice in 75 s");
}

#[tokio::test]
async fn a_failing_or_off_host_document_older_than_a_new_suspension_does_not_hold_it_back() {
    let cap = FakeCap::start().await;
    let elsewhere = FakeCap::start().await; // another port on the same host
    let h = start(&cap).await;
    follow(&h, in_group(FAMILY, MOM), None, json!({})).await;
    h.line.clear();
    let old = |id: &str, minute: u8| {
        let sent = format!("2026-11-30T19:{minute:02}:00+08:00");
        let xml = fake_cap::suspension(id, "Alert", &[], &sent, "臺中市", "66", TAIPEI_OFF);
        cap.publish(id, "停班停課", xml.clone());
        elsewhere.publish(id, "停班停課", xml);
    };
    for (n, id) in
        ["err-500", "err-429", "slow", "link-away", "link-port", "to-port", "to-localhost"]
            .iter()
            .enumerate()
    {
        old(id, n as u8);
    }
    cap.misbehave("err-500", Some(Misbehave::Status(500)));
    cap.misbehave("err-429", Some(Misbehave::Status(429)));
    cap.misbehave("slow", Some(Misbehave::Slow(Duration::from_secs(4)))); // past the 2 s timeout
    let localhost = format!("http://localhost:{}/Capstorage/link-away", cap.port());
    cap.link_elsewhere("link-away", &localhost);
    cap.link_elsewhere("link-port", &elsewhere.doc_url("link-port"));
    cap.misbehave("to-port", Some(Misbehave::RedirectTo(elsewhere.doc_url("to-port"))));
    let to_localhost = format!("http://localhost:{}/Capstorage/to-localhost", cap.port());
    cap.misbehave("to-localhost", Some(Misbehave::RedirectTo(to_localhost)));
    let sent = "2026-11-30T20:10:00+08:00";
    cap.publish(
        "dgpa-63-001",
        "停班停課",
        taipei_suspension("dgpa-63-001", "Alert", &[], sent, TAIPEI_OFF),
    );

    h.set_clock("2026-11-30T12:10:30Z");
    let report = tick(&h).await;
    assert_eq!((report.kept, report.told), (1, 1), "{report:?}");
    assert_eq!((report.failed, report.off_host), (3, 4), "{report:?}");
    assert_eq!(pushes_to(&h, FAMILY)[0].0, "🏫 臺北市明天停止上班、停止上課");
    for id in ["link-port", "to-port", "to-localhost", "link-away"] {
        assert_eq!(elsewhere.doc_hits(id), 0, "{id}: another port is never asked");
    }
    assert_eq!(cap.doc_hits("link-away"), 0, "a link to another host is not fetched");

    // A tick every 5 s for 25 s: the failing ones wait out their backoff.
    for second in [35, 40, 45, 50, 55] {
        h.set_clock(&format!("2026-11-30T12:10:{second}Z"));
        tick(&h).await;
    }
    for id in ["err-500", "err-429", "slow", "to-port", "to-localhost"] {
        assert_eq!(cap.doc_hits(id), 1, "{id} asked once in 25 s");
    }
    // Asked again after the wait; the slow one answers at once now, and is kept.
    cap.misbehave("slow", None);
    h.set_clock("2026-11-30T12:11:01Z");
    let report = tick(&h).await;
    assert_eq!((report.kept, report.failed), (1, 2), "{report:?}");
    assert_eq!(cap.doc_hits("err-500"), 2);
    // Failing for an hour, the others are given up, counted, and never asked again.
    let mut given_up = 0;
    for minute in (10..=80).step_by(10) {
        let base: jiff::Timestamp = "2026-11-30T12:11:01Z".parse().expect("time");
        let at = base + jiff::SignedDuration::from_mins(minute);
        h.set_clock(&at.to_string());
        given_up += tick(&h).await.given_up;
    }
    assert_eq!(given_up, 2, "the 500 and the 429");
    let asked = cap.doc_hits("err-500");
    assert!(asked <= 10, "asked {asked} times in an hour");
    h.set_clock("2026-11-30T14:00:00Z");
    tick(&h).await;
    assert_eq!(cap.doc_hits("err-500"), asked, "given up");
    assert!(
        h.metrics_text()
            .await
            .contains("hearth_official_alert_documents_total{outcome=\"given_up\"}")
    );
    assert_eq!(pushes_to(&h, FAMILY).len(), 1, "Taichung's are not told in Taipei");
}

#[tokio::test]
async fn a_document_whose_connection_breaks_off_mid_body_is_asked_again_and_told_once_whole() {
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    follow(&h, in_group(FAMILY, MOM), None, json!({})).await;
    h.line.clear();
    let sent = "2026-11-30T20:10:00+08:00";
    cap.publish(
        "dgpa-63-001",
        "停班停課",
        taipei_suspension("dgpa-63-001", "Alert", &[], sent, TAIPEI_OFF),
    );
    cap.misbehave("dgpa-63-001", Some(Misbehave::CutOff));
    h.set_clock("2026-11-30T12:10:30Z");
    let report = tick(&h).await;
    assert_eq!((report.failed, report.unreadable, report.told), (1, 0, 0), "{report:?}");
    cap.misbehave("dgpa-63-001", None);
    h.set_clock("2026-11-30T12:11:01Z");
    let report = tick(&h).await;
    assert_eq!((report.kept, report.told), (1, 1), "{report:?}");
    assert_eq!(pushes_to(&h, FAMILY)[0].0, "🏫 臺北市明天停止上班、停止上課");
}

#[tokio::test]
async fn a_cancelled_suspension_names_the_county_and_what_was_lifted() {
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    follow(&h, in_group(FAMILY, MOM), None, json!({})).await;
    h.line.clear();
    let sent = "2026-11-30T20:00:00+08:00";
    cap.publish("dgpa-1", "停班停課", taipei_suspension("dgpa-1", "Alert", &[], sent, TAIPEI_OFF));
    h.set_clock("2026-11-30T12:01:00Z");
    assert_eq!(tick(&h).await.told, 1);
    let later = "2026-11-30T21:00:00+08:00";
    cap.publish(
        "dgpa-2",
        "停班停課",
        taipei_suspension("dgpa-2", "Cancel", &["dgpa-1"], later, TAIPEI_OFF),
    );
    h.set_clock("2026-11-30T13:01:00Z");
    assert_eq!(tick(&h).await.told, 1);
    let (alt, card) = pushes_to(&h, FAMILY).remove(1);
    assert_eq!(alt, "🏫 臺北市 停班停課 已取消");
    assert!(card.contains("臺北市 停班停課 已取消"), "{card}");
}

#[tokio::test]
async fn an_earthquake_just_felt_is_answered_with_its_intensity_and_time() {
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    cap.publish(
        "CWA-EQ115002",
        "地震",
        fake_cap::earthquake(
            "CWA-EQ115002",
            "2026-11-30T20:08:00+08:00",
            &[("4級", "花蓮縣", "10015"), ("3級", "臺北市", "63")],
        ),
    );
    h.set_clock("2026-11-30T12:09:00Z");
    assert_eq!(tick(&h).await.kept, 1);
    let answer = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手 剛剛是不是有地震",
            "official_alerts",
            json!({"action": "check", "date": null, "place": null, "min_intensity": null, "quiet_holds_all": null}),
        )
        .await;
    let quake = &answer["earthquake"];
    assert_eq!(quake["intensity"], "3級", "{answer}");
    assert_eq!(quake["county"], "臺北市");
    assert_eq!(quake["reported_at"], "2026-11-30（一）20:08");
    assert_eq!(quake["said"], "花蓮縣壽豐鄉規模5.5地震，臺北市最大震度3級");
    let far = check(&h, "2026-12-01", Some("高雄")).await;
    assert_eq!(far["earthquake"], Value::Null, "not felt in Kaohsiung: {far}");
}

#[tokio::test]
async fn tomorrow_asked_at_half_past_midnight_is_the_coming_day() {
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    let evening = "2026-11-30T22:00:00+08:00";
    cap.publish(
        "dgpa-1",
        "停班停課",
        taipei_suspension("dgpa-1", "Alert", &[], evening, TAIPEI_OFF),
    );
    h.set_clock("2026-11-30T14:01:00Z");
    tick(&h).await;
    h.set_clock("2026-11-30T16:30:00Z"); // 00:30 on 1 December in Taipei
    let answer = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手 明天要上班上課嗎？",
            "official_alerts",
            json!({"action": "check", "date": null, "place": null, "min_intensity": null, "quiet_holds_all": null}),
        )
        .await;
    assert_eq!(answer["date"], "2026-12-01", "{answer}");
    assert_eq!(answer["verdict"], "work_and_classes_suspended", "{answer}");
}

#[tokio::test]
async fn markup_and_a_bidi_override_in_the_feed_reach_the_card_plain() {
    let cap = FakeCap::start().await;
    let h = start(&cap).await;
    follow(&h, in_group(FAMILY, MOM), None, json!({})).await;
    h.line.clear();
    let hostile =
        "明天&lt;b&gt;停止上班&lt;/b&gt;、\u{202E}停止上課&lt;img src=x onerror=alert(1)&gt;";
    let sent = "2026-11-30T20:00:00+08:00";
    cap.publish("dgpa-1", "停班停課", taipei_suspension("dgpa-1", "Alert", &[], sent, hostile));
    h.set_clock("2026-11-30T12:01:00Z");
    assert_eq!(tick(&h).await.told, 1);
    let (alt, card) = pushes_to(&h, FAMILY).remove(0);
    assert_eq!(alt, "🏫 臺北市明天停止上班、停止上課");
    for bad in ["<b>", "<img", "\u{202E}", "onerror"] {
        assert!(!card.contains(bad) && !alt.contains(bad), "{bad:?} in {card}");
    }
    assert!(card.contains("臺北市明天停止上班、停止上課"), "{card}");
}
