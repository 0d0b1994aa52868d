//! The family calendar kept in step with the family's own calendar server — a real CalDAV
//! server, Radicale, started by each test — both ways: an event told in the chat is on the
//! server after a round; one added there (as a phone adds it) is on hearth's agenda after the
//! next; a change or a deletion there is taken and told to the chat once; a change on both sides
//! goes to the later one, and the chat is told which. A refused password or a revoked chat
//! changes nothing.

use hearth::features::calendar::ops::caldav::{SyncReport, calendar_name};
use serde_json::{Value, json};

use crate::common::harness::{FAMILY, Harness, MOM, in_group, texts_of};
use crate::common::radicale::{PASSWORD, Radicale, USER};

/// hearth syncing with `radicale`, signing in with `password`.
async fn start(radicale: &Radicale, password: &str) -> Harness {
    let (home, password) = (radicale.home(), password.to_string());
    let h = Harness::start_with(
        move |c| {
            c.calendar.caldav_url = home;
            c.calendar.caldav_user = USER.into();
            c.calendar.caldav_password = password.as_str().into();
        },
        None,
    )
    .await;
    h.line.set_profile(MOM, "媽媽");
    h
}

/// One round of the sync.
async fn sync(h: &Harness) -> SyncReport {
    let sync = h.app.loops.calendar_sync.as_ref().expect("a calendar server is set");
    sync.tick().await.expect("a round")
}

/// The family group's calendar on the server.
fn collection() -> String {
    format!("/{USER}/{}/", calendar_name(FAMILY))
}

/// The family calendar as the server gives it whole.
async fn on_server(radicale: &Radicale) -> String {
    let answer = radicale.phone("GET", &collection()).send().await.expect("GET");
    assert_eq!(answer.status(), 200);
    answer.text().await.expect("text").replace("\r\n ", "")
}

/// 媽媽 asks the calendar `args` in the family group.
async fn calendar(h: &Harness, args: Value) -> Value {
    h.call_tool(in_group(FAMILY, MOM), "小幫手 行事曆", "calendar", args).await
}

fn add(title: &str, start: &str) -> Value {
    json!({"action": "add", "title": title, "start": start, "place": "欣葉"})
}

/// `(title, start)` on the family's December agenda.
async fn december(h: &Harness) -> Vec<(String, String)> {
    let agenda =
        calendar(h, json!({"action": "agenda", "start": "2026-12-01", "end": "2026-12-31"})).await;
    let events = agenda["events"].as_array().cloned().unwrap_or_default();
    let text = |e: &Value, k: &str| e[k].as_str().unwrap_or_default().to_string();
    events.iter().map(|e| (text(e, "title"), text(e, "start"))).collect()
}

/// What hearth told the family group.
fn told(h: &Harness) -> Vec<String> {
    h.line.pushes().iter().filter(|p| p.body["to"] == FAMILY).map(|p| texts_of(&p.body)).collect()
}

/// A phone's event: `uid`, `title`, from `start` to `end` (local Taipei times, `YYYYMMDDTHHMMSS`),
/// last changed at `modified` (UTC).
fn phone_event(uid: &str, title: &str, start: &str, end: &str, modified: &str) -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Phone//Calendar//EN\r\nBEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:{modified}\r\nLAST-MODIFIED:{modified}\r\nDTSTART;TZID=Asia/Taipei:{start}\r\nDTEND;TZID=Asia/Taipei:{end}\r\nSUMMARY:{title}\r\nLOCATION:仁愛診所\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
}

/// The href and ETag of the one object on the server whose text holds `needle`.
async fn object_with(radicale: &Radicale, needle: &str) -> (String, String) {
    let body = r#"<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>"#;
    let listing = radicale.phone("PROPFIND", &collection()).header("Depth", "1").body(body);
    let listing = listing.send().await.expect("PROPFIND").text().await.expect("text");
    for response in listing.split("<response>").skip(1) {
        let between = |a: &str, b: &str| {
            let at = response.find(a)? + a.len();
            Some(response[at..at + response[at..].find(b)?].to_string())
        };
        let (Some(href), Some(etag)) =
            (between("<href>", "</href>"), between("<getetag>", "</getetag>"))
        else {
            continue;
        };
        if href.ends_with(".ics") {
            let text =
                radicale.phone("GET", &href).send().await.expect("GET").text().await.expect("text");
            if text.contains(needle) {
                return (href, etag.replace("&quot;", "\""));
            }
        }
    }
    panic!("no object with {needle} in {listing}");
}

