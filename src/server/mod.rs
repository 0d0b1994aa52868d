//! The HTTP server: `POST /callback` (LINE's webhook), `GET /healthz` (alive), `GET /readyz`
//! (database reachable, migrations applied), `GET /charts/{token}.png` (the charts on cards, for
//! LINE to fetch; only images hearth drew, while they are served) and `GET /metrics` (Prometheus
//! text; behind a bearer token or on an address of its own when configured). Connections are served by
//! [`crate::server::listen`] with header and body read timeouts.
//!
//! The webhook verifies the signature over the raw bytes, parses each event on its own, refuses
//! one stamped more than 23 hours ago or further ahead than `HEARTH_EVENT_MAX_SKEW_SECS`, stores
//! the new ones in the durable inbox (a duplicate is stored once, so it is handled once; webhooks
//! arriving together share one transaction, [`crate::server::inbox::accept`]), answers
//! 200 at once and leaves all LLM and tool work to background tasks (see [`crate::server::inbox`]).
//!
//! The routes share one state, the assembled [`Hearth`]; each handler takes only the part it
//! needs through axum's `FromRef`: the webhook its [`Webhook`], the charts and spoken answers
//! their [`Published`], `/metrics` its [`listen::Serving`], the family page its
//! [`page_state::PageState`] (and the application where a change runs an operation).

pub mod app;
pub mod background;
pub mod backups;
pub mod calendar;
pub mod family;
pub mod https;
pub mod inbox;
pub mod listen;
pub mod loops;
pub mod page_state;

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use jiff::Timestamp;
use tokio::net::TcpListener;

use crate::line::signature;
use crate::line::webhook::{Envelope, Event};
use crate::server::app::Hearth;
use crate::server::inbox::Inbox;
use crate::server::inbox::accept::{Accepted, Fate};
use crate::server::inbox::lease::{Timeliness, timeliness};
use crate::server::inbox::queue::Room;
use crate::server::listen::Serving;

/// Webhook bodies larger than this are refused (LINE's are a few kilobytes).
const MAX_WEBHOOK_BYTES: usize = 1024 * 1024;

/// The webhook's own state (its handler reaches it through axum's `FromRef`): the secret that
/// signs LINE's requests, how far ahead an event may be stamped, and the inbox it fills. Clones
/// share them.
#[derive(Clone)]
pub struct Webhook {
    /// The webhook's events, held and handed to the turn handler.
    pub inbox: Arc<Inbox>,
    /// The channel secret that signs webhooks.
    pub(crate) channel_secret: Arc<crate::platform::config::Secret>,
    /// How far ahead of our clock a webhook event may be stamped (`HEARTH_EVENT_MAX_SKEW_SECS`).
    pub(crate) event_max_skew: jiff::SignedDuration,
}

impl Webhook {
    /// The webhook `config` sets up, filling `inbox`.
    pub fn new(inbox: Arc<Inbox>, config: &crate::platform::config::Config) -> Self {
        Self {
            inbox,
            channel_secret: Arc::new(config.line.line_channel_secret.clone()),
            event_max_skew: jiff::SignedDuration::from_secs(
                i64::try_from(config.turns.event_max_skew_secs).unwrap_or(i64::MAX),
            ),
        }
    }
}

/// What hearth drew or spoke for LINE to fetch, served at `/charts` and `/speech` (their
/// handlers' own state, through axum's `FromRef`). Clones share them.
#[derive(Clone)]
pub struct Published {
    /// Draws and serves the charts on cards; `None` without `HEARTH_PUBLIC_URL`.
    pub charts: Option<crate::contract::chart::publish::Charts>,
    /// Speaks answers and serves the audio; `None` unless answers can be spoken.
    pub speech: Option<crate::features::speech::Speech>,
}

/// The routes of the webhook port: `/metrics` among them unless `HEARTH_METRICS_LISTEN` moves
/// it to an address of its own ([`metrics_router`]). Webhook events are taken from the store by
/// the background loops ([`crate::server::background::start`], started by [`serve`]): without them a
/// new process's events wait there (it looks at the store before taking events into memory).
pub fn router(app: Arc<Hearth>) -> Router {
    let body_limits = (app.serving.body_read_timeout, MAX_WEBHOOK_BYTES);
    let routes = Router::new()
        .route("/callback", post(callback))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .route("/charts/{file}", get(chart))
        .route("/speech/{file}", get(spoken))
        .route("/calendar/{file}", get(calendar::feed))
        .merge(family::routes(&app));
    let routes = match app.serving.metrics_listen {
        Some(_) => routes,
        None => routes.route("/metrics", get(metrics)),
    };
    routes
        .layer(DefaultBodyLimit::max(MAX_WEBHOOK_BYTES))
        .layer(axum::middleware::from_fn_with_state(body_limits, listen::read_body_within))
        .with_state(app)
}

