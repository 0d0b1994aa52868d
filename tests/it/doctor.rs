//! `hearth doctor` against the fakes: every check ✓ on a healthy setup, and each check failing
//! once (a switch on a fake, or a setting) with its ✗, its fix and a non-zero exit.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::common::harness::{FAMILY, SECRET};
use crate::common::{FakeLine, FakeLlm, FakeWeb, Step};
use crate::mcp_support::HttpHome;
use hearth::cli::doctor::{Finding, Options, Report, Status, examine};
use hearth::platform::config::Config;
use hearth::store::Store;
use serde_json::json;

const PUBLIC_URL: &str = "https://hearth.example.com";
const TOKEN: &str = "test-access-token";

/// A deployment whose every part works, and the fakes behind it.
struct Deployment {
    line: FakeLine,
    llm: FakeLlm,
    config: Config,
    options: Options,
    web: FakeWeb,
    home: HttpHome,
    /// Files made for it, removed when it is dropped.
    files: Vec<std::path::PathBuf>,
}

impl Drop for Deployment {
    fn drop(&mut self) {
        for file in &self.files {
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
            }
        }
    }
}

fn unique() -> u64 {
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::SeqCst)
}

/// A file path in the temporary directory, not yet created.
fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("hearth-doctor-{}-{}-{name}", std::process::id(), unique()))
}

/// A database URL on the test backend (an SQLite file, or a fresh PostgreSQL schema), migrated
/// or not.
async fn database(migrated: bool) -> String {
    let url = match crate::common::db::harness_database().await.as_str() {
        "sqlite::memory:" => format!("sqlite://{}", temp_path("hearth.db").display()),
        postgres => postgres.to_string(),
    };
    let store = Store::open(&url).await.expect("open the test database");
    if migrated {
        store.migrate().await.expect("migrate");
    }
    url
}

impl Deployment {
    async fn healthy() -> Self {
        let line = FakeLine::start().await;
        let llm = FakeLlm::start().await;
        let web = FakeWeb::start().await;
        let home = HttpHome::start().await;
        line.set_valid_token(TOKEN);
        line.set_webhook(&format!("{PUBLIC_URL}/callback"), true);
        line.set_quota(Some(200));
        line.set_quota_used(12);
        llm.set_models(&["fake-model", "fake-vision", "fake-whisper", "fake-tts"]);
        let mcp = temp_path("mcp.json");
        std::fs::write(&mcp, json!({"mcpServers": {"home": {"url": home.url}}}).to_string())
            .expect("write the MCP configuration");
        let mut config = Config::defaults();
        config.line.line_channel_secret = SECRET.into();
        config.line.line_channel_access_token = TOKEN.into();
        config.line.line_api_base = line.url();
        config.llm.openai_base_url = llm.url();
        config.llm.openai_api_key = "sk-test".into();
        config.llm.model = "fake-model".into();
        config.llm.llm_strict = true;
        config.llm.llm_timeout_secs = 5;
        config.store.database_url = database(true).await;
        config.family.timezone = "Asia/Taipei".into();
        config.server.public_url = Some(PUBLIC_URL.into());
        config.web.searxng_url = format!("{}/searxng", web.url());
        config.web.tavily_api_key = "".into();
        config.web.brave_api_key = "".into();
        config.sources.upstream_timeout_secs = 3;
        config.access.allowed_chats = vec![FAMILY.into()];
        config.server.metrics_token = "metrics-token".into();
        config.mcp.mcp_config = Some(mcp);
        config.family.work_calendar = None;
        config.sources.tw_securities_file = None;
        config.llm.vision_model = "fake-vision".into();
        config.speech.transcribe_model = "fake-whisper".into();
        config.speech.transcribe_url = String::new();
        config.speech.tts_model = "fake-tts".into();
        config.line.line_data_api_base = line.url();
        let store = Store::open(&config.store.database_url).await.expect("open the database");
        hearth::cli::richmenu::install(&config, &store).await.expect("install the rich menus");
        let options = Options { webhook_url: None, timeout: Duration::from_secs(10) };
        let mut files = vec![config.mcp.mcp_config.clone().expect("set")];
        files.extend(hearth::store::sqlite_file(&config.store.database_url));
        Self { line, llm, config, options, web, home, files }
    }

    /// Runs the checks, the model calling the tool it is given as a healthy one does.
    async fn examine(&self) -> Report {
        self.llm.reply_tool_calls(&[("ping", json!({}))]);
        examine(&self.config, &self.options).await
    }