#[tokio::test]
#[ignore = "needs Radicale (HEARTH_BROWSER_PYTHON's venv): .ci/run installs it"]
async fn an_event_told_in_the_chat_reaches_the_server_and_one_added_on_a_phone_comes_back() {
    let radicale = Radicale::start().await;
    let h = start(&radicale, PASSWORD).await;
    calendar(&h, add("阿公生日聚餐", "2026-12-05T12:00")).await;
    let first = sync(&h).await;
    assert_eq!((first.chats, first.written, first.failed), (1, 1, 0), "{first:?}");
    let server = on_server(&radicale).await;
    assert!(server.contains("SUMMARY:阿公生日聚餐"), "{server}");
    assert!(server.contains("DTSTART;TZID=Asia/Taipei:20261205T120000"), "{server}");

    let dentist = phone_event(
        "dentist@phone",
        "牙醫 小明",
        "20261203T153000",
        "20261203T163000",
        "20261130T130000Z",
    );
    let put = radicale.phone("PUT", &format!("{}dentist.ics", collection()));
    let put = put.header("Content-Type", "text/calendar").body(dentist).send().await.expect("PUT");
    assert_eq!(put.status(), 201);
    let second = sync(&h).await;
    assert_eq!((second.taken, second.written), (1, 0), "{second:?}");
    let agenda = december(&h).await;
    assert!(agenda.contains(&("牙醫 小明".into(), "2026-12-03T15:30".into())), "{agenda:?}");
    assert!(agenda.contains(&("阿公生日聚餐".into(), "2026-12-05T12:00".into())), "{agenda:?}");

    let third = sync(&h).await;
    assert_eq!(
        (third.taken, third.written, third.conflicts),
        (0, 0, 0),
        "a settled calendar stays: {third:?}"
    );
    let changes = h.app.store.changes().recent(FAMILY, 10).await.expect("changes");
    assert!(
        changes
            .iter()
            .any(|c| c.surface == "loop" && c.verb == "event_add" && c.what == "牙醫 小明")
    );
    assert!(told(&h).is_empty(), "an event added on a phone is not pushed: {:?}", told(&h));
}

#[tokio::test]
#[ignore = "needs Radicale (HEARTH_BROWSER_PYTHON's venv): .ci/run installs it"]
async fn a_change_on_a_phone_is_taken_and_told_once_and_a_deletion_there_cancels_here() {
    let radicale = Radicale::start().await;
    let h = start(&radicale, PASSWORD).await;
    calendar(&h, add("阿公生日聚餐", "2026-12-05T12:00")).await;
    sync(&h).await;
    let (href, etag) = object_with(&radicale, "阿公生日聚餐").await;
    let text = radicale.phone("GET", &href).send().await.expect("GET").text().await.expect("text");
    let moved = text.replace("20261205T120000", "20261205T130000");
    let put = radicale
        .phone("PUT", &href)
        .header("If-Match", &etag)
        .header("Content-Type", "text/calendar");
    assert!(put.body(moved).send().await.expect("PUT").status().is_success());

    let round = sync(&h).await;
    assert_eq!((round.taken, round.conflicts), (1, 0), "{round:?}");
    assert_eq!(december(&h).await, [("阿公生日聚餐".to_string(), "2026-12-05T13:00".to_string())]);
    assert_eq!(told(&h), ["📅 行事曆上改了行程：阿公生日聚餐（12/05 13:00）"]);
    let again = sync(&h).await;
    assert_eq!((again.taken, again.written), (0, 0), "taken once: {again:?}");
    assert_eq!(told(&h).len(), 1);

    let (href, etag) = object_with(&radicale, "阿公生日聚餐").await;
    let deleted =
        radicale.phone("DELETE", &href).header("If-Match", &etag).send().await.expect("DELETE");
    assert!(deleted.status().is_success());
    sync(&h).await;
    assert!(december(&h).await.is_empty(), "cancelled here");
    let changes = h.app.store.changes().recent(FAMILY, 10).await.expect("changes");
    let from_server: Vec<&str> =
        changes.iter().filter(|c| c.surface == "loop").map(|c| c.verb.as_str()).collect();
    assert_eq!(from_server, ["event_cancel", "event_move"], "recorded once each");
    assert_eq!(told(&h).len(), 2);
    assert!(told(&h)[1].contains("行事曆上取消了：阿公生日聚餐"), "{:?}", told(&h));
}

