//! The family page's 行事曆 tab against the real server: a member sees the month and its
//! agenda, adds an event (timed and repeating, or over several days), moves it and cancels it —
//! through the calendar's own operations, so the chat's agenda sees each change, the feed of
//! changes records it as theirs from the page, and the chat is told of a move or a cancel once,
//! silently. Bad input changes nothing; the member's phone link is shown to them alone.

use serde_json::{Value, json};

use crate::common::harness::{FAMILY, Harness, MOM, in_group, texts_of};
use crate::family_page::{Browser, signed_in, start};

/// `browser` sends the calendar form `op` with `fields`; the page it is sent back to.
async fn form(browser: &Browser, op: &str, fields: &[(&str, &str)]) -> String {
    let csrf = browser.get("/family?tab=calendar").await.csrf();
    let mut sent = vec![("csrf", csrf.as_str()), ("op", op)];
    sent.extend_from_slice(fields);
    let answer = browser.post("/family/calendar", &sent).await;
    assert_eq!(answer.status, 303, "{}", answer.body);
    browser.get("/family?tab=calendar&month=2026-12").await.body
}

/// The family group's agenda for December, as the chat reads it: `(title, start)`.
async fn december(h: &Harness) -> Vec<(String, String)> {
    let asked = json!({"action": "agenda", "start": "2026-12-01", "end": "2026-12-31"});
    let agenda = h.call_tool(in_group(FAMILY, MOM), "小幫手 十二月的行程", "calendar", asked).await;
    let events = agenda["events"].as_array().cloned().unwrap_or_default();
    events
        .iter()
        .map(|e: &Value| {
            (
                e["title"].as_str().unwrap_or_default().into(),
                e["start"].as_str().unwrap_or_default().into(),
            )
        })
        .collect()
}

/// The texts hearth pushed to the family group.
fn told(h: &Harness) -> Vec<String> {
    h.line.pushes().iter().filter(|p| p.body["to"] == FAMILY).map(|p| texts_of(&p.body)).collect()
}

#[tokio::test]
async fn a_member_adds_moves_and_cancels_on_the_page_and_the_chat_hears_of_each_change_once() {
    let h = start().await;
    let mom = signed_in(&h, in_group(FAMILY, MOM)).await;
    let page = mom.get("/family?tab=calendar").await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("2026 年 11 月") && page.body.contains("這個月沒有活動"),
        "{}",
        page.body
    );

    let lesson = [
        ("title", "鋼琴課"),
        ("day", "2026-12-09"),
        ("time", "16:00"),
        ("end_time", "17:00"),
        ("place", "音樂教室"),
        ("repeat", "weekly"),
    ];
    let shown = form(&mom, "add", &lesson).await;
    assert!(
        shown.contains("已加入行事曆") && shown.contains("id=\"d-2026-12-30\""),
        "weekly to the month's end: {shown}"
    );
    let trip =
        [("title", "墾丁"), ("day", "2026-12-25"), ("end_day", "2026-12-27"), ("who", "全家")];
    form(&mom, "add", &trip).await;
    let agenda = december(&h).await;
    assert_eq!(agenda.iter().filter(|(t, _)| t == "鋼琴課").count(), 4, "{agenda:?}");
    assert!(agenda.contains(&("墾丁".into(), "2026-12-25".into())), "{agenda:?}");
    assert!(told(&h).is_empty(), "adding is not pushed");

    let events = h.app.store.calendar().live(FAMILY).await.expect("events");
    let id = events.iter().find(|e| e.title == "墾丁").expect("the trip").id.to_string();
    let moved = form(&mom, "move", &[("id", &id), ("start", "2026-12-26")]).await;
    assert!(moved.contains("已改到 12/26"), "{moved}");
    assert!(december(&h).await.contains(&("墾丁".into(), "2026-12-26".into())));
    let row = h.app.store.calendar().live(FAMILY).await.expect("events");
    let trip_row = row.iter().find(|e| e.title == "墾丁").expect("the trip");
    assert_eq!(trip_row.ends_local.as_deref(), Some("2026-12-28"), "the end moved with it");
    assert_eq!(told(&h), ["📅 媽媽在網頁上改了行程：墾丁（12/26）"]);
    let push = h.line.pushes().last().expect("a push").body.clone();
    assert_eq!(push["notificationDisabled"], true, "told without a sound");

    form(&mom, "cancel", &[("id", &id)]).await;
    assert!(!december(&h).await.iter().any(|(t, _)| t == "墾丁"));
    assert_eq!(told(&h).len(), 2, "told once each: {:?}", told(&h));
    assert!(told(&h)[1].contains("取消了行程：墾丁"));
    let changes = h.app.store.changes().recent(FAMILY, 10).await.expect("changes");
    let from_page: Vec<&str> =
        changes.iter().filter(|c| c.surface == "page").map(|c| c.verb.as_str()).collect();
    assert_eq!(from_page, ["event_cancel", "event_move", "event_add", "event_add"]);
}