    /// The environment `hearth doctor` reads this deployment from.
    fn env(&self) -> Vec<(&'static str, String)> {
        let c = &self.config;
        vec![
            ("LINE_CHANNEL_SECRET", SECRET.into()),
            ("LINE_CHANNEL_ACCESS_TOKEN", c.line.line_channel_access_token.expose().into()),
            ("LINE_API_BASE", c.line.line_api_base.clone()),
            ("OPENAI_BASE_URL", c.llm.openai_base_url.clone()),
            ("OPENAI_API_KEY", "sk-test".into()),
            ("HEARTH_MODEL", c.llm.model.clone()),
            ("DATABASE_URL", c.store.database_url.clone()),
            ("HEARTH_PUBLIC_URL", PUBLIC_URL.into()),
            ("HEARTH_SEARXNG_URL", c.web.searxng_url.clone()),
            ("HEARTH_ALLOWED_CHATS", FAMILY.into()),
            ("HEARTH_METRICS_TOKEN", "metrics-token".into()),
            ("HEARTH_MCP_CONFIG", c.mcp.mcp_config.as_ref().expect("set").display().to_string()),
            ("HEARTH_VISION_MODEL", "fake-vision".into()),
            ("HEARTH_TRANSCRIBE_MODEL", "fake-whisper".into()),
            ("HEARTH_TTS_MODEL", "fake-tts".into()),
        ]
    }
}

/// The one finding of `check`, which must exist.
fn only<'a>(report: &'a Report, check: &str) -> &'a Finding {
    let found = report.of(check);
    assert_eq!(found.len(), 1, "{check}: {found:?}\n{}", report.render());
    found[0]
}

/// Asserts `check` failed with a message containing `message` and a fix containing `fix`, and
/// that the report as a whole fails.
fn assert_fails(report: &Report, check: &str, message: &str, fix: &str) {
    let failed: Vec<&Finding> =
        report.of(check).into_iter().filter(|f| f.status == Status::Fail).collect();
    assert!(
        failed
            .iter()
            .any(|f| f.message.contains(message)
                && f.fix.as_deref().unwrap_or_default().contains(fix)),
        "{check} should fail with {message:?} / {fix:?}:\n{}",
        report.render()
    );
    assert!(report.count(Status::Fail) > 0);
}

/// Runs the binary with the deployment's environment and `args` (the model healthy).
async fn run_binary(d: &Deployment, args: &[&str]) -> std::process::Output {
    d.llm.reply_tool_calls(&[("ping", json!({}))]);
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_hearth"));
    cmd.env_clear().env("PATH", std::env::var("PATH").unwrap_or_default());
    cmd.envs(d.env()).arg("doctor").args(args);
    tokio::time::timeout(Duration::from_secs(60), cmd.output())
        .await
        .expect("hearth doctor finishes")
        .expect("run hearth doctor")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_former_setting_name_still_works_and_the_doctor_says_to_rename_it() {
    let d = Deployment::healthy().await;
    d.llm.reply_tool_calls(&[("ping", json!({}))]);
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_hearth"));
    cmd.env_clear().env("PATH", std::env::var("PATH").unwrap_or_default());
    cmd.envs(d.env()).env("HEARTH_ALERTS_POLL_SECS", "30").arg("doctor");
    let out = tokio::time::timeout(Duration::from_secs(60), cmd.output())
        .await
        .expect("hearth doctor finishes")
        .expect("run hearth doctor");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "a former name is a warning, not a failure: {said}");
    assert!(
        said.contains("HEARTH_ALERTS_POLL_SECS is a former name")
            && said.contains("rename HEARTH_ALERTS_POLL_SECS to HEARTH_OFFICIAL_ALERTS_POLL_SECS"),
        "{said}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_healthy_deployment_passes_every_check() {
    let d = Deployment::healthy().await;
    let report = d.examine().await;
    assert_eq!(report.count(Status::Fail), 0, "{}", report.render());
    assert_eq!(report.count(Status::Warn), 0, "{}", report.render());
    for check in hearth::cli::doctor::CHECKS {
        assert!(
            report.of(check.name()).iter().any(|f| f.status == Status::Pass),
            "{} passes:\n{}",
            check.name(),
            report.render()
        );
    }
    assert!(only(&report, "LINE token").message.contains("小幫手 (@216ruodb)"));
    assert!(only(&report, "MCP servers").message.contains("home: reached"));
    let tools_request = &d.llm.requests()[0];
    assert_eq!(tools_request["tools"][0]["function"]["name"], "ping");
    assert_eq!(tools_request["tools"][0]["function"]["strict"], true, "sent as hearth sends");
    let test = d.line.requests();
    let test = test.iter().find(|r| r.path == "/v2/bot/channel/webhook/test").expect("tested");
    assert_eq!(test.header("authorization"), Some("Bearer test-access-token"));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_binary_prints_the_list_and_exits_zero_when_healthy_and_non_zero_on_a_failure() {
    let d = Deployment::healthy().await;
    let out = run_binary(&d, &[]).await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("✓ LINE webhook"), "{text}");
    assert!(!text.lines().any(|l| l.starts_with('✗')), "{text}");
    assert!(text.ends_with("0 ⚠  0 ✗\n"), "{text}");

    d.line.set_webhook("https://old.example.com/callback", true);
    let out = run_binary(&d, &[]).await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("✗ LINE webhook"), "{text}");
    assert!(
        text.contains("→ set the webhook URL to https://hearth.example.com/callback"),
        "{text}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 problem(s) found"));

    let out =
        run_binary(&d, &["--json", "--webhook-url", "https://old.example.com/callback"]).await;
    assert!(out.status.success(), "the URL given is the one registered");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let hook =
        json["entries"].as_array().expect("entries").iter().find(|e| e["check"] == "LINE webhook");
    assert_eq!(hook.expect("webhook entry")["status"], "pass");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_or_invalid_setting_fails_naming_the_variable() {
    let mut d = Deployment::healthy().await;
    d.config.line.line_channel_secret = "".into();
    d.config.family.timezone = "Asia/Taipie".into();
    let report = d.examine().await;
    assert_fails(&report, "settings", "LINE_CHANNEL_SECRET is not set", "Basic settings tab");
    assert_fails(&report, "settings", "HEARTH_TIMEZONE", "IANA name");
}

