//! The family calendar end to end, against the real server with the fake LINE and a scripted
//! model: events told in words are on the agenda, a clash is said, moving and cancelling are
//! recorded once; a member's phone feed is read by a real iCalendar parser (Python's
//! `icalendar` with `recurring_ical_events`, as calendar apps expand events) with the lunar and
//! workday repetitions on the same days hearth's agenda gives; the feed answers `304` to a phone
//! that has it, and nothing to someone else or to a member who left.

use std::io::Write;
use std::process::{Command, Stdio};

use reqwest::header::{ETAG, IF_NONE_MATCH};
use serde_json::{Value, json};

use crate::common::harness::{DAD, FAMILY, Harness, MOM, in_dm, in_group, postback_data};

pub(crate) async fn start() -> Harness {
    let public = |c: &mut hearth::platform::config::Config| {
        c.server.public_url = Some("https://hearth.example".into());
    };
    let h = Harness::start_with(public, None).await;
    for (member, name) in [(MOM, "媽媽"), (DAD, "爸爸")] {
        h.line.set_profile(member, name);
        h.app.quota.note_friend(member, true).await;
    }
    h
}

/// The path on hearth of the feed link `source`'s member asks for in the group: sent to their
/// 1:1 chat, never posted in the group.
pub(crate) async fn feed_path(h: &Harness, source: Value) -> String {
    let member = source["userId"].as_str().expect("a member").to_string();
    let asked = h
        .call_tool(source, "小幫手 把行事曆加到我的手機", "calendar", json!({"action": "phone"}))
        .await;
    assert_eq!(asked["link"], "sent_privately", "{asked}");
    let group = h.line.replies().last().expect("the group's answer").body.to_string();
    assert!(!group.contains("/calendar/"), "no link in the group: {group}");
    let pushed = h.line.pushes().last().expect("the private message").clone();
    assert_eq!(pushed.body["to"], member.as_str());
    let text = pushed.body["messages"][0]["text"].as_str().expect("text").to_string();
    assert!(text.contains("webcal://hearth.example/calendar/"), "{text}");
    let https = text
        .split_whitespace()
        .find(|w| w.starts_with("https://hearth.example/calendar/"))
        .expect("the https link");
    https.trim_start_matches("https://hearth.example").to_string()
}

/// 媽媽 says `words` in the family group; the model calls `calendar` with `args`; its result.
async fn calendar(h: &Harness, words: &str, args: Value) -> Value {
    h.call_tool(in_group(FAMILY, MOM), &format!("小幫手 {words}"), "calendar", args).await
}

/// The status hearth answers a GET of `path` with.
async fn status(h: &Harness, path: &str) -> u16 {
    crate::common::get(format!("{}{path}", h.url)).await.expect("get").status().as_u16()
}

fn add(title: &str, start: &str, end: Option<&str>) -> Value {
    json!({"action": "add", "title": title, "start": start, "end": end, "place": null,
        "who": null, "id": null, "repeat": null, "lunar": null})
}

fn agenda(from: &str, to: &str) -> Value {
    json!({"action": "agenda", "start": from, "end": to})
}

/// `(title, start)` of an agenda's events.
fn lines(agenda: &Value) -> Vec<(String, String)> {
    agenda["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| {
            (
                e["title"].as_str().unwrap_or_default().into(),
                e["start"].as_str().unwrap_or_default().into(),
            )
        })
        .collect()
}

