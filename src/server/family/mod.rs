//! The family page: everything hearth keeps for one chat, on a page opened from LINE, made for a
//! phone in LINE's in-app browser and safe to leave on the internet.
//!
//! - **Getting in.** `GET /family/open?t=…` takes a one-time link minted by the 🏠 button
//!   ([`crate::features::family_page`]) when the member's own navigation brought it; one another
//!   site's page started shows a button instead, whose `POST` that site cannot send
//!   ([`origin::opens_at_once`]: no login CSRF). Unknown, used or expired links, and links minted for
//!   the LIFF app (which open only through LINE's ID-token sign-in, [`liff`]), are refused
//!   alike. It opens a session — a random token in an `HttpOnly; Secure; SameSite=Lax` cookie, kept in the
//!   store only as its SHA-256 — for that member in that chat, for 30 days. Every other route
//!   reads the session and acts on its chat only: no route takes a chat id from the request.
//! - **The door.** Every request with a session, every link opened and every LIFF sign-in asks
//!   the door ([`crate::door`]) whether that member may still see and change that chat: a chat
//!   revoked, or a member who left the group, is refused (and the session ended) at once.
//! - **Changing things.** Every change is a `POST` carrying the session's CSRF token (compared in
//!   constant time), refused when the browser says it came from another site ([`origin`]);
//!   with `SameSite=Lax` a cross-site form cannot carry the cookie either. A change is the very
//!   operation the chat uses: each capability's own operations (the lists, the reminders, the
//!   calendar, the digest and quiet hours), and the card buttons through the button actions,
//!   with the session's chat and member as their context ([`forms`], [`calendar`]).
//! - **Bounded.** Bodies are capped at [`MAX_FORM_BYTES`]; each session has a rate limit, and
//!   requests without one a limit per address of their own, so strangers cannot spend the
//!   family's ([`crate::server::page_state`]); every answer carries a Content-Security-Policy
//!   without scripts (the page needs none), `nosniff`, `no-referrer`, `no-store` and
//!   `frame-ancestors 'none'`. Pages are drawn by compile-time templates (`maud`), which escape
//!   everything they print ([`view`]); they show names, never LINE user ids or tokens.

mod calendar;
mod forms;
mod liff;
mod origin;
mod view;

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Query, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, COOKIE, LOCATION, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use crate::contract::{ErrorKind, ToolCtx};
use crate::features::family_page::{SESSION_TTL, Sessions, new_token, token_hash};
use crate::features::memory::ops::MemoryOps;
use crate::platform::conversation::Conversation;
use crate::platform::i18n::Lang;
use crate::server::app::Hearth;
pub use crate::server::page_state::Peer;
use crate::store::{LinkDoor, WebSession};

/// The session cookie.
const COOKIE_NAME: &str = "hearth_family";
/// The largest form accepted.
pub const MAX_FORM_BYTES: usize = 8 * 1024;
/// The policy every answer carries: no scripts at all, styles and images from this server.
const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// The family page's routes (`app`: whose page state the check of every change's origin reads).
pub fn routes(app: &Arc<Hearth>) -> Router<Arc<Hearth>> {
    Router::new()
        .route("/family", get(view::page))
        .route("/family/open", get(open).post(open_tapped))
        .route("/family/act", post(forms::act))
        .route("/family/lists", post(forms::lists))
        .route("/family/reminders", post(forms::reminders))
        .route("/family/settings", post(forms::settings))
        .route("/family/calendar", post(calendar::change))
        .route("/family/logout", post(logout))
        .route("/family/style.css", get(style))
        .route("/family/liff", get(liff::page).post(liff::sign_in))
        .route("/family/liff.js", get(liff::script))
        .layer(axum::middleware::from_fn_with_state(app.page.clone(), origin::check))
        .layer(DefaultBodyLimit::max(MAX_FORM_BYTES))
        .layer(axum::middleware::map_response(protect))
}