/// `GET /charts/{token}.png`: a chart hearth drew, while it is served; anything else is 404.
async fn chart(State(published): State<Published>, Path(file): Path<String>) -> Response {
    let image = file
        .strip_suffix(".png")
        .and_then(|token| published.charts.as_ref().and_then(|charts| charts.image(token)));
    match image {
        Some(png) => (
            [(CONTENT_TYPE, "image/png"), (CACHE_CONTROL, "public, max-age=86400, immutable")],
            png,
        )
            .into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// `GET /speech/{token}.m4a`: a spoken answer, while it is served; anything else is 404.
async fn spoken(State(published): State<Published>, Path(file): Path<String>) -> Response {
    let audio = match (file.strip_suffix(".m4a"), published.speech.as_ref()) {
        (Some(token), Some(speech)) => speech.audio(token).await,
        _ => None,
    };
    match audio {
        Some(m4a) => (
            [
                (CONTENT_TYPE, crate::features::speech::CONTENT_TYPE),
                (CACHE_CONTROL, "public, max-age=86400, immutable"),
            ],
            m4a,
        )
            .into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// The routes of the metrics address: `/metrics` alone.
pub fn metrics_router(app: Arc<Hearth>) -> Router {
    Router::new().route("/metrics", get(metrics)).with_state(app)
}

/// Serves until `shutdown` resolves. Then: no new webhooks or connections; open connections
/// finish the request in hand and close; the turns in hand get `HEARTH_SHUTDOWN_GRACE_SECS`
/// (all of this together, never longer); whatever is left (connections, events, reminder
/// claims) is dropped or handed back so another process — or this one after a restart — takes
/// it at once.
pub async fn serve(
    listener: TcpListener,
    app: Arc<Hearth>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let metrics_listener = match app.serving.metrics_listen {
        Some(address) => Some(TcpListener::bind(address).await?),
        None => None,
    };
    let https = match &app.serving.https {
        Some(https) => {
            let address = app.serving.https_listen;
            let listener = TcpListener::bind(address).await.map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("HTTPS cannot listen on {address} (HEARTH_TLS_LISTEN): {e}"),
                )
            })?;
            Some((listener, https.clone()))
        }
        None => None,
    };
    let header_timeout = app.serving.header_read_timeout;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut servers = tokio::task::JoinSet::new();
    let routes = router(app.clone());
    servers.spawn(listen::accept(listener, routes.clone(), header_timeout, stopped.clone(), None));
    if let Some((listener, https)) = https {
        tracing::info!(domain = https.domain(), listen = %app.serving.https_listen, "serving HTTPS");
        let stopped = stopped.clone();
        servers.spawn(listen::accept(listener, routes, header_timeout, stopped, Some(https)));
    }
    if let Some(metrics_listener) = metrics_listener {
        let routes = metrics_router(app.clone());
        servers.spawn(listen::accept(metrics_listener, routes, header_timeout, stopped, None));
    }
    let loops = crate::server::background::start(app.clone());
    shutdown.await;
    let _ = stop.send(true);
    loops.stop_work();
    app.webhook.inbox.queue.close(); // queued events not started are handed back
    let deadline = tokio::time::Instant::now() + app.serving.shutdown_grace;
    let drained = async { while servers.join_next().await.is_some() {} };
    if tokio::time::timeout_at(deadline, drained).await.is_err() {
        tracing::warn!("shutdown grace ran out with connections still open; closing them");
    }
    servers.abort_all();
    if tokio::time::timeout_at(deadline, app.wait_in_hand()).await.is_err() {
        tracing::warn!("shutdown grace ran out with turns still in hand; handing them back");
    }
    loops.stop();
    app.hand_back().await;
    Ok(())
}

async fn readyz(State(app): State<Arc<Hearth>>) -> (StatusCode, &'static str) {
    match app.store.ready().await {
        Ok(true) => (StatusCode::OK, "ready"),
        Ok(false) => (StatusCode::SERVICE_UNAVAILABLE, "migrations not applied"),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            (StatusCode::SERVICE_UNAVAILABLE, "database unreachable")
        }
    }
}

async fn metrics(State(serving): State<Serving>, headers: HeaderMap) -> (StatusCode, String) {
    if !listen::metrics_allowed(&serving.metrics_token, &headers) {
        return (StatusCode::UNAUTHORIZED, "metrics need Authorization: Bearer <token>\n".into());
    }
    (StatusCode::OK, serving.metrics.render())
}

