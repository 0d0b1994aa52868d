//! `GET /calendar/{token}.ics`: a member's private feed of a chat's calendar, for their phone
//! ([`crate::features::calendar::ops::feed`]). A door like the family page's: counted against
//! the page's limit for requests without a session, the token's member asked of the door
//! ([`crate::door`]) at every read — a member who left, a revoked or forgotten chat, a feed
//! ended by 登出網頁 get nothing — and answered with an `ETag`, so a phone that already has it
//! gets `304 Not Modified`.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::features::calendar::ics;
use crate::features::calendar::ops::feed::Feeds;
use crate::server::app::Hearth;
use crate::server::family::{Peer, Refusal, through_the_door};

/// The calendar feed `file` (`{token}.ics`) names.
pub async fn feed(
    State(app): State<Arc<Hearth>>,
    axum::Extension(peer): axum::Extension<Peer>,
    headers: HeaderMap,
    Path(file): Path<String>,
) -> Result<Response, Refusal> {
    if !app.page.limits.anonymous_allows(peer, &headers) {
        return Err(Refusal::TooMany);
    }
    let token = file.strip_suffix(".ics").filter(|t| t.len() == 64).ok_or(Refusal::NoSession)?;
    let feeds = Feeds::from_deps(&app.turns.deps);
    let (chat, member) = match feeds.whose(token).await {
        Ok(Some(whose)) => whose,
        Ok(None) => return Err(Refusal::NoSession),
        Err(e) => {
            tracing::error!(error = %e, "calendar feed: could not read the feed");
            return Err(Refusal::Unavailable);
        }
    };
    through_the_door(&app, &chat, &member).await?;
    let feed = feeds.read(&chat, &app.tz, app.clock.now()).await.map_err(|e| {
        tracing::error!(error = %e, "calendar feed: could not read the events");
        Refusal::Unavailable
    })?;
    let cached = headers
        .get(IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| tags.split(',').any(|tag| tag.trim() == feed.etag));
    let private = "private, max-age=900";
    if cached {
        return Ok((
            StatusCode::NOT_MODIFIED,
            [(ETAG, feed.etag), (CACHE_CONTROL, private.into())],
        )
            .into_response());
    }
    Ok((
        [
            (CONTENT_TYPE, ics::CONTENT_TYPE.to_string()),
            (ETAG, feed.etag),
            (CACHE_CONTROL, private.into()),
        ],
        feed.ics,
    )
        .into_response())
}
