//! A month of a family on LINE's free plan, simulated against the fake LINE API (its quota,
//! consumption and members-count endpoints) with the manual clock: a group of five, each member
//! also a friend of hearth; grandma asks in the group for two daily medicine reminders for
//! herself (08:00 and 20:00); a weekly garbage reminder for everyone (Wednesday 19:00); dad sets
//! three every-time price alerts in the group on volatile quotes (each crosses its level about
//! five times in the month); someone talks to hearth in the group every day at noon. Every push
//! goes through the per-chat outbox (reminders and alert fires due for one chat within its
//! window share a request).
//!
//! Each scenario runs twice: "naive" is what hearth did before it knew the quota (everything
//! pushed to the group, no limit on LINE's side so the whole spend shows), "now" is hearth today
//! against a 200-message month. The second scenario adds a daily reminder for the whole group
//! (150 messages a month by itself): its projection must refuse it at creation, the family
//! accepts anyway, the month runs out, and nothing may be lost. Run with
//! `cargo test --release --test quota_month -- --nocapture --test-threads 1` to see the tables
//! (BENCHMARKS.md has them).

use crate::common::harness::{DAD, FAMILY, Harness, MOM, in_group, last_tool_result, messages_of};
use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

const GRANDMA: &str = "U11111111111111111111111111111111";
const SISTER: &str = "U22222222222222222222222222222222";
const BROTHER: &str = "U33333333333333333333333333333333";
/// December 2026 in Taipei.
const MONTH_START: &str = "2026-11-30T16:00:00Z";
const MONTH_END: &str = "2026-12-31T16:00:00Z";
/// The three volatile quotes dad watches, each with its level.
const WATCHED: [(&str, f64); 3] = [("BTC-USD", 95_000.0), ("ETH-USD", 3_500.0), ("SOL-USD", 200.0)];
/// Up-crosses of each level in the month.
const CROSSES: f64 = 5.0;

/// What a month came to.
#[derive(Debug, Default)]
struct Month {
    /// Items due (reminder occurrences and alert fires).
    due: usize,
    /// Items pushed (cards in accepted pushes).
    pushed: usize,
    /// Items held while the month was out (delivered with a reply, or still waiting).
    held: usize,
    /// Push requests LINE accepted.
    requests: usize,
    /// Messages counted against the quota.
    spent: i64,
    /// Due items neither pushed nor held.
    lost: usize,
    /// The over-quota refusal shown when the daily group reminder was created.
    refused_at_creation: bool,
}

/// One turn in the group from `user` calling `tool` with each of `calls`; the last result.
async fn ask(h: &Harness, user: &str, tool: &str, calls: &[Value]) -> Value {
    let before = h.llm.requests().len();
    let calls: Vec<(&str, Value)> = calls.iter().map(|a| (tool, a.clone())).collect();
    h.llm.reply_tool_calls(&calls);
    h.llm.reply_text("好的");
    h.send(vec![
        h.event(in_group(FAMILY, user), crate::common::harness::text_message("小幫手 設定")),
    ])
    .await;
    last_tool_result(h, before + 1)
}

/// The price of a watched quote at `t`: a swing of ±3 % around its level, crossing it upwards
/// [`CROSSES`] times in the month.
fn price(level: f64, index: usize, t: Timestamp, start: Timestamp, end: Timestamp) -> f64 {
    let span = end.duration_since(start).as_secs_f64();
    let x = t.duration_since(start).as_secs_f64() / span;
    let phase = index as f64 * 1.3;
    level * (1.0 + 0.03 * (std::f64::consts::TAU * CROSSES * x + phase).sin())
}

fn cards_of(body: &Value) -> usize {
    messages_of(body)
        .iter()
        .map(|m| match m["contents"]["type"].as_str() {
            Some("carousel") => m["contents"]["contents"].as_array().map_or(0, Vec::len),
            Some("bubble") => 1,
            _ => 0,
        })
        .sum()
}

