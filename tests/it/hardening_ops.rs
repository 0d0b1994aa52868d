//! Operations hardening: LINE's rate limits (429 with `Retry-After`), per-chat caps under
//! parallel tool calls, slow clients and shutdown, and who may read `/metrics`.

use std::time::Duration;

use crate::common::harness::{Harness, MOM, texts_of};
use crate::common::{PushMode, ReplyMode};

#[tokio::test]
async fn a_rate_limited_reply_is_retried_once_and_the_family_gets_the_answer_by_reply() {
    let h = Harness::start().await;
    h.llm.reply_text("明天會下雨");
    h.line.set_reply_mode(ReplyMode::RateLimitedTimes { times: 1, retry_after: None });
    assert_eq!(h.send(vec![h.dm(MOM, "明天天氣？")]).await, 200);
    let replies = h.line.replies();
    assert_eq!(replies.len(), 2, "one 429, then one retry");
    assert_eq!(replies[0].status, 429);
    assert_eq!(replies[1].status, 200);
    assert_eq!(texts_of(&replies[1].body), "明天會下雨");
    assert!(h.line.pushes().is_empty(), "the fresh token was enough");
}

#[tokio::test]
async fn a_reply_rate_limited_for_six_seconds_is_retried_by_reply_while_its_token_lives() {
    let h = Harness::start().await;
    h.llm.reply_text("明天會下雨");
    h.line.set_reply_mode(ReplyMode::RateLimitedTimes { times: 1, retry_after: Some(6) });
    assert_eq!(h.send(vec![h.dm(MOM, "明天天氣？")]).await, 200);
    let replies = h.line.replies();
    assert_eq!(replies.len(), 2, "one 429, then one retry");
    assert_eq!((replies[0].status, replies[1].status), (429, 200));
    let waited = replies[1].received_at.duration_since(replies[0].received_at);
    assert!(waited >= Duration::from_secs(6), "retried after {waited:?}, before Retry-After: 6");
    assert_eq!(texts_of(&replies[1].body), "明天會下雨");
    assert!(h.line.pushes().is_empty());
}

#[tokio::test]
async fn a_reply_rate_limited_longer_than_its_token_lives_is_delivered_by_push() {
    let h = Harness::start().await;
    h.llm.reply_text("明天會下雨");
    h.line.set_reply_mode(ReplyMode::RateLimitedTimes { times: 5, retry_after: Some(120) });
    assert_eq!(h.send(vec![h.dm(MOM, "明天天氣？")]).await, 200);
    let replies = h.line.replies();
    assert_eq!(replies.len(), 1, "no retry the token cannot wait for");
    assert_eq!(replies[0].status, 429);
    let pushes = h.line.accepted_pushes();
    assert_eq!(pushes.len(), 1, "the answer is pushed instead of lost");
    assert_eq!(texts_of(&pushes[0].body), "明天會下雨");
    assert!(pushes[0].header("x-line-retry-key").is_some(), "with its retry key");
}

#[tokio::test]
async fn a_rate_limited_push_waits_as_long_as_retry_after_asks() {
    let h = Harness::start().await;
    h.llm.reply_text("明天會下雨");
    h.line.set_expire_all_reply_tokens(true);
    h.line.set_push_mode(PushMode::RateLimitedTimes { times: 1, retry_after: 2 });
    assert_eq!(h.send(vec![h.dm(MOM, "明天天氣？")]).await, 200);
    let pushes = h.line.pushes();
    assert_eq!(pushes.len(), 2, "one 429, then one retry");
    assert_eq!((pushes[0].status, pushes[1].status), (429, 200));
    let waited = pushes[1].received_at.duration_since(pushes[0].received_at);
    assert!(waited >= Duration::from_secs(2), "retried after {waited:?}, before Retry-After: 2");
    assert_eq!(pushes[0].header("x-line-retry-key"), pushes[1].header("x-line-retry-key"));
}

/// Opens a raw connection to `url` (`http://host:port`).
async fn connect(url: &str) -> tokio::net::TcpStream {
    let address = url.trim_start_matches("http://");
    tokio::net::TcpStream::connect(address).await.expect("connect to hearth")
}

