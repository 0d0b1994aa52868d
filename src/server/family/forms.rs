//! The family page's changes. Each is the operation the chat itself uses, run with the session's
//! chat and member as its context, so it is recorded as done by that member: a card button
//! (`/family/act`, through the button actions, which act on their context's chat only) or the
//! capability's own typed operation — the lists' (`features::lists::ops`), the
//! reminders' (`features::reminders::ops`), the digest's and quiet hours' settings — with
//! the same validation, caps and merging as a tool call. None is reached by a tool's name or
//! around its capability. After a change the page is shown again (`303`) with what happened.

use std::sync::Arc;

use axum::Form;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Deserialize;

use super::{Peer, Refusal, Session, back, check_csrf, failed, session};
use crate::contract::{ErrorKind, ToolError};
use crate::features::digest::ops::setting::DigestRequest;
use crate::features::lists::ListName;
use crate::features::lists::ops::{AddItems, EmptyList, Lists, NamedItems};
use crate::features::lists::plan::wanted_items;
use crate::features::reminders::ops::{Changed, Reminders};
use crate::line::postback::Postback;
use crate::line::webhook::Picked;
use crate::push::quiet::setting::QuietSetting;
use crate::server::app::Hearth;

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
    let ctx = session.ctx(&app).await;
    let postback = Postback { action: form.action, id: form.id };
    let picked = form.picked.filter(|p| !p.is_empty()).map(Picked::DateTime);
    let turns = &app.turns;
    let answer = turns.actions.dispatch_picked(&turns.deps, &ctx, &postback, picked.as_ref()).await;
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
    let said = match list_change(&app, &session, form).await {
        Ok(done) => lang.pick(done.0, done.1).to_string(),
        Err(kind) => failed(lang, kind).to_string(),
    };
    Ok(back(&app, &session, "lists", &said))
}

/// Carries out a change of the lists form through the lists' own operations, as the session's
/// member: what happened, in both languages, or why nothing did.
async fn list_change(
    app: &Hearth,
    session: &Session,
    form: ListForm,
) -> Result<(&'static str, &'static str), ErrorKind> {
    let ctx = session.ctx(app).await;
    let lists = Lists::from_deps(&app.turns.deps);
    let refused = |e: ToolError| e.kind();
    let list = ListName::parse(form.list.as_deref()).map_err(|e| refused(e.into()))?;
    let named = |quantity: Option<i64>| {
        let item = form.item.clone().unwrap_or_default();
        wanted_items([(item, quantity)]).map_err(|e| refused(e.into()))
    };
    match form.op.as_str() {
        "add" => {
            let quantity = form.quantity.as_deref().and_then(|q| q.trim().parse::<i64>().ok());
            let items = named(quantity)?;
            lists.add(&ctx, AddItems { list, items }).await.map_err(refused)?;
            Ok(("已加入。", "Added."))
        }
        "remove" => {
            let words = named(None)?;
            let removed = lists.remove(&ctx, NamedItems { list, words }).await.map_err(refused)?;
            if removed.removed.is_empty() {
                return Err(ErrorKind::NotFound);
            }
            Ok(("已移除。", "Removed."))
        }
        "clear_checked" => {
            let only_checked = true;
            lists.empty(&ctx, EmptyList { list, only_checked }).await.map_err(refused)?;
            Ok(("已清掉買好的。", "Checked items cleared."))
        }
        "uncheck" => match lists.uncheck_item(&ctx, form.id.unwrap_or(0)).await {
            Ok(true) => Ok(("已放回清單。", "Back on the list.")),
            Ok(false) => Err(ErrorKind::NotFound),
            Err(e) => {
                tracing::error!(error = %e, "family page: could not un-check an item");
                Err(ErrorKind::Internal)
            }
        },
        _ => Err(ErrorKind::InvalidArguments),
    }
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
    let ctx = session.ctx(&app).await;
    let reminders = Reminders::from_deps(&app.turns.deps);
    let (result, done) = match form.op.as_str() {
        "text" => {
            let text = form.text.unwrap_or_default();
            (reminders.rename(&ctx, form.id, &text).await, ("已改好內容。", "Text changed."))
        }
        "pause" => (reminders.pause(&ctx, form.id).await, ("已暫停。", "Paused.")),
        "resume" => (reminders.resume(&ctx, form.id).await, ("已恢復。", "Resumed.")),
        _ => (Ok(Changed::Refused), ("", "")),
    };
    let said = match result {
        Ok(Changed::Done) => lang.pick(done.0, done.1).to_string(),
        Ok(Changed::NotFound) => failed(lang, ErrorKind::NotFound).to_string(),
        Ok(Changed::Refused) => failed(lang, ErrorKind::InvalidArguments).to_string(),
        Err(e) => {
            tracing::error!(error = %e, "family page: could not change a reminder");
            failed(lang, ErrorKind::Internal).to_string()
        }
    };
    Ok(back(&app, &session, "reminders", &said))
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
    let lang = session.row.lang;
    let said = match settings_change(&app, &session, form).await {
        Ok(done) => lang.pick(done.0, done.1).to_string(),
        Err(kind) => failed(lang, kind).to_string(),
    };
    Ok(back(&app, &session, "settings", &said))
}

/// Carries out a change of the settings form through the digest's and quiet hours' own
/// operations, as the session's member: what happened, in both languages, or why nothing did.
async fn settings_change(
    app: &Hearth,
    session: &Session,
    form: SettingsForm,
) -> Result<(&'static str, &'static str), ErrorKind> {
    let ctx = session.ctx(app).await;
    let given = |v: Option<String>| v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    let refused = |e: ToolError| e.kind();
    let quiet = QuietSetting::new(app.store.clone());
    let digest = app.loops.digests.setting();
    match form.op.as_str() {
        "digest" => {
            let request = DigestRequest {
                time: given(form.time),
                place: given(form.place),
                only_when_something: Some(form.only_when_something.is_some()),
            };
            digest.set(&ctx, request).await.map_err(refused)?;
            Ok(("每日摘要已設定。", "The daily digest is set."))
        }
        "digest_off" => {
            digest.stop(&ctx).await.map_err(refused)?;
            Ok(("每日摘要已停止。", "The daily digest is off."))
        }
        "quiet" => {
            let (start, end) = (given(form.start), given(form.end));
            quiet.set(&ctx, start.as_deref(), end.as_deref()).await.map_err(refused)?;
            Ok(("勿擾時段已設定。", "Quiet hours are set."))
        }
        "quiet_off" => {
            quiet.end(&ctx).await.map_err(refused)?;
            Ok(("勿擾時段已取消。", "Quiet hours are off."))
        }
        _ => Err(ErrorKind::InvalidArguments),
    }
}
