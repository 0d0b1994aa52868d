//! The family page's changes. Each is the operation the chat itself uses, run with the session's
//! chat and member as its context: a card button (`/family/act`, through the button actions,
//! which act on their context's chat only), a tool (`list`, `digest`, `quiet_hours`, through the
//! registry: the same validation, caps and merging), or — for what the chat has no words for
//! (un-checking an item, renaming, pausing or resuming a reminder) — the store, scoped to the
//! session's chat. After a change the page is shown again (`303`) with what happened.

use std::sync::Arc;

use axum::Form;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::http::StatusCode;
use axum::http::header::LOCATION;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Peer, Refusal, Session, check_csrf, session};
use crate::contract::ErrorKind;
use crate::features::reminders::projection::occurrences_between;
use crate::line::postback::Postback;
use crate::line::webhook::Picked;
use crate::platform::i18n::Lang;
use crate::server::app::Hearth;
use crate::tools::reminder::MAX_TEXT;

/// The card buttons the page offers; any other action is refused.
const PAGE_ACTIONS: &[&str] = &[
    "check_list_item",
    "cancel_reminder",
    "reminder_move",
    "cancel_price_alert",
    "mute_price_alert",
    "forget_memory",
    "forget_all_memories",
];

/// The page again, on `tab`, saying `said`.
fn back(app: &Hearth, session: &Session, tab: &str, said: &str) -> Response {
    app.page_flash.put(&session.hash, said);
    (StatusCode::SEE_OTHER, [(LOCATION, format!("/family?tab={tab}"))]).into_response()
}

/// A tool run from the page, as a sentence for the family.
async fn tool(
    app: &Hearth,
    session: &Session,
    name: &str,
    args: Value,
    done: (&str, &str),
) -> String {
    let ctx = session.ctx(app);
    let reply = app.turns.action_services.tools.dispatch(name, &args.to_string(), &ctx).await;
    let lang = session.row.lang;
    match reply.error {
        None => lang.pick(done.0, done.1).to_string(),
        Some(e) => failed(lang, e.kind).to_string(),
    }
}

/// What a refused change is called, for the family.
fn failed(lang: Lang, kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::InvalidArguments => lang.pick(
            "沒有改：內容不對（太長、格式不對或超過上限），請再檢查。",
            "Nothing changed: that was not valid (too long, the wrong format, or over a limit).",
        ),
        ErrorKind::NotFound => {
            lang.pick("找不到，可能已經被改掉了。", "Not found: it may have changed already.")
        }
        _ => lang.pick(
            "暫時無法完成，請稍後再試。",
            "That did not work right now; please try again later.",
        ),
    }
}

/// A card button pressed on the page.
#[derive(Deserialize)]
pub struct ActForm {
    csrf: String,
    action: String,
    id: String,
    /// What a date-time field sent (a reminder's new time), `YYYY-MM-DDTHH:MM`.
    picked: Option<String>,
    tab: Option<String>,
}

/// `POST /family/act`: a card button, carried out as a tap in the session's chat.
pub async fn act(
    State(app): State<Arc<Hearth>>,
    Extension(peer): Extension<Peer>,
    headers: HeaderMap,
    Form(form): Form<ActForm>,
) -> Result<Response, Refusal> {
    let session = session(&app, &headers, peer).await?;
    check_csrf(&session, &form.csrf)?;
    let tab = view_tab(form.tab.as_deref());
    if !PAGE_ACTIONS.contains(&form.action.as_str()) || form.id.len() > 64 {
        let lang = session.row.lang;
        return Ok(back(
            &app,
            &session,
            tab,
            lang.pick("這個按鈕不能在網頁上用。", "That button does not work here."),
        ));
    }
    let ctx = session.ctx(&app);
    let postback = Postback { action: form.action, id: form.id };
    let picked = form.picked.filter(|p| !p.is_empty()).map(Picked::DateTime);
    let turns = &app.turns;
    let answer = turns
        .actions
        .dispatch_picked(&turns.action_services, &ctx, &postback, picked.as_ref())
        .await;
    let said = if answer.text.is_empty() {
        session.row.lang.pick("好了。", "Done.").to_string()
    } else {
        answer.text
    };
    Ok(back(&app, &session, tab, &said))
}