#[tokio::test]
async fn an_event_told_in_words_is_on_the_agenda_a_clash_is_said_and_a_cancel_takes_it_off() {
    let h = start().await;
    let mut party = add("阿公生日聚餐", "2026-12-05T12:00", Some("2026-12-05T14:00"));
    party["place"] = json!("欣葉");
    party["who"] = json!("全家");
    let saved = calendar(&h, "下週六中午阿公生日，欣葉", party).await;
    assert_eq!(saved["event"]["start"], "2026-12-05T12:00", "{saved}");
    assert_eq!(saved["event"]["place"], "欣葉");
    assert!(saved.get("clashes_with").is_none(), "nothing else that day: {saved}");
    let party_id = saved["event"]["id"].as_i64().expect("id");

    let card = h.line.replies().last().expect("the answer").body.to_string();
    assert!(card.contains("📅 阿公生日聚餐") && card.contains("12/05 12:00 – 14:00"), "{card}");
    let map = "https://www.google.com/maps/search/?api=1&query=%E6%AC%A3%E8%91%89";
    assert!(card.contains(map), "the place on a map: {card}");
    assert!(card.contains("open_page"), "and on the family page: {card}");

    let dentist = calendar(&h, "週六一點看牙醫", add("看牙醫", "2026-12-05T13:00", None)).await;
    assert_eq!(dentist["clashes_with"][0]["title"], "阿公生日聚餐", "{dentist}");
    let card = h.line.replies().last().expect("the answer").body.to_string();
    assert!(card.contains("⚠️ 同時有") && card.contains("12/05 12:00 阿公生日聚餐"), "{card}");
    let dinner = calendar(&h, "週六晚上七點聚餐", add("聚餐", "2026-12-05T19:00", None)).await;
    assert!(dinner.get("clashes_with").is_none(), "the evening is free: {dinner}");

    let week = calendar(&h, "這週末有什麼事", agenda("2026-12-05", "2026-12-06")).await;
    let titles: Vec<String> = lines(&week).into_iter().map(|(t, _)| t).collect();
    assert_eq!(titles, ["阿公生日聚餐", "看牙醫", "聚餐"]);

    let cancelled =
        calendar(&h, "阿公生日取消了", json!({"action": "cancel", "id": party_id})).await;
    assert_eq!(cancelled["cancelled"]["title"], "阿公生日聚餐");
    let week = calendar(&h, "這週末有什麼事", agenda("2026-12-05", "2026-12-06")).await;
    let titles: Vec<String> = lines(&week).into_iter().map(|(t, _)| t).collect();
    assert_eq!(titles, ["看牙醫", "聚餐"]);
    let again = calendar(&h, "阿公生日取消", json!({"action": "cancel", "id": party_id})).await;
    assert_eq!(again["error"]["kind"], "not_found", "cancelled once: {again}");
}

#[tokio::test]
async fn a_bad_date_or_an_end_before_the_start_is_refused_and_keeps_nothing() {
    let h = start().await;
    let refused = calendar(&h, "下週六", add("聚餐", "next saturday", None)).await;
    assert_eq!(refused["error"]["kind"], "invalid_arguments", "{refused}");
    let backwards =
        calendar(&h, "聚餐", add("聚餐", "2026-12-05T14:00", Some("2026-12-05T12:00"))).await;
    assert_eq!(backwards["error"]["kind"], "invalid_arguments", "{backwards}");
    let past = calendar(&h, "上週的聚餐", add("聚餐", "2026-11-20T12:00", None)).await;
    assert_eq!(past["error"]["kind"], "invalid_arguments", "{past}");
    let none = calendar(&h, "有什麼事", agenda("2026-12-01", "2026-12-31")).await;
    assert!(lines(&none).is_empty(), "{none}");
}

/// What a phone's calendar makes of `ics` from `from` to `to`: `(summary, start)` of every
/// occurrence not cancelled, by `scripts/ics_occurrences.py`; `None` where no Python with
/// `icalendar` is at hand (CI has it, and there its absence fails).
fn as_a_phone_reads_it(ics: &str, from: &str, to: &str) -> Option<Vec<(String, String)>> {
    let python = std::env::var("HEARTH_BROWSER_PYTHON")
        .unwrap_or_else(|_| "target/ci-venv/bin/python".into());
    let child = Command::new(&python)
        .arg("scripts/ics_occurrences.py")
        .args([from, to])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!(
                "{python} not run ({e}): pip install -r scripts/requirements-ci.txt to read the feed as a phone does"
            );
            return None;
        }
        Err(e) => panic!("a Python with icalendar is needed in CI: {e}"),
    };
    child.stdin.take().expect("stdin").write_all(ics.as_bytes()).expect("write");
    let out = child.wait_with_output().expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success()
        && stderr.contains("ModuleNotFoundError")
        && std::env::var_os("CI").is_none()
    {
        eprintln!("icalendar is not installed for {python}: the feed was not read as a phone does");
        return None;
    }
    assert!(out.status.success(), "the parser refused the feed: {stderr}\n{ics}");
    let rows: Vec<(String, String, String)> = serde_json::from_slice(&out.stdout).expect("JSON");
    Some(
        rows.into_iter()
            .filter(|(_, _, status)| status != "CANCELLED")
            .map(|(s, at, _)| (s, at))
            .collect(),
    )
}

