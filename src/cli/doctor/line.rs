//! The checks at LINE: the channel access token (the bot's info), the webhook URL registered
//! in the console with LINE's own test request to it, the month's message quota, and whether
//! hearth's rich menus are installed and current.

use futures::future::BoxFuture;
use reqwest::StatusCode;

use super::{Check, Finding, Probe, verdict};
use crate::line::client::{LineClient, LineError};

/// The client for the configured channel, or the finding that says why there is none.
fn client(probe: &Probe) -> Result<LineClient, Finding> {
    channel(&probe.config)
}

/// The client for the channel `config` sets, or the finding that says why there is none
/// (`hearth setup` starts here too).
pub(crate) fn channel(config: &crate::platform::config::Config) -> Result<LineClient, Finding> {
    if config.line.line_channel_access_token.is_empty() {
        return Err(Finding::fail(
            "not checked: LINE_CHANNEL_ACCESS_TOKEN is not set",
            "set LINE_CHANNEL_ACCESS_TOKEN (see settings)",
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

/// What a failed request to LINE means for the operator.
pub(crate) fn line_error(what: &str, base: &str, e: &LineError) -> Finding {
    match e {
        LineError::Rejected { status: StatusCode::UNAUTHORIZED, .. } => Finding::fail(
            format!("LINE refused the channel access token ({what})"),
            "issue a new long-lived token on the Messaging API tab of the LINE Developers console and set LINE_CHANNEL_ACCESS_TOKEN",
        ),
        LineError::Timeout | LineError::Connect(_) => Finding::fail(
            format!("cannot reach LINE at {base} ({what}): {e}"),
            "check this machine's network (and LINE_API_BASE, normally https://api.line.me)",
        ),
        _ => Finding::fail(
            format!("LINE answered {what} with an error: {e}"),
            "check LINE_API_BASE and the channel in the LINE Developers console",
        ),
    }
}

/// The access token is valid: LINE names the bot it belongs to.
pub struct Token;

impl Check for Token {
    fn name(&self) -> &'static str {
        "LINE token"
    }

    fn run<'a>(&'a self, probe: &'a Probe) -> BoxFuture<'a, Vec<Finding>> {
        Box::pin(async move {
            let line = match client(probe) {
                Ok(line) => line,
                Err(finding) => return vec![finding],
            };
            vec![match line.bot_info().await {
                Ok(bot) => Finding::pass(format!(
                    "valid: the bot is {} ({})",
                    bot.display_name, bot.basic_id
                )),
                Err(e) => line_error("bot info", &probe.config.line.line_api_base, &e),
            }]
        })
    }
}

/// The webhook URL at LINE is hearth's and in use, and answers LINE's test request.
pub struct Webhook;

impl Check for Webhook {
    fn name(&self) -> &'static str {
        "LINE webhook"
    }

    fn run<'a>(&'a self, probe: &'a Probe) -> BoxFuture<'a, Vec<Finding>> {
        Box::pin(async move {
            let line = match client(probe) {
                Ok(line) => line,
                Err(finding) => return vec![finding],
            };
            let base = &probe.config.line.line_api_base;
            let expected = verdict::expected_webhook(
                probe.options.webhook_url.as_deref(),
                probe.config.server.public_url.as_deref(),
            );
            let at_line = match line.webhook_endpoint().await {
                Ok(at_line) => at_line,
                Err(e) => return vec![line_error("the webhook endpoint", base, &e)],
            };
            let mut found = vec![verdict::webhook(expected.as_deref(), &at_line)];
            if !at_line.endpoint.trim().is_empty() {
                found.push(match line.test_webhook(None).await {
                    Ok(test) => verdict::webhook_test(&at_line.endpoint, &test),
                    Err(e) => line_error("the webhook test", base, &e),
                });
            }
            found
        })
    }
}

/// The month's message quota has room.
pub struct Quota;

impl Check for Quota {
    fn name(&self) -> &'static str {
        "message quota"
    }

    fn run<'a>(&'a self, probe: &'a Probe) -> BoxFuture<'a, Vec<Finding>> {
        Box::pin(async move {
            let line = match client(probe) {
                Ok(line) => line,
                Err(finding) => return vec![finding],
            };
            vec![match line.quota().await {
                Ok(quota) => verdict::quota(quota),
                Err(e) => line_error("the quota", &probe.config.line.line_api_base, &e),
            }]
        })
    }
}

/// hearth's rich menus are installed at LINE and are the ones this build would install.
pub struct RichMenus;

impl Check for RichMenus {
    fn name(&self) -> &'static str {
        "rich menus"
    }

    fn run<'a>(&'a self, probe: &'a Probe) -> BoxFuture<'a, Vec<Finding>> {
        Box::pin(async move {
            let line = match client(probe) {
                Ok(line) => line,
                Err(finding) => return vec![finding],
            };
            vec![match super::menus::check(&probe.config, &line).await {
                Ok(finding) => finding,
                Err(e) => line_error("the rich menus", &probe.config.line.line_api_base, &e),
            }]
        })
    }
}