/// A tab's name as the page knows it (anything else is the lists).
fn view_tab(tab: Option<&str>) -> &'static str {
    super::view::TABS.iter().map(|(name, _, _)| *name).find(|t| Some(*t) == tab).unwrap_or("lists")
}

/// A change to a list.
#[derive(Deserialize)]
pub struct ListForm {
    csrf: String,
    /// add, uncheck, remove, clear_checked.
    op: String,
    /// The list's name (none: the shopping list).
    list: Option<String>,
    /// The item's name (add, remove).
    item: Option<String>,
    /// How many (add).
    quantity: Option<String>,
    /// The item's id (uncheck).
    id: Option<i64>,
}

/// `POST /family/lists`: add, un-check, remove, clear the checked items.
pub async fn lists(
    State(app): State<Arc<Hearth>>,
    Extension(peer): Extension<Peer>,
    headers: HeaderMap,
    Form(form): Form<ListForm>,
) -> Result<Response, Refusal> {
    let session = session(&app, &headers, peer).await?;
    check_csrf(&session, &form.csrf)?;
    let lang = session.row.lang;
    let list = form.list.filter(|l| !l.trim().is_empty());
    let item = form.item.unwrap_or_default();
    let said = match form.op.as_str() {
        "add" => {
            let quantity = form.quantity.as_deref().and_then(|q| q.trim().parse::<i64>().ok());
            let args = json!({"action": "add", "list": list, "items": [{"name": item, "quantity": quantity}], "only_checked": null});
            tool(&app, &session, "list", args, ("已加入。", "Added.")).await
        }
        "remove" => {
            let args = json!({"action": "remove", "list": list, "items": [{"name": item, "quantity": null}], "only_checked": null});
            tool(&app, &session, "list", args, ("已移除。", "Removed.")).await
        }
        "clear_checked" => {
            let args =
                json!({"action": "clear", "list": list, "items": null, "only_checked": true});
            tool(&app, &session, "list", args, ("已清掉買好的。", "Checked items cleared.")).await
        }
        "uncheck" => {
            let id = form.id.unwrap_or(0);
            match app.store.uncheck_list_item(&session.row.conversation_id, id).await {
                Ok(true) => lang.pick("已放回清單。", "Back on the list.").to_string(),
                Ok(false) => failed(lang, ErrorKind::NotFound).to_string(),
                Err(e) => {
                    tracing::error!(error = %e, "family page: could not un-check an item");
                    failed(lang, ErrorKind::Internal).to_string()
                }
            }
        }
        _ => failed(lang, ErrorKind::InvalidArguments).to_string(),
    };
    Ok(back(&app, &session, "lists", &said))
}

/// A change to a reminder the chat has no words for.
#[derive(Deserialize)]
pub struct ReminderForm {
    csrf: String,
    /// text, pause, resume.
    op: String,
    id: i64,
    text: Option<String>,
}

