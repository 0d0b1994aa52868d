//! The LLM side: a tolerant OpenAI-compatible client ([`openai`]), the system prompt
//! ([`prompt`]) and the tool loop ([`agent`]).

pub mod agent;
pub mod openai;
pub mod prompt;
