//! `hearth setup`: the LINE console's chores done through the Messaging API, with the settings
//! in place. Each step says what it found or did in one line (the doctor's ✓ / ⚠ / ✗, each ✗
//! with its fix), and running it again changes only what is not yet as it should be:
//!
//! 1. **The channel**: the access token's bot, by name — which Official Account this is.
//! 2. **The webhook**: `HEARTH_PUBLIC_URL/callback` registered at LINE (left alone when it is
//!    already), LINE's own test request to it, and whether "Use webhook" is on — no request
//!    turns it on, so when it is off the step says where to switch it.
//! 3. **The rich menus** installed (`hearth richmenu install`, which leaves one set however often
//!    it runs).
//! 4. **The family's way in**: the add-friend link and its QR code for the terminal, and, unless
//!    every chat is served, a pairing code the family sends in their group to approve it.
//! 5. **What only the console does**: the Official Account Manager's auto-reply and greeting,
//!    with where to click.
//!
//! `--dry-run` reads everything and says what it would change, changing nothing (no pairing
//! code is made either).

use futures::future::BoxFuture;

use super::doctor::{Entry, Finding, Report, Status, verdict};
use crate::line::client::{LineClient, LineError};
use crate::platform::config::Config;

/// The command line of `hearth setup`.
#[derive(Debug, Clone, clap::Args)]
pub struct SetupArgs {
    /// Say what would change, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Where the console's webhook switch is.
const USE_WEBHOOK: &str = "switch it on in the LINE Developers console: your channel → Messaging API tab → Webhook settings → Use webhook (no API turns it on)";
/// Where the Official Account Manager's answers are switched off.
const RESPONSES: &str = "in LINE Official Account Manager (https://manager.line.biz/) → your account → Settings → Response settings: turn Auto-response and Greeting message off, and Webhook on";

/// What setup did: the report, and what the family needs to add hearth.
pub struct Done {
    /// One line per step's finding.
    pub report: Report,
    /// The add-friend link, when the bot is known.
    pub friend_link: Option<String>,
    /// A pairing code, when one was made.
    pub pairing_code: Option<String>,
}

impl Done {
    /// What the operator reads: the report, then the link with its QR code and the code.
    pub fn render(&self) -> String {
        let mut out = self.report.render();
        if let Some(link) = &self.friend_link {
            out.push_str(&format!("\nAdd hearth as a friend (LINE app → scan): {link}\n"));
            out.push_str(&qr(link));
        }
        if let Some(code) = &self.pairing_code {
            out.push_str(&format!(
                "\nPairing code (valid 10 minutes): {code}\nIn the family's LINE group, after adding hearth to it, send: {code}\n"
            ));
        }
        out
    }
}

/// `text` as a QR code drawn with half blocks, two rows of modules to a line of the terminal.
pub fn qr(text: &str) -> String {
    use qrcode::render::unicode::Dense1x2;
    match qrcode::QrCode::new(text.as_bytes()) {
        Ok(code) => {
            let drawn = code.render::<Dense1x2>().quiet_zone(true).build();
            format!("{drawn}\n")
        }
        Err(e) => format!("(no QR code: {e})\n"),
    }
}

/// The link that adds the Official Account `basic_id` (`@123abcd`) as a friend.
pub fn friend_link(basic_id: &str) -> String {
    let id: String = url::form_urlencoded::byte_serialize(basic_id.trim().as_bytes()).collect();
    format!("https://line.me/R/ti/p/{id}")
}

/// Runs the steps in order; a step that cannot go on says why, and the next still run.
pub async fn run(config: &Config, dry_run: bool) -> Done {
    let mut entries = Vec::new();
    let mut push = |check: &'static str, findings: Vec<Finding>| {
        entries.extend(findings.into_iter().map(|finding| Entry { check, finding }));
    };
    let line = match client(config) {
        Ok(line) => line,
        Err(finding) => {
            push("LINE channel", vec![finding]);
            return Done { report: Report { entries }, friend_link: None, pairing_code: None };
        }
    };
    let base = &config.line.line_api_base;
    let bot = line.bot_info().await;
    let friend_link = bot.as_ref().ok().map(|b| friend_link(&b.basic_id));
    push(
        "LINE channel",
        vec![match &bot {
            Ok(bot) => Finding::pass(format!(
                "the Official Account is {} ({})",
                bot.display_name, bot.basic_id
            )),
            Err(e) => line_error("bot info", base, e),
        }],
    );
    if bot.is_err() {
        return Done { report: Report { entries }, friend_link: None, pairing_code: None };
    }
    push("webhook", webhook(config, &line, dry_run).await);
    push("rich menus", vec![menus(config, &line, dry_run).await]);
    let (finding, pairing_code) = pairing(config, dry_run).await;
    push("pairing", vec![finding]);
    push(
        "LINE console",
        vec![Finding::warn("the auto-reply and greeting cannot be set through the API", RESPONSES)],
    );
    Done { report: Report { entries }, friend_link, pairing_code }
}

/// The client of the configured channel, or why there is none.
fn client(config: &Config) -> Result<LineClient, Finding> {
    if config.line.line_channel_access_token.is_empty() {
        return Err(Finding::fail(
            "LINE_CHANNEL_ACCESS_TOKEN is not set",
            "issue a long-lived token on the Messaging API tab of the LINE Developers console and set LINE_CHANNEL_ACCESS_TOKEN",
        ));
    }
    LineClient::new(&config.line.line_api_base, config.line.line_channel_access_token.clone(), 1)
        .map_err(|e| {
            Finding::fail(
                format!("cannot build the HTTP client for LINE: {e}"),
                "report this as a bug",
            )
        })
}

