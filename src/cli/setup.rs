//! `hearth setup`: the LINE console's chores done through the Messaging API, with the settings
//! in place. Each step says what it found or did in one line (the doctor's ✓ / ⚠ / ✗, each ✗
//! with its fix), and running it again changes only what is not yet as it should be:
//!
//! 1. **The channel**: the access token's bot, by name — which Official Account this is.
//! 2. **The webhook**: LINE's own test request to `HEARTH_PUBLIC_URL/callback`, which is then
//!    registered at LINE (left alone when it is already; a URL LINE has is never replaced by one
//!    that fails the test), and whether "Use webhook" is on — no request turns it on, so when it
//!    is off the step says where to switch it.
//! 3. **The rich menus** installed when they are not current (`hearth richmenu install`).
//! 4. **The family's way in**: the add-friend link and its QR code for the terminal, and a
//!    pairing code the family sends to approve their group — unless every chat is served, a
//!    chat is approved already, or LINE cannot reach hearth yet.
//! 5. **What only the console does**: the Official Account Manager's auto-reply and greeting,
//!    with where to click.
//!
//! `--dry-run` reads everything (LINE's webhook test included, which registers nothing) and
//! says what it would change, changing nothing (no pairing code is made either).

use futures::future::BoxFuture;

use super::doctor::line::line_error;
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
    /// The word that calls hearth in a group (the code is sent after it there).
    pub keyword: String,
}

impl Done {
    /// What the operator reads: the report, then the link with its QR code and the code. On a
    /// terminal (`ansi`) the code is drawn dark on light whatever the terminal's colours, as
    /// scanners expect.
    pub fn render(&self, ansi: bool) -> String {
        let mut out = self.report.render();
        if let Some(link) = &self.friend_link {
            out.push_str(&format!("\nAdd hearth as a friend (LINE app → scan): {link}\n"));
            out.push_str(&qr(link, ansi));
        }
        if let Some(code) = &self.pairing_code {
            out.push_str(&format!(
                "\nPairing code (valid 10 minutes): {code}\nSend it alone in your 1:1 chat with hearth, or in the family's group (after adding hearth to it) as: {} {code}\n",
                self.keyword
            ));
        }
        out
    }
}

/// `text` as a QR code drawn with half blocks, two rows of modules to a line of the terminal;
/// `ansi`: in black on white (on a dark terminal an uncoloured code comes out inverted).
pub fn qr(text: &str, ansi: bool) -> String {
    use qrcode::render::unicode::Dense1x2;
    let code = match qrcode::QrCode::new(text.as_bytes()) {
        Ok(code) => code,
        Err(e) => return format!("(no QR code: {e})\n"),
    };
    if !ansi {
        return format!("{}\n", code.render::<Dense1x2>().quiet_zone(true).build());
    }
    // Light modules drawn as blocks in white, dark ones left as the black background.
    let drawn = code
        .render::<Dense1x2>()
        .dark_color(Dense1x2::Light)
        .light_color(Dense1x2::Dark)
        .quiet_zone(true)
        .build();
    let lines: Vec<String> = drawn.lines().map(|l| format!("\x1b[97;40m{l}\x1b[0m")).collect();
    format!("{}\n", lines.join("\n"))
}

/// The link that adds the Official Account `basic_id` (`@123abcd`) as a friend.
pub fn friend_link(basic_id: &str) -> String {
    let id: String = url::form_urlencoded::byte_serialize(basic_id.trim().as_bytes()).collect();
    format!("https://line.me/R/ti/p/{id}")
}

