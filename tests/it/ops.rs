//! What the engineer running hearth sees: readiness, Prometheus metrics, and logs that never
//! carry secrets or what the family wrote.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::harness::{BOT_ID, Harness, MOM, SECRET};
use crate::common::{FakeLine, FakeLlm};
use serde_json::json;

#[tokio::test]
async fn readyz_reports_a_migrated_reachable_database() {
    let h = Harness::start().await;
    let r = crate::common::get(format!("{}/readyz", h.url)).await.expect("readyz");
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().await.expect("body"), "ready");
}

#[tokio::test]
async fn metrics_count_events_turns_llm_and_tool_calls_and_sends() {
    let h = Harness::start().await;
    h.llm.reply_tool_calls(&[("weather", json!({"location": "台北"}))]);
    h.llm.reply_text("明天下雨");
    h.send(vec![h.dm(MOM, "台北天氣")]).await;
    let text = h.metrics_text().await;
    for series in [
        r#"hearth_webhook_events_total{type="message",outcome="accepted"}"#,
        "hearth_turn_seconds_bucket",
        r#"hearth_llm_calls_total{outcome="ok"}"#,
        r#"hearth_llm_tokens_total{kind="prompt"}"#,
        r#"hearth_tool_calls_total{tool="weather",outcome="ok"}"#,
        r#"hearth_line_sends_total{kind="reply",outcome="ok"}"#,
    ] {
        assert!(text.contains(series), "{series} missing from:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn json_logs_carry_neither_secrets_nor_what_the_family_wrote() {
    let (line, llm) = (FakeLine::start().await, FakeLlm::start().await);
    llm.reply_text("好的");
    let dir = crate::common::scratch_dir("hearth-logs");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("port");
    let child = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("serve")
        .env("LINE_CHANNEL_SECRET", SECRET)
        .env("LINE_CHANNEL_ACCESS_TOKEN", "token-that-must-not-be-logged")
        .env("LINE_API_BASE", line.url())
        .env("OPENAI_BASE_URL", llm.url())
        .env("OPENAI_API_KEY", "sk-key-that-must-not-be-logged")
        .env("DATABASE_URL", format!("sqlite://{}", dir.join("hearth.db").display()))
        .env("HEARTH_LISTEN", format!("127.0.0.1:{port}"))
        .env("HEARTH_LOG_FORMAT", "json")
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let url = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while crate::common::get(format!("{url}/healthz")).await.is_err() {
        assert!(Instant::now() < deadline, "did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let secret_words = "奶奶的提款卡密碼是1234";
    let body = json!({"destination": BOT_ID, "events": [{
        "type": "message", "mode": "active", "timestamp": jiff::Timestamp::now().as_millisecond(),
        "webhookEventId": "01LOGS0000000000000000000A", "deliveryContext": {"isRedelivery": false},
        "replyToken": "log-token", "source": {"type": "user", "userId": MOM},
        "message": {"id": "1", "type": "text", "quoteToken": "q", "text": secret_words}}]})
    .to_string();
    let sig = hearth::line::signature::sign(SECRET, body.as_bytes());
    hearth::platform::tls::client_builder()
        .build()
        .expect("HTTP client")
        .post(format!("{url}/callback"))
        .header("x-line-signature", sig)
        .body(body)
        .send()
        .await
        .expect("post");
    line.wait_for(|r| r.iter().any(|r| r.path.ends_with("/reply")), Duration::from_secs(10)).await;
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .expect("join")
        .expect("output");
    let logs = String::from_utf8_lossy(&out.stderr);
    assert!(
        !logs.is_empty() && logs.lines().all(|l| l.trim_start().starts_with('{')),
        "JSON lines:\n{logs}"
    );
    for forbidden in
        [SECRET, "token-that-must-not-be-logged", "sk-key-that-must-not-be-logged", secret_words]
    {
        assert!(!logs.contains(forbidden), "{forbidden} leaked into:\n{logs}");
    }
    let _ = std::fs::remove_dir_all(dir);
}