async fn month(now_mode: bool, daily_for_everyone: bool) -> Month {
    let h = Harness::start_with(
        |c| {
            c.loops.price_poll_secs = 0;
            c.push.personal_reminders_1to1 = now_mode;
            // Now: everything goes through the per-chat outbox with its window (what is due for a
            // chat within it goes in one push); naive: each item pushed as it comes due.
            c.push.outbox_window_secs = if now_mode { 3 } else { 0 };
        },
        None,
    )
    .await;
    h.line.set_dump(false);
    h.line.set_chat_size(FAMILY, 5);
    for (user, name) in
        [(GRANDMA, "奶奶"), (MOM, "媽媽"), (DAD, "爸爸"), (SISTER, "姊姊"), (BROTHER, "弟弟")]
    {
        h.line.set_profile(user, name);
    }
    h.line.set_quota(if now_mode { Some(200) } else { None });
    let (start, end): (Timestamp, Timestamp) =
        (MONTH_START.parse().expect("start"), MONTH_END.parse().expect("end"));
    h.clock.set(start);
    h.app.quota.refresh().await;
    let set_prices = |t: Timestamp| {
        for (i, (symbol, level)) in WATCHED.iter().enumerate() {
            h.upstreams.set_price(symbol, price(*level, i, t, start, end));
            h.upstreams.set_market_time(symbol, t.as_second());
        }
    };
    set_prices(start);

    // The naive run stands for hearth before it knew the quota: nothing refused.
    let accept = (!now_mode).then_some(true);
    let medicine =
        |at: &str| json!({"text": "吃藥", "at": at, "repeat": "daily", "accept_cost": accept});
    ask(&h, GRANDMA, "reminder", &[medicine("2026-12-01T08:00"), medicine("2026-12-01T20:00")])
        .await;
    let garbage = json!({"text": "倒垃圾", "at": "2026-12-02T19:00", "repeat": "weekly", "everyone": true, "accept_cost": accept});
    ask(&h, MOM, "reminder", &[garbage]).await;
    let alerts: Vec<Value> = WATCHED
        .iter()
        .map(|(s, l)| json!({"symbol": s, "direction": "rises_to", "level": l, "frequency": "every_time"}))
        .collect();
    ask(&h, DAD, "price_alert", &alerts).await;
    let mut m = Month { due: 62 + 5, ..Month::default() };
    if daily_for_everyone {
        let daily = json!({"text": "量體溫", "at": "2026-12-01T21:00", "repeat": "daily", "everyone": true, "accept_cost": accept});
        let first = ask(&h, MOM, "reminder", std::slice::from_ref(&daily)).await;
        m.refused_at_creation = first["id"].is_null();
        if m.refused_at_creation {
            let mut anyway = daily;
            anyway["accept_cost"] = json!(true);
            let created = ask(&h, MOM, "reminder", &[anyway]).await;
            assert!(created["id"].is_i64(), "{created}");
        }
        m.due += 31;
    }

    let step = SignedDuration::from_mins(15);
    let mut t = start;
    let mut missed_lines = 0;
    while t < end {
        t = t.saturating_add(step).expect("time");
        h.clock.set(t);
        set_prices(t);
        let local = t.to_zoned_datetime(h.app.tz.clone());
        if local.hour() == 12 && local.minute() == 0 {
            h.llm.reply_text("午安");
            let talk =
                h.event(in_group(FAMILY, MOM), crate::common::harness::text_message("小幫手 午安"));
            h.send(vec![talk]).await;
            let reply =
                crate::common::harness::texts_of(&h.line.replies().last().expect("reply").body);
            missed_lines += reply.lines().filter(|l| l.starts_with("• ")).count();
        }
        h.app.loops.reminders.tick().await.expect("reminders");
        let fired = h.app.loops.price_alerts.tick().await.expect("alerts").fired;
        m.due += fired;
        // The outbox's sender, once the window has passed (the server's loop does this every
        // second).
        h.clock.set(t.saturating_add(SignedDuration::from_secs(3)).expect("time"));
        h.app.loops.outbox.flush_due().await.expect("outbox");
    }
    assert_eq!(h.app.store.outbox().pending().await.expect("outbox"), 0, "nothing left waiting");
    let accepted = h.line.accepted_pushes();
    m.requests = accepted.len();
    m.pushed = accepted.iter().map(|p| cards_of(&p.body)).sum();
    m.held = missed_lines
        + usize::try_from(h.app.store.quota().held_count().await.expect("held")).unwrap_or(0);
    m.spent = h.line.quota_used();
    m.lost = m.due.saturating_sub(m.pushed + m.held);
    m
}

fn row(name: &str, m: &Month) -> String {
    format!(
        "| {name} | {} | {} | {} | {} | {} | {} |",
        m.due, m.requests, m.spent, m.pushed, m.held, m.lost
    )
}

#[tokio::test]
async fn a_family_month_costs_under_200_messages_with_nothing_lost() {
    let naive = month(false, false).await;
    let now = month(true, false).await;
    println!(
        "| month 1 | items due | push requests | messages spent | pushed | held for a reply | lost |"
    );
    println!("|---|---|---|---|---|---|---|");
    println!("{}", row("naive (all to the group)", &naive));
    println!("{}", row("now (200 a month)", &now));
    assert!(naive.spent > 300, "{naive:?}");
    assert!(now.spent < 200, "{now:?}");
    assert_eq!((now.lost, now.held), (0, 0), "{now:?}");
}

#[tokio::test]
async fn a_month_that_runs_out_warns_at_creation_and_loses_nothing() {
    let naive = month(false, true).await;
    let now = month(true, true).await;
    println!(
        "| month 2 (+ daily for everyone) | items due | push requests | messages spent | pushed | held for a reply | lost |"
    );
    println!("|---|---|---|---|---|---|---|");
    println!("{}", row("naive (all to the group)", &naive));
    println!("{}", row("now (200 a month)", &now));
    assert!(now.refused_at_creation, "the projection warns when it is created");
    assert!(now.spent <= 200, "{now:?}");
    assert!(now.held > 0, "{now:?}");
    assert_eq!(now.lost, 0, "{now:?}");
}
