//! `hearth setup` against the fake LINE API: a new channel gets its webhook URL registered and
//! tested, the rich menus installed, the add-friend link with its QR code and a pairing code;
//! "Use webhook" off is one ✗ saying where to switch it; a dry run changes nothing; running it
//! again changes nothing more; a refused token stops at the first step. Every body sent is
//! recorded for the SDK and spec conformance check of `.ci/run` (`webhookendpoint`,
//! `webhooktest`).

use std::time::Duration;

use crate::common::FakeLine;
use crate::common::harness::SECRET;
use hearth::cli::doctor::Status;
use hearth::cli::setup::run;
use hearth::platform::config::Config;

const PUBLIC_URL: &str = "https://hearth.example.com";
const TOKEN: &str = "test-access-token";

/// A channel as the LINE Developers console leaves it (no webhook URL, "Use webhook" off), and
/// hearth's settings for it on a new database.
async fn new_channel() -> (FakeLine, Config) {
    let line = FakeLine::start().await;
    line.set_valid_token(TOKEN);
    let mut config = Config::defaults();
    config.line.line_channel_secret = SECRET.into();
    config.line.line_channel_access_token = TOKEN.into();
    config.line.line_api_base = line.url();
    config.line.line_data_api_base = line.url();
    config.server.public_url = Some(PUBLIC_URL.into());
    let dir = crate::common::scratch_dir("setup");
    config.store.database_url = format!("sqlite://{}", dir.join("hearth.db").display());
    (line, config)
}

/// The requests hearth sent LINE that change the channel: `(method, path)`.
fn changes(line: &FakeLine) -> Vec<(String, String)> {
    line.requests()
        .into_iter()
        .filter(|r| r.method != "GET" && r.path != "/v2/bot/channel/webhook/test")
        .map(|r| (r.method, r.path))
        .collect()
}

#[tokio::test]
async fn a_new_channel_gets_its_webhook_menus_and_the_familys_way_in_and_a_second_run_changes_nothing()
 {
    let (line, config) = new_channel().await;
    let dry = run(&config, true).await;
    let text = dry.render(false);
    assert!(
        text.contains(
            "would set the webhook URL to https://hearth.example.com/callback (now: none)"
        ),
        "{text}"
    );
    assert!(text.contains("would install them"), "{text}");
    assert!(changes(&line).is_empty(), "a dry run changes nothing: {:?}", changes(&line));
    assert_eq!(dry.pairing_code, None, "nor makes a code");

    let done = run(&config, false).await;
    let text = done.render(false);
    println!("{text}");
    assert!(text.contains("✓ LINE channel  the Official Account is 小幫手 (@216ruodb)"), "{text}");
    assert!(
        text.contains("set the webhook URL to https://hearth.example.com/callback (was: none)")
    );
    assert!(
        text.contains(
            "LINE's test request to https://hearth.example.com/callback was answered 200"
        )
    );
    assert!(text.contains("✗ webhook       Use webhook is off"), "{text}");
    assert!(text.contains("Messaging API tab → Webhook settings → Use webhook"), "{text}");
    assert!(text.contains("Auto-response and Greeting message off"), "{text}");
    assert!(text.contains("https://line.me/R/ti/p/%40216ruodb") && text.contains('█'), "{text}");
    let put = line.requests().into_iter().find(|r| r.method == "PUT").expect("the webhook set");
    assert_eq!(put.body["endpoint"], "https://hearth.example.com/callback");
    assert_eq!(done.pairing_code, None, "no code while LINE sends hearth nothing: {text}");
    assert!(text.contains("no pairing code yet: LINE cannot reach hearth"), "{text}");
    assert_eq!(done.report.count(Status::Fail), 1, "only the switch no API turns on");
    let menus = line.rich_menus().len();
    assert!(menus >= 2, "the menus are installed");

    // The family switched "Use webhook" on in the console; setup runs again.
    line.set_webhook(&format!("{PUBLIC_URL}/callback"), true);
    let before = changes(&line).len();
    let again = run(&config, false).await;
    let text = again.render(false);
    assert!(
        text.contains("✓ webhook       the webhook URL is https://hearth.example.com/callback")
    );
    assert_eq!(again.report.count(Status::Fail), 0, "{text}");
    let sent: Vec<_> = changes(&line).into_iter().skip(before).collect();
    assert!(
        sent.is_empty(),
        "neither the webhook URL nor the current menus are set again: {sent:?}"
    );
    assert_eq!(line.rich_menus().len(), menus);
    let code = again.pairing_code.clone().expect("now a pairing code");
    assert!(
        text.contains(&format!("as: 小幫手 {code}")),
        "sent after the keyword in a group: {text}"
    );
}

