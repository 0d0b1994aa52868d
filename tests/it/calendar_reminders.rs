//! Reminders on the lunar calendar and on Taiwan's workdays, end to end: asked for in Chinese and
//! in English, confirmed with the next Gregorian dates (and what the family should know about
//! leap months and unknown years), pushed on exactly those days, their buttons refused from
//! another chat; and the price-alert poller keeping TWSE's holidays from the same calendar.

use crate::common::harness::last_tool_result as tool_result;

use crate::common::Route;
use crate::common::harness::{
    FAMILY, Harness, MOM, OTHER_GROUP, in_dm, in_group, messages_of, postback_data, texts_of,
};
use hearth::platform::clock::Clock;
use jiff::Timestamp;
use serde_json::{Value, json};

/// Creates a reminder through the fake LLM, the family writing `said` in `source`; returns the
/// tool's result.
async fn create(h: &Harness, source: Value, said: &str, args: Value) -> Value {
    let before = h.llm.requests().len();
    h.llm.reply_tool_calls(&[("reminder", args)]);
    h.llm.reply_text("OK");
    h.send(vec![h.event(source, crate::common::harness::text_message(said))]).await;
    tool_result(h, before + 1)
}

/// The Flex card of the last reply, as text.
fn last_card(h: &Harness) -> String {
    let body = h.line.replies().last().expect("reply").body.clone();
    messages_of(&body).iter().find(|m| m["type"] == "flex").expect("a card")["contents"].to_string()
}

/// Moves the clock to `local` Taipei time and delivers the reminders due then.
async fn tick_at(h: &Harness, local: &str) -> usize {
    let at: Timestamp = format!("{local}+08:00").parse().expect("local time");
    h.clock.set(at);
    h.app.loops.reminders.tick().await.expect("tick").sent
}

#[tokio::test]
async fn lunar_first_and_fifteenth_are_confirmed_with_their_dates_and_pushed_on_those_days() {
    let h = Harness::start().await; // Monday 2026-11-30 20:00 Taipei: 十月廿二.
    let result = create(
        &h,
        in_dm(MOM),
        "每個初一十五早上七點提醒我拜拜",
        json!({"text": "拜拜", "at": "2026-11-30T07:00", "repeat": "lunar_monthly", "lunar_days": [1, 15]}),
    )
    .await;
    assert_eq!(result["repeats"], "每月農曆初一、十五 07:00", "{result}");
    // 十一月初一 2026-12-09, 十一月十五 2026-12-23, 十二月初一 2027-01-08.
    assert_eq!(
        result["upcoming"],
        json!(["2026-12-09（三）07:00", "2026-12-23（三）07:00", "2027-01-08（五）07:00"])
    );
    assert_eq!(result["first_time"], "2026-12-09（三）07:00");
    let card = last_card(&h);
    assert!(card.contains("接下來") && card.contains("2026-12-23"), "{card}");

    assert_eq!(tick_at(&h, "2026-12-09T06:59").await, 0);
    assert_eq!(tick_at(&h, "2026-12-09T07:00").await, 1, "初一");
    assert_eq!(tick_at(&h, "2026-12-15T07:00").await, 0, "the 15th of December is not 十五");
    assert_eq!(tick_at(&h, "2026-12-23T07:00").await, 1, "十五");
    assert_eq!(h.line.accepted_pushes().len(), 2);
    assert!(h.line.accepted_pushes()[1].body.to_string().contains("拜拜"));

    h.llm.reply_tool_calls(&[(
        "reminders",
        json!({"action": "show", "id": null, "description": null}),
    )]);
    h.llm.reply_text("這是提醒清單");
    h.send(vec![h.dm(MOM, "有哪些提醒")]).await;
    let listed = tool_result(&h, h.llm.requests().len() - 1);
    assert_eq!(listed["reminders"][0]["repeats"], "每月農曆初一、十五 07:00", "{listed}");
    assert_eq!(listed["reminders"][0]["next"], "2027-01-08（五）07:00", "十二月初一");
}

#[tokio::test]
async fn a_leap_month_birthday_in_english_says_where_it_falls_in_other_years() {
    let h = Harness::start().await;
    h.llm.reply_tool_calls(&[(
        "reminder",
        json!({"text": "Grandma's birthday", "at": "2026-11-30T09:00", "repeat": "lunar_yearly",
               "lunar_month": 6, "leap_month": true, "lunar_days": [8]}),
    )]);
    h.llm.reply_text("Done.");
    h.send(vec![h.dm(MOM, "remind me of grandma's lunar birthday, leap 6th month day 8, at 9am")])
        .await;
    let result = tool_result(&h, 1);
    assert_eq!(result["repeats"], "every year on lunar leap month 6 day 8 at 09:00", "{result}");
    // No 閏六月 in 2027–2029: 六月初八 each year. 六月初一 is the new moon of 2027-07-04,
    // 2028-07-22 (2028 has 閏五月) and 2029-07-11 (the last two are solar eclipses).
    assert_eq!(
        result["upcoming"],
        json!(["Sun 2027-07-11 09:00", "Sat 2028-07-29 09:00", "Wed 2029-07-18 09:00"])
    );
    let notes = result["notes"].to_string();
    assert!(notes.contains("Leap month 6 only exists in some years"), "{notes}");
    let card = last_card(&h);
    assert!(card.contains("Next") && card.contains("Leap month 6"), "{card}");
}

