//! The LLM: its endpoint and models, its prices, and the bounds of one turn's tool calls.

use clap::Args;

use super::Secret;

/// The LLM hearth asks, and how a turn may use it.
#[derive(Debug, Clone, Args)]
pub struct LlmSettings {
    /// Base URL of an OpenAI-compatible API, including the version (e.g. http://localhost:11434/v1 for Ollama).
    #[arg(
        long,
        env = "OPENAI_BASE_URL",
        default_value = "https://api.openai.com/v1",
        global = true
    )]
    pub openai_base_url: String,
    /// API key for the LLM; may be empty for local servers.
    #[arg(
        long,
        env = "OPENAI_API_KEY",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub openai_api_key: Secret,
    /// The model name sent to the LLM API.
    #[arg(long, env = "HEARTH_MODEL", default_value = "gpt-4o-mini", global = true)]
    pub model: String,
    /// The model asked when a turn carries photos; empty: HEARTH_MODEL (which must read images).
    #[arg(long, env = "HEARTH_VISION_MODEL", default_value = "", global = true)]
    pub vision_model: String,
    /// Send tool schemas with `strict: true` (turn off for servers that reject it).
    #[arg(long, env = "HEARTH_LLM_STRICT", default_value_t = true, action = clap::ArgAction::Set, global = true)]
    pub llm_strict: bool,
    /// Sent with every LLM request as `prompt_cache_key` (OpenAI routes requests with the same
    /// key and prefix to the same prompt cache); unset: not sent. For OpenAI: other servers may
    /// refuse a field they do not know.
    #[arg(long, env = "HEARTH_PROMPT_CACHE_KEY", global = true)]
    pub prompt_cache_key: Option<String>,
    /// US$ per million input tokens the LLM costs (`hearth usage` and `hearth doctor` show the
    /// money when the three prices are set).
    #[arg(long, alias = "price-input", env = "HEARTH_LLM_PRICE_INPUT", value_parser = price, global = true)]
    pub llm_price_input: Option<f64>,
    /// US$ per million input tokens served from the provider's prompt cache.
    #[arg(long, alias = "price-cached", env = "HEARTH_LLM_PRICE_CACHED", value_parser = price, global = true)]
    pub llm_price_cached: Option<f64>,
    /// US$ per million output tokens.
    #[arg(long, alias = "price-output", env = "HEARTH_LLM_PRICE_OUTPUT", value_parser = price, global = true)]
    pub llm_price_output: Option<f64>,
    /// Seconds to wait for one LLM response.
    #[arg(long, env = "HEARTH_LLM_TIMEOUT_SECS", default_value_t = 60, global = true)]
    pub llm_timeout_secs: u64,
    /// Most LLM rounds with tools in one turn; after that the model must answer.
    #[arg(long, env = "HEARTH_MAX_TOOL_ROUNDS", default_value_t = 4, global = true)]
    pub max_tool_rounds: usize,
    /// Most tool calls run from one LLM round; the model's further calls are not run and get an
    /// error result it can explain.
    #[arg(long, env = "HEARTH_MAX_TOOL_CALLS_PER_ROUND", default_value_t = 8, global = true)]
    pub max_tool_calls_per_round: usize,
    /// Most tool definitions sent in one request: when MCP servers would pass it, the tools that
    /// do not fit are found and called through one tool (`find_tools`).
    #[arg(long, env = "HEARTH_MAX_TOOLS", default_value_t = DEFAULT_MAX_TOOLS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..=128), global = true)]
    pub max_tools: usize,
}

impl LlmSettings {
    /// The LLM settings that are missing, by environment name: a key is needed for OpenAI
    /// itself.
    pub fn missing(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if self.openai_base_url.contains("api.openai.com") && self.openai_api_key.is_empty() {
            missing.push("OPENAI_API_KEY");
        }
        if self.model.trim().is_empty() {
            missing.push("HEARTH_MODEL");
        }
        missing
    }
}

/// The most tool definitions one request carries unless `HEARTH_MAX_TOOLS` says otherwise:
/// OpenAI's function-calling guide suggests fewer than 20 at a time for accuracy, and smaller
/// models suffer first.
pub const DEFAULT_MAX_TOOLS: usize = 20;

/// A price in US$ per million tokens: a number from 0 to 1,000.
fn price(value: &str) -> Result<f64, String> {
    match value.trim().parse::<f64>() {
        Ok(p) if (0.0..=1000.0).contains(&p) => Ok(p),
        _ => Err(format!("{value:?} is not a price in US$ per million tokens (like 0.15)")),
    }
}