#[tokio::test]
async fn a_webhook_url_that_fails_lines_test_never_replaces_one_that_is_registered() {
    let (line, config) = new_channel().await;
    line.set_webhook("https://old.example.com/callback", true);
    line.set_webhook_test_status(0);
    let done = run(&config, false).await;
    let text = done.render(false);
    assert!(
        text.contains("left https://old.example.com/callback registered: https://hearth.example.com/callback does not answer LINE's test yet"),
        "{text}"
    );
    assert!(text.contains("got no answer"), "the test's own answer is shown: {text}");
    assert!(!line.requests().iter().any(|r| r.method == "PUT"), "nothing half-done");
    assert_eq!(done.pairing_code, None);
    line.set_webhook_test_status(200);
    let fixed = run(&config, false).await.render(false);
    assert!(
        fixed.contains("set the webhook URL to https://hearth.example.com/callback (was: https://old.example.com/callback)"),
        "{fixed}"
    );
}

#[tokio::test]
async fn a_refused_token_stops_at_the_first_step_with_its_fix_and_changes_nothing() {
    let (line, mut config) = new_channel().await;
    config.line.line_channel_access_token = "an-old-token".into();
    let done = run(&config, false).await;
    let text = done.render(false);
    assert!(text.contains("✗ LINE channel  LINE refused the channel access token"), "{text}");
    assert!(text.contains("issue a new long-lived token"), "{text}");
    assert_eq!(done.report.entries.len(), 1, "nothing else is tried: {text}");
    assert!(changes(&line).is_empty());
}

#[tokio::test]
async fn without_an_https_address_the_webhook_step_says_what_to_set_and_the_rest_goes_on() {
    let (line, mut config) = new_channel().await;
    config.server.public_url = Some("http://192.168.1.20:8080".into());
    let text = run(&config, false).await.render(false);
    assert!(
        text.contains("✗ webhook       HEARTH_PUBLIC_URL is not this server's https:// address"),
        "{text}"
    );
    assert!(!line.requests().iter().any(|r| r.method == "PUT"));
    assert!(text.contains("✓ rich menus"), "the other steps still run: {text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_command_exits_non_zero_until_every_step_is_done() {
    let (line, config) = new_channel().await;
    let run_cli = |args: &'static [&'static str]| {
        let env = [
            ("LINE_CHANNEL_SECRET", SECRET.to_string()),
            ("LINE_CHANNEL_ACCESS_TOKEN", TOKEN.to_string()),
            ("LINE_API_BASE", line.url()),
            ("LINE_DATA_API_BASE", line.url()),
            ("DATABASE_URL", config.store.database_url.clone()),
            ("HEARTH_PUBLIC_URL", PUBLIC_URL.to_string()),
        ];
        async move {
            let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_hearth"));
            cmd.env_clear().env("PATH", std::env::var("PATH").unwrap_or_default());
            cmd.envs(env).arg("setup").args(args);
            tokio::time::timeout(Duration::from_secs(60), cmd.output())
                .await
                .expect("hearth setup finishes")
                .expect("run hearth setup")
        }
    };
    let first = run_cli(&[]).await;
    let said = String::from_utf8_lossy(&first.stdout);
    assert!(!first.status.success(), "Use webhook is off: {said}");
    line.set_webhook(&format!("{PUBLIC_URL}/callback"), true);
    let second = run_cli(&[]).await;
    let said = String::from_utf8_lossy(&second.stdout);
    assert!(second.status.success(), "{said}\n{}", String::from_utf8_lossy(&second.stderr));
    assert!(said.contains("Pairing code (valid 10 minutes)"), "{said}");
}