/// Adds the page's security headers to every answer.
async fn protect(mut response: Response) -> Response {
    let headers = response.headers_mut();
    // The LIFF page sets a policy of its own (LINE's script).
    headers.entry("content-security-policy").or_insert(HeaderValue::from_static(CSP));
    for (name, value) in [
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
        ("x-frame-options", "DENY"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    headers.entry(CACHE_CONTROL).or_insert(HeaderValue::from_static("no-store"));
    response
}

async fn style() -> Response {
    (
        [(CONTENT_TYPE, "text/css; charset=utf-8"), (CACHE_CONTROL, "public, max-age=3600")],
        include_str!("../../../assets/family.css"),
    )
        .into_response()
}

/// The page again, on `tab`, saying `said`.
pub(super) fn back(app: &Hearth, session: &Session, tab: &str, said: &str) -> Response {
    app.page.flash.put(&session.hash, said);
    (StatusCode::SEE_OTHER, [(LOCATION, format!("/family?tab={tab}"))]).into_response()
}

/// What a refused change is called, for the family.
pub(super) fn failed(lang: Lang, kind: ErrorKind) -> &'static str {
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

/// A request's session: whose, for which chat, and what a tool or button sees as its context.
pub struct Session {
    /// The stored session.
    pub row: WebSession,
    /// Its token's hash.
    pub hash: String,
}

impl Session {
    /// The context of everything done from the page: the session's chat and member, named as the
    /// chat last knew them, so a change made here reads as theirs in the chat (「爸爸勾掉了…」).
    pub async fn ctx(&self, app: &Hearth) -> ToolCtx {
        let (chat, member) = (&self.row.conversation_id, &self.row.user_id);
        let names = MemoryOps::from_deps(&app.turns.deps);
        let display_name = match names.member_name(chat, member).await {
            Ok(name) => name.map(|(name, _)| name),
            Err(e) => {
                tracing::warn!(error = %e, "family page: the member's name is unavailable");
                None
            }
        };
        ToolCtx {
            conversation: Conversation::from_id(chat),
            user_id: Some(member.clone()),
            display_name,
            tz: app.tz.clone(),
            lang: self.row.lang,
            clock: app.clock.clone(),
            surface: crate::contract::Surface::Page,
        }
    }
}

/// Why a request was not served.
pub enum Refusal {
    /// No session, or one that ended or expired.
    NoSession,
    /// Too many requests.
    TooMany,
    /// A change without the session's CSRF token.
    Forged,
    /// A link opened (in LINE) by someone it was not minted for.
    NotYours,
    /// The door is closed: the chat is no longer served, or the member left it.
    Closed,
    /// The store failed.
    Unavailable,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let (status, zh, en) = match self {
            Refusal::NoSession => (
                StatusCode::UNAUTHORIZED,
                "請從 LINE 卡片上的「🏠 在網頁上打開」按鈕進來（連結 10 分鐘內有效、只能用一次）。",
                "Open this page from the 「🏠 Open the page」 button on a card in LINE (a link works once, within 10 minutes).",
            ),
            Refusal::NotYours => (
                StatusCode::FORBIDDEN,
                "這個連結是給別人的。請在你的 LINE 裡按「🏠 在網頁上打開」拿你自己的連結。",
                "This link was made for someone else. Tap 「🏠 Open the page」 in your own LINE for yours.",
            ),
            Refusal::Closed => (
                StatusCode::FORBIDDEN,
                "這個家庭網頁已經關閉了：你已經不在這個群組，或這個聊天室已停用。",
                "This family page is closed: you are no longer in this group, or hearth no longer serves this chat.",
            ),
            Refusal::TooMany => (
                StatusCode::TOO_MANY_REQUESTS,
                "太快了，請稍等一下再試。",
                "Too fast: please wait a moment.",
            ),
            Refusal::Forged => (
                StatusCode::FORBIDDEN,
                "這個操作沒有通過檢查，什麼都沒有改。請重新整理頁面再試。",
                "This change did not pass the check, so nothing changed. Reload the page and try again.",
            ),
            Refusal::Unavailable => (
                StatusCode::SERVICE_UNAVAILABLE,
                "暫時無法使用，請稍後再試。",
                "Not available right now; please try again later.",
            ),
        };
        (status, view::notice(zh, en)).into_response()
    }
}

/// The session token in the request's cookies, if any.
fn session_token(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE_NAME)
        .map(|(_, value)| value.to_string())
        .filter(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The request's session, within the rate limits: a request whose cookie names an open session
/// counts in that session's bucket only; any other (no cookie, a cookie naming no session) in
/// its address's bucket ([`crate::server::page_state`]), so a stranger never spends a session's.
pub async fn session(app: &Hearth, headers: &HeaderMap, peer: Peer) -> Result<Session, Refusal> {
    let limits = &app.page.limits;
    let anonymous = || match limits.anonymous_allows(peer, headers) {
        true => Refusal::NoSession,
        false => Refusal::TooMany,
    };
    let token = session_token(headers).ok_or_else(anonymous)?;
    let hash = token_hash(&token);
    let now = app.clock.now().as_millisecond();
    let sessions = Sessions::from_deps(&app.turns.deps);
    let row = match sessions.get(&hash, now).await {
        Ok(Some(row)) if limits.session_allows(&hash) => row,
        Ok(Some(_)) => return Err(Refusal::TooMany),
        Ok(None) => return Err(anonymous()),
        Err(e) => {
            tracing::error!(error = %e, "family page: could not read a session");
            return Err(Refusal::Unavailable);
        }
    };
    if let Err(refusal) = through_the_door(app, &row.conversation_id, &row.user_id).await {
        // A session the door no longer lets through is over.
        if let Err(e) = sessions.end(&hash).await {
            tracing::warn!(error = %e, "family page: could not end a closed session");
        }
        return Err(refusal);
    }
    Ok(Session { row, hash })
}

/// Asks the door ([`crate::door`]) whether `user_id` may see and change the chat
/// `conversation_id` now: every read, form, link and sign-in of the page does.
pub async fn through_the_door(
    app: &Hearth,
    conversation_id: &str,
    user_id: &str,
) -> Result<(), Refusal> {
    match app.door().member(conversation_id, user_id).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(closed)) => {
            tracing::info!(reason = closed.reason(), "family page: the door is closed");
            crate::platform::metrics::page_refused(closed.reason());
            Err(Refusal::Closed)
        }
        Err(e) => {
            tracing::error!(error = %e, "family page: could not ask the door");
            Err(Refusal::Unavailable)
        }
    }
}

