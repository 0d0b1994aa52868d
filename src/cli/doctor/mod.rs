//! `hearth doctor`: checks a deployment before the family finds the problem, and prints a ✓ / ⚠ /
//! ✗ list, each ✗ with its fix in a sentence. Every check is a small type in [`CHECKS`] (adding
//! one is one line there); they run at once, each within a time limit, and are printed in the
//! list's order. Any ✗ makes the command exit non-zero; ⚠ marks something optional that is not
//! configured, or worth a look.
//!
//! - [`local`]: the settings, the database and its migrations.
//! - [`line`](mod@line): the channel access token, the webhook URL at LINE and LINE's own test of it,
//!   the month's message quota.
//! - [`menus`]: hearth's rich menus, installed and current.
//! - [`llm`]: the LLM endpoint, the model, a tiny request with a tool, the optional models.
//! - [`services`]: the search provider, the MCP servers.
//! - [`verdict`]: the pure decisions (URL match, quota, migrations, model names) they share.

pub mod line;
pub mod llm;
pub mod local;
pub mod menus;
pub mod services;
pub mod verdict;

use std::time::Duration;

use futures::future::BoxFuture;
use serde::Serialize;

use crate::platform::config::Config;

/// How one finding came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Works.
    Pass,
    /// Optional and not configured, or worth a look; does not fail the command.
    Warn,
    /// Broken: hearth will not work as it should until it is fixed.
    Fail,
}

impl Status {
    /// The mark printed before the finding.
    pub fn mark(self) -> &'static str {
        match self {
            Status::Pass => "✓",
            Status::Warn => "⚠",
            Status::Fail => "✗",
        }
    }
}

/// One line of the report: what was found and, unless it passed, what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// How it came out.
    pub status: Status,
    /// What was found.
    pub message: String,
    /// The fix, in a sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Finding {
    /// It works.
    pub fn pass(message: impl Into<String>) -> Self {
        Self { status: Status::Pass, message: message.into(), fix: None }
    }

    /// Worth a look, with what to do about it.
    pub fn warn(message: impl Into<String>, fix: impl Into<String>) -> Self {
        Self { status: Status::Warn, message: message.into(), fix: Some(fix.into()) }
    }

    /// Broken, with the fix.
    pub fn fail(message: impl Into<String>, fix: impl Into<String>) -> Self {
        Self { status: Status::Fail, message: message.into(), fix: Some(fix.into()) }
    }
}

/// One check: a name for the report and the findings it makes.
pub trait Check: Sync {
    /// Its name in the report.
    fn name(&self) -> &'static str;
    /// Looks, and says what it found (at least one finding).
    fn run<'a>(&'a self, probe: &'a Probe) -> BoxFuture<'a, Vec<Finding>>;
}

/// THE list of checks, in the order they are printed.
pub static CHECKS: &[&dyn Check] = &[
    &local::Settings,
    &local::Database,
    &line::Token,
    &line::Webhook,
    &llm::Endpoint,
    &llm::Tools,
    &llm::OptionalModel {
        name: "vision model",
        setting: "HEARTH_VISION_MODEL",
        model: |c| &c.llm.vision_model,
        endpoint: |c| (&c.llm.openai_base_url, &c.llm.openai_api_key),
        unset: llm::Unset::MainModel,
    },
    &llm::OptionalModel {
        name: "transcription model",
        setting: "HEARTH_TRANSCRIBE_MODEL",
        model: |c| &c.speech.transcribe_model,
        endpoint: |c| match c.speech.transcribe_url.trim() {
            "" => (&c.llm.openai_base_url, &c.llm.openai_api_key),
            _ => (&c.speech.transcribe_url, &c.speech.transcribe_api_key),
        },
        unset: llm::Unset::Off("voice messages are not transcribed"),
    },
    &llm::OptionalModel {
        name: "speech model",
        setting: "HEARTH_TTS_MODEL",
        model: |c| &c.speech.tts_model,
        endpoint: Config::tts_endpoint,
        unset: llm::Unset::Off("answers are never spoken"),
    },
    &services::Search,
    &line::Quota,
    &line::RichMenus,
    &services::Mcp,
];

/// How the doctor runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The webhook URL LINE should call; `HEARTH_PUBLIC_URL` + `/callback` when `None`.
    pub webhook_url: Option<String>,
    /// How long one check may take.
    pub timeout: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Self { webhook_url: None, timeout: Duration::from_secs(15) }
    }
}