/// Runs the steps in order; a step that cannot go on says why, and the next still run.
pub async fn run(config: &Config, dry_run: bool) -> Done {
    let keyword = config.turns.keywords().into_iter().next().unwrap_or_else(|| "hearth".into());
    let mut entries = Vec::new();
    let mut push = |check: &'static str, findings: Vec<Finding>| {
        entries.extend(findings.into_iter().map(|finding| Entry { check, finding }));
    };
    let line = match super::doctor::line::channel(config) {
        Ok(line) => line,
        Err(finding) => {
            push("LINE channel", vec![finding]);
            return Done {
                report: Report { entries },
                friend_link: None,
                pairing_code: None,
                keyword,
            };
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
        let report = Report { entries };
        return Done { report, friend_link: None, pairing_code: None, keyword };
    }
    let hook = webhook(config, &line, dry_run).await;
    let reachable = hook.iter().all(|f| f.status != Status::Fail);
    push("webhook", hook);
    push("rich menus", vec![menus(config, &line, dry_run).await]);
    let (finding, pairing_code) = pairing(config, dry_run, reachable).await;
    push("pairing", vec![finding]);
    push(
        "LINE console",
        vec![Finding::warn("the auto-reply and greeting cannot be set through the API", RESPONSES)],
    );
    Done { report: Report { entries }, friend_link, pairing_code, keyword }
}

/// Has LINE test the webhook URL, registers it where it is not yet (never replacing one LINE has
/// with one that fails the test), and reads the switch.
fn webhook<'a>(
    config: &'a Config,
    line: &'a LineClient,
    dry_run: bool,
) -> BoxFuture<'a, Vec<Finding>> {
    Box::pin(async move {
        let base = &config.line.line_api_base;
        let Some(expected) = webhook_url(config.server.public_url.as_deref()) else {
            return vec![Finding::fail(
                "HEARTH_PUBLIC_URL is not this server's https:// address, so there is no webhook URL to register",
                "set HEARTH_PUBLIC_URL to the https:// address LINE reaches this server at (at most 490 characters; docs/deploy), then run hearth setup again",
            )];
        };
        let at_line = match line.webhook_endpoint().await {
            Ok(at_line) => at_line,
            Err(e) => return vec![line_error("the webhook endpoint", base, &e)],
        };
        // LINE tests any address without registering it: tested first, so a working URL is
        // never replaced by one that fails (serve not started, a mistyped address).
        let test = line.test_webhook(Some(&expected)).await;
        let answered = matches!(&test, Ok(t) if t.success);
        let tested = match &test {
            Ok(test) => verdict::webhook_test(&expected, test),
            Err(e) => line_error("the webhook test", base, e),
        };
        let registered = verdict::same_url(&expected, &at_line.endpoint);
        let was = match at_line.endpoint.trim() {
            "" => None,
            url => Some(url.to_string()),
        };
        let mut found = Vec::new();
        match (registered, dry_run, answered, &was) {
            (true, _, _, _) => found.push(Finding::pass(format!("the webhook URL is {expected}"))),
            (false, true, _, _) => found.push(Finding::warn(
                format!("would set the webhook URL to {expected} (now: {})", was.as_deref().unwrap_or("none")),
                "run hearth setup without --dry-run",
            )),
            (false, false, false, Some(was)) => found.push(Finding::fail(
                format!("left {was} registered: {expected} does not answer LINE's test yet"),
                "start hearth serve at HEARTH_PUBLIC_URL (see the test's line below), then run hearth setup again",
            )),
            (false, false, _, _) => match line.set_webhook_endpoint(&expected).await {
                Ok(()) => found.push(Finding::pass(format!(
                    "set the webhook URL to {expected} (was: {})",
                    was.as_deref().unwrap_or("none")
                ))),
                Err(LineError::Rejected { status: reqwest::StatusCode::BAD_REQUEST, message }) => {
                    return vec![Finding::fail(
                        format!("LINE refused {expected} as the webhook URL: {message}"),
                        "check HEARTH_PUBLIC_URL: an https:// address of at most 490 characters",
                    )];
                }
                Err(e) => return vec![line_error("setting the webhook URL", base, &e)],
            },
        }
        found.push(tested);
        found.push(match at_line.active {
            true => Finding::pass("Use webhook is on"),
            false => Finding::fail("Use webhook is off: LINE sends hearth nothing", USE_WEBHOOK),
        });
        found
    })
}