/// Checks a form's CSRF token against the session's, in constant time.
pub fn check_csrf(session: &Session, given: &str) -> Result<(), Refusal> {
    use subtle::ConstantTimeEq;
    let expected = session.row.csrf.as_bytes();
    if bool::from(expected.ct_eq(given.as_bytes())) { Ok(()) } else { Err(Refusal::Forged) }
}

#[derive(Deserialize)]
struct OpenQuery {
    t: Option<String>,
}

/// `GET /family/open?t=…`: takes the one-time link and opens a session — at once when the
/// member's own navigation brought it ([`origin::opens_at_once`]); a navigation another site
/// started gets a button to tap instead (`POST`, [`open_tapped`]), the link left unused.
async fn open(
    State(app): State<Arc<Hearth>>,
    axum::Extension(peer): axum::Extension<Peer>,
    headers: HeaderMap,
    Query(query): Query<OpenQuery>,
) -> Result<Response, Refusal> {
    let token = link_token(&app, peer, &headers, query.t)?;
    let site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    if !origin::opens_at_once(site) {
        return Ok(view::open_button(&token).into_response());
    }
    take_link(&app, &token).await
}

/// `POST /family/open`: the button of [`open`]'s page tapped (refused from another site's page
/// by [`origin::check`]): takes the link and opens a session.
async fn open_tapped(
    State(app): State<Arc<Hearth>>,
    axum::Extension(peer): axum::Extension<Peer>,
    headers: HeaderMap,
    axum::Form(query): axum::Form<OpenQuery>,
) -> Result<Response, Refusal> {
    let token = link_token(&app, peer, &headers, query.t)?;
    take_link(&app, &token).await
}

