//! The family page as a LIFF app (`HEARTH_LIFF_ID`, its endpoint `HEARTH_PUBLIC_URL/family/liff`):
//! a minted link opens it inside LINE; LINE's SDK there gives the ID token of whoever opened it,
//! which is verified with LINE (`/oauth2/v2.1/verify`, for the LIFF app's LINE Login channel)
//! before the link counts: the token must be the member's the link was minted for. LINE no longer
//! tells LIFF apps which chat they were opened from, so the chat is still the link's. This page
//! alone runs script — LINE's SDK and `/family/liff.js`, both named in its policy, none inline.

use std::sync::Arc;

use axum::Form;
use axum::extract::{Extension, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use maud::{DOCTYPE, html};
use serde::Deserialize;

use super::{Peer, Refusal, start_session, through_the_door};
use crate::features::family_page::{Sessions, token_hash};
use crate::server::app::Hearth;
use crate::server::page_state::PageState;
use crate::store::LinkDoor;

/// LINE's LIFF SDK.
const SDK: &str = "https://static.line-scdn.net/liff/edge/2/sdk.js";
/// The LIFF page's policy: LINE's SDK and this server's script, nothing inline.
const CSP: &str = "default-src 'none'; script-src 'self' https://static.line-scdn.net; connect-src https://api.line.me https://access.line.me https://liffsdk.line-scdn.net; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// `GET /family/liff`: the LIFF app's page; it signs in with LINE's ID token (404 without
/// `HEARTH_LIFF_ID`).
pub async fn page(State(page): State<PageState>) -> Response {
    let Some(liff_id) = page.liff_id.as_deref() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let body = html! {
        (DOCTYPE)
        html lang="zh-Hant-TW" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "🏠 家庭網頁" }
                link rel="stylesheet" href="/family/style.css";
            }
            body data-liff-id=(liff_id) {
                main {
                    p.notice { "正在用 LINE 確認你的身分…" }
                    p.notice.en { "Checking who you are with LINE…" }
                    form #liff-form method="post" action="/family/liff" {
                        input type="hidden" name="t";
                        input type="hidden" name="id_token";
                    }
                    p #liff-failed .warn hidden { "LINE 沒有確認你的身分，請回到 LINE 再按一次「🏠 在網頁上打開」。" }
                    noscript { p.warn { "請在 LINE 裡打開這個連結。" } }
                }
                script src=(SDK) {}
                script src="/family/liff.js" {}
            }
        }
    };
    ([("content-security-policy", CSP)], Html(body.into_string())).into_response()
}

/// `GET /family/liff.js`: starts LIFF, then posts the link's token with LINE's ID token.
pub async fn script(State(page): State<PageState>) -> Response {
    if page.liff_id.is_none() {
        return StatusCode::NOT_FOUND.into_response();
    }
    (
        [(CONTENT_TYPE, "text/javascript; charset=utf-8"), (CACHE_CONTROL, "public, max-age=3600")],
        include_str!("../../../assets/family-liff.js"),
    )
        .into_response()
}

/// What the LIFF page posts.
#[derive(Deserialize)]
pub struct SignIn {
    /// The minted link's token.
    t: String,
    /// LINE's ID token of whoever opened it.
    id_token: String,
}

/// `POST /family/liff`: LINE's ID token verified, then the link taken; a session when the token
/// is the member's the link was minted for.
pub async fn sign_in(
    State(app): State<Arc<Hearth>>,
    Extension(peer): Extension<Peer>,
    headers: HeaderMap,
    Form(form): Form<SignIn>,
) -> Result<Response, Refusal> {
    let Some(liff_id) = app.page.liff_id.as_deref() else {
        return Ok(StatusCode::NOT_FOUND.into_response());
    };
    if !app.page.limits.anonymous_allows(peer, &headers) {
        return Err(Refusal::TooMany);
    }
    if form.t.len() != 64 || form.id_token.is_empty() || form.id_token.len() > 4096 {
        return Err(Refusal::NoSession);
    }
    // The LINE Login channel of a LIFF app is the number its ID starts with.
    let channel = liff_id.split('-').next().unwrap_or_default();
    let user = match app.turns.line.verify_id_token(&form.id_token, channel).await {
        Ok(user) => user,
        Err(e) => {
            tracing::warn!(error = %e, "family page: LINE did not verify an ID token");
            return Err(Refusal::NoSession);
        }
    };
    let now = app.clock.now().as_millisecond();
    let member = match Sessions::from_deps(&app.turns.deps)
        .take_link(&token_hash(&form.t), LinkDoor::Liff, now)
        .await
    {
        Ok(Some(member)) => member,
        Ok(None) => return Err(Refusal::NoSession),
        Err(e) => {
            tracing::error!(error = %e, "family page: could not take a link");
            return Err(Refusal::Unavailable);
        }
    };
    if member.user_id != user {
        tracing::warn!("family page: a link was opened by someone it was not minted for");
        return Err(Refusal::NotYours);
    }
    through_the_door(&app, &member.conversation_id, &member.user_id).await?;
    start_session(&app, &member).await
}
