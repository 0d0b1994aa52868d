//! `hearth eval`: how well the configured model routes a family's requests to hearth's tools.
//!
//! A data set (JSON lines, `eval/routing.jsonl`) holds requests a family sends, each with the
//! tools it should call (or none) and checks on their key arguments. Its first line is the
//! setting every case shares: the fixed clock relative dates are resolved against, the home,
//! and the fenced pairs whose confusion is counted. Each case is put to the model exactly as a
//! turn of `hearth serve` would be — the same system prompt (memories, home, what is offered),
//! history and tool definitions, through the agent — and only its first round is kept: the
//! tool choice and arguments; no tool is run. [`score`] turns the answers into precision and
//! recall per tool, argument accuracy and the fenced pairs' confusion.

pub mod score;

use std::path::PathBuf;
use std::sync::Arc;

use futures::stream::{self, StreamExt};
use jiff::ZonedDateTime;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::contract::ToolCtx;
use crate::contract::schema::Audience;
use crate::llm::agent::Agent;
use crate::llm::openai::ChatMessage;
use crate::llm::{prompt, tokens};
use crate::platform::clock::{Clock, ManualClock};
use crate::platform::config::Config;
use crate::platform::conversation::Conversation;
use crate::platform::i18n::Lang;
use crate::server::app::StartError;
use crate::sources::calendar::WorkCalendar;
use crate::store::{LoggedMessage, Memory, Store};
use score::{Call, Outcome, Report};

/// The data set `hearth eval` runs when `--set` names none, built into the executable so the
/// command works from any directory.
pub const BUILT_IN_SET: &str = include_str!("../../../eval/routing.jsonl");

/// The settings of `hearth eval`.
#[derive(Debug, Clone, clap::Args)]
pub struct EvalArgs {
    /// The data set: JSON lines, a setting line then one case a line (default: the family
    /// requests built into hearth, `eval/routing.jsonl` in its repository).
    #[arg(long)]
    pub set: Option<PathBuf>,
    /// Also write the report as JSON to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Exit non-zero when the share of cases entirely right is below this (0–1).
    #[arg(long)]
    pub min_accuracy: Option<f64>,
    /// Requests to the model at once.
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
}

/// Why the evaluation could not be run or did not pass.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The data set could not be read.
    #[error("cannot read the data set {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A line of the data set is not what it should be.
    #[error("data set line {line}: {reason}")]
    Line {
        /// 1-based.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// hearth's parts could not be put together.
    #[error(transparent)]
    Start(#[from] StartError),
    /// The report could not be written.
    #[error("cannot write the report to {path}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not one request reached the model.
    #[error("the model did not answer any request: {0}")]
    Unreachable(String),
    /// The model scored below `--min-accuracy`.
    #[error("accuracy {accuracy:.3} is below --min-accuracy {min}")]
    BelowMinimum {
        /// What it scored.
        accuracy: f64,
        /// What was asked for.
        min: f64,
    },
}

/// The first line of a data set: what every case shares.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setting {
    /// The fixed "now", with its zone: "2026-03-04T09:30:00+08:00[Asia/Taipei]".
    pub now: String,
    /// The family's home place.
    #[serde(default)]
    pub home: Option<String>,
    /// Pairs of tools a model is likely to confuse ("none" for no tool).
    #[serde(default)]
    pub fenced: Vec<[String; 2]>,
}

/// One request and what it should do.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// A short unique id.
    pub id: String,
    /// The request, as the family writes it (in a group, after the trigger word).
    pub text: String,
    /// The calls expected in the first round; empty for none.
    #[serde(default)]
    pub expect: Vec<Call>,
    /// Asked in a group (default: a 1:1 chat).
    #[serde(default)]
    pub group: bool,
    /// Who asks (default: 媽媽).
    #[serde(default)]
    pub speaker: Option<String>,
    /// Earlier messages of the chat, oldest first.
    #[serde(default)]
    pub history: Vec<Said>,
    /// What the chat asked hearth to remember.
    #[serde(default)]
    pub memories: Vec<String>,
    /// Tools not offered in this case (as when no search provider is set).
    #[serde(default)]
    pub without: Vec<String>,
    /// Why the case is there.
    #[serde(default)]
    pub note: Option<String>,
    /// The case's own "now" (after midnight, say), in the setting's format; default the
    /// setting's.
    #[serde(default)]
    pub now: Option<String>,
}

/// An earlier message: who said it ("hearth" for hearth's own answers) and what.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Said {
    /// The speaker's display name, or "hearth".
    pub who: String,
    /// The text.
    pub text: String,
}

/// A data set: the shared setting and the cases.
#[derive(Debug, Clone)]
pub struct DataSet {
    /// The shared setting.
    pub setting: Setting,
    /// The fixed clock's instant, in its zone.
    pub now: ZonedDateTime,
    /// The cases, in file order.
    pub cases: Vec<Case>,
}

