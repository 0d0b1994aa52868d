//! The family page's views, drawn by compile-time templates (`maud` escapes all it prints): one
//! tab each for the lists, the calendar (its own module), the reminders (the next 14 days as an agenda, lunar and workday
//! repetitions expanded to their dates), the price alerts (with the day's chart and the level),
//! the memories, the chat's settings, this month's messages and the chat's latest changes (who
//! did what, from where). Large type, no script: every
//! button is a form that posts with the session's CSRF token.

use std::sync::Arc;

use axum::extract::{Extension, Query, State};
use axum::http::HeaderMap;
use axum::response::{Html, IntoResponse, Response};
use jiff::{SignedDuration, Timestamp};
use maud::{DOCTYPE, Markup, html};
use serde::Deserialize;

use super::{Peer, Refusal, Session, session};
use crate::contract::chart::{ChartSpec, Period};
use crate::features::button::encode;
use crate::features::lists::ops::Lists;
use crate::features::lists::view::CheckListItem;
use crate::features::memory::actions::{ForgetAllMemories, ForgetMemory};
use crate::features::memory::ops::MemoryOps;
use crate::features::price_alerts::actions::{CancelPriceAlert, MutePriceAlert};
use crate::features::price_alerts::ops::PriceAlertOps;
use crate::features::reminders::actions::CancelReminder;
use crate::features::reminders::describe::{local_time, repetition};
use crate::features::reminders::ops::Reminders;
use crate::features::reminders::ops::month_ahead::month_ahead;
use crate::features::reminders::ops::projection::{self, occurrences_between};
use crate::features::reminders::picker::MoveReminder;
use crate::platform::format::short_date;
use crate::platform::i18n::Lang;
use crate::push::quiet::setting::QuietSetting;
use crate::server::app::Hearth;
use crate::store::{Frequency, ReminderStatus, StoreError};

/// The tabs: name, Chinese and English titles.
pub const TABS: &[(&str, &str, &str)] = &[
    ("lists", "🛒 清單", "🛒 Lists"),
    ("calendar", "📅 行事曆", "📅 Calendar"),
    ("reminders", "⏰ 提醒", "⏰ Reminders"),
    ("alerts", "📈 價格通知", "📈 Price alerts"),
    ("memories", "🧠 記憶", "🧠 Memories"),
    ("settings", "⚙️ 設定", "⚙️ Settings"),
    ("quota", "✉️ 訊息額度", "✉️ Messages"),
    ("changes", "📝 動態", "📝 Changes"),
];

/// One occurrence on the agenda: its local time, the reminder's text and who it is for.
type Due<'a> = (String, &'a str, Option<&'a str>);

/// How far ahead the agenda reaches.
const AGENDA: SignedDuration = SignedDuration::from_hours(14 * 24);

/// What `GET /family` is asked.
#[derive(Deserialize)]
pub struct PageQuery {
    tab: Option<String>,
    confirm: Option<String>,
    /// The calendar's month, "YYYY-MM".
    month: Option<String>,
}

/// A page of its own: a notice (signed out, refused), in both languages.
pub fn notice(zh: &str, en: &str) -> Html<String> {
    Html(
        layout(Lang::ZhTw, "hearth", html! { p.notice { (zh) } p.notice.en { (en) } })
            .into_string(),
    )
}

/// The page of a link another site's page navigated to: one button that opens it (a `POST`
/// only hearth's own page can send), in both languages.
pub fn open_button(token: &str) -> Html<String> {
    Html(
        layout(
            Lang::ZhTw,
            "hearth",
            html! {
                p.notice { "按下面的按鈕，打開家庭網頁。" }
                p.notice.en { "Tap the button to open the family page." }
                form method="post" action="/family/open" {
                    input type="hidden" name="t" value=(token);
                    button type="submit" { "🏠 打開家庭網頁 · Open" }
                }
            },
        )
        .into_string(),
    )
}

/// A notice in `lang`.
pub fn notice_in(lang: Lang, zh: &str, en: &str) -> Html<String> {
    Html(layout(lang, "hearth", html! { p.notice { (lang.pick(zh, en)) } }).into_string())
}

fn layout(lang: Lang, title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang=(lang.pick("zh-Hant-TW", "en")) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="no-referrer";
                title { (title) }
                link rel="stylesheet" href="/family/style.css";
            }
            body { main { (body) } }
        }
    }
}

