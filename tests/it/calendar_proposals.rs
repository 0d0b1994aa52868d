//! Events read from what a stranger wrote — a school's `.ics` file shared in the group, a photo
//! of a notice, a calendar link — are proposals: the model's calls to add them are held behind
//! one confirm card, and only a tap in that group puts them on the calendar, once.

use serde_json::{Value, json};

use crate::common::fake_media::jpeg;
use crate::common::fake_web::pages::SCHOOL_ICS;
use crate::common::harness::{FAMILY, Harness, MOM, OTHER_GROUP, in_group, postback_data};
use crate::common::{FakeMedia, FakeWeb};

/// hearth reading LINE's content from `media` and the web from `web`.
async fn start(media: &FakeMedia, web: &FakeWeb) -> Harness {
    let (content, searxng) = (media.url(), format!("{}/searxng", web.url()));
    let h = Harness::start_with(
        move |c| {
            c.line.line_data_api_base = content;
            c.web.searxng_url = searxng;
            c.web.allow_private_fetch = true;
        },
        None,
    )
    .await;
    h.line.set_profile(MOM, "媽媽");
    h
}

fn add(title: &str, start: &str, end: &str, place: Option<&str>) -> Value {
    json!({"action": "add", "title": title, "start": start, "end": end, "place": place,
        "who": null, "id": null, "repeat": null, "lunar": null})
}

/// The titles on `chat`'s calendar.
async fn titles(h: &Harness, chat: &str) -> Vec<String> {
    let rows = h.app.store.calendar().live(chat).await.expect("events");
    rows.into_iter().map(|r| r.title).collect()
}

/// Everything the model was given in request `n`, as text.
fn prompt(h: &Harness, n: usize) -> String {
    h.llm.requests()[n]["messages"].to_string()
}

#[tokio::test]
async fn a_school_calendar_file_proposes_its_events_and_a_tap_in_that_group_adds_them_once() {
    let (media, web) = (FakeMedia::start().await, FakeWeb::start().await);
    media.put("7401", "text/calendar", SCHOOL_ICS.as_bytes().to_vec());
    let h = start(&media, &web).await;
    let file = json!({"id": "7401", "type": "file", "fileName": "學校行事曆.ics", "fileSize": 600});
    h.send(vec![h.event(in_group(FAMILY, MOM), file)]).await;
    h.llm.reply_tool_calls(&[
        (
            "calendar",
            add("親師座談會", "2026-12-19T09:00", "2026-12-19T12:00", Some("三年二班教室")),
        ),
        ("calendar", add("寒假", "2027-01-21", "2027-02-10", None)),
    ]);
    h.llm.reply_text("我讀到兩個活動，按 ✅ 就加進行事曆。");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 把這個加到行事曆")]).await;

    let asked = prompt(&h, 0);
    assert!(
        asked.contains(hearth::contract::untrusted::BEGIN) && asked.contains("親師座談會"),
        "the file reaches the model as untrusted content: {asked}"
    );
    assert!(titles(&h, FAMILY).await.is_empty(), "nothing is added before a tap");
    let card = h.line.replies()[0].body.clone();
    let text = card.to_string();
    assert!(text.contains("要把這些寫進行事曆嗎") && text.contains("寒假"), "{text}");
    let confirm = postback_data(&card, "confirm_calls").expect("one confirm for both");

    h.send(vec![h.postback(in_group(OTHER_GROUP, MOM), &confirm)]).await;
    assert!(titles(&h, OTHER_GROUP).await.is_empty() && titles(&h, FAMILY).await.is_empty());
    h.send(vec![h.postback(in_group(FAMILY, MOM), &confirm)]).await;
    h.send(vec![h.postback(in_group(FAMILY, MOM), &confirm)]).await;
    let mut added = titles(&h, FAMILY).await;
    added.sort();
    assert_eq!(added, ["寒假", "親師座談會"], "each added once");
}

#[tokio::test]
async fn an_event_read_from_a_photo_of_a_notice_is_added_only_after_a_tap() {
    let (media, web) = (FakeMedia::start().await, FakeWeb::start().await);
    media.put("7402", "image/jpeg", jpeg(600, 800));
    let h = start(&media, &web).await;
    h.send(vec![h.event(
        in_group(FAMILY, MOM),
        json!({"id": "7402", "type": "image",
        "quoteToken": "q-7402", "contentProvider": {"type": "line"}}),
    )])
    .await;
    h.llm.reply_tool_calls(&[(
        "calendar",
        add("學校聖誕晚會", "2026-12-24T18:00", "2026-12-24T20:00", Some("學校禮堂")),
    )]);
    h.llm.reply_text("要加進行事曆的話請按確認。");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 這張通知加到行事曆")]).await;

    assert!(titles(&h, FAMILY).await.is_empty(), "a photo writes nothing by itself");
    let card = h.line.replies()[0].body.clone();
    assert!(card.to_string().contains("學校聖誕晚會"), "the card shows the event: {card}");
    let confirm = postback_data(&card, "confirm_call").expect("a confirm button");
    h.send(vec![h.postback(in_group(FAMILY, MOM), &confirm)]).await;
    assert_eq!(titles(&h, FAMILY).await, ["學校聖誕晚會"]);
}

#[tokio::test]
async fn a_calendar_link_is_read_and_its_events_wait_for_a_tap() {
    let (media, web) = (FakeMedia::start().await, FakeWeb::start().await);
    let h = start(&media, &web).await;
    let link = format!("{}/term.ics", web.url());
    h.llm.reply_tool_calls(&[("summarize_url", json!({"url": link}))]);
    h.llm.reply_tool_calls(&[(
        "calendar",
        add("親師座談會", "2026-12-19T09:00", "2026-12-19T12:00", Some("三年二班教室")),
    )]);
    h.llm.reply_text("按確認就加進行事曆。");
    h.send(vec![h.group_text(FAMILY, MOM, &format!("小幫手 把學校行事曆加進來 {link}"))]).await;

    assert_eq!(web.hits("/term.ics"), 1, "the family's own link is read");
    assert!(prompt(&h, 1).contains("親師座談會"), "the calendar's text reached the model");
    assert!(titles(&h, FAMILY).await.is_empty(), "nothing is added before a tap");
    let card = h.line.replies()[0].body.clone();
    let confirm = postback_data(&card, "confirm_call").expect("a confirm button");
    h.send(vec![h.postback(in_group(FAMILY, MOM), &confirm)]).await;
    assert_eq!(titles(&h, FAMILY).await, ["親師座談會"]);
}
