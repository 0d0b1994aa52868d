//! Prometheus metrics: what happened to webhook events, how long turns take, LLM calls and
//! tokens, tool calls, what LINE did with our messages, how late reminders go out, and what the
//! spending limits refused or dropped. Served as text by `GET /metrics`. Labels are small fixed sets (never message text or user ids).

use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// Renders the metrics of this process.
#[derive(Clone)]
pub struct Metrics(Option<PrometheusHandle>);

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

impl Metrics {
    /// The process-wide recorder, installed on first use.
    pub fn install() -> Self {
        let handle = HANDLE.get_or_init(|| {
            let seconds =
                [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0];
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &seconds)
                .ok()?
                .build_recorder();
            let handle = recorder.handle();
            metrics::set_global_recorder(recorder).ok()?;
            Some(handle)
        });
        Self(handle.clone())
    }

    /// Folds the histogram samples recorded since the last look into their buckets. Rendering
    /// does it too; this keeps an unscraped process from holding every turn's sample.
    pub fn upkeep(&self) {
        if let Some(handle) = &self.0 {
            handle.run_upkeep();
        }
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        self.0.as_ref().map(PrometheusHandle::render).unwrap_or_default()
    }
}

/// The event types counted under their own name; any other is `other`.
const EVENT_TYPES: [&str; 10] = [
    "message",
    "postback",
    "follow",
    "unfollow",
    "join",
    "leave",
    "unsend",
    "memberJoined",
    "memberLeft",
    "messageEdited",
];

/// A webhook event and what became of it (`accepted` to be handled, `logged` as it was stored,
/// `duplicate`, `malformed`, `too_old`, `ahead`: stamped too far in the future).
pub fn webhook_event(event_type: &str, outcome: &'static str) {
    let kind = EVENT_TYPES.into_iter().find(|t| *t == event_type).unwrap_or("other");
    metrics::counter!("hearth_webhook_events_total", "type" => kind, "outcome" => outcome)
        .increment(1);
}

/// A turn (LLM and tools, until the answer was handed to LINE) took `elapsed`.
pub fn turn(elapsed: Duration) {
    metrics::histogram!("hearth_turn_seconds").record(elapsed.as_secs_f64());
}

/// An answer spoken: one more audio message, and the characters sent to the speech model.
pub fn spoken(chars: usize) {
    metrics::counter!("hearth_spoken_answers_total").increment(1);
    metrics::counter!("hearth_spoken_chars_total").increment(chars as u64);
}

/// An LLM call and its outcome (`ok`, `timeout`, `rate_limited`, `error`), with the tokens used:
/// prompt (the cached ones included), cached and completion.
pub fn llm_call(outcome: &'static str, prompt: u64, cached: u64, completion: u64) {
    metrics::counter!("hearth_llm_calls_total", "outcome" => outcome).increment(1);
    metrics::counter!("hearth_llm_tokens_total", "kind" => "prompt").increment(prompt);
    metrics::counter!("hearth_llm_tokens_total", "kind" => "cached").increment(cached);
    metrics::counter!("hearth_llm_tokens_total", "kind" => "completion").increment(completion);
}

/// A tool call and its outcome (`ok` or the error kind).
pub fn tool_call(tool: &'static str, outcome: &'static str) {
    metrics::counter!("hearth_tool_calls_total", "tool" => tool, "outcome" => outcome).increment(1);
}

/// A message send to LINE (`reply` or `push`) and its outcome.
pub fn line_send(kind: &'static str, outcome: &'static str) {
    metrics::counter!("hearth_line_sends_total", "kind" => kind, "outcome" => outcome).increment(1);
}

/// A reminder occurrence went out `lag` after its time.
pub fn scheduler_lag(lag: Duration) {
    metrics::histogram!("hearth_scheduler_lag_seconds").record(lag.as_secs_f64());
}