/// `GET /family`: the tab asked for (the lists by default).
pub async fn page(
    State(app): State<Arc<Hearth>>,
    Extension(peer): Extension<Peer>,
    headers: HeaderMap,
    Query(query): Query<PageQuery>,
) -> Result<Response, Refusal> {
    let session = session(&app, &headers, peer).await?;
    let lang = session.row.lang;
    let tab =
        TABS.iter().find(|(name, _, _)| Some(*name) == query.tab.as_deref()).unwrap_or(&TABS[0]);
    let said = app.page.flash.take(&session.hash);
    let content = match tab.0 {
        "calendar" => Ok(super::calendar::tab(&app, &session, query.month.as_deref()).await),
        "reminders" => reminders(&app, &session).await,
        "alerts" => alerts(&app, &session).await,
        "memories" => memories(&app, &session, query.confirm.is_some()).await,
        "settings" => settings(&app, &session).await,
        "quota" => quota(&app, &session).await,
        "changes" => changes(&app, &session).await,
        _ => lists(&app, &session).await,
    };
    let content = content.map_err(|e| {
        tracing::error!(error = %e, "family page: could not read the chat");
        Refusal::Unavailable
    })?;
    let csrf = &session.row.csrf;
    let body = html! {
        header {
            h1 { (lang.pick("🏠 家庭網頁", "🏠 The family page")) }
            nav {
                @for (name, zh, en) in TABS {
                    a class=(if *name == tab.0 { "tab on" } else { "tab" }) href={ "/family?tab=" (name) } { (lang.pick(zh, en)) }
                }
            }
        }
        @if let Some(said) = said { p.said role="status" { (said) } }
        (content)
        footer {
            form method="post" action="/family/logout" {
                input type="hidden" name="csrf" value=(csrf);
                button.quiet type="submit" { (lang.pick("登出網頁", "Sign out")) }
            }
        }
    };
    Ok(Html(layout(lang, lang.pick(tab.1, tab.2), body).into_string()).into_response())
}

/// A form posting a card button's action for `id` (the button's own data), on `tab`.
fn act(csrf: &str, tab: &str, action: &str, id: &str, label: &str, class: &str) -> Markup {
    html! {
        form.inline method="post" action="/family/act" {
            input type="hidden" name="csrf" value=(csrf);
            input type="hidden" name="tab" value=(tab);
            input type="hidden" name="action" value=(action);
            input type="hidden" name="id" value=(id);
            button class=(class) type="submit" { (label) }
        }
    }
}

fn data<A: crate::features::button::Action>(action: &A) -> String {
    encode(action).unwrap_or_default()
}

async fn lists(app: &Hearth, s: &Session) -> Result<Markup, StoreError> {
    let (lang, chat, csrf) = (s.row.lang, &s.row.conversation_id, &s.row.csrf);
    let lists = Lists::from_deps(&app.turns.deps).every(chat).await?;
    let add_form = |list: Option<&str>| {
        html! {
            form.add method="post" action="/family/lists" {
                input type="hidden" name="csrf" value=(csrf);
                input type="hidden" name="op" value="add";
                @if let Some(list) = list { input type="hidden" name="list" value=(list); }
                @else { input type="text" name="list" placeholder=(lang.pick("清單名稱（空白是購物清單）", "List (empty: shopping)")) maxlength="40"; }
                input type="text" name="item" required maxlength="80" placeholder=(lang.pick("要加什麼？", "Add what?"));
                input.qty type="number" name="quantity" min="1" max="999" placeholder="1";
                button type="submit" { (lang.pick("加入", "Add")) }
            }
        }
    };
    Ok(html! {
        @if lists.is_empty() { p.empty { (lang.pick("還沒有清單。", "No lists yet.")) } }
        @for (list, items) in &lists {
            section.card {
                h2 {
                    @if list.key == crate::features::lists::SHOPPING { (lang.pick("🛒 購物清單", "🛒 Shopping list")) }
                    @else { "📝 " (list.name) }
                }
                ul.items {
                    @for item in items.iter().filter(|i| i.checked_at.is_none()) {
                        li {
                            span.name { (item.name) @if item.quantity > 1 { " ×" (item.quantity) } }
                            @if let Some(who) = &item.added_by_name { span.who { (who) } }
                            span.actions {
                                (act(csrf, "lists", "check_list_item", &data(&CheckListItem { list: list.id, item: item.id, lang }), "✓", "ok"))
                                (list_form(csrf, "remove", &list.name, &item.name, item.id, "🗑"))
                            }
                        }
                    }
                    @for item in items.iter().filter(|i| i.checked_at.is_some()) {
                        li.done {
                            span.name { (item.name) }
                            @if let Some(who) = &item.checked_by_name { span.who { "✓ " (who) } }
                            span.actions {
                                (list_form(csrf, "uncheck", &list.name, &item.name, item.id, "↩"))
                                (list_form(csrf, "remove", &list.name, &item.name, item.id, "🗑"))
                            }
                        }
                    }
                }
                (add_form(Some(&list.name)))
                @if items.iter().any(|i| i.checked_at.is_some()) {
                    (list_form(csrf, "clear_checked", &list.name, "", 0, lang.pick("清掉買好的", "Clear checked")))
                }
            }
        }
        section.card {
            h2 { (lang.pick("加到清單", "Add to a list")) }
            (add_form(None))
        }
    })
}

