//! A provider's prompt cache, as OpenAI documents it, for the fake LLM: a request whose first
//! tokens match a request seen before is charged less for them. The prompt is rendered as most
//! chat templates render it — the first (system) message, then the tool definitions, then the
//! other messages — in o200k tokens, and the tokens reported cached are the longest prefix
//! shared with any earlier request, counted in steps of 128 from 1,024 (nothing below 1,024).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::{Value, json};

/// The shortest prefix a provider caches.
pub const CACHE_MIN: usize = 1024;
/// The steps cached prefixes grow in.
pub const CACHE_STEP: usize = 128;

/// What the cache has seen and charged.
#[derive(Default)]
pub struct PromptCache {
    /// The hashes of every prefix of [`CACHE_MIN`] + n·[`CACHE_STEP`] tokens seen.
    seen: HashSet<u64>,
    /// Tokens of the rendered pieces (tool lists and messages repeat across requests).
    pieces: HashMap<String, Arc<Vec<u32>>>,
    /// The totals so far.
    pub totals: CacheTotals,
}

/// The tokens requests sent and answers used, as the fake reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheTotals {
    /// Requests answered.
    pub requests: u64,
    /// Prompt tokens, cached ones included.
    pub input: u64,
    /// Prompt tokens served from the cache.
    pub cached: u64,
    /// Completion tokens.
    pub output: u64,
    /// The longest cached prefix of one request.
    pub longest_cached: u64,
}

impl PromptCache {
    /// The `usage` of answering `request` with `completion`, with the request's prefixes
    /// remembered for later requests.
    pub fn usage(&mut self, request: &Value, completion: &Value) -> Value {
        let tokens = self.rendered(request);
        let cached = self.cached_prefix(&tokens);
        let message = &completion["choices"][0]["message"];
        let mut answer = String::new();
        if let Some(text) = message["content"].as_str() {
            answer.push_str(text);
        }
        if let Some(calls) = message.get("tool_calls").filter(|c| !c.is_null()) {
            answer.push_str(&calls.to_string());
        }
        let output = encode(&answer).len() as u64;
        let input = tokens.len() as u64;
        let totals = &mut self.totals;
        totals.requests += 1;
        totals.input += input;
        totals.cached += cached as u64;
        totals.output += output;
        totals.longest_cached = totals.longest_cached.max(cached as u64);
        json!({
            "prompt_tokens": input,
            "completion_tokens": output,
            "total_tokens": input + output,
            "prompt_tokens_details": {"cached_tokens": cached},
        })
    }

    /// The request's prompt as tokens ([`rendered`]).
    fn rendered(&mut self, request: &Value) -> Vec<u32> {
        let mut tokens = Vec::new();
        for piece in rendered(request) {
            let encoded =
                self.pieces.entry(piece).or_insert_with_key(|text| Arc::new(encode(text))).clone();
            tokens.extend_from_slice(&encoded);
        }
        tokens
    }

    /// The longest cacheable prefix of `tokens` seen before; remembers `tokens`' prefixes.
    fn cached_prefix(&mut self, tokens: &[u32]) -> usize {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut cached = 0;
        let mut missed = false;
        for (i, token) in tokens.iter().enumerate() {
            hash = (hash ^ u64::from(*token)).wrapping_mul(0x0100_0000_01b3);
            let length = i + 1;
            if length >= CACHE_MIN && (length - CACHE_MIN).is_multiple_of(CACHE_STEP) {
                let known = !self.seen.insert(hash);
                if known && !missed {
                    cached = length;
                } else {
                    missed = true;
                }
            }
        }
        cached
    }
}

/// A request as a chat template lays it out, as JSON pieces: the first message, the tool
/// definitions, then the other messages in order.
pub fn rendered(request: &Value) -> Vec<String> {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let mut pieces: Vec<String> = Vec::new();
    let mut rest = messages.iter();
    if let Some(first) = rest.next() {
        pieces.push(first.to_string());
    }
    if let Some(tools) = request.get("tools") {
        pieces.push(tools.to_string());
    }
    pieces.extend(rest.map(Value::to_string));
    pieces
}

/// A request as a template that gathers every system message at the top lays it out: the
/// system messages, the tool definitions, then the other messages in order.
pub fn rendered_gathering_system(request: &Value) -> Vec<String> {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let (system, rest): (Vec<&Value>, Vec<&Value>) =
        messages.iter().partition(|m| m["role"] == "system");
    let mut pieces: Vec<String> = system.iter().map(|m| m.to_string()).collect();
    if let Some(tools) = request.get("tools") {
        pieces.push(tools.to_string());
    }
    pieces.extend(rest.iter().map(|m| m.to_string()));
    pieces
}

/// The o200k tokens of `text`.
pub fn encode(text: &str) -> Vec<u32> {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(text)
}