/// The webhook URL of `public` (`HEARTH_PUBLIC_URL`): `…/callback`, when `public` is an
/// `https://` address LINE takes (a URL of at most 500 characters).
pub fn webhook_url(public: Option<&str>) -> Option<String> {
    let parsed = url::Url::parse(public?.trim()).ok()?;
    let https = parsed.scheme() == "https" && parsed.host_str().is_some();
    let url = verdict::expected_webhook(None, Some(public?.trim()))?;
    (https && url.chars().count() <= 500).then_some(url)
}

/// Installs the rich menus unless they are current (in a dry run, says whether they are).
async fn menus(config: &Config, line: &LineClient, dry_run: bool) -> Finding {
    let base = &config.line.line_api_base;
    // Installed and current: left as they are (an install makes every menu again).
    match super::doctor::menus::check(config, line).await {
        Ok(finding) if finding.status == Status::Pass => return finding,
        Ok(finding) if dry_run => {
            let would = format!("would install them: {}", finding.message);
            return Finding::warn(would, "run hearth setup without --dry-run");
        }
        Ok(_) => {}
        Err(e) => return line_error("the rich menus", base, &e),
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

/// A pairing code for the family's group: unless every chat is served, a chat is approved
/// already (`hearth pair` makes another), or LINE cannot reach hearth yet (a code would expire
/// unused: the next run makes it).
async fn pairing(config: &Config, dry_run: bool, reachable: bool) -> (Finding, Option<String>) {
    if config.access.open {
        return (Finding::pass("every chat is served (HEARTH_OPEN): no pairing needed"), None);
    }
    let door = match super::access::door(config).await {
        Ok(door) => door,
        Err(e) => {
            let fix = "check DATABASE_URL (hearth doctor), then run hearth setup again";
            return (Finding::fail(format!("the database cannot be opened: {e}"), fix), None);
        }
    };
    let approved = match door.chats().await {
        Ok(chats) => chats.iter().filter(|(c, _)| c.status == "approved").count(),
        Err(e) => {
            let fix = "check DATABASE_URL (hearth doctor), then run hearth setup again";
            return (Finding::fail(format!("the chats cannot be read: {e}"), fix), None);
        }
    };
    if approved > 0 {
        let said =
            format!("{approved} chat(s) approved already; hearth pair prints a code for another");
        return (Finding::pass(said), None);
    }
    if !reachable {
        let fix = "fix the webhook above, then run hearth setup again for a code";
        return (Finding::warn("no pairing code yet: LINE cannot reach hearth", fix), None);
    }
    if dry_run {
        return (Finding::pass("would print a pairing code for the family's group"), None);
    }
    match super::access::pair(&door).await {
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
        let drawn = qr("https://line.me/R/ti/p/%40216ru", false);
        assert!(drawn.lines().count() >= 15, "{drawn}");
        assert!(drawn.contains('█') || drawn.contains('▀'), "{drawn}");
        let coloured = qr("https://line.me/R/ti/p/%40216ru", true);
        assert!(coloured.lines().all(|l| l.starts_with("\x1b[97;40m") && l.ends_with("\x1b[0m")));
    }

    #[test]
    fn the_webhook_url_is_the_public_https_address_with_callback_and_nothing_else() {
        let url = |public: &str| webhook_url(Some(public));
        assert_eq!(
            url("https://hearth.example.tw/").as_deref(),
            Some("https://hearth.example.tw/callback")
        );
        assert_eq!(url("http://192.168.1.20:8080"), None);
        assert_eq!(
            url("HTTPS://hearth.example.tw").as_deref(),
            Some("HTTPS://hearth.example.tw/callback")
        );
        assert_eq!(url(&format!("https://hearth.example.tw/{}", "a".repeat(500))), None);
        assert_eq!(webhook_url(None), None);
    }
}