#[tokio::test]
#[ignore = "needs Radicale (HEARTH_BROWSER_PYTHON's venv): .ci/run installs it"]
async fn a_change_on_both_sides_goes_to_the_later_one_and_the_chat_is_told_which() {
    let radicale = Radicale::start().await;
    let h = start(&radicale, PASSWORD).await;
    let saved = calendar(&h, add("阿公生日聚餐", "2026-12-05T12:00")).await;
    let id = saved["event"]["id"].clone();
    sync(&h).await;

    // The chat moves it to 12:30 now (12:00 UTC); a phone to 13:00 an hour later.
    calendar(&h, json!({"action": "move", "id": id, "start": "2026-12-05T12:30"})).await;
    let (href, etag) = object_with(&radicale, "阿公生日聚餐").await;
    let phone =
        phone_event("x", "阿公生日聚餐", "20261205T130000", "20261205T150000", "20261130T130000Z");
    let uid = {
        let text =
            radicale.phone("GET", &href).send().await.expect("GET").text().await.expect("text");
        let at = text.find("UID:").expect("a UID") + 4;
        text[at..at + text[at..].find('\r').expect("its end")].to_string()
    };
    let phone = phone.replace("UID:x", &format!("UID:{uid}"));
    let put = radicale
        .phone("PUT", &href)
        .header("If-Match", &etag)
        .header("Content-Type", "text/calendar");
    assert!(put.body(phone).send().await.expect("PUT").status().is_success());
    let round = sync(&h).await;
    assert_eq!(round.conflicts, 1, "{round:?}");
    assert_eq!(december(&h).await, [("阿公生日聚餐".to_string(), "2026-12-05T13:00".to_string())]);
    assert!(told(&h)[0].contains("以比較晚的行事曆上的修改為準"), "{:?}", told(&h));

    // Now the phone's change is the earlier one: the chat's stands, and is written over it.
    let (href, etag) = object_with(&radicale, "阿公生日聚餐").await;
    let early =
        phone_event(&uid, "阿公生日聚餐", "20261205T140000", "20261205T160000", "20261101T000000Z");
    let put = radicale
        .phone("PUT", &href)
        .header("If-Match", &etag)
        .header("Content-Type", "text/calendar");
    assert!(put.body(early).send().await.expect("PUT").status().is_success());
    calendar(&h, json!({"action": "move", "id": id, "start": "2026-12-05T18:00"})).await;
    let round = sync(&h).await;
    assert_eq!((round.conflicts, round.written), (1, 1), "{round:?}");
    assert_eq!(december(&h).await, [("阿公生日聚餐".to_string(), "2026-12-05T18:00".to_string())]);
    assert!(on_server(&radicale).await.contains("DTSTART;TZID=Asia/Taipei:20261205T180000"));
    assert!(told(&h)[1].contains("以比較晚的聊天室裡的修改為準"), "{:?}", told(&h));
}

#[tokio::test]
#[ignore = "needs Radicale (HEARTH_BROWSER_PYTHON's venv): .ci/run installs it"]
async fn a_refused_password_or_a_revoked_chat_changes_nothing_on_either_side() {
    let radicale = Radicale::start().await;
    let wrong = start(&radicale, "not-the-password").await;
    calendar(&wrong, add("阿公生日聚餐", "2026-12-05T12:00")).await;
    let round = sync(&wrong).await;
    assert_eq!((round.failed, round.written), (1, 0), "{round:?}");
    assert_eq!(december(&wrong).await.len(), 1, "the chat's event stays");

    let h = start(&radicale, PASSWORD).await;
    calendar(&h, add("尾牙", "2026-12-18T18:00")).await;
    h.app.turns.deps.door.revoke(FAMILY, 0).await.expect("revoke");
    let round = sync(&h).await;
    assert_eq!((round.chats, round.written), (0, 0), "{round:?}");
    let listing = radicale.phone("GET", &collection()).send().await.expect("GET");
    assert_eq!(listing.status(), 404, "nothing was made for a revoked chat");
}

