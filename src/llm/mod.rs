//! The LLM side: a tolerant OpenAI-compatible client ([`openai`]), the system prompt
//! ([`prompt`]), the tool loop ([`agent`]) and the tokens calls used ([`usage`]).

pub mod agent;
pub mod openai;
pub mod prompt;
pub mod usage;
