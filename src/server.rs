//! The HTTP server: `POST /callback` (LINE's webhook) and `GET /healthz`.
//!
//! The webhook verifies the signature over the raw bytes, parses each event on its own, records
//! every event id in the store before any side effect (so a duplicate is handled once), answers
//! 200 at once and leaves all LLM and tool work to background tasks — one per conversation, so
//! the events of one conversation are handled in order.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use jiff::SignedDuration;
use tokio::net::TcpListener;

use crate::app::Hearth;
use crate::line::signature;
use crate::line::webhook::{Envelope, Event};

/// Webhook bodies larger than this are refused (LINE's are a few kilobytes).
const MAX_WEBHOOK_BYTES: usize = 1024 * 1024;

/// The routes.
pub fn router(app: Arc<Hearth>) -> Router {
    Router::new()
        .route("/callback", post(callback))
        .route("/healthz", get(|| async { "ok" }))
        .layer(DefaultBodyLimit::max(MAX_WEBHOOK_BYTES))
        .with_state(app)
}

/// Event ids are kept this long (LINE does not publish its redelivery window).
const KEEP_EVENT_IDS: SignedDuration = SignedDuration::from_hours(48);

/// Serves until `shutdown` resolves, then waits for background work to finish.
pub async fn serve(
    listener: TcpListener,
    app: Arc<Hearth>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let pruner = tokio::spawn(prune_event_ids(app.clone()));
    let scheduler = tokio::spawn(deliver_reminders(app.clone()));
    let log_pruner = tokio::spawn(prune_chat_log(app.clone()));
    let watcher = tokio::spawn(watch_prices(app.clone()));
    let served = axum::serve(listener, router(app.clone())).with_graceful_shutdown(shutdown).await;
    pruner.abort();
    scheduler.abort();
    log_pruner.abort();
    watcher.abort();
    app.wait_idle().await;
    match app.reminders.release().await {
        Ok(n) if n > 0 => tracing::info!(released = n, "reminder claims handed back"),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "could not release reminder claims"),
    }
    if let Err(e) = app.alerts.release().await {
        tracing::warn!(error = %e, "could not release price-alert claims");
    }
    served
}

/// How often due reminders are looked for (a new reminder due sooner wakes the loop).
const REMINDER_TICK: std::time::Duration = std::time::Duration::from_secs(1);

/// Delivers due reminders until the server stops.
async fn deliver_reminders(app: Arc<Hearth>) {
    loop {
        match app.reminders.tick().await {
            Ok(report) if report != Default::default() => {
                tracing::info!(?report, "reminders delivered")
            }
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "reminder tick failed"),
        }
        tokio::select! {
            _ = tokio::time::sleep(REMINDER_TICK) => {}
            _ = app.reminder_nudge.notified() => {}
        }
    }
}

/// Polls watched prices and pushes the alerts that fire, every `HEARTH_ALERT_POLL_SECS` (each
/// symbol on its own cadence), until the server stops.
async fn watch_prices(app: Arc<Hearth>) {
    if app.alert_poll_secs == 0 {
        return;
    }
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(app.alert_poll_secs));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match app.alerts.tick().await {
            Ok(report) if report.fired + report.sent + report.failed + report.retrying > 0 => {
                tracing::info!(?report, "price alerts")
            }
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "price-alert tick failed"),
        }
    }
}

/// Forgets old webhook event ids, hourly.
async fn prune_event_ids(app: Arc<Hearth>) {
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(3600));
    loop {
        tick.tick().await;
        let before = app.clock.now().saturating_sub(KEEP_EVENT_IDS).unwrap_or(app.clock.now());
        match app.store.prune_events(before.as_millisecond()).await {
            Ok(n) if n > 0 => tracing::info!(pruned = n, "old webhook event ids forgotten"),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "could not prune webhook event ids"),
        }
    }
}

/// Deletes the chat log older than `HEARTH_LOG_RETENTION_DAYS`, at start and then hourly.
async fn prune_chat_log(app: Arc<Hearth>) {
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(3600));
    loop {
        tick.tick().await;
        if let Err(e) = app.prune_chat_log().await {
            tracing::warn!(error = %e, "could not prune the chat log");
        }
    }
}

async fn callback(State(app): State<Arc<Hearth>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let received_at = app.clock.now();
    let signature = headers.get("x-line-signature").and_then(|v| v.to_str().ok());
    let verified =
        signature.is_some_and(|sig| signature::verify(app.channel_secret.expose(), &body, sig));
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
    let mut by_conversation: HashMap<String, Vec<Event>> = HashMap::new();
    for raw in envelope.events {
        let event = match Event::parse(raw) {
            Ok(event) => event,
            Err(e) => {
                tracing::warn!(error = %e, "malformed webhook event skipped");
                continue;
            }
        };
        let at = received_at.as_millisecond();
        match app.store.record_event(&event.webhook_event_id, &event.event_type, at).await {
            Ok(true) => {}
            Ok(false) => {
                tracing::info!(event_id = event.webhook_event_id, "duplicate event ignored");
                continue;
            }
            Err(e) => {
                // Without the record a redelivery could be handled twice: ask LINE to retry.
                tracing::error!(error = %e, "could not record a webhook event");
                return StatusCode::SERVICE_UNAVAILABLE;
            }
        }
        let key = event.source.as_ref().map(|s| s.conversation.id.clone()).unwrap_or_default();
        by_conversation.entry(key).or_default().push(event);
    }
    for (conversation, mut events) in by_conversation {
        events.sort_by_key(|e| e.timestamp_ms);
        let worker = app.clone();
        app.spawn_tracked(async move {
            let lock = worker.conversation_lock(&conversation);
            let _in_order = lock.lock().await;
            let _permit = worker.turn_permit().await;
            for event in events {
                // Boxed: a task waiting for its turn stays small; the turn's large future is
                // allocated only when it starts.
                Box::pin(worker.handle_event(event, received_at)).await;
            }
        });
    }
    StatusCode::OK
}