#[tokio::test(flavor = "multi_thread")]
async fn optional_settings_left_out_are_warnings_not_failures() {
    let mut d = Deployment::healthy().await;
    d.config.web.searxng_url = String::new();
    d.config.access.open = true;
    d.config.llm.vision_model = String::new();
    d.config.speech.transcribe_model = String::new();
    d.config.speech.tts_model = String::new();
    let report = d.examine().await;
    assert_eq!(only(&report, "search").status, Status::Warn);
    let speech = only(&report, "speech model");
    assert_eq!(speech.status, Status::Warn);
    assert!(speech.message.contains("answers are never spoken"), "{}", speech.message);
    let vision = only(&report, "vision model");
    assert_eq!(vision.status, Status::Pass, "photos go to HEARTH_MODEL");
    assert!(vision.message.contains("HEARTH_MODEL (fake-model) is used"), "{}", vision.message);
    let voice = only(&report, "transcription model");
    assert_eq!(voice.status, Status::Warn);
    assert!(voice.message.contains("voice messages are not transcribed"), "{}", voice.message);
    assert!(
        report
            .of("settings")
            .iter()
            .any(|f| f.status == Status::Warn && f.message.contains("HEARTH_OPEN"))
    );
    assert_eq!(report.count(Status::Fail), 0, "{}", report.render());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_database_never_created_or_not_migrated_fails_with_hearth_migrate() {
    let mut d = Deployment::healthy().await;
    d.config.store.database_url = database(false).await;
    d.files.extend(hearth::store::sqlite_file(&d.config.store.database_url));
    assert_fails(&d.examine().await, "database", "migrations not applied", "hearth migrate");
    d.config.store.database_url = format!("sqlite://{}", temp_path("never.db").display());
    assert_fails(&d.examine().await, "database", "no database file", "hearth migrate");
    assert!(
        !std::path::Path::new(&d.config.store.database_url["sqlite://".len()..]).exists(),
        "not created"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_channel_token_fails_with_how_to_issue_one() {
    let d = Deployment::healthy().await;
    d.line.set_valid_token("another-token");
    let report = d.examine().await;
    assert_fails(&report, "LINE token", "refused the channel access token", "long-lived token");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_webhook_elsewhere_off_or_unanswered_fails_with_the_url_to_set() {
    let d = Deployment::healthy().await;
    d.line.set_webhook("https://old.example.com/callback", true);
    assert_fails(
        &d.examine().await,
        "LINE webhook",
        "old.example.com",
        "https://hearth.example.com/callback",
    );

    d.line.set_webhook(&format!("{PUBLIC_URL}/callback"), false);
    assert_fails(&d.examine().await, "LINE webhook", "Use webhook is off", "turn on Use webhook");

    d.line.set_webhook(&format!("{PUBLIC_URL}/callback"), true);
    d.line.set_webhook_test_status(0);
    let report = d.examine().await;
    assert_fails(&report, "LINE webhook", "got no answer", "hearth serve behind HTTPS");
    assert!(
        report.of("LINE webhook").iter().any(|f| f.status == Status::Pass),
        "registered is fine"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_the_endpoint_does_not_offer_fails_naming_what_it_offers() {
    let d = Deployment::healthy().await;
    d.llm.set_models(&["gpt-4o-mini", "fake-vision", "fake-whisper", "fake-tts"]);
    let report = d.examine().await;
    assert_fails(&report, "LLM model", "does not offer fake-model", "HEARTH_MODEL");
    assert!(only(&report, "LLM model").message.contains("gpt-4o-mini"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_that_refuses_tools_fails_and_one_that_ignores_them_warns() {
    let d = Deployment::healthy().await;
    let refusal = json!({"error": {"message": "tools is not supported for this model", "type": "invalid_request_error"}});
    d.llm.push(Step::Status(400, refusal.to_string()));
    let report = examine(&d.config, &d.options).await;
    assert_fails(
        &report,
        "LLM tool calls",
        "refused a request with a tool",
        "HEARTH_LLM_STRICT=false",
    );
    assert!(only(&report, "LLM tool calls").message.contains("tools is not supported"));

    d.llm.reply_text("pong");
    let report = examine(&d.config, &d.options).await;
    assert_eq!(only(&report, "LLM tool calls").status, Status::Warn, "{}", report.render());
    assert_eq!(report.count(Status::Fail), 0, "{}", report.render());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_llm_endpoint_that_cannot_be_reached_fails_with_the_base_url_to_check() {
    let mut d = Deployment::healthy().await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
    d.config.llm.openai_base_url = format!("http://{}/v1", closed.local_addr().expect("address"));
    drop(closed);
    let report = d.examine().await;
    assert_fails(&report, "LLM model", "cannot reach", "OPENAI_BASE_URL");
    assert_fails(&report, "LLM tool calls", "cannot reach", "OPENAI_BASE_URL");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_optional_model_set_but_not_offered_fails_naming_its_setting() {
    let mut d = Deployment::healthy().await;
    d.config.llm.vision_model = "llava".into();
    let report = d.examine().await;
    assert_fails(&report, "vision model", "does not offer llava", "HEARTH_VISION_MODEL");
    assert_eq!(only(&report, "transcription model").status, Status::Pass);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_search_provider_that_does_not_answer_fails_naming_its_setting() {
    let mut d = Deployment::healthy().await;
    d.config.web.searxng_url = format!("{}/no-searxng-here", d.web.url());
    assert_fails(&d.examine().await, "search", "SearXNG did not answer", "HEARTH_SEARXNG_URL");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_quota_used_up_fails_and_one_past_eighty_percent_warns() {
    let d = Deployment::healthy().await;
    d.line.set_quota_used(200);
    assert_fails(
        &d.examine().await,
        "message quota",
        "200 of 200",
        "LINE Official Account Manager",
    );
    d.line.set_quota_used(170);
    let report = d.examine().await;
    assert_eq!(only(&report, "message quota").status, Status::Warn, "{}", report.render());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_server_that_cannot_be_reached_fails_naming_it() {
    let mut d = Deployment::healthy().await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
    let url = format!("http://{}/mcp", closed.local_addr().expect("address"));
    drop(closed);
    let mcp = temp_path("mcp-down.json");
    let servers = json!({"mcpServers": {"home": {"url": d.home.url}, "garage": {"url": url}}});
    std::fs::write(&mcp, servers.to_string()).expect("write");
    d.files.push(mcp.clone());
    d.config.mcp.mcp_config = Some(mcp);
    let report = d.examine().await;
    assert_fails(&report, "MCP servers", "garage", "HEARTH_MCP_CONFIG");
    assert!(
        report
            .of("MCP servers")
            .iter()
            .any(|f| f.status == Status::Pass && f.message.contains("home"))
    );
}

/// Processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(marker) {
            found.push(format!("{}: {cmdline}", entry.file_name().to_string_lossy()));
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_server_that_fails_leaves_no_process_behind_and_a_urls_user_name_is_not_printed() {
    let mut d = Deployment::healthy().await;
    // A stdio server that starts a helper of its own, then fails the handshake.
    let marker = format!("{}", 900_000 + std::process::id() % 99_999);
    let script = format!("sleep {marker} </dev/null >/dev/null & exec cat /dev/null");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
    let url = format!("http://garage-user-4711:pw@{}/mcp", closed.local_addr().expect("address"));
    drop(closed);
    let mcp = temp_path("mcp-children.json");
    let servers = json!({"mcpServers": {
        "shed": {"command": "sh", "args": ["-c", script]},
        "garage": {"url": url},
    }});
    std::fs::write(&mcp, servers.to_string()).expect("write");
    d.files.push(mcp.clone());
    d.config.mcp.mcp_config = Some(mcp);
    let report = d.examine().await;
    assert_fails(&report, "MCP servers", "shed", "HEARTH_MCP_CONFIG");
    assert_fails(&report, "MCP servers", "garage", "HEARTH_MCP_CONFIG");
    let printed = report.render();
    assert!(!printed.contains("garage-user-4711") && !printed.contains(":pw@"), "{printed}");
    let left = processes_with(&format!("sleep {marker}"));
    assert!(left.is_empty(), "the server's own child was ended with it: {left:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_server_that_never_answers_is_ended_with_what_it_started_when_doctor_gives_up() {
    let mut d = Deployment::healthy().await;
    // A stdio server that starts a helper, then never says a word.
    let marker = format!("{}", 800_000 + std::process::id() % 99_999);
    let script = format!("sleep {marker} & exec sleep {marker}");
    let mcp = temp_path("mcp-silent.json");
    let servers = json!({"mcpServers": {"attic": {"command": "sh", "args": ["-c", script]}}});
    std::fs::write(&mcp, servers.to_string()).expect("write");
    d.files.push(mcp.clone());
    d.config.mcp.mcp_config = Some(mcp);
    d.options.timeout = std::time::Duration::from_secs(2);
    let report = d.examine().await;
    assert!(
        report.of("MCP servers").iter().any(|f| f.status == Status::Fail),
        "{}",
        report.render()
    );
    // What a stopped group leaves is reaped by the system shortly after.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let mut left = processes_with(&format!("sleep {marker}"));
    while !left.is_empty() && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        left = processes_with(&format!("sleep {marker}"));
    }
    assert!(left.is_empty(), "the server and its helper were ended: {left:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pairing_guess_budget_reached_in_the_last_day_warns_with_the_fix() {
    let mut d = Deployment::healthy().await;
    d.config.access.pairing_guesses_per_min = 3;
    let store = Store::open(&d.config.store.database_url).await.expect("open");
    let minute_of = |ago_ms: i64| {
        hearth::turn::limits::pairing::window(jiff::Timestamp::now().as_millisecond() - ago_ms)
    };
    // Four codes tried within one minute, as a serving hearth counts them: 25 hours ago ...
    for _ in 0..4 {
        store.access().count_pairing_guess(minute_of(25 * 3_600_000)).await.expect("counted");
    }
    let report = d.examine().await;
    let calm = report.of("database");
    assert!(
        calm.iter().any(|f| f.status == Status::Pass && f.message.contains("pairing codes")),
        "more than a day ago is not warned about: {}",
        report.render()
    );

    // ... and an hour ago.
    for _ in 0..4 {
        store.access().count_pairing_guess(minute_of(3_600_000)).await.expect("counted");
    }
    let report = d.examine().await;
    let warned: Vec<&Finding> = report
        .of("database")
        .into_iter()
        .filter(|f| f.status == Status::Warn && f.message.contains("pairing codes"))
        .collect();
    assert_eq!(warned.len(), 1, "{}", report.render());
    assert!(warned[0].message.contains("1 minute(s)"), "{}", warned[0].message);
    let fix = warned[0].fix.as_deref().unwrap_or_default();
    assert!(fix.contains("HEARTH_PAIRING_GUESSES_PER_MIN"), "{fix}");
    assert_eq!(report.count(Status::Fail), 0, "a warning, not a failure: {}", report.render());
    assert!(report.render().contains("⚠ database"), "{}", report.render());
}