/// The command line of `hearth doctor`.
#[derive(Debug, Clone, clap::Args)]
pub struct DoctorArgs {
    /// The webhook URL LINE should call (default: HEARTH_PUBLIC_URL + /callback).
    #[arg(long)]
    pub webhook_url: Option<String>,
    /// Print the findings as JSON instead of a list.
    #[arg(long)]
    pub json: bool,
    /// Seconds one check may take.
    #[arg(long, default_value_t = 15)]
    pub timeout_secs: u64,
}

impl DoctorArgs {
    /// The options these arguments ask for.
    pub fn options(&self) -> Options {
        Options {
            webhook_url: self.webhook_url.clone(),
            timeout: Duration::from_secs(self.timeout_secs.max(1)),
        }
    }
}

/// What the checks look at.
pub struct Probe {
    /// The settings, as `hearth serve` would read them.
    pub config: Config,
    /// How the doctor runs.
    pub options: Options,
}

/// One finding with the check that made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// The check's name.
    pub check: &'static str,
    /// What it found.
    #[serde(flatten)]
    pub finding: Finding,
}

/// Every finding, in the order of [`CHECKS`].
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The findings.
    pub entries: Vec<Entry>,
}

impl Report {
    /// How many findings have `status`.
    pub fn count(&self, status: Status) -> usize {
        self.entries.iter().filter(|e| e.finding.status == status).count()
    }

    /// The findings of the check named `check`.
    pub fn of(&self, check: &str) -> Vec<&Finding> {
        self.entries.iter().filter(|e| e.check == check).map(|e| &e.finding).collect()
    }

    /// The report as the operator reads it: one line per finding, its fix indented below.
    pub fn render(&self) -> String {
        let width = self.entries.iter().map(|e| e.check.chars().count()).max().unwrap_or(0);
        let mut out = String::new();
        for Entry { check, finding } in &self.entries {
            let pad = " ".repeat(width - check.chars().count());
            out.push_str(&format!("{} {check}{pad}  {}\n", finding.status.mark(), finding.message));
            if let Some(fix) = &finding.fix {
                out.push_str(&format!("  {}  → {fix}\n", " ".repeat(width)));
            }
        }
        out.push_str(&format!(
            "\n{} ✓  {} ⚠  {} ✗\n",
            self.count(Status::Pass),
            self.count(Status::Warn),
            self.count(Status::Fail)
        ));
        out
    }
}

/// Runs every check of [`CHECKS`] at once, each within the time limit.
pub async fn examine(config: &Config, options: &Options) -> Report {
    let probe = Probe { config: config.clone(), options: options.clone() };
    let probe = &probe;
    let runs = CHECKS.iter().map(|check| async move {
        let findings = match tokio::time::timeout(probe.options.timeout, check.run(probe)).await {
            Ok(findings) => findings,
            Err(_) => vec![Finding::fail(
                format!("no answer within {} s", probe.options.timeout.as_secs()),
                "check that what this check reaches is up and reachable from here (or raise --timeout-secs)",
            )],
        };
        findings
            .into_iter()
            .map(|mut finding| {
                // Errors quote the URLs they failed on, credentials and all.
                finding.message = crate::platform::config::redact_urls_in(&finding.message);
                finding.fix = finding.fix.map(|fix| crate::platform::config::redact_urls_in(&fix));
                Entry { check: check.name(), finding }
            })
            .collect::<Vec<_>>()
    });
    let entries = futures::future::join_all(runs).await.into_iter().flatten().collect();
    Report { entries }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_prints_each_finding_with_its_fix_and_counts_them() {
        let report = Report {
            entries: vec![
                Entry { check: "database", finding: Finding::pass("sqlite: migrated") },
                Entry {
                    check: "LINE webhook",
                    finding: Finding::fail("no webhook URL", "set it in the console"),
                },
            ],
        };
        let text = report.render();
        assert!(text.contains("✓ database      sqlite: migrated\n"), "{text}");
        assert!(text.contains("✗ LINE webhook  no webhook URL\n"), "{text}");
        assert!(text.contains("→ set it in the console"), "{text}");
        assert!(text.ends_with("1 ✓  0 ⚠  1 ✗\n"), "{text}");
        let names: std::collections::HashSet<_> = CHECKS.iter().map(|c| c.name()).collect();
        assert_eq!(names.len(), CHECKS.len(), "every check has its own name");
    }
}