/// The one-time link's token a request brings, once the page's limit for requests without a
/// session allows it: refused when it has none of the right shape.
fn link_token(
    app: &Hearth,
    peer: Peer,
    headers: &HeaderMap,
    token: Option<String>,
) -> Result<String, Refusal> {
    if !app.page.limits.anonymous_allows(peer, headers) {
        return Err(Refusal::TooMany);
    }
    token.filter(|t| t.len() == 64).ok_or(Refusal::NoSession)
}

/// Takes the one-time link of `token` and opens a session for its member.
async fn take_link(app: &Hearth, token: &str) -> Result<Response, Refusal> {
    let now = app.clock.now();
    let hash = token_hash(token);
    let member = match Sessions::from_deps(&app.turns.deps)
        .take_link(&hash, LinkDoor::Plain, now.as_millisecond())
        .await
    {
        Ok(Some(member)) => member,
        Ok(None) => return Err(Refusal::NoSession),
        Err(e) => {
            tracing::error!(error = %e, "family page: could not take a link");
            return Err(Refusal::Unavailable);
        }
    };
    through_the_door(app, &member.conversation_id, &member.user_id).await?;
    start_session(app, &member).await
}

/// Opens a session for `member`: its cookie, and on to the page.
async fn start_session(
    app: &Hearth,
    member: &crate::store::WebMember,
) -> Result<Response, Refusal> {
    let now = app.clock.now();
    let session = new_token();
    let csrf = new_token();
    let expires = now.saturating_add(SESSION_TTL).unwrap_or(now);
    let opened = Sessions::from_deps(&app.turns.deps)
        .open(&token_hash(&session), member, &csrf, now.as_millisecond(), expires.as_millisecond())
        .await;
    if let Err(e) = opened {
        tracing::error!(error = %e, "family page: could not open a session");
        return Err(Refusal::Unavailable);
    }
    let cookie = format!(
        "{COOKIE_NAME}={session}; Path=/family; Max-Age={}; HttpOnly; Secure; SameSite=Lax",
        SESSION_TTL.as_secs()
    );
    Ok((StatusCode::SEE_OTHER, [(SET_COOKIE, cookie), (LOCATION, "/family".to_string())])
        .into_response())
}

#[derive(Deserialize)]
struct LogoutForm {
    csrf: String,
}

/// `POST /family/logout`: ends this session.
async fn logout(
    State(app): State<Arc<Hearth>>,
    axum::Extension(peer): axum::Extension<Peer>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<LogoutForm>,
) -> Result<Response, Refusal> {
    let session = session(&app, &headers, peer).await?;
    check_csrf(&session, &form.csrf)?;
    if let Err(e) = Sessions::from_deps(&app.turns.deps).end(&session.hash).await {
        tracing::error!(error = %e, "family page: could not end a session");
        return Err(Refusal::Unavailable);
    }
    let gone = format!("{COOKIE_NAME}=; Path=/family; Max-Age=0; HttpOnly; Secure; SameSite=Lax");
    let lang = session.row.lang;
    Ok((
        [(SET_COOKIE, gone)],
        view::notice_in(
            lang,
            "已登出。要再打開，請按 LINE 卡片上的「🏠 在網頁上打開」。",
            "Signed out. To open the page again, tap 「🏠 Open the page」 on a card in LINE.",
        ),
    )
        .into_response())
}
