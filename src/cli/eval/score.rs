//! Scoring a routing run: pure functions of the expected calls and the calls the model made.
//!
//! A case is right when the model chose exactly the expected tools (as a set; "none" when no
//! tool is expected) and every expected call's argument checks hold. Per tool, precision and
//! recall count cases: a tool chosen where it was not expected is a false positive, one
//! expected and not chosen a false negative. `none` is scored like a tool. The fenced pairs
//! (get_quote/fx, memory/reminder, …) get a confusion count: which of the two was chosen
//! when one of them was expected.
//!
//! Argument checks are JSON: a scalar must be equal (strings ignoring case and surrounding
//! space, numbers within a millionth); `null` must be null or missing; an array must hold the
//! same items in any order; an object checks only the keys it names. Objects with one `$` key
//! are matchers: `{"$any": [..]}` one of these, `{"$contains": "…"}` a string containing this,
//! `{"$prefix": "…"}` a string starting with this, `{"$present": true}` anything but null.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

/// The pseudo-tool of a case where no tool should be called.
pub const NONE: &str = "none";

/// A call: the tool and its arguments (for an expected call, the checks on them).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Call {
    /// The tool's name.
    pub tool: String,
    /// The arguments (expected: the checks; `{}` checks nothing).
    #[serde(default = "empty_object")]
    pub args: Value,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

/// What one case expected and what the model did.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome<'a> {
    /// The case's id.
    pub id: &'a str,
    /// The request.
    pub text: &'a str,
    /// The calls expected (none: no tool).
    pub expected: &'a [Call],
    /// The model's first-round calls, or why there are none (the request failed).
    pub got: Result<Vec<Call>, String>,
}

/// A tool's counts and ratios.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ToolScore {
    /// Expected and chosen.
    pub tp: usize,
    /// Chosen, not expected.
    pub fp: usize,
    /// Expected, not chosen.
    pub r#fn: usize,
    /// tp / (tp + fp); `None` when never chosen.
    pub precision: Option<f64>,
    /// tp / (tp + fn); `None` when never expected.
    pub recall: Option<f64>,
}

/// How the model chose between the two tools of a fenced pair, when one was expected.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Confusion {
    /// The pair.
    pub pair: [String; 2],
    /// Counts by "expected→chosen", chosen being either tool, "both" or "neither".
    pub counts: BTreeMap<String, usize>,
}

/// A case the model got wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Miss {
    /// The case's id.
    pub id: String,
    /// The request.
    pub text: String,
    /// The tools expected.
    pub expected: Vec<String>,
    /// The calls made (tool and arguments as given).
    pub got: Vec<Call>,
    /// What was wrong.
    pub why: String,
}

/// The whole run's score.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// Cases run.
    pub cases: usize,
    /// Cases entirely right (tools and arguments).
    pub correct: usize,
    /// correct / cases.
    pub accuracy: f64,
    /// Cases whose tools were right, whatever the arguments.
    pub routed: usize,
    /// routed / cases.
    pub routing_accuracy: f64,
    /// Expected calls made whose arguments were checked.
    pub args_checked: usize,
    /// Of those, the ones whose checks held.
    pub args_passed: usize,
    /// args_passed / args_checked (1 when nothing was checked).
    pub argument_accuracy: f64,
    /// Cases whose request to the model failed.
    pub errors: usize,
    /// Per tool ("none" included).
    pub tools: BTreeMap<String, ToolScore>,
    /// Per fenced pair.
    pub confusion: Vec<Confusion>,
    /// The cases got wrong, in order.
    pub misses: Vec<Miss>,
    /// What the requests cost.
    pub tokens: Tokens,
}

/// What each request of the run cost in tokens.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Tokens {
    /// The tool definitions of a 1:1 chat (o200k, as sent).
    pub tools_one_to_one: usize,
    /// The tool definitions of a group (o200k, as sent).
    pub tools_group: usize,
    /// The part every request begins with, the same bytes for every case: the instructions
    /// and a 1:1 chat's tool definitions (o200k), what a provider's prompt cache reuses.
    pub stable_prefix: usize,
    /// The prompt tokens the model's server counted, mean over the requests that said.
    pub prompt_mean: Option<u64>,
    /// Of them, the tokens the server said it served from its prompt cache, mean.
    pub cached_mean: Option<u64>,
    /// The largest prompt.
    pub prompt_max: Option<u64>,
}

