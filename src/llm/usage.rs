//! The tokens an LLM call used, as OpenAI-compatible servers report them in `usage`: what the
//! daily budgets (`crate::turn::limits`) count, what the store keeps per chat and day (`hearth
//! usage`) and the metrics show. The prompt tokens a provider served from its prompt cache are
//! read from `prompt_tokens_details.cached_tokens` (OpenAI, Gemini's OpenAI endpoint, vLLM) or
//! DeepSeek's `prompt_cache_hit_tokens`.

use serde::Deserialize;

/// Token counts, when the server reports them (a missing or `null` count is 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(from = "WireUsage")]
pub struct Usage {
    /// Prompt tokens, the cached ones included.
    pub prompt_tokens: u64,
    /// Of the prompt tokens, those served from the provider's prompt cache (never more than
    /// `prompt_tokens`).
    pub cached_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Both, as the server counted them (some count reasoning or cached tokens in it).
    pub total_tokens: u64,
}

/// `usage` as servers write it.
#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    total_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
    /// DeepSeek's count of cached prompt tokens.
    #[serde(default)]
    prompt_cache_hit_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

impl From<WireUsage> for Usage {
    fn from(wire: WireUsage) -> Self {
        let prompt_tokens = wire.prompt_tokens.unwrap_or_default();
        let details = wire.prompt_tokens_details.and_then(|d| d.cached_tokens);
        let cached = details.or(wire.prompt_cache_hit_tokens).unwrap_or_default();
        Self {
            prompt_tokens,
            cached_tokens: cached.min(prompt_tokens),
            completion_tokens: wire.completion_tokens.unwrap_or_default(),
            total_tokens: wire.total_tokens.unwrap_or_default(),
        }
    }
}

impl Usage {
    /// The tokens to charge: the server's total, or prompt plus completion when it gave none.
    pub fn tokens(&self) -> u64 {
        if self.total_tokens > 0 {
            self.total_tokens
        } else {
            self.prompt_tokens.saturating_add(self.completion_tokens)
        }
    }

    /// Adds another call's counts.
    pub fn add(&mut self, other: Usage) {
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.cached_tokens = self.cached_tokens.saturating_add(other.cached_tokens);
        self.completion_tokens = self.completion_tokens.saturating_add(other.completion_tokens);
        self.total_tokens = self.total_tokens.saturating_add(other.tokens());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Usage {
        serde_json::from_str(json).expect("usage")
    }

    #[test]
    fn the_server_total_is_what_is_charged() {
        let usage = parse(r#"{"prompt_tokens":42,"completion_tokens":7,"total_tokens":60}"#);
        assert_eq!(usage.tokens(), 60, "reasoning tokens may be in the total only");
    }

    #[test]
    fn without_a_total_or_with_nulls_the_parts_still_count() {
        assert_eq!(parse(r#"{"prompt_tokens":42,"completion_tokens":null}"#).tokens(), 42);
        assert_eq!(parse(r#"{"prompt_tokens":40,"completion_tokens":2}"#).tokens(), 42);
        assert_eq!(parse("{}").tokens(), 0);
    }

    #[test]
    fn the_calls_of_a_turn_add_up() {
        let mut sum = Usage::default();
        sum.add(parse(r#"{"prompt_tokens":42,"completion_tokens":7,"total_tokens":49}"#));
        sum.add(parse(r#"{"prompt_tokens":1,"completion_tokens":2}"#));
        assert_eq!(
            sum,
            Usage { prompt_tokens: 43, cached_tokens: 0, completion_tokens: 9, total_tokens: 52 },
            "a call without a total adds its parts"
        );
    }

    #[test]
    fn cached_prompt_tokens_are_read_from_openai_and_deepseek_and_never_exceed_the_prompt() {
        let openai = parse(
            r#"{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0}}"#,
        );
        assert_eq!((openai.prompt_tokens, openai.cached_tokens), (2006, 1920));
        let deepseek = parse(
            r#"{"prompt_tokens":1100,"completion_tokens":5,"prompt_cache_hit_tokens":1024,"prompt_cache_miss_tokens":76}"#,
        );
        assert_eq!(deepseek.cached_tokens, 1024);
        let odd = parse(r#"{"prompt_tokens":10,"prompt_tokens_details":{"cached_tokens":99}}"#);
        assert_eq!(odd.cached_tokens, 10, "a server's odd count is capped at the prompt");
        assert_eq!(parse(r#"{"prompt_tokens_details":null}"#).cached_tokens, 0);
        let mut sum = openai;
        sum.add(deepseek);
        assert_eq!(sum.cached_tokens, 2944);
    }
}