/// Sends the start of a request, then one more header line every 200 ms, never finishing;
/// returns how long the server kept the connection open (`None`: still open after `limit`).
async fn trickle_headers(url: &str, limit: Duration) -> Option<Duration> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let started = std::time::Instant::now();
    let (mut read, mut write) = connect(url).await.into_split();
    let _ = write.write_all(b"POST /callback HTTP/1.1\r\nHost: hearth\r\n").await;
    let trickle = tokio::spawn(async move {
        for n in 0u32.. {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if write.write_all(format!("X-Slow-{n}: a\r\n").as_bytes()).await.is_err() {
                return;
            }
        }
    });
    let mut buf = [0u8; 1024];
    let closed = tokio::time::timeout(limit, async {
        while let Ok(n) = read.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
    trickle.abort();
    closed.ok().map(|()| started.elapsed())
}

#[tokio::test]
async fn a_connection_trickling_its_headers_is_closed_after_the_header_timeout() {
    let h = Harness::start_with(|c| c.server.header_read_timeout_secs = 1, None).await;
    let open_for = trickle_headers(&h.url, Duration::from_secs(6)).await;
    let open_for = open_for.expect("a trickling connection stayed open for 6 s");
    assert!(open_for < Duration::from_secs(3), "closed only after {open_for:?}");
}

#[tokio::test]
async fn a_request_body_that_trickles_in_is_cut_off_with_408() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let h = Harness::start_with(|c| c.server.body_read_timeout_secs = 1, None).await;
    let started = std::time::Instant::now();
    let (mut read, mut write) = connect(&h.url).await.into_split();
    let head = "POST /callback HTTP/1.1\r\nHost: hearth\r\nContent-Type: application/json\r\n\
                X-Line-Signature: x\r\nContent-Length: 1000\r\n\r\n{";
    write.write_all(head.as_bytes()).await.expect("send headers");
    let trickle = tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if write.write_all(b" ").await.is_err() {
                return;
            }
        }
    });
    let mut answer = Vec::new();
    let read_all = tokio::time::timeout(Duration::from_secs(6), read.read_to_end(&mut answer));
    let finished = read_all.await;
    trickle.abort();
    assert!(finished.is_ok(), "a slow body held the connection for 6 s");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "answered {answer:?}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "cut off only after {:?}",
        started.elapsed()
    );
    assert!(h.llm.requests().is_empty());
}

#[tokio::test]
async fn shutdown_with_fifty_trickling_connections_ends_within_the_grace_period() {
    let h = Harness::start_with(
        |c| {
            c.server.header_read_timeout_secs = 60;
            c.turns.shutdown_grace_secs = 2;
        },
        None,
    )
    .await;
    // A second server over the same hearth, whose shutdown this test controls.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(hearth::server::serve(listener, h.app.clone(), async move {
        let _ = stopped.await;
    }));
    let clients: Vec<_> = (0..50)
        .map(|_| {
            let url = url.clone();
            tokio::spawn(async move { trickle_headers(&url, Duration::from_secs(30)).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = std::time::Instant::now();
    let _ = stop.send(());
    let served = tokio::time::timeout(Duration::from_secs(10), server).await;
    let took = started.elapsed();
    assert!(served.is_ok(), "shutdown still waiting after 10 s");
    assert!(took < Duration::from_secs(4), "shutdown took {took:?} with a 2 s grace period");
    for client in clients {
        client.abort();
    }
}

#[tokio::test]
async fn metrics_need_the_bearer_token_when_one_is_set() {
    let h =
        Harness::start_with(|c| c.server.metrics_token = "metrics-token-3d9f".into(), None).await;
    let http = hearth::platform::tls::client_builder().build().expect("HTTP client");
    let metrics = format!("{}/metrics", h.url);
    let status = |r: reqwest::Response| r.status().as_u16();
    assert_eq!(status(http.get(&metrics).send().await.expect("get")), 401);
    let wrong = http.get(&metrics).bearer_auth("metrics-token").send().await.expect("get");
    assert_eq!(status(wrong), 401);
    let right = http.get(&metrics).bearer_auth("metrics-token-3d9f").send().await.expect("get");
    assert_eq!(status(right), 200);
    assert_eq!(status(http.get(format!("{}/healthz", h.url)).send().await.expect("get")), 200);
}

#[tokio::test]
async fn metrics_on_their_own_address_are_not_served_on_the_webhook_port() {
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], crate::common::unclaimed_port()));
    let h = Harness::start_with(|c| c.server.metrics_listen = Some(address), None).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let on_webhook_port = crate::common::get(format!("{}/metrics", h.url)).await.expect("get");
    assert_eq!(on_webhook_port.status().as_u16(), 404);
    let on_own_address =
        crate::common::get(format!("http://{address}/metrics")).await.expect("get");
    assert_eq!(on_own_address.status().as_u16(), 200);
    let no_webhook_there =
        crate::common::get(format!("http://{address}/healthz")).await.expect("get");
    assert_eq!(no_webhook_there.status().as_u16(), 404);
}

