//! Serving HTTP connections with limits, so slow or idle clients cannot hold hearth: a client
//! has `HEARTH_HEADER_READ_TIMEOUT_SECS` to send its request headers and
//! `HEARTH_BODY_READ_TIMEOUT_SECS` to send the body; on shutdown every connection is asked to
//! close after the request in hand, and whatever is still open when the grace period ends is
//! dropped. Also who may read `/metrics` (a bearer token, compared in constant time).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use subtle::ConstantTimeEq;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::https::Https;
use super::page_state::Peer;
use crate::platform::config::{Config, Secret};
use crate::platform::metrics::Metrics;

/// How the HTTP server serves: its time limits, its addresses, how long shutdown waits, and the
/// metrics `/metrics` shows (to whom); the metrics router's own state.
#[derive(Clone)]
pub struct Serving {
    /// How long a client has to send a request's headers.
    pub header_read_timeout: Duration,
    /// How long a client has to send a request's body once the headers are in.
    pub body_read_timeout: Duration,
    /// The token `/metrics` requires, when not empty.
    pub metrics_token: Secret,
    /// The address `/metrics` is served on instead of the webhook port, when set.
    pub metrics_listen: Option<SocketAddr>,
    /// How long shutdown waits for the turns in hand (`HEARTH_SHUTDOWN_GRACE_SECS`).
    pub shutdown_grace: Duration,
    /// The metrics served at `/metrics`.
    pub metrics: Metrics,
    /// HTTPS with its certificate by ACME, when `HEARTH_TLS_DOMAIN` is set.
    pub https: Option<Arc<Https>>,
    /// Where HTTPS is served (`HEARTH_TLS_LISTEN`).
    pub https_listen: SocketAddr,
}

impl Serving {
    /// The server as `config` sets it (a zero read timeout is taken as one second), showing the
    /// process's `metrics`.
    pub fn new(config: &Config, metrics: Metrics) -> Self {
        Self {
            header_read_timeout: Duration::from_secs(config.server.header_read_timeout_secs.max(1)),
            body_read_timeout: Duration::from_secs(config.server.body_read_timeout_secs.max(1)),
            metrics_token: config.server.metrics_token.clone(),
            metrics_listen: config.server.metrics_listen,
            shutdown_grace: Duration::from_secs(config.turns.shutdown_grace_secs),
            metrics,
            https: None,
            https_listen: config.https.tls_listen,
        }
    }
}

/// Tells the connections of [`accept`] to stop.
pub type Stop = watch::Receiver<bool>;

/// Accepts connections on `listener` and serves `routes` on each (HTTP/1.1, headers within
/// `header_timeout`; over TLS when `tls` is given, its handshake within that time too) until
/// `stop` turns true; then stops accepting, asks every connection to close after its current
/// request, and returns when they have. Abort the task running it to drop the connections
/// still open.
pub async fn accept(
    listener: TcpListener,
    routes: Router,
    header_timeout: Duration,
    stop: Stop,
    tls: Option<Arc<Https>>,
) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let (routes, stop, tls) = (routes.clone(), stop.clone(), tls.clone());
                    connections.spawn(async move {
                        // The family page's limits per address read who connected.
                        let peer = Peer(stream.peer_addr().ok().map(|a| a.ip()));
                        match tls {
                            None => connection(stream, peer, routes, header_timeout, stop).await,
                            Some(tls) => {
                                if let Some(stream) = tls.handshake(stream, header_timeout).await {
                                    connection(stream, peer, routes, header_timeout, stop).await;
                                }
                            }
                        }
                    });
                }
                Err(e) => {
                    // Out of file descriptors and the like: wait a little rather than spin.
                    tracing::warn!(error = %e, "could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            () = stopped(stop.clone()) => break,
        }
    }
    drop(listener);
    while connections.join_next().await.is_some() {}
}

/// Serves one connection until the client is done, a timeout closes it, or shutdown asks it to
/// close after the request in hand.
async fn connection<S>(stream: S, peer: Peer, routes: Router, header_timeout: Duration, stop: Stop)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(header_timeout);
    let routes = routes.layer(axum::Extension(peer));
    let conn = http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(routes));
    tokio::pin!(conn);
    let result = tokio::select! {
        result = conn.as_mut() => result,
        () = stopped(stop) => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(e) = result {
        tracing::debug!(error = %e, "connection closed with an error");
    }
}

/// Resolves once `stop` is true (or its sender is gone).
async fn stopped(mut stop: Stop) {
    let _ = stop.wait_for(|stop| *stop).await;
}

/// Middleware: reads the whole request body (at most `limit` bytes) within the body read
/// timeout before the handler runs; a body that takes longer gets 408 and the connection is
/// closed, one that is too large gets 413.
pub async fn read_body_within(
    State((timeout, limit)): State<(Duration, usize)>,
    request: Request,
    next: Next,
) -> Response {
    let (parts, body) = request.into_parts();
    match tokio::time::timeout(timeout, axum::body::to_bytes(body, limit)).await {
        Ok(Ok(bytes)) => next.run(Request::from_parts(parts, Body::from(bytes))).await,
        Ok(Err(_)) => StatusCode::PAYLOAD_TOO_LARGE.into_response(),
        Err(_) => {
            tracing::warn!(path = parts.uri.path(), "request body not received in time");
            (StatusCode::REQUEST_TIMEOUT, [(header::CONNECTION, "close")]).into_response()
        }
    }
}

/// True when a request with `headers` may read `/metrics`: no token is configured, or the
/// request carries `Authorization: Bearer <token>` (compared in constant time).
pub fn metrics_allowed(token: &Secret, headers: &HeaderMap) -> bool {
    if token.is_empty() {
        return true;
    }
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    bool::from(given.as_bytes().ct_eq(token.expose().as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_auth(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, value.parse().expect("header value"));
        headers
    }

    #[test]
    fn metrics_are_open_without_a_token() {
        assert!(metrics_allowed(&Secret::default(), &HeaderMap::new()));
    }

    #[test]
    fn metrics_need_the_exact_bearer_token_when_one_is_set() {
        let token = Secret::from("s3cret-metrics");
        assert!(metrics_allowed(&token, &with_auth("Bearer s3cret-metrics")));
        assert!(!metrics_allowed(&token, &HeaderMap::new()));
        assert!(!metrics_allowed(&token, &with_auth("Bearer s3cret")));
        assert!(!metrics_allowed(&token, &with_auth("Bearer s3cret-metrics2")));
        assert!(!metrics_allowed(&token, &with_auth("Basic s3cret-metrics")));
        assert!(!metrics_allowed(&token, &with_auth("s3cret-metrics")));
    }
}