#[tokio::test]
#[ignore = "needs Radicale (HEARTH_BROWSER_PYTHON's venv): .ci/run installs it"]
async fn a_calendar_deleted_on_the_server_is_made_again_and_nothing_is_cancelled_here() {
    let radicale = Radicale::start().await;
    let h = start(&radicale, PASSWORD).await;
    for (title, at) in
        [("尾牙", "2026-12-18T18:00"), ("聖誕", "2026-12-25"), ("跨年", "2026-12-31T22:00")]
    {
        calendar(&h, json!({"action": "add", "title": title, "start": at})).await;
    }
    sync(&h).await;
    let deleted = radicale.phone("DELETE", &collection()).send().await.expect("DELETE");
    assert!(deleted.status().is_success());
    let round = sync(&h).await;
    assert_eq!((round.taken, round.written, round.failed), (0, 3, 0), "{round:?}");
    assert_eq!(december(&h).await.len(), 3, "nothing cancelled here");
    assert_eq!(on_server(&radicale).await.matches("BEGIN:VEVENT").count(), 3);
    assert!(told(&h).is_empty());
}

#[tokio::test]
#[ignore = "needs Radicale (HEARTH_BROWSER_PYTHON's venv): .ci/run installs it"]
async fn a_phone_renaming_a_repeating_event_is_taken_and_its_days_stay_hearths() {
    let radicale = Radicale::start().await;
    let h = start(&radicale, PASSWORD).await;
    let lesson = json!({"action": "add", "title": "鋼琴課", "start": "2026-12-02T16:00", "repeat": "weekly"});
    calendar(&h, lesson).await;
    sync(&h).await;
    let (href, etag) = object_with(&radicale, "鋼琴課").await;
    let text = radicale.phone("GET", &href).send().await.expect("GET").text().await.expect("text");
    let renamed = text.replace("SUMMARY:鋼琴課", "SUMMARY:鋼琴課（新老師）");
    let put = radicale
        .phone("PUT", &href)
        .header("If-Match", &etag)
        .header("Content-Type", "text/calendar");
    assert!(put.body(renamed).send().await.expect("PUT").status().is_success());
    let round = sync(&h).await;
    assert_eq!(round.taken, 1, "{round:?}");
    let agenda = december(&h).await;
    let days: Vec<&str> = agenda.iter().map(|(_, at)| &at[..10]).collect();
    assert_eq!(days, ["2026-12-02", "2026-12-09", "2026-12-16", "2026-12-23", "2026-12-30"]);
    assert!(agenda.iter().all(|(title, _)| title == "鋼琴課（新老師）"), "{agenda:?}");
    let settled = sync(&h).await;
    assert_eq!((settled.taken, settled.written), (0, 0), "both agree: {settled:?}");
}

#[tokio::test]
#[ignore = "needs Radicale (HEARTH_BROWSER_PYTHON's venv): .ci/run installs it"]
async fn a_phones_lessons_on_two_weekdays_until_a_date_come_in_on_those_days_only() {
    let radicale = Radicale::start().await;
    let h = start(&radicale, PASSWORD).await;
    calendar(&h, add("阿公生日聚餐", "2026-12-05T12:00")).await;
    sync(&h).await;
    // Mondays and Wednesdays from Monday 7 December, the last one on Wednesday the 16th
    // (UNTIL is the 16th at 23:59:59 in Taipei, written in UTC as phones do).
    let lessons = phone_event(
        "lessons@phone",
        "游泳課",
        "20261207T160000",
        "20261207T170000",
        "20261130T130000Z",
    )
    .replace(
        "SUMMARY:游泳課\r\n",
        "SUMMARY:游泳課\r\nRRULE:FREQ=WEEKLY;WKST=SU;BYDAY=MO,WE;UNTIL=20261216T155959Z\r\n",
    );
    let put = radicale.phone("PUT", &format!("{}lessons.ics", collection()));
    let put = put.header("Content-Type", "text/calendar").body(lessons).send().await.expect("PUT");
    assert_eq!(put.status(), 201);
    let round = sync(&h).await;
    assert_eq!(round.taken, 1, "{round:?}");
    let agenda = december(&h).await;
    let days: Vec<&str> =
        agenda.iter().filter(|(title, _)| title == "游泳課").map(|(_, at)| at.as_str()).collect();
    assert_eq!(
        days,
        ["2026-12-07T16:00", "2026-12-09T16:00", "2026-12-14T16:00", "2026-12-16T16:00"],
        "{agenda:?}"
    );
}