/// `POST /family/reminders`: change a reminder's text, pause it, resume it.
pub async fn reminders(
    State(app): State<Arc<Hearth>>,
    Extension(peer): Extension<Peer>,
    headers: HeaderMap,
    Form(form): Form<ReminderForm>,
) -> Result<Response, Refusal> {
    let session = session(&app, &headers, peer).await?;
    check_csrf(&session, &form.csrf)?;
    let lang = session.row.lang;
    let chat = session.row.conversation_id.clone();
    let store = &app.store;
    let result = match form.op.as_str() {
        "text" => {
            let text = form.text.unwrap_or_default();
            let text = text.trim();
            if text.is_empty() || crate::platform::text::grapheme_len(text) > MAX_TEXT {
                Ok(None)
            } else {
                store
                    .rename_reminder(&chat, form.id, text)
                    .await
                    .map(|ok| ok.then_some(("已改好內容。", "Text changed.")))
            }
        }
        "pause" => store
            .pause_reminder(&chat, form.id)
            .await
            .map(|ok| ok.then_some(("已暫停。", "Paused."))),
        "resume" => {
            resume(&app, &chat, form.id).await.map(|ok| ok.then_some(("已恢復。", "Resumed.")))
        }
        _ => Ok(None),
    };
    let said = match result {
        Ok(Some(done)) => lang.pick(done.0, done.1).to_string(),
        Ok(None) => failed(lang, ErrorKind::InvalidArguments).to_string(),
        Err(e) => {
            tracing::error!(error = %e, "family page: could not change a reminder");
            failed(lang, ErrorKind::Internal).to_string()
        }
    };
    app.reminder_nudge.notify_one();
    Ok(back(&app, &session, "reminders", &said))
}

/// Resumes a paused reminder at its next occurrence from now; false when it has none.
async fn resume(app: &Hearth, chat: &str, id: i64) -> Result<bool, crate::store::StoreError> {
    let Some(row) = app.store.reminder(chat, id).await? else { return Ok(false) };
    let calendar = &app.turns.action_services.work_calendar;
    let Some(schedule) = row.schedule(calendar) else { return Ok(false) };
    let now = app.clock.now();
    let horizon = now.saturating_add(jiff::SignedDuration::from_hours(24 * 800)).unwrap_or(now);
    let next = match row.next_fire_at.and_then(|at| jiff::Timestamp::from_millisecond(at).ok()) {
        Some(at) if at > now => Some(at),
        _ => occurrences_between(&schedule, now, horizon).into_iter().find(|at| *at > now),
    };
    match next {
        Some(at) => app.store.resume_reminder(chat, id, at.as_millisecond()).await,
        None => Ok(false),
    }
}

/// A change of the chat's settings.
#[derive(Deserialize)]
pub struct SettingsForm {
    csrf: String,
    /// digest, digest_off, quiet, quiet_off.
    op: String,
    time: Option<String>,
    place: Option<String>,
    only_when_something: Option<String>,
    start: Option<String>,
    end: Option<String>,
}

/// `POST /family/settings`: the daily digest and quiet hours, through their tools.
pub async fn settings(
    State(app): State<Arc<Hearth>>,
    Extension(peer): Extension<Peer>,
    headers: HeaderMap,
    Form(form): Form<SettingsForm>,
) -> Result<Response, Refusal> {
    let session = session(&app, &headers, peer).await?;
    check_csrf(&session, &form.csrf)?;
    let given = |v: Option<String>| v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    let said = match form.op.as_str() {
        "digest" => {
            let only = form.only_when_something.is_some();
            let args = json!({"time": given(form.time), "place": given(form.place), "only_when_something": only, "off": null});
            tool(&app, &session, "digest", args, ("每日摘要已設定。", "The daily digest is set."))
                .await
        }
        "digest_off" => {
            let args =
                json!({"time": null, "place": null, "only_when_something": null, "off": true});
            tool(&app, &session, "digest", args, ("每日摘要已停止。", "The daily digest is off."))
                .await
        }
        "quiet" => {
            let args = json!({"start": given(form.start), "end": given(form.end), "off": null});
            tool(&app, &session, "quiet_hours", args, ("勿擾時段已設定。", "Quiet hours are set."))
                .await
        }
        "quiet_off" => {
            let args = json!({"start": null, "end": null, "off": true});
            tool(&app, &session, "quiet_hours", args, ("勿擾時段已取消。", "Quiet hours are off."))
                .await
        }
        _ => failed(session.row.lang, ErrorKind::InvalidArguments).to_string(),
    };
    Ok(back(&app, &session, "settings", &said))
}