fn list_form(csrf: &str, op: &str, list: &str, item: &str, id: i64, label: &str) -> Markup {
    html! {
        form.inline method="post" action="/family/lists" {
            input type="hidden" name="csrf" value=(csrf);
            input type="hidden" name="op" value=(op);
            input type="hidden" name="list" value=(list);
            input type="hidden" name="item" value=(item);
            input type="hidden" name="id" value=(id);
            button type="submit" { (label) }
        }
    }
}

async fn reminders(app: &Hearth, s: &Session) -> Result<Markup, StoreError> {
    let (lang, chat, csrf) = (s.row.lang, &s.row.conversation_id, &s.row.csrf);
    let now = app.clock.now();
    let until = now.saturating_add(AGENDA).unwrap_or(now);
    let calendar = &app.turns.deps.work_calendar;
    let rows: Vec<_> = Reminders::from_deps(&app.turns.deps)
        .rows(chat)
        .await?
        .into_iter()
        .filter(|r| matches!(r.status, ReminderStatus::Active | ReminderStatus::Paused))
        .collect();
    let mut agenda: Vec<(Timestamp, &str, Option<&str>)> = Vec::new();
    for row in rows.iter().filter(|r| r.status == ReminderStatus::Active) {
        if let Some(schedule) = row.schedule(calendar) {
            for at in occurrences_between(&schedule, now, until).into_iter().take(40) {
                agenda.push((at, &row.text, row.mention_name.as_deref()));
            }
        }
    }
    agenda.sort_by_key(|(at, _, _)| *at);
    let tz = &app.tz;
    let mut days: Vec<(String, Vec<Due<'_>>)> = Vec::new();
    for (at, text, who) in agenda {
        let local = at.to_zoned_datetime(tz.clone());
        let day = short_date(local.date(), lang);
        let time = local.strftime("%H:%M").to_string();
        match days.last_mut() {
            Some((d, items)) if *d == day => items.push((time, text, who)),
            _ => days.push((day, vec![(time, text, who)])),
        }
    }
    Ok(html! {
        section.card {
            h2 { (lang.pick("接下來 14 天", "The next 14 days")) }
            @if days.is_empty() { p.empty { (lang.pick("這 14 天沒有提醒。", "No reminders in the next 14 days.")) } }
            @for (day, items) in &days {
                h3 { (day) }
                ul.agenda {
                    @for (time, text, who) in items {
                        li { span.time { (time) } span.name { (text) } @if let Some(who) = who { span.who { "@" (who) } } }
                    }
                }
            }
        }
        @for row in &rows {
            section.card {
                h2 { (row.text) }
                @let schedule = row.schedule(calendar);
                p.sub {
                    @if let Some(rule) = schedule.as_ref().and_then(|s| repetition(s, lang)) { (rule) " · " }
                    @if let Some(at) = row.next_fire_at.and_then(|ms| Timestamp::from_millisecond(ms).ok()) {
                        (lang.pick("下次 ", "Next ")) (local_time(at, tz, lang))
                    }
                    @if let Some(who) = &row.mention_name { " · @" (who) }
                    @if row.status == ReminderStatus::Paused { " · " (lang.pick("已暫停", "paused")) }
                }
                form.add method="post" action="/family/act" {
                    input type="hidden" name="csrf" value=(csrf);
                    input type="hidden" name="tab" value="reminders";
                    input type="hidden" name="action" value="reminder_move";
                    input type="hidden" name="id" value=(data(&MoveReminder { id: row.id }));
                    label { (lang.pick("改時間", "New time")) " "
                        input type="datetime-local" name="picked" required;
                    }
                    button type="submit" { (lang.pick("📅 改時間", "📅 Move")) }
                }
                form.add method="post" action="/family/reminders" {
                    input type="hidden" name="csrf" value=(csrf);
                    input type="hidden" name="op" value="text";
                    input type="hidden" name="id" value=(row.id);
                    input type="text" name="text" value=(row.text) required maxlength="500";
                    button type="submit" { (lang.pick("改內容", "Rename")) }
                }
                div.row {
                    form.inline method="post" action="/family/reminders" {
                        input type="hidden" name="csrf" value=(csrf);
                        input type="hidden" name="id" value=(row.id);
                        @if row.status == ReminderStatus::Paused {
                            input type="hidden" name="op" value="resume";
                            button type="submit" { (lang.pick("▶️ 恢復", "▶️ Resume")) }
                        } @else {
                            input type="hidden" name="op" value="pause";
                            button type="submit" { (lang.pick("⏸ 暫停", "⏸ Pause")) }
                        }
                    }
                    (act(csrf, "reminders", "cancel_reminder", &data(&CancelReminder { id: row.id }), lang.pick("❌ 停止", "❌ Stop"), "danger"))
                }
            }
        }
    })
}

async fn alerts(app: &Hearth, s: &Session) -> Result<Markup, StoreError> {
    let (lang, chat, csrf) = (s.row.lang, &s.row.conversation_id, &s.row.csrf);
    let rows = PriceAlertOps::from_deps(&app.turns.deps).of_chat(chat).await?;
    let mut charts = Vec::new();
    for row in &rows {
        let spec = ChartSpec::Price {
            symbol: row.symbol.clone(),
            period: Period::Day,
            level: Some(row.level),
        };
        let url = match &app.published.charts {
            Some(charts) => charts.url(&spec, &app.tz).await,
            None => None,
        };
        charts.push(url.map(|u| same_origin_path(&u)));
    }
    Ok(html! {
        @if rows.is_empty() { p.empty { (lang.pick("沒有價格通知。", "No price alerts.")) } }
        @for (row, chart) in rows.iter().zip(&charts) {
            section.card {
                h2 { (app.page.securities.label(&row.symbol, row.name.as_deref(), lang)) }
                p.headline { (crate::features::price_alerts::describe::condition(row.direction, row.level, lang)) }
                p.sub { (crate::features::price_alerts::describe::frequency(row.frequency, row.cooldown_s, lang)) }
                @if let Some(src) = chart { img.chart src=(src) alt=(lang.pick("今日走勢與通知價位", "Today's price and the alert level")); }
                div.row {
                    (act(csrf, "alerts", "cancel_price_alert", &data(&CancelPriceAlert { id: row.id }), lang.pick("❌ 取消", "❌ Cancel"), "danger"))
                    @if row.frequency == Frequency::EveryTime {
                        (act(csrf, "alerts", "mute_price_alert", &data(&MutePriceAlert { id: row.id }), lang.pick("🔕 靜音 24 小時", "🔕 Mute 24 h"), ""))
                    }
                }
            }
        }
    })
}

/// The path of a chart's address (the page and the chart are served by the same server).
fn same_origin_path(url: &str) -> String {
    url.find("/charts/").map_or_else(|| url.to_string(), |i| url[i..].to_string())
}

async fn memories(app: &Hearth, s: &Session, confirm: bool) -> Result<Markup, StoreError> {
    let (lang, chat, csrf) = (s.row.lang, &s.row.conversation_id, &s.row.csrf);
    let rows = MemoryOps::from_deps(&app.turns.deps).of_chat(chat).await?;
    let up_to = rows.iter().map(|m| m.id).max().unwrap_or(0);
    Ok(html! {
        @if rows.is_empty() { p.empty { (lang.pick("我還沒有記住這個聊天室的事。", "Nothing remembered for this chat.")) } }
        @if !rows.is_empty() {
            section.card {
                h2 { (lang.pick("我記得的事", "What I remember")) }
                ul.items {
                    @for m in &rows {
                        li {
                            span.name { "#" (m.id) " " (m.text) }
                            @if let Some(who) = &m.speaker { span.who { (who) } }
                            span.actions { (act(csrf, "memories", "forget_memory", &data(&ForgetMemory { id: m.id }), "🗑", "")) }
                        }
                    }
                }
                @if confirm {
                    p.warn { (lang.pick("確定要忘記這個聊天室記得的所有事嗎？", "Forget everything remembered for this chat?")) }
                    div.row {
                        (act(csrf, "memories", "forget_all_memories", &data(&ForgetAllMemories { up_to_id: up_to }), lang.pick("確定全部忘記", "Yes, forget all"), "danger"))
                        a.button href="/family?tab=memories" { (lang.pick("取消", "Cancel")) }
                    }
                } @else {
                    a.button.danger href="/family?tab=memories&confirm=1" { (lang.pick("全部忘記…", "Forget all…")) }
                }
            }
        }
    })
}

async fn settings(app: &Hearth, s: &Session) -> Result<Markup, StoreError> {
    let (lang, chat, csrf) = (s.row.lang, &s.row.conversation_id, &s.row.csrf);
    let digest = app.loops.digests.setting().of_chat(chat).await?;
    let quiet = QuietSetting::new(app.store.clone()).of_chat(chat).await?;
    Ok(html! {
        section.card {
            h2 { (lang.pick("☀️ 每日摘要", "☀️ Daily digest")) }
            p.sub {
                @match &digest {
                    Some(d) => { (lang.pick("每天 ", "Every day at ")) (d.local_time) @if let Some(p) = &d.place { " · " (p) } @if d.only_when_something { " · " (lang.pick("有事才通知", "only with news")) } }
                    None => { (lang.pick("還沒設定。", "Not set.")) }
                }
            }
            form.add method="post" action="/family/settings" {
                input type="hidden" name="csrf" value=(csrf);
                input type="hidden" name="op" value="digest";
                label { (lang.pick("時間", "Time")) " " input type="time" name="time" value=(digest.as_ref().map_or("07:00", |d| d.local_time.as_str())) required; }
                label { (lang.pick("地點", "Place")) " " input type="text" name="place" maxlength="40" value=(digest.as_ref().and_then(|d| d.place.as_deref()).unwrap_or("")); }
                label.check { input type="checkbox" name="only_when_something" value="1" checked[digest.as_ref().is_some_and(|d| d.only_when_something)]; " " (lang.pick("有事才通知", "Only with news")) }
                button type="submit" { (lang.pick("儲存", "Save")) }
            }
            @if digest.is_some() { (setting_off(csrf, "digest_off", lang.pick("停止每日摘要", "Stop the digest"))) }
        }
        section.card {
            h2 { (lang.pick("🌙 勿擾時段", "🌙 Quiet hours")) }
            p.sub {
                @match &quiet {
                    Some(q) => { (q.start_local) "–" (q.end_local) }
                    None => { (lang.pick("還沒設定。", "Not set.")) }
                }
            }
            form.add method="post" action="/family/settings" {
                input type="hidden" name="csrf" value=(csrf);
                input type="hidden" name="op" value="quiet";
                label { (lang.pick("從", "From")) " " input type="time" name="start" value=(quiet.as_ref().map_or("22:00", |q| q.start_local.as_str())) required; }
                label { (lang.pick("到", "To")) " " input type="time" name="end" value=(quiet.as_ref().map_or("07:00", |q| q.end_local.as_str())) required; }
                button type="submit" { (lang.pick("儲存", "Save")) }
            }
            @if quiet.is_some() { (setting_off(csrf, "quiet_off", lang.pick("取消勿擾", "End quiet hours"))) }
        }
    })
}

fn setting_off(csrf: &str, op: &str, label: &str) -> Markup {
    html! {
        form.inline method="post" action="/family/settings" {
            input type="hidden" name="csrf" value=(csrf);
            input type="hidden" name="op" value=(op);
            button.danger type="submit" { (label) }
        }
    }
}

/// The chat's latest changes, newest first: who did what, from where, and when — from the
/// feed every verb records itself in.
async fn changes(app: &Hearth, s: &Session) -> Result<Markup, StoreError> {
    let lang = s.row.lang;
    let lines =
        crate::features::changes::recent(&app.store, &s.row.conversation_id, &app.tz, lang).await?;
    Ok(html! {
        section.card {
            h2 { (lang.pick("最近的變動", "Recent changes")) }
            @if lines.is_empty() {
                p.empty { (lang.pick("還沒有人改過東西。", "Nobody has changed anything yet.")) }
            } @else {
                ul.changes { @for line in &lines { li { (line) } } }
            }
        }
    })
}

async fn quota(app: &Hearth, s: &Session) -> Result<Markup, StoreError> {
    let lang = s.row.lang;
    let now = app.clock.now();
    let calendar = &app.turns.deps.work_calendar;
    let month = month_ahead(&app.quota, calendar, now).await;
    if let Err(e) = &month {
        tracing::warn!(error = %e, "family page: the month's quota is unavailable");
    }
    let unreadable = month.is_err();
    let (used, left, projected, limit) = match &month {
        Ok(m) => (m.used, m.left, m.projected, m.limit),
        Err(_) => (0, None, 0, None),
    };
    let end = app.quota.month().end(app.quota.tz());
    let chat = &s.row.conversation_id;
    let kinds = projection::by_kind(&app.quota, calendar, chat, now, end).await?;
    let here = (kinds.reminders + kinds.alerts + kinds.digest).max(1) as f64;
    let share = |n: i64| n as f64 / here * 100.0;
    let (r, a) = (share(kinds.reminders), share(kinds.alerts));
    let scale = limit.unwrap_or(projected.max(used)).max(1) as f64;
    let width = |n: i64| format!("{:.1}", (n as f64 / scale * 100.0).clamp(0.0, 100.0));
    Ok(html! {
        section.card {
            h2 { (lang.pick("這個月的訊息", "This month's messages")) }
            @if unreadable {
                p.warn { (lang.pick("暫時讀不到 LINE 的額度。", "LINE's quota cannot be read right now.")) }
            } @else {
                table.numbers {
                    tr { th { (lang.pick("已用", "Used")) } td { (used) } }
                    @if let Some(left) = left { tr { th { (lang.pick("剩下", "Left")) } td { (left) } } }
                    tr { th { (lang.pick("月底預估", "By month's end")) } td { (projected) } }
                    @if let Some(limit) = limit { tr { th { (lang.pick("每月上限", "Monthly limit")) } td { (limit) } } }
                }
                svg.bar viewBox="0 0 100 12" role="img" aria-label=(lang.pick("用量圖", "Usage chart")) {
                    rect x="0" y="0" width="100" height="12" fill="#e8e8e8" {}
                    rect x="0" y="0" width=(width(projected)) height="12" fill="#f4c27a" {}
                    rect x="0" y="0" width=(width(used)) height="12" fill="#2f7d4f" {}
                }
                p.sub { (lang.pick("綠色：已用；橘色：到月底預估。回覆不花額度，主動推播才算。", "Green: used; orange: projected by the month's end. Replies are free; pushes count.")) }
            }
        }
        section.card {
            h2 { (lang.pick("這個聊天室到月底還會用", "This chat, to the month's end")) }
            table.numbers {
                tr { th { "⏰ " (lang.pick("提醒", "Reminders")) } td { (kinds.reminders) } }
                tr { th { "📈 " (lang.pick("價格通知（預估）", "Price alerts (expected)")) } td { (kinds.alerts) } }
                tr { th { "☀️ " (lang.pick("每日摘要", "Daily digest")) } td { (kinds.digest) } }
            }
            svg.bar viewBox="0 0 100 12" role="img" aria-label=(lang.pick("各類用量", "By kind")) {
                rect x="0" y="0" width="100" height="12" fill="#e8e8e8" {}
                rect x="0" y="0" width=(format!("{r:.1}")) height="12" fill="#2f7d4f" {}
                rect x=(format!("{r:.1}")) y="0" width=(format!("{a:.1}")) height="12" fill="#c0392b" {}
                rect x=(format!("{:.1}", r + a)) y="0" width=(format!("{:.1}", share(kinds.digest))) height="12" fill="#f4c27a" {}
            }
            p.sub { (lang.pick("綠：提醒；紅：價格通知；橘：每日摘要（每則推播依聊天室人數計）。", "Green: reminders; red: price alerts; orange: the digest (each push counts once per member).")) }
        }
    })
}