#[tokio::test]
#[ignore = "needs Radicale (HEARTH_BROWSER_PYTHON's venv): .ci/run installs it"]
async fn one_lesson_deleted_on_a_phone_is_called_off_here_and_one_called_off_here_leaves_the_server()
 {
    let radicale = Radicale::start().await;
    let h = start(&radicale, PASSWORD).await;
    let lesson = json!({"action": "add", "title": "鋼琴課", "start": "2026-12-02T16:00", "repeat": "weekly"});
    let id = calendar(&h, lesson).await["event"]["id"].clone();
    sync(&h).await;
    let (href, etag) = object_with(&radicale, "鋼琴課").await;
    let text = radicale.phone("GET", &href).send().await.expect("GET").text().await.expect("text");
    // The phone deletes the lesson of the 16th alone, as phones do: an EXDATE.
    let deleted = text.replace(
        "SUMMARY:鋼琴課\r\n",
        "SUMMARY:鋼琴課\r\nEXDATE;TZID=Asia/Taipei:20261216T160000\r\n",
    );
    assert_ne!(deleted, text);
    let put = radicale
        .phone("PUT", &href)
        .header("If-Match", &etag)
        .header("Content-Type", "text/calendar");
    assert!(put.body(deleted).send().await.expect("PUT").status().is_success());
    let round = sync(&h).await;
    assert_eq!(round.taken, 1, "{round:?}");
    let days: Vec<String> = december(&h).await.into_iter().map(|(_, at)| at).collect();
    assert_eq!(
        days,
        ["2026-12-02T16:00", "2026-12-09T16:00", "2026-12-23T16:00", "2026-12-30T16:00"],
        "the 16th alone is gone"
    );
    assert_eq!(told(&h), ["📅 行事曆上取消了一次：鋼琴課（12/16 16:00）"]);

    calendar(&h, json!({"action": "cancel", "id": id, "start": "2026-12-23"})).await;
    let round = sync(&h).await;
    assert_eq!(round.written, 1, "{round:?}");
    let server = on_server(&radicale).await;
    assert!(server.contains("20261209T160000") && server.contains("20261230T160000"), "{server}");
    assert!(!server.contains("20261223T160000"), "the 23rd is off the server: {server}");
    let settled = sync(&h).await;
    assert_eq!((settled.taken, settled.written), (0, 0), "both agree: {settled:?}");
    assert_eq!(told(&h).len(), 1, "told once");

    // A phone's series hearth can only take once (the second Tuesday of each month), its first
    // time deleted: it comes in once, and is not cancelled by its own EXDATE.
    let club = phone_event("club@phone", "讀書會", "20261208T190000", "20261208T200000", "20261130T130000Z")
        .replace(
            "SUMMARY:讀書會\r\n",
            "SUMMARY:讀書會\r\nRRULE:FREQ=MONTHLY;BYDAY=2TU\r\nEXDATE;TZID=Asia/Taipei:20261208T190000\r\n",
        );
    let put = radicale.phone("PUT", &format!("{}club.ics", collection()));
    let put = put.header("Content-Type", "text/calendar").body(club).send().await.expect("PUT");
    assert_eq!(put.status(), 201);
    sync(&h).await;
    assert!(december(&h).await.contains(&("讀書會".into(), "2026-12-08T19:00".into())));
    assert!(on_server(&radicale).await.contains("讀書會"), "still on the phones");
}