/// The webhook, in its span (`webhook`, with the number of events it carries once parsed).
#[tracing::instrument(name = "webhook", skip_all, fields(events = tracing::field::Empty))]
async fn callback(State(webhook): State<Webhook>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let received_at = webhook.inbox.clock.now();
    let signature = headers.get("x-line-signature").and_then(|v| v.to_str().ok());
    let verified =
        signature.is_some_and(|sig| signature::verify(webhook.channel_secret.expose(), &body, sig));
    if !verified {
        tracing::warn!(has_signature = signature.is_some(), "webhook with a bad signature refused");
        return StatusCode::UNAUTHORIZED;
    }
    let envelope: Envelope = match serde_json::from_slice(&body) {
        Ok(e) => e,
        Err(e) => {
            tracing::warn!(error = %e, "signed webhook body is not a LINE envelope");
            return StatusCode::BAD_REQUEST;
        }
    };
    let at = received_at.as_millisecond();
    tracing::Span::current().record("events", envelope.events.len());
    let mut parsed = Vec::with_capacity(envelope.events.len());
    for raw in envelope.events {
        // Stored as received: the event's own JSON text, not a re-serialisation.
        let payload = String::from(Box::<str>::from(raw));
        match Event::parse_json(&payload) {
            Ok(event) => match timeliness(event.timestamp_ms, at, webhook.event_max_skew) {
                Timeliness::OnTime => parsed.push((event, payload)),
                refused => {
                    crate::platform::metrics::webhook_event(&event.event_type, refused.outcome());
                    let ahead_ms = event.timestamp_ms.saturating_sub(at);
                    tracing::warn!(
                        event_id = event.webhook_event_id,
                        ahead_secs = ahead_ms / 1000,
                        "{}",
                        match refused {
                            Timeliness::Ahead => "event stamped in the future refused (a forgery?)",
                            _ => "event older than the dedupe window refused (a replay?)",
                        }
                    );
                }
            },
            Err(e) => {
                crate::platform::metrics::webhook_event("unknown", "malformed");
                tracing::warn!(error = %e, "malformed webhook event skipped");
            }
        }
    }
    let (events, payloads): (Vec<Event>, Vec<String>) = parsed.into_iter().unzip();
    // In a task of its own, counted as work in hand: a request LINE stops waiting for (it closes
    // the connection), or one cut off at shutdown, must not stop its events halfway, stored but
    // neither queued nor left waiting in the store.
    // Boxed where it is made, so the task's wrappers move a pointer, not the future.
    let storing = Box::pin(store_and_queue(webhook.clone(), events, payloads, received_at));
    let accepting = webhook.inbox.spawn_tracked(tracing::Instrument::in_current_span(storing));
    accepting.await.unwrap_or_else(|e| {
        tracing::error!(error = %e, "storing or queueing webhook events panicked");
        StatusCode::SERVICE_UNAVAILABLE
    })
}

/// Stores a webhook's verified `events` (each with its JSON as received) — logging, in the
/// same transaction, the untriggered group messages that can be ([`crate::server::inbox::Inbox::log_on_arrival`]) —
/// and queues those to handle; the status LINE gets.
async fn store_and_queue(
    webhook: Webhook,
    events: Vec<Event>,
    payloads: Vec<String>,
    received_at: Timestamp,
) -> StatusCode {
    let at = received_at.as_millisecond();
    // Untriggered group messages with nothing of their chat in hand are logged as they are
    // stored. The others arrive in their lanes: taken into memory at once when there is room,
    // otherwise left waiting in the store (a backlog from now on, so later webhooks wait behind
    // these).
    let (lines, arriving) = webhook.inbox.log_on_arrival(&events).await;
    let logged: Vec<bool> = lines.iter().map(Option::is_some).collect();
    let to_handle = logged.iter().filter(|now| !**now).count();
    let (slots, left_in_store) = match to_handle {
        0 => (None, None),
        n => match webhook.inbox.queue.room(n) {
            Room::Slots(slots) => (Some(slots), None),
            Room::Store(left) => (None, Some(Arc::new(left))),
        },
    };
    let lease_until = webhook.inbox.inbox_lease_until(received_at);
    let rows: Vec<Accepted> = events
        .iter()
        .zip(payloads)
        .zip(lines)
        .map(|((event, payload), line)| Accepted {
            event_id: event.webhook_event_id.clone(),
            event_type: event.event_type.clone(),
            payload,
            received_at_ms: at,
            fate: match (line, &left_in_store) {
                (Some(line), _) => Fate::Logged(line),
                (None, Some(left)) => Fate::Waiting(left.clone()),
                (None, None) => Fate::Claimed(lease_until),
            },
        })
        .collect();
    // Stored (in a transaction shared with the webhooks arriving meanwhile) before the 200.
    drop(left_in_store); // the rows hold it until they are stored
    let new = match webhook.inbox.writes.accepts.write(rows).await {
        Ok(new) => new,
        Err(unwritten) => {
            // Without the record a redelivery could be handled twice: ask LINE to retry.
            tracing::error!(error = %unwritten.error, "could not store webhook events");
            return StatusCode::SERVICE_UNAVAILABLE;
        }
    };
    let mut fresh = Vec::new();
    for ((event, is_new), logged) in events.into_iter().zip(new).zip(logged) {
        let outcome = match (is_new, logged) {
            (false, _) => "duplicate",
            (true, false) => "accepted",
            (true, true) => "logged",
        };
        crate::platform::metrics::webhook_event(&event.event_type, outcome);
        if !is_new {
            tracing::info!(event_id = event.webhook_event_id, "duplicate event ignored");
        } else if !logged {
            fresh.push((event, received_at));
        }
    }
    if let Some(mut slots) = slots
        && let Some(used) = slots.split(fresh.len())
    {
        webhook.inbox.enqueue_accepted(fresh, used, lease_until);
    }
    drop(arriving); // queued in their lanes now
    StatusCode::OK
}