/// A message that got a notice or silence instead of a turn: `not_allowed` (not on the
/// allow-list), `rate_limited` or `budget_exhausted`; a pairing code `pairing_refused` (wrong or
/// expired), or not checked: `pairing_over_rate`, `pairing_over_budget` (the service-wide
/// budget of guesses this minute).
pub fn turn_refused(reason: &'static str) {
    metrics::counter!("hearth_turns_refused_total", "reason" => reason).increment(1);
}

/// Untrusted content parsed by a child process (`pdf`, `text_file`, `picture`, `page`) and how
/// it ended: `ok`, `refused` (the content itself is unusable), `timeout`, `died` (a crash or
/// out of memory), `busy` (no child free in time) or `failed` (the child could not start).
pub fn parse(job: &'static str, outcome: &'static str) {
    metrics::counter!("hearth_parses_total", "job" => job, "outcome" => outcome).increment(1);
}

/// Events this process set aside after their handling failed to finish twice (a poison event).
pub fn events_set_aside(count: u64) {
    metrics::counter!("hearth_events_set_aside_total").increment(count);
}

/// Events set aside in the store (by any process, within the inbox's retention).
pub fn set_aside_total(count: i64) {
    metrics::gauge!("hearth_inbox_set_aside").set(count as f64);
}

/// Tool calls beyond the per-round cap: not run, answered with an error.
pub fn tool_calls_dropped(count: u64) {
    metrics::counter!("hearth_tool_calls_dropped_total").increment(count);
}

/// Tokens counted against the daily budgets.
pub fn budget_tokens(tokens: u64) {
    metrics::counter!("hearth_budget_tokens_total").increment(tokens);
}

/// LINE's monthly message quota: the limit (`-1`: none or unknown) and the used count.
pub fn quota_standing(limit: Option<i64>, used: i64) {
    metrics::gauge!("hearth_line_quota_limit").set(limit.map_or(-1.0, |l| l as f64));
    metrics::gauge!("hearth_line_quota_used").set(used as f64);
}

/// The month's projected use: what is used plus what is scheduled for the rest of it.
pub fn quota_projected(projected: i64) {
    metrics::gauge!("hearth_line_quota_projected").set(projected as f64);
}

/// A push that cost `cost` messages of the quota.
pub fn push_cost(cost: i64) {
    metrics::counter!("hearth_line_quota_spent_total").increment(u64::try_from(cost).unwrap_or(0));
}

/// Items held because the month's quota could not pay for their push.
pub fn pushes_held(count: u64) {
    metrics::counter!("hearth_pushes_held_total").increment(count);
}

/// An item not pushed because the door was closed for its chat (`revoked`, `pending`).
pub fn pushes_withheld(reason: &'static str) {
    metrics::counter!("hearth_pushes_withheld_total", "reason" => reason).increment(1);
}

/// Pushes LINE answered `409` for a retry key hearth had never sent: not delivered.
pub fn retry_key_conflicts(items: u64) {
    metrics::counter!("hearth_retry_key_conflicts_total").increment(items);
}

/// A family-page request refused because the door was closed (`revoked`, `member_left`, …).
pub fn page_refused(reason: &'static str) {
    metrics::counter!("hearth_page_refused_total", "reason" => reason).increment(1);
}

/// An official alert document and what became of it (`kept`, `unreadable`, `refused`: away
/// from the allowed hosts, `failed`: asked again later, `given_up`: failing too long).
pub fn official_alert_document(outcome: &'static str) {
    metrics::counter!("hearth_official_alert_documents_total", "outcome" => outcome).increment(1);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upkeep_loses_no_turn_sample() {
        let metrics = Metrics::install();
        let count = |text: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix("hearth_turn_seconds_count "))
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(0)
        };
        let before = count(&metrics.render());
        for _ in 0..3 {
            turn(Duration::from_millis(20));
        }
        metrics.upkeep();
        metrics.upkeep();
        assert!(count(&metrics.render()) >= before + 3, "the three turns are still counted");
    }
}