#[tokio::test]
async fn the_yearly_mid_autumn_reminder_falls_on_the_published_dates() {
    let h = Harness::start().await;
    let result = create(
        &h,
        in_dm(MOM),
        "每年農曆八月十五提醒我買月餅",
        json!({"text": "買月餅", "at": "2026-11-30T10:00", "repeat": "lunar_yearly", "lunar_month": 8, "lunar_days": [15]}),
    )
    .await;
    assert_eq!(result["repeats"], "每年農曆八月十五 10:00");
    assert_eq!(
        result["upcoming"],
        json!(["2027-09-15（三）10:00", "2028-10-03（二）10:00", "2029-09-22（六）10:00"])
    );
    assert!(result.get("notes").is_none(), "nothing special to say: {result}");
}

#[tokio::test]
async fn workday_reminders_skip_holidays_and_their_buttons_only_work_in_their_group() {
    let h = Harness::start().await;
    let result = create(
        &h,
        in_group(FAMILY, MOM),
        "小幫手 每個上班日早上七點提醒我打卡",
        json!({"text": "打卡", "at": "2026-12-24T07:00", "repeat": "workdays"}),
    )
    .await;
    assert_eq!(result["repeats"], "每個上班日 07:00（台灣行事曆）", "{result}");
    // 12-25 (Friday) is 行憲紀念日.
    assert_eq!(
        result["upcoming"],
        json!(["2026-12-24（四）07:00", "2026-12-28（一）07:00", "2026-12-29（二）07:00"])
    );
    assert!(result["notes"].to_string().contains("行事曆目前到 2027 年"), "{result}");
    let confirmation = h.line.replies().last().expect("reply").body.clone();
    let cancel = postback_data(&confirmation, "cancel_reminder").expect("cancel button");

    assert_eq!(tick_at(&h, "2026-12-24T07:00").await, 1);
    assert_eq!(tick_at(&h, "2026-12-25T07:00").await, 0, "行憲紀念日");
    assert_eq!(tick_at(&h, "2026-12-26T07:00").await, 0, "Saturday");
    assert_eq!(tick_at(&h, "2026-12-28T07:00").await, 1);

    // The confirmation's cancel button forwarded to another group: refused, nothing changed.
    h.send(vec![h.postback(in_group(OTHER_GROUP, MOM), &cancel)]).await;
    assert!(texts_of(&h.line.replies().last().expect("reply").body).contains("不屬於這個聊天室"));
    assert_eq!(h.app.store.reminders().list(FAMILY).await.expect("list").len(), 1);
    assert_eq!(tick_at(&h, "2026-12-29T07:00").await, 1);
    h.send(vec![h.postback(in_group(FAMILY, MOM), &cancel)]).await;
    assert_eq!(tick_at(&h, "2026-12-30T07:00").await, 0, "cancelled in its own group");
}

#[tokio::test]
async fn past_the_known_years_the_confirmation_says_weekdays_are_used() {
    let h = Harness::start().await;
    let result = create(
        &h,
        in_dm(MOM),
        "2028 年起每個上班日早上七點提醒我",
        json!({"text": "打卡", "at": "2028-10-02T07:00", "repeat": "workdays"}),
    )
    .await;
    assert!(
        result["notes"].to_string().contains("2028 年的官方行事曆還沒有資料，先以週一到週五計算"),
        "{result}"
    );
    // 2028-10-03 is 中秋, but 2028 is not known: it counts as a workday.
    assert_eq!(result["upcoming"][1], "2028-10-03（二）07:00");
    let english = create(
        &h,
        in_dm(MOM),
        "every workday at 7 from 2028",
        json!({"text": "clock in", "at": "2028-10-02T07:00", "repeat": "workdays"}),
    )
    .await;
    assert!(english["notes"].to_string().contains("not known yet"), "{english}");
}