impl DataSet {
    /// Parses a data set; every tool a case names must be one of `tools`.
    pub fn parse(text: &str, tools: &[String]) -> Result<Self, EvalError> {
        let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
        let bad = |line: usize, reason: String| EvalError::Line { line: line + 1, reason };
        let (first, header) = lines.next().ok_or_else(|| bad(0, "the file is empty".into()))?;
        let setting: Setting =
            serde_json::from_str(header).map_err(|e| bad(first, format!("setting: {e}")))?;
        let now: ZonedDateTime =
            setting.now.parse().map_err(|e| bad(first, format!("now: {e}")))?;
        let known = |t: &str| t == score::NONE || tools.iter().any(|k| k == t);
        let mut cases: Vec<Case> = Vec::new();
        for (n, line) in lines {
            let case: Case = serde_json::from_str(line).map_err(|e| bad(n, e.to_string()))?;
            let named = case.expect.iter().map(|c| c.tool.as_str());
            if let Some(t) =
                named.chain(case.without.iter().map(String::as_str)).find(|t| !known(t))
            {
                return Err(bad(n, format!("{}: unknown tool {t:?}", case.id)));
            }
            if let Some(now) = &case.now
                && now.parse::<ZonedDateTime>().is_err()
            {
                return Err(bad(n, format!("{}: now {now:?} is not a zoned date-time", case.id)));
            }
            if cases.iter().any(|c| c.id == case.id) {
                return Err(bad(n, format!("the id {:?} is used twice", case.id)));
            }
            cases.push(case);
        }
        Ok(Self { setting, now, cases })
    }
}

/// A model's first round: its calls and the prompt tokens its server counted (all, cached).
type Answered = (Vec<Call>, Option<(u64, u64)>);

/// The JSON report: the score, with what was measured.
#[derive(Debug, Serialize)]
struct Written<'a> {
    model: &'a str,
    set: String,
    now: String,
    #[serde(flatten)]
    report: &'a Report,
}

/// `hearth eval`: runs the data set against the configured model, prints the table, writes the
/// JSON report if asked, and fails under `--min-accuracy`.
pub async fn run_cli(config: &Config, args: &EvalArgs) -> Result<Report, EvalError> {
    let report = run(config, args).await?;
    print!("{}", score::render(&report, &config.llm.model));
    if let Some(min) = args.min_accuracy
        && report.accuracy < min
    {
        return Err(EvalError::BelowMinimum { accuracy: report.accuracy, min });
    }
    Ok(report)
}

/// Runs the data set against the configured model and scores it (writing `--out`).
pub async fn run(config: &Config, args: &EvalArgs) -> Result<Report, EvalError> {
    let agent = agent(config).await?;
    let tools: Vec<String> =
        agent.tool_definitions(Audience::Group).iter().map(|t| t.name.to_string()).collect();
    let text = match &args.set {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|source| EvalError::Read { path: path.clone(), source })?,
        None => BUILT_IN_SET.to_string(),
    };
    let set = DataSet::parse(&text, &tools)?;
    let answers: Vec<Result<Answered, String>> = stream::iter(&set.cases)
        .map(|case| {
            let messages = messages(&set, case, &tools);
            let agent = &agent;
            async move {
                let audience = if case.group { Audience::Group } else { Audience::OneToOne };
                let completion = agent.first_round(&messages, audience, &case.without).await;
                completion
                    .map(|c| {
                        let prompt = c
                            .usage
                            .map(|u| (u.prompt_tokens, u.cached_tokens))
                            .filter(|&(t, _)| t > 0);
                        (c.tool_calls.iter().map(call).collect(), prompt)
                    })
                    .map_err(|e| {
                        tracing::warn!(case = case.id, error = %e, "the model did not answer");
                        e.to_string()
                    })
            }
        })
        .buffered(args.concurrency.max(1))
        .collect()
        .await;
    let counted: Vec<(u64, u64)> =
        answers.iter().filter_map(|a| a.as_ref().ok().and_then(|(_, t)| *t)).collect();
    let prompt_tokens: Vec<u64> = counted.iter().map(|(all, _)| *all).collect();
    let mean = |n: u64| n.checked_div(counted.len() as u64);
    let answers: Vec<Result<Vec<Call>, String>> =
        answers.into_iter().map(|a| a.map(|(calls, _)| calls)).collect();
    if let Some(Err(first)) = answers.first()
        && answers.iter().all(Result::is_err)
    {
        return Err(EvalError::Unreachable(first.clone()));
    }
    let outcomes: Vec<Outcome<'_>> = set
        .cases
        .iter()
        .zip(answers)
        .map(|(case, got)| Outcome { id: &case.id, text: &case.text, expected: &case.expect, got })
        .collect();
    let mut report = score::score(&outcomes, &set.setting.fenced);
    let tools_one_to_one =
        tokens::of_tools(&agent.tool_definitions(Audience::OneToOne), config.llm.llm_strict).1;
    let instructions = prompt::instructions(&prompt::Setting::new(
        tools.iter().map(String::as_str),
        set.setting.home.clone(),
    ));
    report.tokens = score::Tokens {
        tools_one_to_one,
        stable_prefix: tokens::count(&instructions) + tools_one_to_one,
        tools_group: tokens::of_tools(
            &agent.tool_definitions(Audience::Group),
            config.llm.llm_strict,
        )
        .1,
        prompt_mean: mean(prompt_tokens.iter().sum()),
        cached_mean: mean(counted.iter().map(|(_, cached)| cached).sum()),
        prompt_max: prompt_tokens.iter().copied().max(),
    };
    if let Some(path) = &args.out {
        let written = Written {
            model: &config.llm.model,
            set: args.set.as_ref().map_or("built-in".into(), |p| p.display().to_string()),
            now: set.setting.now.clone(),
            report: &report,
        };
        let json = serde_json::to_string_pretty(&written).unwrap_or_default();
        std::fs::write(path, json)
            .map_err(|source| EvalError::Write { path: path.clone(), source })?;
    }
    Ok(report)
}