#[tokio::test]
async fn a_members_phone_reads_the_feed_with_the_days_the_agenda_gives_lunar_and_workdays_too() {
    let h = start().await;
    let mut lantern = add("阿嬤生日", "2026-12-01", None);
    lantern["repeat"] = json!("lunar_yearly");
    lantern["lunar"] = json!("01-15");
    calendar(&h, "阿嬤生日是農曆正月十五", lantern).await;
    let mut school_run = add("送小明上學", "2026-12-01T07:30", Some("2026-12-01T08:00"));
    school_run["repeat"] = json!("workdays");
    calendar(&h, "每個上班日七點半送小明上學", school_run).await;
    let mut piano = add("鋼琴課", "2026-12-02T16:00", Some("2026-12-02T17:00"));
    piano["repeat"] = json!("weekly");
    piano["who"] = json!("小明");
    calendar(&h, "小明週三四點鋼琴課", piano).await;
    calendar(&h, "12/24 學校聖誕晚會", add("學校聖誕晚會", "2026-12-24T18:00", None)).await;
    calendar(&h, "跨年出遊", add("墾丁", "2026-12-30", Some("2027-01-01"))).await;
    let cancelled = calendar(&h, "尾牙", add("尾牙", "2027-01-15T18:00", None)).await;
    let id = cancelled["event"]["id"].clone();
    calendar(&h, "尾牙取消", json!({"action": "cancel", "id": id})).await;

    let mut agenda_days = Vec::new();
    for (from, to) in [("2026-12-01", "2026-12-31"), ("2027-01-01", "2027-02-28")] {
        let shown = calendar(&h, "有什麼事", agenda(from, to)).await;
        agenda_days.extend(lines(&shown));
    }
    assert!(
        agenda_days.contains(&("阿嬤生日".into(), "2027-02-20".into())),
        "正月十五 2027: {agenda_days:?}"
    );
    assert!(
        !agenda_days.iter().any(|(t, d)| t == "送小明上學" && d.starts_with("2026-12-05")),
        "a Saturday"
    );

    let path = feed_path(&h, in_group(FAMILY, MOM)).await;
    assert_eq!(feed_path(&h, in_group(FAMILY, MOM)).await, path, "asking again: the same link");

    let response = crate::common::get(format!("{}{path}", h.url)).await.expect("feed");
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"].to_str().expect("type").starts_with("text/calendar")
    );
    let etag = response.headers()[ETAG].clone();
    let ics = response.text().await.expect("text");
    assert!(ics.contains("BEGIN:VTIMEZONE") && ics.contains("TZID:Asia/Taipei"), "{ics}");
    assert!(ics.contains("STATUS:CANCELLED"), "尾牙 is kept, cancelled: {ics}");
    let cached = hearth::platform::tls::client_builder()
        .build()
        .expect("client")
        .get(format!("{}{path}", h.url))
        .header(IF_NONE_MATCH, etag)
        .send()
        .await
        .expect("again");
    assert_eq!(cached.status(), 304, "a phone that has it is told so");

    let Some(phone_days) = as_a_phone_reads_it(&ics, "2026-12-01", "2027-02-28") else { return };
    // The trip over New Year is in both agendas (it meets both ranges): once on a phone.
    let mut expected = agenda_days.clone();
    expected.sort_by(|a, b| (&a.1, &a.0).cmp(&(&b.1, &b.0)));
    expected.dedup();
    assert_eq!(phone_days, expected, "the phone and the agenda agree, day for day");
}

