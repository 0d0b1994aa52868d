//! The `hearth` binary: `tools`, `serve` refusing to start without its settings, and `chat` in a
//! terminal against the fake LLM.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::common::{FakeLlm, FakeUpstreams};
use serde_json::json;

fn hearth() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hearth"));
    for var in [
        "LINE_CHANNEL_SECRET",
        "LINE_CHANNEL_ACCESS_TOKEN",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "DATABASE_URL",
        "HEARTH_SEARXNG_URL",
        "HEARTH_TAVILY_API_KEY",
        "HEARTH_BRAVE_API_KEY",
        "HEARTH_ALLOW_PRIVATE_FETCH",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

fn snapshot() -> serde_json::Value {
    serde_json::from_str(
        &std::fs::read_to_string("tests/snapshots/tool_definitions.json").expect("snapshot"),
    )
    .expect("snapshot JSON")
}

/// The snapshot's definitions in the form a request's `tools` carries them (strict is on by
/// default).
fn sent_form(definitions: serde_json::Value) -> serde_json::Value {
    let tools = definitions.as_array().expect("a list").iter();
    tools
        .map(|d| {
            json!({"type": "function", "function": {
                "name": d["name"],
                "description": d["description"],
                "parameters": d["parameters"],
                "strict": true,
            }})
        })
        .collect()
}

/// The snapshot is taken with a search provider configured, as here.
#[test]
fn tools_prints_the_definitions_sent_to_the_llm() {
    let out = hearth()
        .args(["tools", "--group"])
        .env("HEARTH_SEARXNG_URL", "http://searxng.invalid:8080")
        .output()
        .expect("run hearth tools");
    assert!(out.status.success());
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(printed, sent_form(snapshot()));
}

#[test]
fn tools_without_a_search_provider_lacks_web_search_only() {
    let out = hearth().args(["tools", "--group"]).output().expect("run hearth tools");
    assert!(out.status.success());
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let mut expected = snapshot();
    expected.as_array_mut().expect("a list").retain(|t| t["name"] != "web_search");
    assert_eq!(printed, sent_form(expected));
    let with_tavily = hearth()
        .args(["tools", "--group"])
        .env("HEARTH_TAVILY_API_KEY", "tvly-x")
        .output()
        .expect("run hearth tools");
    let printed: serde_json::Value = serde_json::from_slice(&with_tavily.stdout).expect("JSON");
    assert_eq!(printed, sent_form(snapshot()), "a hosted provider's key offers it too");
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_prints_exactly_the_tools_a_chat_request_sends_strict_or_not() {
    for strict in ["true", "false"] {
        let llm = FakeLlm::start().await;
        llm.reply_text("好");
        let printed = hearth()
            .arg("tools")
            .env("HEARTH_LLM_STRICT", strict)
            .output()
            .expect("run hearth tools");
        assert!(printed.status.success());
        let printed: serde_json::Value = serde_json::from_slice(&printed.stdout).expect("JSON");
        let mut child = hearth()
            .arg("chat")
            .env("OPENAI_BASE_URL", llm.url())
            .env("HEARTH_LLM_STRICT", strict)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn hearth chat");
        {
            let mut stdin = child.stdin.take().expect("stdin");
            stdin.write_all("你好\n".as_bytes()).expect("write");
            llm.wait_requests(1, std::time::Duration::from_secs(10)).await;
        }
        tokio::task::spawn_blocking(move || child.wait()).await.expect("join").expect("exit");
        assert_eq!(printed, llm.requests()[0]["tools"], "HEARTH_LLM_STRICT={strict}");
        let strict_keys = printed.as_array().expect("a list").iter();
        let strict_keys = strict_keys.filter(|t| t["function"].get("strict").is_some()).count();
        assert_eq!(strict_keys > 0, strict == "true", "strict is sent only when on");
    }
}

#[test]
fn a_user_agent_that_cannot_be_a_header_stops_hearth_instead_of_a_client_without_time_limits() {
    let out = hearth()
        .arg("tools")
        .env("HEARTH_USER_AGENT", "hearth\nX-Injected: 1")
        .output()
        .expect("run hearth tools");
    assert!(!out.status.success(), "started anyway");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("HTTP client") && err.contains("HEARTH_USER_AGENT"), "{err}");
}

#[test]
fn serve_without_line_settings_refuses_to_start_and_names_them() {
    let out = hearth()
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("OPENAI_API_KEY", "sk-x")
        .output()
        .expect("run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("LINE_CHANNEL_SECRET") && err.contains("LINE_CHANNEL_ACCESS_TOKEN"),
        "{err}"
    );
    let out = hearth().args(["serve"]).output().expect("run");
    assert!(String::from_utf8_lossy(&out.stderr).contains("OPENAI_API_KEY"));
}

#[test]
fn help_documents_every_setting() {
    let out = hearth().arg("--help").output().expect("run");
    let help = String::from_utf8_lossy(&out.stdout);
    for var in [
        "LINE_CHANNEL_SECRET",
        "LINE_CHANNEL_ACCESS_TOKEN",
        "LINE_API_BASE",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "HEARTH_MODEL",
        "DATABASE_URL",
        "HEARTH_LISTEN",
        "HEARTH_TRIGGER_KEYWORDS",
        "HEARTH_TIMEZONE",
        "HEARTH_LOG_RETENTION_DAYS",
        "HEARTH_DELIVERY_RETENTION_DAYS",
        "HEARTH_OPEN_METEO_URL",
        "HEARTH_GEOCODING_URL",
        "HEARTH_FX_URL",
        "HEARTH_YAHOO_URL",
        "HEARTH_TW_SECURITIES_FILE",
        "HEARTH_SEARXNG_URL",
        "HEARTH_TAVILY_API_KEY",
        "HEARTH_TAVILY_URL",
        "HEARTH_BRAVE_API_KEY",
        "HEARTH_BRAVE_URL",
        "HEARTH_ALLOW_PRIVATE_FETCH",
        "HEARTH_FETCH_MAX_BYTES",
        "HEARTH_FETCH_TIMEOUT_SECS",
        "LINE_DATA_API_BASE",
        "HEARTH_VISION_MODEL",
        "HEARTH_TRANSCRIBE_MODEL",
        "HEARTH_TRANSCRIBE_URL",
        "HEARTH_TRANSCRIBE_API_KEY",
        "HEARTH_VOICE_MAX_SECS",
        "HEARTH_GROUP_VOICE",
        "HEARTH_MEDIA_MAX_BYTES",
    ] {
        assert!(help.contains(var), "--help mentions {var}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_answers_in_the_terminal_with_cards_as_text_and_numbered_chips() {
    let llm = FakeLlm::start().await;
    let upstreams = FakeUpstreams::start().await;
    llm.reply_tool_calls(&[("get_quote", json!({"symbol": "AAPL"}))]);
    llm.reply_text("Apple 現在 230.5 美元");
    llm.reply_tool_calls(&[("fx", json!({"amount": 230.5, "from": "USD", "to": "TWD"}))]);
    llm.reply_text("約 7,353 台幣");
    let mut child = hearth()
        .arg("chat")
        .env("OPENAI_BASE_URL", llm.url())
        .env("HEARTH_YAHOO_URL", upstreams.url())
        .env("HEARTH_FX_URL", upstreams.url())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn hearth chat");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all("蘋果股價\n".as_bytes()).expect("write");
        llm.wait_requests(2, std::time::Duration::from_secs(10)).await;
        stdin.write_all(b"1\n").expect("pick the first chip");
        llm.wait_requests(4, std::time::Duration::from_secs(10)).await;
    }
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .expect("join")
        .expect("output");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Apple 現在 230.5 美元"), "{text}");
    assert!(text.contains("【Apple Inc.】") && text.contains("[1] 換算台幣"), "{text}");
    assert!(text.contains("約 7,353 台幣"), "{text}");
    let chip_turn = &llm.requests()[2]["messages"];
    let last = chip_turn.as_array().and_then(|m| m.last()).expect("user message");
    assert_eq!(last["content"], "230.5 USD 換算台幣是多少？", "the chip's text was sent");
}

/// Runs `hearth chat` for one question whose answer calls `get_quote`, with `RUST_LOG` set to
/// `rust_log` (or unset); returns what it printed to stdout and stderr.
async fn chat_about_a_quote(rust_log: Option<&str>) -> (String, String) {
    let llm = FakeLlm::start().await;
    let upstreams = FakeUpstreams::start().await;
    llm.reply_tool_calls(&[("get_quote", json!({"symbol": "台積電"}))]);
    llm.reply_text("台積電現在 1,450 元");
    let mut command = hearth();
    command
        .arg("chat")
        .env("OPENAI_BASE_URL", llm.url())
        .env("HEARTH_YAHOO_URL", upstreams.url())
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(filter) = rust_log {
        command.env("RUST_LOG", filter);
    }
    let mut child = command.spawn().expect("spawn hearth chat");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all("台積電多少\n".as_bytes()).expect("write");
        llm.wait_requests(2, std::time::Duration::from_secs(10)).await;
    }
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .expect("join")
        .expect("output");
    (String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_keeps_the_terminal_for_the_conversation_and_logs_only_warnings_by_default() {
    let (stdout, stderr) = chat_about_a_quote(None).await;
    assert!(stdout.contains("台積電現在 1,450 元"), "{stdout}");
    assert!(
        stdout.contains("【台積電 2330】"),
        "the card is titled as the family says it: {stdout}"
    );
    assert!(!stderr.contains("INFO") && !stderr.contains("tool call"), "{stderr}");

    let (_, stderr) = chat_about_a_quote(Some("info")).await;
    assert!(stderr.contains("tool call"), "RUST_LOG still turns the log up: {stderr}");
}

#[test]
fn a_securities_file_that_does_not_parse_stops_hearth_with_the_line_at_fault() {
    let dir = std::env::temp_dir().join(format!("hearth-cli-securities-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("securities.tsv");
    std::fs::write(&file, "# source: test\n2330\t台積電\ttwse\tstock\n8069\t元太\totc\tstock\n")
        .expect("write");
    let out = hearth()
        .arg("tools")
        .env("HEARTH_TW_SECURITIES_FILE", &file)
        .output()
        .expect("run hearth tools");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.status.success(), "started with a table it could not read");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("HEARTH_TW_SECURITIES_FILE") && err.contains("line 3"), "{err}");
    assert!(err.contains("\"otc\" is not twse or tpex"), "{err}");
}

/// Recognisable values for every secret setting, none of which may ever be printed.
const SECRETS: [(&str, &str); 7] = [
    ("LINE_CHANNEL_SECRET", "line-secret-7f3a9c"),
    ("LINE_CHANNEL_ACCESS_TOKEN", "line-token-4b8e2d"),
    ("OPENAI_API_KEY", "sk-openai-9d1c6f"),
    ("HEARTH_POSTBACK_KEY", "postback-key-2a7b5e"),
    ("HEARTH_TAVILY_API_KEY", "tvly-tavily-8e3f1a"),
    ("HEARTH_BRAVE_API_KEY", "brave-key-6c4d9b"),
    ("DATABASE_URL", "postgres://hearth:db-password-5e2f8a@db.invalid/hearth"),
];

#[test]
fn help_never_shows_the_values_of_secret_settings() {
    for args in [&["--help"][..], &["serve", "--help"][..]] {
        let mut cmd = hearth();
        cmd.args(args);
        for (name, value) in SECRETS {
            cmd.env(name, value);
        }
        let out = cmd.output().expect("run hearth --help");
        assert!(out.status.success());
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("LINE_CHANNEL_SECRET"), "the setting itself is still documented");
        for (name, value) in SECRETS {
            let shown = value.rsplit(':').next().unwrap_or(value);
            assert!(!help.contains(shown), "{args:?} shows the value of {name}:\n{help}");
        }
    }
}

#[test]
fn a_refused_database_url_is_reported_without_its_password() {
    let out = hearth()
        .arg("migrate")
        .env("DATABASE_URL", "mysql://hearth:db-password-5e2f8a@db.invalid:3306/hearth")
        .output()
        .expect("run hearth migrate");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unsupported DATABASE_URL"), "{stderr}");
    assert!(stderr.contains("mysql://***@db.invalid"), "{stderr}");
    assert!(!stderr.contains("db-password-5e2f8a"), "{stderr}");
}

/// Every setting that takes a URL or a secret, by its environment name, with a value carrying
/// a credential: URLs with a password and a token in the query, secrets as they are.
fn secret_settings() -> Vec<(String, String)> {
    use clap::Args;
    let command = hearth::platform::config::Config::augment_args(clap::Command::new("settings"));
    command
        .get_arguments()
        .filter_map(|arg| arg.get_env().and_then(|e| e.to_str()).map(str::to_string))
        .filter_map(|name| {
            let value = if name == "HEARTH_PUBLIC_URL" {
                "https://family:Pw0nly1n@127.0.0.1:9".to_string()
            } else if name == "DATABASE_URL" {
                "postgres://hearth:Pw0nly1n@127.0.0.1:9/hearth?password=Qs3cr3tt0ken".to_string()
            } else if name.ends_with("_URL") || name.ends_with("_BASE") {
                "http://family:Pw0nly1n@127.0.0.1:9/api?token=Qs3cr3tt0ken&x=1".to_string()
            } else if ["_KEY", "_TOKEN", "_SECRET"].iter().any(|s| name.ends_with(s)) {
                "K3ys3cr3tv4lue".to_string()
            } else {
                return None;
            };
            Some((name, value))
        })
        .collect()
}

#[test]
fn no_secret_of_any_setting_is_printed_by_help_doctor_or_the_logs() {
    let settings = secret_settings();
    assert!(settings.len() >= 15, "every URL and secret setting: {settings:?}");
    let sqlite = std::env::temp_dir().join(format!("hearth-secrets-{}.db", std::process::id()));
    let sqlite = format!("sqlite://{}", sqlite.display());
    let run = |args: &[&str], for_secs: Option<u64>| {
        let mut cmd = hearth();
        cmd.envs(settings.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        if for_secs.is_some() {
            // A server that starts (on a database it can open) and logs what it tries.
            cmd.env("DATABASE_URL", &sqlite);
        }
        cmd.env("RUST_LOG", "debug")
            .env("HEARTH_LISTEN", "127.0.0.1:0")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("run hearth");
        if let Some(secs) = for_secs {
            std::thread::sleep(std::time::Duration::from_secs(secs));
            let _ = child.kill();
        }
        let out = child.wait_with_output().expect("output");
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    };
    let outputs = [
        ("--help", run(&["--help"], None)),
        ("serve --help", run(&["serve", "--help"], None)),
        ("doctor", run(&["doctor", "--timeout-secs", "3"], None)),
        ("doctor --json", run(&["doctor", "--json", "--timeout-secs", "3"], None)),
        ("serve", run(&["serve"], Some(3))),
    ];
    for (what, said) in &outputs {
        assert!(!said.is_empty(), "{what} said nothing");
        for secret in ["Pw0nly1n", "Qs3cr3tt0ken", "K3ys3cr3tv4lue"] {
            assert!(!said.contains(secret), "{what} printed {secret}:\n{said}");
        }
    }
    let doctor = &outputs[2].1;
    assert!(doctor.contains("***"), "the doctor shows where a credential was: {doctor}");
    // A value clap refuses is quoted in its error: masked there too.
    let refused = hearth()
        .env("HEARTH_PUBLIC_URL", "https://family:Pw0nly1n@hearth.example/?x=1")
        .arg("doctor")
        .output()
        .expect("run hearth");
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && said.contains("public-url"), "{said}");
    assert!(!said.contains("Pw0nly1n"), "{said}");
}