/// The agent of `hearth serve` with one round and hearth's own tools, a search provider
/// included (a placeholder when none is set: nothing is run), over an empty in-memory store.
async fn agent(config: &Config) -> Result<Agent, EvalError> {
    let mut config = config.clone();
    let http = crate::platform::tls::client_builder()
        .build()
        .map_err(|source| StartError::HttpClient { what: "search", source })?;
    if crate::sources::search::SearchProvider::from_config(&config, http).is_none() {
        config.web.searxng_url = "http://search.invalid".into();
    }
    let store = Store::in_memory().await.map_err(StartError::from)?;
    let calendar =
        WorkCalendar::load(config.family.work_calendar.as_deref()).map_err(StartError::from)?;
    let deps = crate::features::deps::Deps::offline(
        &config,
        crate::server::app::sources(&config)?,
        store,
        calendar,
    )
    .map_err(StartError::http_client("LINE"))?;
    let registry = crate::tools::registry(&deps).map_err(StartError::from)?;
    Ok(Agent::new(crate::server::app::llm_client(&config)?, Arc::new(registry), 1))
}

/// The messages of `case`, as `hearth serve` would send them at the case's "now".
fn messages(set: &DataSet, case: &Case, tools: &[String]) -> Vec<ChatMessage> {
    // A case's own "now" was checked when the set was parsed.
    let now = case.now.as_deref().and_then(|n| n.parse::<ZonedDateTime>().ok());
    let now = now.unwrap_or_else(|| set.now.clone());
    let clock: Arc<dyn Clock> = Arc::new(ManualClock::new(now.timestamp()));
    let conversation = match case.group {
        true => Conversation::group("Ceval"),
        false => Conversation::user("Ueval"),
    };
    let speaker = case.speaker.clone().unwrap_or_else(|| "媽媽".into());
    let ctx = ToolCtx {
        conversation,
        user_id: Some("Ueval".into()),
        display_name: Some(speaker.clone()),
        tz: now.time_zone().clone(),
        lang: Lang::detect(&case.text),
        clock,
        surface: crate::contract::Surface::Chat,
    };
    let offered = tools.iter().map(String::as_str).filter(|t| !case.without.iter().any(|w| w == t));
    let setting = prompt::Setting::new(offered, set.setting.home.clone());
    let day_ms = 24 * 3600 * 1000;
    let at_ms = now.timestamp().as_millisecond();
    let memories: Vec<Memory> = (1..)
        .zip(&case.memories)
        .map(|(id, text)| Memory {
            id,
            text: text.clone(),
            user_id: None,
            speaker: Some("媽媽".into()),
            created_at: at_ms - day_ms,
        })
        .collect();
    let history: Vec<LoggedMessage> = case
        .history
        .iter()
        .map(|said| LoggedMessage {
            speaker: Some(said.who.clone()),
            from_bot: said.who == "hearth",
            text: said.text.clone(),
            at_ms,
            tainted: false,
        })
        .collect();
    let chat = crate::features::memory::chat_part(&ctx, &memories, &case.text);
    prompt::messages(
        &ctx,
        &setting,
        chat,
        prompt::history(&history, case.group),
        prompt::request(Some(&speaker), &case.text, case.group),
    )
}

/// A model's call as scored: its arguments parsed (a string when they are not JSON).
fn call(c: &crate::llm::openai::ToolCall) -> Call {
    let args = serde_json::from_str(&c.function.arguments)
        .unwrap_or_else(|_| Value::String(c.function.arguments.clone()));
    Call { tool: c.function.name.clone(), args }
}
