//! The tokens an LLM call used, as OpenAI-compatible servers report them in `usage`: what the
//! daily budgets (`crate::turn::limits`) count and the metrics show.

use serde::{Deserialize, Deserializer};

/// Token counts, when the server reports them (a missing or `null` count is 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    #[serde(default, deserialize_with = "count")]
    pub prompt_tokens: u64,
    /// Completion tokens.
    #[serde(default, deserialize_with = "count")]
    pub completion_tokens: u64,
    /// Both, as the server counted them (some count reasoning or cached tokens in it).
    #[serde(default, deserialize_with = "count")]
    pub total_tokens: u64,
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
        self.completion_tokens = self.completion_tokens.saturating_add(other.completion_tokens);
        self.total_tokens = self.total_tokens.saturating_add(other.tokens());
    }
}

/// A token count that may be `null`.
fn count<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    Ok(Option::<u64>::deserialize(d)?.unwrap_or_default())
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
            Usage { prompt_tokens: 43, completion_tokens: 9, total_tokens: 52 },
            "a call without a total adds its parts"
        );
    }
}
