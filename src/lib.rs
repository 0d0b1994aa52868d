//! hearth: a family assistant for LINE. Messages arrive on a signed webhook; an LLM answers,
//! calling tools (weather, currency conversion, quotes, price alerts, reminders, shared lists,
//! chat recaps, long-term memory, web search and page summaries); answers go back as text, Flex
//! cards and quick-reply chips.
//!
//! # Layers
//!
//! The folders are the layers. A module uses only the folders on the rows below its own (and
//! modules of its own folder, without circles); a tool never uses another tool.
//! `tests/it/layers.rs` reads this table and checks every `crate::` path in `src/`.
//!
//! | row | folder | what it holds |
//! |---|---|---|
//! | 1 | `cli` | `hearth chat`, `hearth doctor`, `hearth eval` |
//! | 2 | `server` | the webhook and HTTP pages, the durable inbox, the background loops, the assembled application |
//! | 3 | `turn` | what happens to one event: the gate, limits, the agent's turn, media, delivery of the answer |
//! | 4 | `buttons` | THE list of button actions |
//! | 5 | `tools` | THE list of tools, one file per tool |
//! | 6 | `features` | one folder per capability: reminders, alerts, lists, digest, memory, media, care, … |
//! | 7 | `push` | the push machinery every capability pushes through: the one outbox, LINE's monthly message quota, quiet hours |
//! | 8 | `door` | who may see, change and be pushed to a chat: the one rule turns, taps, the page and every push ask |
//! | 9 | `line` | LINE: webhook events, signature, messages, Flex cards, signed postbacks, the API client |
//! | 10 | `llm` | the OpenAI-compatible client, the system prompt, the tool loop, MCP servers' tools |
//! | 11 | `contract` | what a tool is: its context, errors, cards and chips and the charts drawn on them, the registry, schemas, untrusted content |
//! | 12 | `sources` | the data sources, the calendars, and the sandbox that parses untrusted bytes |
//! | 13 | `store` | everything kept, on SQLite or PostgreSQL, behind one type |
//! | 14 | `platform` | settings, clock, language, conversations, metrics, TLS |

// The documentation is read with its private items (`cargo doc --document-private-items`,
// checked in CI without warnings), so a public item's doc may link to a private one.
#![allow(rustdoc::private_intra_doc_links)]

pub mod buttons;
pub mod cli;
pub mod contract;
pub mod door;
pub mod features;
pub mod line;
pub mod llm;
pub mod platform;
pub mod push;
pub mod server;
pub mod sources;
pub mod store;
pub mod tools;
pub mod turn;