#[tokio::test]
async fn a_newer_calendar_file_makes_its_years_known() {
    let dir = std::env::temp_dir().join(format!("hearth-calendar-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("taiwan-calendar.json");
    let file = json!({"years": [{"year": 2028, "source": "test file",
        "days_off": [{"date": "2028-10-03", "name": "中秋節"}],
        "make_up_workdays": [{"date": "2028-09-30", "name": "補班"}], "twse_closed": []}]});
    std::fs::write(&path, file.to_string()).expect("write");
    let h = Harness::start_with(|c| c.family.work_calendar = Some(path.clone()), None).await;
    let result = create(
        &h,
        in_dm(MOM),
        "每個上班日提醒我",
        json!({"text": "打卡", "at": "2028-09-29T07:00", "repeat": "workdays"}),
    )
    .await;
    assert_eq!(
        result["upcoming"],
        json!(["2028-09-29（五）07:00", "2028-09-30（六）07:00", "2028-10-02（一）07:00"]),
        "Saturday 補班 on, Monday on, 中秋 Tuesday off"
    );
    assert!(result["notes"].to_string().contains("行事曆目前到 2028 年"), "{result}");
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn a_lunar_birthday_reminder_a_day_before_comes_the_day_before_every_year_and_survives_the_store()
 {
    let h = Harness::start().await;
    let result = create(
        &h,
        in_dm(MOM),
        "阿嬤農曆八月十五生日，前一天提醒我買月餅",
        json!({"text": "買月餅", "at": "2026-11-30T10:00", "repeat": {"every": "lunar_yearly",
               "lunar": {"days": [15], "month": 8, "leap": null, "days_before": 1}}}),
    )
    .await;
    assert_eq!(result["repeats"], "每年農曆八月十五的前1天 10:00", "{result}");
    // The day before the published dates of 八月十五 (see the test above).
    assert_eq!(
        result["upcoming"],
        json!(["2027-09-14（二）10:00", "2028-10-02（一）10:00", "2029-09-21（五）10:00"])
    );
    let kept = h.app.store.reminders().list(MOM).await.expect("list");
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].rule.days_before, 1, "kept in the store");
    assert_eq!(tick_at(&h, "2027-09-14T10:00").await, 1, "pushed the day before");
    assert_eq!(tick_at(&h, "2027-09-15T10:00").await, 0, "not on the day itself");
}

#[tokio::test]
async fn bad_lunar_and_workday_requests_are_refused_and_change_nothing() {
    let h = Harness::start().await;
    let at = "2026-12-01T07:00";
    for args in [
        json!({"text": "x", "at": at, "repeat": "lunar_monthly"}),
        json!({"text": "x", "at": at, "repeat": "lunar_monthly", "lunar_days": [31]}),
        json!({"text": "x", "at": at, "repeat": "lunar_monthly", "lunar_days": [0]}),
        json!({"text": "x", "at": at, "repeat": "lunar_monthly", "lunar_days": [1], "lunar_month": 8}),
        json!({"text": "x", "at": at, "repeat": "lunar_yearly", "lunar_days": [15]}),
        json!({"text": "x", "at": at, "repeat": "lunar_yearly", "lunar_days": [15], "lunar_month": 13}),
        json!({"text": "x", "at": at, "repeat": "lunar_yearly", "lunar_days": [1, 15], "lunar_month": 8}),
        json!({"text": "x", "at": at, "repeat": "daily", "lunar_days": [1]}),
        json!({"text": "x", "at": at, "repeat": "workdays", "interval": 2}),
        json!({"text": "x", "at": at, "repeat": "lunar_monthly", "lunar_days": [1], "interval": 3}),
        json!({"text": "x", "at": at, "repeat": {"every": "lunar_monthly",
               "lunar": {"days": [1], "month": null, "leap": null, "days_before": 1}}}),
        json!({"text": "x", "at": at, "repeat": {"every": "lunar_yearly",
               "lunar": {"days": [15], "month": 8, "leap": null, "days_before": 31}}}),
    ] {
        let result = create(&h, in_dm(MOM), "小幫手 提醒我", args.clone()).await;
        assert_eq!(result["error"]["kind"], "invalid_arguments", "{args} → {result}");
    }
    assert!(h.app.store.reminders().list(MOM).await.expect("list").is_empty());
}

#[tokio::test]
async fn the_alert_poller_does_not_fetch_taiwan_quotes_on_twse_holidays() {
    let h = Harness::start_with(|c| c.loops.price_poll_secs = 0, None).await;
    h.upstreams.set_price("2330.TW", 1_450.0);
    h.upstreams.set_market_time("2330.TW", h.clock.now().as_second());
    h.llm.reply_tool_calls(&[(
        "price_alert",
        json!({"symbol": "2330.TW", "direction": "rises_to", "level": 1500}),
    )]);
    h.llm.reply_text("好的");
    h.send(vec![h.dm(MOM, "台積電到 1500 通知我")]).await;
    // Friday 2026-12-25 10:00 Taipei: a weekday inside trading hours, but 行憲紀念日.
    h.clock.set("2026-12-25T02:00:00Z".parse().expect("instant"));
    let hits = h.upstreams.hits(Route::Yahoo);
    let report = h.app.loops.price_alerts.tick().await.expect("tick");
    assert_eq!(report.closed, 1, "{report:?}");
    assert_eq!(h.upstreams.hits(Route::Yahoo), hits, "not fetched on a TWSE holiday");
    // Monday 12-28 09:00: open again.
    h.clock.set("2026-12-28T01:00:00Z".parse().expect("instant"));
    h.upstreams.set_market_time("2330.TW", h.clock.now().as_second());
    assert_eq!(h.app.loops.price_alerts.tick().await.expect("tick").closed, 0);
    assert_eq!(h.upstreams.hits(Route::Yahoo), hits + 1);
}