#[tokio::test]
async fn a_feed_is_its_members_alone_and_ends_when_they_leave_the_group() {
    let h = start().await;
    calendar(&h, "聖誕晚會", add("學校聖誕晚會", "2026-12-24T18:00", None)).await;
    let path = feed_path(&h, in_group(FAMILY, MOM)).await;
    assert_eq!(status(&h, &path).await, 200);
    let forged = format!("/calendar/{}.ics", "0".repeat(64));
    assert_eq!(status(&h, &forged).await, 401, "a token nobody was given opens nothing");
    assert_eq!(status(&h, "/calendar/short.ics").await, 401);

    // 爸爸's own link is his, not 媽媽's.
    assert_ne!(feed_path(&h, in_group(FAMILY, DAD)).await, path);

    let mut left = h.bare("memberLeft", json!({"type": "group", "groupId": FAMILY}));
    left["left"] = json!({"members": [{"type": "user", "userId": MOM}]});
    h.send(vec![left]).await;
    assert_eq!(status(&h, &path).await, 401, "leaving the group ends the member's feed");
    let mut back = h.bare("memberJoined", json!({"type": "group", "groupId": FAMILY}));
    back["joined"] = json!({"members": [{"type": "user", "userId": MOM}]});
    h.send(vec![back]).await;
    assert_eq!(status(&h, &path).await, 401, "and coming back does not bring the old link back");
    let in_her_own_chat = h
        .call_tool(in_dm(MOM), "小幫手 行程", "calendar", agenda("2026-12-01", "2026-12-31"))
        .await;
    assert_eq!(
        in_her_own_chat["error"]["kind"], "invalid_arguments",
        "the family calendar is the group's: {in_her_own_chat}"
    );
}

#[tokio::test]
async fn signing_out_of_the_page_ends_the_members_feed_and_a_new_link_works() {
    let h = start().await;
    calendar(&h, "聖誕晚會", add("學校聖誕晚會", "2026-12-24T18:00", None)).await;
    let first = feed_path(&h, in_group(FAMILY, MOM)).await;
    assert_eq!(status(&h, &first).await, 200);

    let _page = crate::family_page::signed_in(&h, in_group(FAMILY, MOM)).await;
    let answer = h.line.replies().last().expect("the 🏠 answer").body.clone();
    let sign_out = postback_data(&answer, "end_page_sessions").expect("the sign-out button");
    h.send(vec![h.postback(in_group(FAMILY, MOM), &sign_out)]).await;
    assert_eq!(status(&h, &first).await, 401, "登出網頁 ends the feed too");

    let second = feed_path(&h, in_group(FAMILY, MOM)).await;
    assert_ne!(second, first, "a new link");
    assert_eq!(status(&h, &second).await, 200);
}

#[tokio::test]
async fn the_link_is_not_sent_to_someone_who_has_not_added_hearth_and_never_posted_in_the_group() {
    let h = start().await;
    h.app.quota.note_friend(DAD, false).await;
    let asked = h
        .call_tool(in_group(FAMILY, DAD), "小幫手 加到手機", "calendar", json!({"action": "phone"}))
        .await;
    assert_eq!(asked["link"], "add_friend_first", "{asked}");
    assert!(h.line.pushes().is_empty(), "nothing pushed");
    assert!(!asked.to_string().contains("/calendar/"), "no link to post: {asked}");
}

#[tokio::test]
async fn the_groups_morning_digest_lists_the_days_events_and_only_those() {
    let h = start().await;
    let digest = json!({"time": "07:00", "place": "台北", "only_when_something": true});
    h.call_tool(in_group(FAMILY, MOM), "小幫手 每天七點摘要，有事才通知", "digest", digest).await;
    let mut party = add("阿公生日聚餐", "2026-12-02T12:00", Some("2026-12-02T14:00"));
    party["place"] = json!("欣葉");
    calendar(&h, "後天中午阿公生日聚餐", party).await;
    calendar(&h, "週三到週五去墾丁", add("墾丁", "2026-12-02", Some("2026-12-04"))).await;
    h.line.clear();

    h.clock.set("2026-11-30T23:00:00Z".parse().expect("1 December, 07:00 in Taipei"));
    let quiet = h.app.loops.digests.tick().await.expect("tick");
    assert_eq!((quiet.sent, quiet.skipped), (0, 1), "1 December holds nothing");

    h.clock.set("2026-12-01T23:00:00Z".parse().expect("2 December, 07:00 in Taipei"));
    assert_eq!(h.app.loops.digests.tick().await.expect("tick").sent, 1);
    let card = h.line.accepted_pushes().last().expect("the digest").body.to_string();
    assert!(card.contains("📅 行程"), "{card}");
    assert!(card.contains("12:00 阿公生日聚餐 @ 欣葉"), "{card}");
    assert!(card.contains("全天 墾丁"), "{card}");
}

/// Every postback of `action` in `body`, in order.
fn postbacks(body: &Value, action: &str, found: &mut Vec<String>) {
    match body {
        Value::String(s) if s.starts_with(&format!("a={action}&")) => found.push(s.clone()),
        Value::Object(map) => map.values().for_each(|v| postbacks(v, action, found)),
        Value::Array(items) => items.iter().for_each(|v| postbacks(v, action, found)),
        _ => {}
    }
}