/// Scores `outcomes`, with a confusion count for each of `fenced`.
pub fn score(outcomes: &[Outcome<'_>], fenced: &[[String; 2]]) -> Report {
    let mut report = Report { cases: outcomes.len(), ..Report::default() };
    let mut confusion: Vec<Confusion> = fenced
        .iter()
        .map(|pair| Confusion { pair: pair.clone(), ..Confusion::default() })
        .collect();
    for outcome in outcomes {
        let expected = tool_set(outcome.expected);
        let got = match &outcome.got {
            Ok(calls) => calls.clone(),
            Err(_) => Vec::new(),
        };
        // A request that failed chose nothing, not even "none".
        let chosen = if outcome.got.is_ok() { tool_set(&got) } else { BTreeSet::new() };
        for tool in expected.union(&chosen) {
            let entry = report.tools.entry(tool.clone()).or_default();
            match (expected.contains(tool), chosen.contains(tool)) {
                (true, true) => entry.tp += 1,
                (true, false) => entry.r#fn += 1,
                _ => entry.fp += 1,
            }
        }
        for c in &mut confusion {
            if let Some(key) = confusion_key(&c.pair, &expected, &chosen) {
                *c.counts.entry(key).or_default() += 1;
            }
        }
        let routed = expected == chosen && outcome.got.is_ok();
        let (checked, passed, arg_misses) = check_args(outcome.expected, &got);
        report.args_checked += checked;
        report.args_passed += passed;
        report.routed += usize::from(routed);
        let right = routed && arg_misses.is_empty();
        report.correct += usize::from(right);
        if !right {
            let why = match &outcome.got {
                Err(e) => {
                    report.errors += 1;
                    format!("request failed: {e}")
                }
                Ok(_) if !routed => "wrong tools".to_string(),
                Ok(_) => arg_misses.join("; "),
            };
            report.misses.push(Miss {
                id: outcome.id.to_string(),
                text: outcome.text.to_string(),
                expected: expected.into_iter().collect(),
                got,
                why,
            });
        }
    }
    for entry in report.tools.values_mut() {
        entry.precision = ratio(entry.tp, entry.tp + entry.fp);
        entry.recall = ratio(entry.tp, entry.tp + entry.r#fn);
    }
    report.accuracy = ratio(report.correct, report.cases).unwrap_or(0.0);
    report.routing_accuracy = ratio(report.routed, report.cases).unwrap_or(0.0);
    report.argument_accuracy = ratio(report.args_passed, report.args_checked).unwrap_or(1.0);
    report.confusion = confusion;
    report
}

fn ratio(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// The distinct tools of `calls`, or just "none" when there are none.
fn tool_set(calls: &[Call]) -> BTreeSet<String> {
    let set: BTreeSet<String> = calls.iter().map(|c| c.tool.clone()).collect();
    if set.is_empty() { BTreeSet::from([NONE.to_string()]) } else { set }
}

/// "expected→chosen" for a case where exactly one of `pair` was expected.
fn confusion_key(
    pair: &[String; 2],
    expected: &BTreeSet<String>,
    chosen: &BTreeSet<String>,
) -> Option<String> {
    let [a, b] = pair;
    let wanted = match (expected.contains(a), expected.contains(b)) {
        (true, false) => a,
        (false, true) => b,
        _ => return None,
    };
    let picked = match (chosen.contains(a), chosen.contains(b)) {
        (true, true) => "both",
        (true, false) => a,
        (false, true) => b,
        (false, false) => "neither",
    };
    Some(format!("{wanted}→{picked}"))
}

/// For each expected call whose tool was called: whether a call of that tool (each used once)
/// satisfies its checks. Returns (checked, passed, what failed).
fn check_args(expected: &[Call], got: &[Call]) -> (usize, usize, Vec<String>) {
    let mut used = vec![false; got.len()];
    let mut failed = Vec::new();
    let (mut checked, mut passed) = (0, 0);
    for want in expected.iter().filter(|w| got.iter().any(|g| g.tool == w.tool)) {
        checked += 1;
        let found = (0..got.len())
            .find(|&i| !used[i] && got[i].tool == want.tool && matches(&want.args, &got[i].args));
        match found {
            Some(i) => {
                used[i] = true;
                passed += 1;
            }
            None => failed.push(want),
        }
    }
    let misses = failed
        .into_iter()
        .map(|want| {
            let other = (0..got.len()).find(|&i| !used[i] && got[i].tool == want.tool);
            match other {
                Some(i) => {
                    used[i] = true;
                    format!("{} arguments {} do not match {}", want.tool, got[i].args, want.args)
                }
                None => format!("no {} call matching {}", want.tool, want.args),
            }
        })
        .collect();
    (checked, passed, misses)
}

/// True when `actual` satisfies the check `want` (see the module documentation).
pub fn matches(want: &Value, actual: &Value) -> bool {
    match want {
        Value::Null => actual.is_null(),
        Value::Bool(_) => want == actual,
        Value::Number(n) => match (n.as_f64(), actual.as_f64()) {
            (Some(w), Some(a)) => (w - a).abs() <= 1e-6 * w.abs().max(1.0),
            _ => false,
        },
        Value::String(w) => {
            actual.as_str().is_some_and(|a| a.trim().to_lowercase() == w.trim().to_lowercase())
        }
        Value::Array(items) => {
            let Some(actual) = actual.as_array() else { return false };
            let mut used = vec![false; actual.len()];
            items.len() == actual.len()
                && items.iter().all(|w| {
                    let found = (0..actual.len()).find(|&i| !used[i] && matches(w, &actual[i]));
                    found.map(|i| used[i] = true).is_some()
                })
        }
        Value::Object(map) => matcher(map, actual).unwrap_or_else(|| {
            map.iter().all(|(key, w)| matches(w, actual.get(key).unwrap_or(&Value::Null)))
        }),
    }
}

/// Whether `actual` passes the `$` matcher `map` stands for; `None` when it is not one.
fn matcher(map: &serde_json::Map<String, Value>, actual: &Value) -> Option<bool> {
    let (key, arg) = map.iter().next().filter(|_| map.len() == 1)?;
    let text = |v: &Value| v.as_str().map(|s| s.trim().to_lowercase());
    let needle = text(arg).unwrap_or_default();
    Some(match key.as_str() {
        "$any" => arg.as_array().is_some_and(|options| options.iter().any(|o| matches(o, actual))),
        "$contains" => text(actual).is_some_and(|a| a.contains(&needle)),
        "$prefix" => text(actual).is_some_and(|a| a.starts_with(&needle)),
        "$present" => !actual.is_null(),
        _ => return None,
    })
}

/// The report as a table for the terminal.
pub fn render(report: &Report, model: &str) -> String {
    let pct = |r: f64| format!("{:.1} %", r * 100.0);
    let opt = |r: Option<f64>| r.map_or_else(|| "–".to_string(), pct);
    let mut out = format!(
        "routing eval: {} cases, model {model}\naccuracy {} ({}/{}) · tools right {} · arguments {} ({}/{}){}\n\n",
        report.cases,
        pct(report.accuracy),
        report.correct,
        report.cases,
        pct(report.routing_accuracy),
        pct(report.argument_accuracy),
        report.args_passed,
        report.args_checked,
        if report.errors > 0 {
            format!(" · {} requests failed", report.errors)
        } else {
            String::new()
        },
    );
    let t = &report.tokens;
    let counted = |n: Option<u64>| n.map_or_else(|| "not reported".to_string(), |n| n.to_string());
    out.push_str(&format!(
        "tokens per request: prompt {} mean, {} max, {} cached mean (the server's count) · stable prefix {} (instructions and tools) · tool definitions {} in a 1:1 chat, {} in a group (o200k)\n\n",
        counted(t.prompt_mean),
        counted(t.prompt_max),
        counted(t.cached_mean),
        t.stable_prefix,
        t.tools_one_to_one,
        t.tools_group,
    ));
    out.push_str(&format!(
        "{:<20} {:>9} {:>8} {:>4} {:>4} {:>4}\n",
        "tool", "precision", "recall", "tp", "fp", "fn"
    ));
    for (tool, s) in &report.tools {
        out.push_str(&format!(
            "{tool:<20} {:>9} {:>8} {:>4} {:>4} {:>4}\n",
            opt(s.precision),
            opt(s.recall),
            s.tp,
            s.fp,
            s.r#fn
        ));
    }
    out.push_str("\nfenced pairs (expected→chosen):\n");
    for c in &report.confusion {
        let counts: Vec<String> = c.counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
        out.push_str(&format!("  {} / {}: {}\n", c.pair[0], c.pair[1], counts.join(", ")));
    }
    if !report.misses.is_empty() {
        out.push_str("\nmisses:\n");
        for m in &report.misses {
            let got: Vec<String> = m.got.iter().map(|c| format!("{} {}", c.tool, c.args)).collect();
            let got = if got.is_empty() { NONE.to_string() } else { got.join(" + ") };
            out.push_str(&format!(
                "  {} {:?}: expected {}, got {got} — {}\n",
                m.id,
                m.text,
                m.expected.join(" + "),
                m.why
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(tool: &str, args: Value) -> Call {
        Call { tool: tool.into(), args }
    }

    fn fenced() -> Vec<[String; 2]> {
        vec![["get_quote".into(), "fx".into()]]
    }

    #[test]
    fn checks_ignore_case_order_and_unnamed_keys_and_know_the_matchers() {
        assert!(matches(
            &json!({"from": "usd", "amount": 100}),
            &json!({"from": "USD", "amount": 100.0, "to": "TWD"})
        ));
        assert!(!matches(&json!({"to": "TWD"}), &json!({"from": "USD"})));
        assert!(matches(&json!({"location": null}), &json!({})));
        assert!(matches(&json!(["mon", "wed"]), &json!(["wed", "mon"])));
        assert!(!matches(&json!(["mon"]), &json!(["mon", "wed"])));
        assert!(matches(&json!({"$any": ["BTC", "BTC-USD"]}), &json!("btc-usd")));
        assert!(matches(&json!({"$contains": "便當"}), &json!("帶便當")));
        assert!(matches(&json!({"$prefix": "2026-03-05T08:00"}), &json!("2026-03-05T08:00:00")));
        assert!(!matches(&json!({"$present": true}), &json!(null)));
        assert!(matches(
            &json!({"repeat": {"every": "weekly"}}),
            &json!({"repeat": {"every": "weekly", "interval": null}})
        ));
    }

    #[test]
    fn a_right_run_scores_full_marks() {
        let expected = [call("fx", json!({"to": "TWD"}))];
        let outcomes = [Outcome {
            id: "a",
            text: "100 美金多少台幣",
            expected: &expected,
            got: Ok(vec![call("fx", json!({"from": "USD", "to": "TWD", "amount": 100}))]),
        }];
        let r = score(&outcomes, &fenced());
        assert_eq!((r.correct, r.accuracy, r.argument_accuracy), (1, 1.0, 1.0));
        assert_eq!(r.tools["fx"].precision, Some(1.0));
        assert!(r.misses.is_empty());
    }

    #[test]
    fn precision_recall_and_confusion_count_the_wrong_choices() {
        let quote = [call("get_quote", json!({}))];
        let fx = [call("fx", json!({}))];
        let nothing: [Call; 0] = [];
        let outcomes = [
            Outcome {
                id: "1",
                text: "0.1 BTC",
                expected: &quote,
                got: Ok(vec![call("fx", json!({}))]),
            },
            Outcome {
                id: "2",
                text: "100 USD",
                expected: &fx,
                got: Ok(vec![call("fx", json!({}))]),
            },
            Outcome { id: "3", text: "謝謝", expected: &nothing, got: Ok(vec![]) },
            Outcome { id: "4", text: "hi", expected: &nothing, got: Err("timeout".into()) },
        ];
        let r = score(&outcomes, &fenced());
        assert_eq!(r.correct, 2);
        assert_eq!(r.errors, 1);
        assert_eq!(
            r.tools["fx"],
            ToolScore { tp: 1, fp: 1, r#fn: 0, precision: Some(0.5), recall: Some(1.0) }
        );
        assert_eq!(r.tools["get_quote"].recall, Some(0.0));
        assert_eq!(
            (r.tools[NONE].tp, r.tools[NONE].r#fn),
            (1, 1),
            "a failed request chose nothing"
        );
        assert_eq!(r.confusion[0].counts["get_quote→fx"], 1);
        assert_eq!(r.confusion[0].counts["fx→fx"], 1);
        assert_eq!(r.misses.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), ["1", "4"]);
    }

    #[test]
    fn wrong_arguments_fail_the_case_but_not_the_routing() {
        let expected = [
            call("weather", json!({"location": "高雄"})),
            call("weather", json!({"location": "台北"})),
        ];
        let got = vec![
            call("weather", json!({"location": "台北"})),
            call("weather", json!({"location": "台中"})),
        ];
        let outcomes =
            [Outcome { id: "w", text: "台北跟高雄", expected: &expected, got: Ok(got) }];
        let r = score(&outcomes, &[]);
        assert_eq!((r.routed, r.correct, r.args_checked, r.args_passed), (1, 0, 2, 1));
        assert!(r.misses[0].why.contains("高雄"), "{}", r.misses[0].why);
        assert!(render(&r, "m").contains("weather"));
    }
}
