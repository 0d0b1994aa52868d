//! The LLM side: a tolerant OpenAI-compatible client ([`openai`]), the system prompt
//! ([`prompt`]), the tool loop ([`agent`]), what it asks of whoever holds calls for
//! confirmation ([`hold`]), the tokens calls used ([`usage`]), what the tool definitions cost ([`tokens`]) and the models an endpoint offers
//! ([`models`]).

pub mod agent;
pub mod endpoint;
pub mod hold;
pub mod mcp;
pub mod models;
pub mod openai;
pub mod prompt;
pub mod tokens;
pub mod usage;