/// When the chat's active reminders next come, local to Taipei, with their texts.
async fn reminders_of(h: &Harness) -> Vec<(String, String)> {
    let tz = jiff::tz::TimeZone::get("Asia/Taipei").expect("zone");
    let rows = h.app.store.reminders().list(FAMILY).await.expect("reminders");
    rows.into_iter()
        .filter_map(|r| {
            let at = jiff::Timestamp::from_millisecond(r.next_fire_at?).ok()?;
            Some((tz.to_datetime(at).strftime("%Y-%m-%dT%H:%M").to_string(), r.text))
        })
        .collect()
}

#[tokio::test]
async fn an_events_reminders_come_before_it_follow_it_when_it_moves_and_go_with_it() {
    let h = start().await;
    let mut party = add("阿公生日聚餐", "2026-12-05T12:00", None);
    party["place"] = json!("欣葉");
    let saved = calendar(&h, "下週六中午阿公生日聚餐", party).await;
    let id = saved["event"]["id"].as_i64().expect("id");
    let card = h.line.replies().last().expect("the card").body.clone();
    let mut taps = Vec::new();
    postbacks(&card, "event_remind", &mut taps);
    assert_eq!(taps.len(), 2, "the day before and two hours before: {card}");

    for tap in &taps {
        h.send(vec![h.postback(in_group(FAMILY, MOM), tap)]).await;
    }
    let told = h.line.replies().last().expect("the answer").body.to_string();
    assert!(told.contains("12/05 10:00 會提醒"), "{told}");
    assert_eq!(
        reminders_of(&h).await,
        [
            ("2026-12-04T20:00".to_string(), "明天：阿公生日聚餐 @ 欣葉".to_string()),
            ("2026-12-05T10:00".to_string(), "兩小時後：阿公生日聚餐 @ 欣葉".to_string()),
        ]
    );
    h.send(vec![h.postback(in_group(FAMILY, MOM), &taps[0])]).await;
    assert_eq!(reminders_of(&h).await.len(), 2, "tapped again: still one the evening before");

    let moved = json!({"action": "move", "id": id, "title": "阿公生日聚餐", "start": "2026-12-06T18:00", "place": "欣葉"});
    calendar(&h, "改到週日晚上六點", moved).await;
    let at: Vec<String> = reminders_of(&h).await.into_iter().map(|(at, _)| at).collect();
    assert_eq!(at, ["2026-12-05T20:00", "2026-12-06T16:00"], "they follow the event");

    calendar(&h, "取消阿公生日聚餐", json!({"action": "cancel", "id": id})).await;
    assert!(reminders_of(&h).await.is_empty(), "they go with it");
}

#[tokio::test]
async fn moving_an_event_keeps_what_the_move_does_not_say() {
    let h = start().await;
    let mut piano = add("鋼琴課", "2026-12-02T16:00", Some("2026-12-02T17:00"));
    piano["repeat"] = json!("weekly");
    piano["place"] = json!("山葉音樂教室");
    piano["who"] = json!("小明");
    let saved = calendar(&h, "小明週三四點鋼琴課", piano).await;
    let id = saved["event"]["id"].clone();
    let moved = json!({"action": "move", "id": id, "start": "2026-12-03T17:00"});
    let after = calendar(&h, "鋼琴課改到週四五點", moved).await;
    assert_eq!(after["event"]["title"], "鋼琴課", "{after}");
    assert_eq!(after["event"]["end"], "2026-12-03T18:00", "the same hour long");
    assert_eq!(after["event"]["place"], "山葉音樂教室");
    assert_eq!(after["event"]["people"], "小明");
    assert_eq!(after["event"]["repeats"], "weekly", "still every week");
    let week = calendar(&h, "下週有什麼", agenda("2026-12-07", "2026-12-13")).await;
    assert_eq!(lines(&week), [("鋼琴課".to_string(), "2026-12-10T17:00".to_string())]);
}