#[tokio::test]
async fn metrics_are_public_on_the_webhook_port_by_default() {
    let h = Harness::start().await;
    let response = crate::common::get(format!("{}/metrics", h.url)).await.expect("get");
    assert_eq!(response.status().as_u16(), 200);
}

/// The real binary: SIGTERM with 50 connections trickling headers or bodies still ends the
/// process within the grace period plus a margin.
#[tokio::test]
async fn sigterm_with_fifty_trickling_connections_exits_within_the_grace_period() {
    use tokio::io::AsyncWriteExt;
    let line = crate::common::FakeLine::start().await;
    let port = crate::common::unclaimed_port();
    let db = std::env::temp_dir().join(format!("hearth-sigterm-{}.db", std::process::id()));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("serve")
        .env("LINE_CHANNEL_SECRET", crate::common::harness::SECRET)
        .env("LINE_CHANNEL_ACCESS_TOKEN", "test-token")
        .env("LINE_API_BASE", line.url())
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        .env("DATABASE_URL", format!("sqlite://{}", db.display()))
        .env("HEARTH_LISTEN", format!("127.0.0.1:{port}"))
        .env("HEARTH_SHUTDOWN_GRACE_SECS", "2")
        .env("HEARTH_OFFICIAL_ALERTS_FEED_URL", "")
        .env("HEARTH_HEADER_READ_TIMEOUT_SECS", "60")
        .env("HEARTH_BODY_READ_TIMEOUT_SECS", "60")
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn hearth serve");
    let url = format!("http://127.0.0.1:{port}");
    let ready = std::time::Instant::now() + Duration::from_secs(20);
    while crate::common::get(format!("{url}/healthz"))
        .await
        .map(|r| r.status() != 200)
        .unwrap_or(true)
    {
        assert!(std::time::Instant::now() < ready, "hearth did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut clients = Vec::new();
    for n in 0..50 {
        if n % 2 == 0 {
            let url = url.clone();
            clients.push(tokio::spawn(async move {
                trickle_headers(&url, Duration::from_secs(30)).await;
            }));
        } else {
            let mut stream = connect(&url).await;
            clients.push(tokio::spawn(async move {
                let head =
                    "POST /callback HTTP/1.1\r\nHost: hearth\r\nContent-Length: 1000\r\n\r\n";
                let _ = stream.write_all(head.as_bytes()).await;
                while stream.write_all(b" ").await.is_ok() {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }));
        }
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = std::time::Instant::now();
    let pid = child.id().to_string();
    let status = std::process::Command::new("kill").args(["-TERM", &pid]).status();
    assert!(status.expect("kill -TERM").success());
    let mut exited = None;
    while started.elapsed() < Duration::from_secs(15) {
        if let Some(status) = child.try_wait().expect("wait") {
            exited = Some((status, started.elapsed()));
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    for client in clients {
        client.abort();
    }
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let (status, took) = exited.expect("hearth still running 15 s after SIGTERM");
    assert!(status.success(), "exit status {status}");
    assert!(took < Duration::from_secs(5), "exited {took:?} after SIGTERM with a 2 s grace");
}