/// A failed request to LINE, for the operator.
fn line_error(what: &str, base: &str, e: &LineError) -> Finding {
    super::doctor::line::line_error(what, base, e)
}

/// Registers the webhook URL where it is not yet, has LINE test it, and reads the switch.
fn webhook<'a>(
    config: &'a Config,
    line: &'a LineClient,
    dry_run: bool,
) -> BoxFuture<'a, Vec<Finding>> {
    Box::pin(async move {
        let base = &config.line.line_api_base;
        let public = config.server.public_url.as_deref().filter(|u| u.starts_with("https://"));
        let Some(expected) = verdict::expected_webhook(None, public) else {
            return vec![Finding::fail(
                "HEARTH_PUBLIC_URL is not this server's https:// address, so there is no webhook URL to register",
                "set HEARTH_PUBLIC_URL to the https:// address LINE reaches this server at (docs/deploy.md), then run hearth setup again",
            )];
        };
        let at_line = match line.webhook_endpoint().await {
            Ok(at_line) => at_line,
            Err(e) => return vec![line_error("the webhook endpoint", base, &e)],
        };
        let mut found = Vec::new();
        let registered = verdict::same_url(&expected, &at_line.endpoint);
        let was = match at_line.endpoint.trim() {
            "" => "none".to_string(),
            url => url.to_string(),
        };
        match (registered, dry_run) {
            (true, _) => found.push(Finding::pass(format!("the webhook URL is {expected}"))),
            (false, true) => found.push(Finding::warn(
                format!("would set the webhook URL to {expected} (now: {was})"),
                "run hearth setup without --dry-run",
            )),
            (false, false) => match line.set_webhook_endpoint(&expected).await {
                Ok(()) => found
                    .push(Finding::pass(format!("set the webhook URL to {expected} (was: {was})"))),
                Err(e) => return vec![line_error("setting the webhook URL", base, &e)],
            },
        }
        if !dry_run || registered {
            found.push(match line.test_webhook(Some(&expected)).await {
                Ok(test) => verdict::webhook_test(&expected, &test),
                Err(e) => line_error("the webhook test", base, &e),
            });
        }
        found.push(match at_line.active {
            true => Finding::pass("Use webhook is on"),
            false => Finding::fail("Use webhook is off: LINE sends hearth nothing", USE_WEBHOOK),
        });
        found
    })
}

/// Installs the rich menus (or, in a dry run, says whether they are current).
async fn menus(config: &Config, line: &LineClient, dry_run: bool) -> Finding {
    let base = &config.line.line_api_base;
    if dry_run {
        return match super::doctor::menus::check(config, line).await {
            Ok(finding) if finding.status == Status::Pass => finding,
            Ok(finding) => Finding::warn(
                format!("would install them: {}", finding.message),
                "run hearth setup without --dry-run",
            ),
            Err(e) => line_error("the rich menus", base, &e),
        };
    }
    let store = match crate::store::Store::connect(&config.store.database_url).await {
        Ok(store) => store,
        Err(e) => {
            return Finding::fail(
                format!("the database cannot be opened ({e}), so the menus were not installed"),
                "check DATABASE_URL (hearth doctor), then run hearth setup again",
            );
        }
    };
    match super::richmenu::install(config, &store).await {
        // One line: the menus made (the rest of what install says is for `hearth richmenu`).
        Ok(done) => {
            let made: Vec<&str> = done
                .lines()
                .filter_map(|l| l.strip_prefix("created "))
                .filter_map(|l| l.split_whitespace().next())
                .collect();
            Finding::pass(format!(
                "installed {}; the everyday menu is everyone's default",
                made.join(", ")
            ))
        }
        Err(e) => Finding::fail(
            format!("the rich menus were not installed: {e}"),
            "run hearth setup again; if it fails the same way, hearth doctor says more",
        ),
    }
}

/// A pairing code for the family's group, unless every chat is served.
async fn pairing(config: &Config, dry_run: bool) -> (Finding, Option<String>) {
    if config.access.open {
        return (Finding::pass("every chat is served (HEARTH_OPEN): no pairing needed"), None);
    }
    if dry_run {
        return (Finding::pass("would print a pairing code for the family's group"), None);
    }
    let code = match super::access::door(config).await {
        Ok(door) => super::access::pair(&door).await,
        Err(e) => Err(e),
    };
    match code {
        Ok(code) => (Finding::pass("a pairing code for the family's group is below"), Some(code)),
        Err(e) => (
            Finding::fail(
                format!("no pairing code was made: {e}"),
                "check DATABASE_URL (hearth doctor), then run hearth pair",
            ),
            None,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_friend_link_names_the_basic_id_and_its_qr_code_is_drawn_in_blocks() {
        assert_eq!(friend_link("@216ru"), "https://line.me/R/ti/p/%40216ru");
        let drawn = qr("https://line.me/R/ti/p/%40216ru");
        assert!(drawn.lines().count() >= 15, "{drawn}");
        assert!(drawn.contains('█') || drawn.contains('▀'), "{drawn}");
    }
}