#[tokio::test]
async fn a_repeating_events_reminders_repeat_before_each_time_it_comes() {
    let h = start().await;
    let mut piano = add("鋼琴課", "2026-12-02T16:00", None);
    piano["repeat"] = json!("weekly");
    calendar(&h, "小明每週三四點鋼琴課", piano).await;
    // Two weeks on, the card's buttons are tapped.
    h.set_clock("2026-12-14T12:00:00Z");
    let card = h.line.replies().last().expect("the card").body.clone();
    let mut taps = Vec::new();
    postbacks(&card, "event_remind", &mut taps);
    assert_eq!(taps.len(), 2, "the day before and two hours before: {card}");
    for tap in &taps {
        h.send(vec![h.postback(in_group(FAMILY, MOM), tap)]).await;
    }
    assert_eq!(
        reminders_of(&h).await,
        [
            ("2026-12-15T20:00".to_string(), "明天：鋼琴課".to_string()),
            ("2026-12-16T14:00".to_string(), "兩小時後：鋼琴課".to_string()),
        ],
        "before the next lesson, not the first one long past"
    );
    let rows = h.app.store.reminders().list(FAMILY).await.expect("reminders");
    let rules: Vec<_> = rows.iter().map(|r| r.rule.freq).collect();
    assert_eq!(rules, [hearth::store::Freq::Weekly; 2], "they repeat with it");

    let mut school = add("上學", "2026-12-15T07:30", None);
    school["repeat"] = json!("workdays");
    calendar(&h, "上學日早上七點半出門", school).await;
    let card = h.line.replies().last().expect("the card").body.clone();
    let mut taps = Vec::new();
    postbacks(&card, "event_remind", &mut taps);
    assert_eq!(taps.len(), 1, "a workday event: two hours before only: {card}");
}

#[tokio::test]
async fn a_cancelled_event_leaves_the_store_once_the_feed_no_longer_shows_it() {
    use hearth::features::calendar::ops::feed::Feeds;
    let h = start().await;
    let saved = calendar(&h, "尾牙", add("尾牙", "2026-12-18T18:00", None)).await;
    calendar(&h, "取消尾牙", json!({"action": "cancel", "id": saved["event"]["id"]})).await;
    let feeds = Feeds::from_deps(&h.app.turns.deps);
    // The harness starts at 2026-11-30T12:00Z, when the event was cancelled.
    let days_on = |n: i64| jiff::Timestamp::from_second(1_796_040_000 + n * 86_400).expect("time");
    assert_eq!(feeds.forget_cancelled(days_on(29)).await.expect("prune"), 0, "still in the feed");
    assert_eq!(feeds.forget_cancelled(days_on(31)).await.expect("prune"), 1, "then it goes");
}

#[tokio::test]
async fn after_the_channel_secret_changes_a_link_asked_for_again_works_and_the_old_one_does_not() {
    use hearth::features::calendar::ops::feed::Feeds;
    let h = start().await;
    let old = feed_path(&h, in_group(FAMILY, MOM)).await;
    let token =
        |path: &str| path.trim_start_matches("/calendar/").trim_end_matches(".ics").to_string();
    let mut config = h.config.clone();
    config.line.line_channel_secret = "a-new-channel-secret".into();
    let store = hearth::store::Store::connect(&h.config.store.database_url).await.expect("store");
    let renewed = hearth::server::app::Hearth::with_tools(
        &config,
        h.clock.clone(),
        store,
        hearth::tools::registry,
    )
    .expect("hearth with the new secret");
    let feeds = Feeds::from_deps(&renewed.turns.deps);
    let ctx = hearth::contract::ToolCtx {
        conversation: hearth::platform::conversation::Conversation::from_id(FAMILY),
        user_id: Some(MOM.into()),
        display_name: None,
        tz: jiff::tz::TimeZone::get("Asia/Taipei").expect("zone"),
        lang: hearth::platform::i18n::Lang::ZhTw,
        clock: h.clock.clone(),
        surface: hearth::contract::Surface::Chat,
    };
    let new = feeds.link(&ctx).await.expect("the link again").https;
    let new = token(new.trim_start_matches("https://hearth.example"));
    assert_ne!(new, token(&old), "another key, another token");
    assert_eq!(feeds.whose(&new).await.expect("read"), Some((FAMILY.into(), MOM.into())));
    assert_eq!(feeds.whose(&token(&old)).await.expect("read"), None, "the old link is dead");
}

/// Moves the clock to `local` Taipei time and delivers the reminders due then: how many went.
async fn reminders_at(h: &Harness, local: &str) -> usize {
    h.set_clock(&format!("{local}:00+08:00"));
    h.app.loops.reminders.tick().await.expect("tick").sent
}