#[tokio::test]
async fn a_bad_day_an_end_before_the_start_or_a_past_time_on_the_page_changes_nothing() {
    let h = start().await;
    let mom = signed_in(&h, in_group(FAMILY, MOM)).await;
    for bad in [
        vec![("title", "x"), ("day", "2026-13-45")],
        vec![("title", "x"), ("day", "2026-12-09"), ("time", "16:00"), ("end_time", "15:00")],
        vec![("title", "x"), ("day", "2026-11-01"), ("time", "09:00")],
        vec![("title", ""), ("day", "2026-12-09")],
        vec![("title", "x"), ("day", "2026-12-09"), ("repeat", "hourly")],
    ] {
        let page = form(&mom, "add", &bad).await;
        assert!(page.contains("沒有改"), "{bad:?}: {page}");
    }
    let page = form(&mom, "move", &[("id", "999"), ("start", "2026-12-09")]).await;
    assert!(page.contains("找不到"), "{page}");
    assert!(h.app.store.calendar().live(FAMILY).await.expect("events").is_empty());
    let far = mom.get("/family?tab=calendar&month=2099-01").await.body;
    assert!(far.contains("2026 年 11 月"), "a month far away is this month");
}

#[tokio::test]
async fn the_page_gives_the_member_their_own_phone_link_on_asking() {
    let h = start().await;
    let mom = signed_in(&h, in_group(FAMILY, MOM)).await;
    let before = mom.get("/family?tab=calendar").await.body;
    assert!(!before.contains("webcal://"), "no feed is made by looking");
    let page = form(&mom, "phone", &[]).await;
    let at = page.find("webcal://hearth.example/calendar/").expect("the link")
        + "webcal://hearth.example".len();
    let path = &page[at..at + page[at..].find('"').expect("its end")];
    let feed = crate::common::get(format!("{}{path}", h.url)).await.expect("the feed");
    assert_eq!(feed.status(), 200);
    let sent: Vec<String> = h.line.pushes().iter().map(|p| p.body.to_string()).collect();
    assert!(!sent.iter().any(|p| p.contains("/calendar/")), "the link is sent nowhere: {sent:?}");
    let dad = signed_in(&h, in_group(FAMILY, crate::common::harness::DAD)).await;
    assert!(!dad.get("/family?tab=calendar").await.body.contains(path), "not someone else's");
}

#[tokio::test]
async fn moving_or_cancelling_one_lesson_on_the_page_leaves_the_other_weeks_where_they_were() {
    let h = start().await;
    let mom = signed_in(&h, in_group(FAMILY, MOM)).await;
    let lesson = [
        ("title", "鋼琴課"),
        ("day", "2026-12-02"),
        ("time", "16:00"),
        ("end_time", "17:00"),
        ("place", "音樂教室"),
        ("repeat", "weekly"),
    ];
    let page = form(&mom, "add", &lesson).await;
    assert!(page.contains("改這一次") && page.contains("取消這一次"), "{page}");
    let id = h.app.store.calendar().live(FAMILY).await.expect("events")[0].id.to_string();

    let moved = [("id", id.as_str()), ("day", "2026-12-09"), ("start", "2026-12-10T17:00")];
    let page = form(&mom, "move_one", &moved).await;
    assert!(page.contains("已改到 12/10 17:00"), "{page}");
    let called_off = form(&mom, "skip", &[("id", &id), ("day", "2026-12-23")]).await;
    assert!(called_off.contains("已取消 12/23 16:00 這一次"), "{called_off}");
    let starts: Vec<String> = december(&h).await.into_iter().map(|(_, at)| at).collect();
    assert_eq!(
        starts,
        ["2026-12-02T16:00", "2026-12-10T17:00", "2026-12-16T16:00", "2026-12-30T16:00"],
        "the 9th moved to the 10th, the 23rd called off, the other Wednesdays kept"
    );
    let events = h.app.store.calendar().live(FAMILY).await.expect("events");
    let moved = events.iter().find(|e| e.starts_local == "2026-12-10T17:00").expect("the copy");
    assert_eq!(
        (moved.ends_local.as_deref(), moved.place.as_str()),
        (Some("2026-12-10T18:00"), "音樂教室"),
        "an hour long, at the same place, as the series"
    );
    assert_eq!(
        told(&h),
        [
            "📅 媽媽在網頁上改了行程：鋼琴課（12/10 17:00）",
            "📅 媽媽在網頁上取消了行程：鋼琴課（12/23 16:00）"
        ]
    );

    for (op, fields) in [
        ("skip", vec![("id", id.as_str()), ("day", "2026-12-24")]),
        ("skip", vec![("id", id.as_str()), ("day", "2026-11-25")]),
        ("skip", vec![("id", id.as_str()), ("day", "someday")]),
        ("skip", vec![("id", id.as_str()), ("day", "2028-01-19")]),
        (
            "move_one",
            vec![("id", id.as_str()), ("day", "2026-12-23"), ("start", "2026-12-24T16:00")],
        ),
    ] {
        let page = form(&mom, op, &fields).await;
        assert!(page.contains("沒有改"), "{op} {fields:?}: {page}");
    }
    assert_eq!(
        december(&h).await.len(),
        4,
        "a day it is not on, past, over 400 days ahead or called off: nothing"
    );

    // Two taps at once on one time: it moves once.
    let twice = [("id", id.as_str()), ("day", "2026-12-16"), ("start", "2026-12-17T16:00")];
    tokio::join!(form(&mom, "move_one", &twice), form(&mom, "move_one", &twice));
    let events = h.app.store.calendar().live(FAMILY).await.expect("events");
    let copies = events.iter().filter(|e| e.starts_local == "2026-12-17T16:00").count();
    assert_eq!(copies, 1, "{events:?}");
    let changes = h.app.store.changes().recent(FAMILY, 10).await.expect("changes");
    let verbs: Vec<&str> = changes.iter().map(|c| c.verb.as_str()).collect();
    assert_eq!(verbs, ["event_move", "event_cancel", "event_move", "event_add"], "one each");
}