#[tokio::test]
#[ignore = "needs Radicale (HEARTH_BROWSER_PYTHON's venv): .ci/run installs it"]
async fn one_lesson_moved_on_a_phone_is_moved_here_alone_and_written_back_as_an_event_of_its_own() {
    let radicale = Radicale::start().await;
    let h = start(&radicale, PASSWORD).await;
    let lesson = json!({"action": "add", "title": "鋼琴課", "start": "2026-12-02T16:00",
        "end": "2026-12-02T17:00", "repeat": "weekly"});
    calendar(&h, lesson).await;
    sync(&h).await;
    let (href, etag) = object_with(&radicale, "鋼琴課").await;
    let text = radicale.phone("GET", &href).send().await.expect("GET").text().await.expect("text");
    let uid = text.lines().find_map(|l| l.strip_prefix("UID:")).expect("a UID").trim().to_string();
    // The phone moves the lesson of the 16th to Thursday the 17th at five, as phones do: an
    // exception of the same UID, in the same object.
    let exception = format!(
        "BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20261201T000000Z\r\nRECURRENCE-ID;TZID=Asia/Taipei:20261216T160000\r\nDTSTART;TZID=Asia/Taipei:20261217T170000\r\nDTEND;TZID=Asia/Taipei:20261217T180000\r\nSUMMARY:鋼琴課\r\nEND:VEVENT\r\nEND:VCALENDAR"
    );
    let moved = text.replacen("END:VCALENDAR", &exception, 1);
    let put = radicale
        .phone("PUT", &href)
        .header("If-Match", &etag)
        .header("Content-Type", "text/calendar");
    let put = put.body(moved).send().await.expect("PUT");
    assert!(put.status().is_success(), "{}", put.status());
    let round = sync(&h).await;
    assert_eq!(round.taken, 1, "{round:?}");
    let days: Vec<String> = december(&h).await.into_iter().map(|(_, at)| at).collect();
    assert_eq!(
        days,
        [
            "2026-12-02T16:00",
            "2026-12-09T16:00",
            "2026-12-17T17:00",
            "2026-12-23T16:00",
            "2026-12-30T16:00"
        ],
        "the 16th alone moved to the 17th"
    );
    assert_eq!(told(&h), ["📅 行事曆上改了一次：鋼琴課（12/17 17:00）"]);
    let server = on_server(&radicale).await;
    assert!(!server.contains("RECURRENCE-ID"), "hearth's version is written back: {server}");
    assert_eq!(server.matches("BEGIN:VEVENT").count(), 2, "the moved time on its own: {server}");
    let settled = sync(&h).await;
    assert_eq!((settled.taken, settled.written), (0, 0), "both agree: {settled:?}");
    assert_eq!(told(&h).len(), 1, "told once");

    // Renamed and one more time moved in one edit: hearth's version still goes back over it.
    let (href, etag) = object_with(&radicale, "RDATE").await;
    let text = radicale.phone("GET", &href).send().await.expect("GET").text().await.expect("text");
    let exception = format!(
        "BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20261201T000000Z\r\nRECURRENCE-ID;TZID=Asia/Taipei:20261223T160000\r\nDTSTART;TZID=Asia/Taipei:20261224T170000\r\nDTEND;TZID=Asia/Taipei:20261224T180000\r\nSUMMARY:鋼琴課\r\nEND:VEVENT\r\nEND:VCALENDAR"
    );
    let edited = text.replacen("SUMMARY:鋼琴課", "SUMMARY:鋼琴課（新老師）", 1).replacen(
        "END:VCALENDAR",
        &exception,
        1,
    );
    let put = radicale
        .phone("PUT", &href)
        .header("If-Match", &etag)
        .header("Content-Type", "text/calendar");
    assert!(put.body(edited).send().await.expect("PUT").status().is_success());
    sync(&h).await;
    let days: Vec<String> = december(&h).await.into_iter().map(|(_, at)| at).collect();
    assert!(days.contains(&"2026-12-24T17:00".to_string()), "{days:?}");
    assert!(!days.contains(&"2026-12-23T16:00".to_string()), "{days:?}");
    let server = on_server(&radicale).await;
    assert!(!server.contains("RECURRENCE-ID"), "hearth's version went back: {server}");
    assert_eq!(server.matches("BEGIN:VEVENT").count(), 3, "no time twice: {server}");
    let settled = sync(&h).await;
    assert_eq!((settled.taken, settled.written), (0, 0), "both agree: {settled:?}");
}