#[tokio::test]
async fn one_lesson_called_off_leaves_the_agenda_the_phone_and_its_reminders_and_the_rest_stay() {
    let h = start().await;
    let mut piano = add("鋼琴課", "2026-12-02T16:00", Some("2026-12-02T17:00"));
    piano["repeat"] = json!("weekly");
    let saved = calendar(&h, "小明週三四點鋼琴課", piano).await;
    let id = saved["event"]["id"].as_i64().expect("id");
    let card = h.line.replies().last().expect("the card").body.clone();
    let mut taps = Vec::new();
    postbacks(&card, "event_remind", &mut taps);
    for tap in &taps {
        h.send(vec![h.postback(in_group(FAMILY, MOM), tap)]).await;
    }
    assert_eq!(reminders_of(&h).await.len(), 2, "the evening before and two hours before");

    let off = json!({"action": "cancel", "id": id, "start": "2026-12-09"});
    let said = calendar(&h, "這週三鋼琴課停一次", off).await;
    assert_eq!(said["only_that_time"], true, "{said}");
    assert_eq!(said["cancelled"]["start"], "2026-12-09T16:00", "{said}");
    for wrong in ["2026-12-10", "2026-12-09", "2026-11-25"] {
        let again = json!({"action": "cancel", "id": id, "start": wrong});
        let refused = calendar(&h, "停一次", again).await;
        assert_eq!(refused["error"]["kind"], "invalid_arguments", "{wrong}: {refused}");
    }
    let month = calendar(&h, "十二月有什麼", agenda("2026-12-01", "2026-12-31")).await;
    let starts: Vec<String> = lines(&month).into_iter().map(|(_, at)| at).collect();
    assert_eq!(
        starts,
        ["2026-12-02T16:00", "2026-12-16T16:00", "2026-12-23T16:00", "2026-12-30T16:00"],
        "the 9th alone is gone"
    );

    let path = feed_path(&h, in_group(FAMILY, MOM)).await;
    let ics = crate::common::get(format!("{}{path}", h.url)).await.expect("feed");
    let ics = ics.text().await.expect("text");
    assert!(!ics.contains("20261209T160000"), "no date of the 9th: {ics}");
    if let Some(phone) = as_a_phone_reads_it(&ics, "2026-12-01", "2026-12-31") {
        let days: Vec<String> = phone.into_iter().map(|(_, at)| at).collect();
        assert_eq!(days, starts, "the phone and the agenda agree");
    }

    assert_eq!(reminders_at(&h, "2026-12-01T20:00").await, 1, "the evening before the 2nd");
    assert_eq!(reminders_at(&h, "2026-12-02T14:00").await, 1, "two hours before the 2nd");
    assert_eq!(reminders_at(&h, "2026-12-08T20:00").await, 0, "nothing before the 9th");
    let next: Vec<String> = reminders_of(&h).await.into_iter().map(|(at, _)| at).collect();
    assert!(next.contains(&"2026-12-15T20:00".to_string()), "passed over, not held: {next:?}");
    assert_eq!(reminders_at(&h, "2026-12-09T14:00").await, 0, "nothing on the 9th");
    assert_eq!(reminders_at(&h, "2026-12-15T20:00").await, 1, "the evening before the 16th");
    assert_eq!(reminders_at(&h, "2026-12-16T14:00").await, 1, "two hours before the 16th");

    // A day called off stays called off when the series moves later, for its reminders too.
    let off = json!({"action": "cancel", "id": id, "start": "2026-12-30"});
    calendar(&h, "三十號那次停", off).await;
    let moved = json!({"action": "move", "id": id, "start": "2026-12-23T17:00"});
    calendar(&h, "鋼琴課以後改五點", moved).await;
    assert_eq!(reminders_at(&h, "2026-12-22T20:00").await, 1, "the evening before the 23rd");
    assert_eq!(reminders_at(&h, "2026-12-23T15:00").await, 1, "two hours before, at five");
    assert_eq!(reminders_at(&h, "2026-12-29T20:00").await, 0, "nothing before the 30th");
    assert_eq!(reminders_at(&h, "2026-12-30T15:00").await, 0, "nothing on the 30th");
    assert_eq!(reminders_at(&h, "2027-01-05T20:00").await, 1, "the evening before the 6th");
}
