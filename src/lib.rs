//! hearth: a family assistant for LINE. Messages arrive on a signed webhook; an LLM answers,
//! calling tools (weather, currency conversion, quotes, price alerts, reminders, shared lists,
//! chat recaps, long-term memory, web search and page summaries); answers go back as text, Flex cards and
//! quick-reply chips.
//!
//! # Layout
//!
//! - [`server`]: `POST /callback` (signature, store in the inbox, 200 at once), `/healthz`,
//!   `/readyz`, `/metrics`; [`inbox`]: handling stored events, recovering a dead process's;
//!   [`listen`]: connections with read timeouts and a bounded shutdown;
//!   [`background`]: the periodic loops; [`metrics`]: Prometheus counters and histograms.
//! - [`conversation`]: what happens to an event: log, agent, delivery; [`gate`]: whether a group
//!   message called hearth; [`limits`]: the allow-list, turn rates and daily token budgets;
//!   [`quote`]: the quoted message of a quote-reply; [`sticker`]: answering stickers in kind;
//!   [`welcome`]: the one welcome for members who join a group.
//! - [`app`]: the assembled application shared by the server and its background work.
//! - [`llm`]: the OpenAI-compatible client, the system prompt and the tool loop.
//! - [`mcp`]: tools from MCP servers, by configuration (`HEARTH_MCP_CONFIG`).
//! - [`tool`]: the contract a tool author implements; [`registry`]: erasure and dispatch;
//!   [`schema`]: argument schemas derived from types; [`tools`]: THE list, one file per tool.
//! - [`reminders`]: recurrence, the scheduler that pushes each occurrence once, their buttons.
//! - [`alerts`]: price alerts: the crossing state machine, market hours, the poller that fetches
//!   each watched symbol once per tick and pushes each fire once, their buttons.
//! - [`lists`]: shared lists (the shopping list, named lists): merging duplicates, caps, the
//!   list card and its ✓ buttons.
//! - [`digest`]: the morning digest: when it is due, what it says, its card, delivered once a
//!   day per conversation.
//! - [`delivery`]: pushing recorded deliveries with their retry keys (reminders and alerts),
//!   everything due for a chat in one push, held when the month's quota cannot pay;
//!   [`quota`]: LINE's monthly message quota as pure decisions (cost, month, hold, warning,
//!   projection, routing, batching).
//! - [`sources`]: clients for the data sources behind the tools, and the table of Taiwan
//!   securities (names, codes, markets) quotes and alerts are asked about by.
//! - [`line`]: webhook events, signature, outgoing messages, Flex cards, the API client.
//! - [`store`]: everything kept, behind one type (SQLite by default).
//! - [`postback`]: signed button data bound to a conversation, for buttons that change state;
//!   [`action`]: the contract of a button action (its data and its handler), erasure and
//!   dispatch; [`actions`]: THE list of button actions.
//! - [`untrusted`]: web content fenced as data for the LLM; [`confirm`]: state-changing calls
//!   made after untrusted content entered a turn, held until the family taps confirm;
//!   [`egress`]: which outgoing requests (page fetches, searches) may run in such a turn.
//! - [`memory`]: a conversation's memories in its system prompt, within a budget;
//!   [`privacy`]: the chat log's retention, unsend, and forgetting a conversation that removed
//!   hearth.
//! - [`calendar`]: the Chinese lunar calendar and Taiwan's working calendar (holidays,
//!   make-up workdays, the stock exchange's closed days).
//! - [`charts`]: the charts on quote, alert and weather cards: drawn, kept and served at
//!   `HEARTH_PUBLIC_URL`.
//! - [`quiet`]: quiet hours and the pure decision of whether a push goes now or waits.
//! - [`config`], [`clock`], [`i18n`], [`source`]: settings, time, language, conversations;
//!   [`format`]: amounts of money as the family reads them; [`tls`]: the one TLS configuration
//!   every outgoing HTTP client shares.
//! - [`media`]: photos, voice messages and files: LINE's content, transcription, and which
//!   photo a question is about; [`sandbox`]: untrusted bytes (PDFs, photos, text files, page
//!   HTML) parsed in child processes under the operating system's limits.
//! - [`chat`]: `hearth chat`, the same agent in a terminal; [`doctor`]: `hearth doctor`, the
//!   checks of a deployment.
//! - [`eval`]: `hearth eval`, the model's routing over a data set of family requests, scored.
//!
//! # Layers
//!
//! A module uses only the modules on the rows below its own, never its own row or one above
//! (`tests/layers.rs` reads this table and checks every `crate::` path in `src/`). A row may
//! name part of a module; a tool never uses another tool.
//!
//! | row | modules |
//! |---|---|
//! | 1 | `server`, `chat`, `doctor` |
//! | 2 | `background`, `inbox`, `conversation`, `limits::turns`, `eval`, `media::turns` |
//! | 3 | `app` |
//! | 4 | `actions` |
//! | 5 | `tools`, `privacy` |
//! | 6 | `alerts`, `reminders`, `memory`, `lists`, `digest`, `confirm`, `limits`, `inbox::accept` |
//! | 7 | `action`, `delivery`, `gate`, `quote`, `sticker`, `welcome`, `inbox::queue`, `inbox::lease`, `inbox::answers` |
//! | 8 | `line`, `media`, `inbox::commit` |
//! | 9 | `llm`, `mcp` |
//! | 10 | `registry`, `charts::publish` |
//! | 11 | `tool`, `sandbox` |
//! | 12 | `charts`, `quota`, `sources`, `store`, `postback`, `egress`, `untrusted`, `schema`, `listen`, `calendar`, `quiet`, `eval::score`, `inbox::in_flight` |
//! | 13 | `config`, `clock`, `i18n`, `source`, `metrics`, `format`, `media::pick`, `tls` |

pub mod action;
pub mod actions;
pub mod alerts;
pub mod app;
pub mod background;
pub mod calendar;
pub mod charts;
pub mod chat;
pub mod clock;
pub mod config;
pub mod confirm;
pub mod conversation;
pub mod delivery;
pub mod digest;
pub mod doctor;
pub mod egress;
pub mod eval;
pub mod format;
pub mod gate;
pub mod i18n;
pub mod inbox;
pub mod limits;
pub mod line;
pub mod listen;
pub mod lists;
pub mod llm;
pub mod mcp;
pub mod media;
pub mod memory;
pub mod metrics;
pub mod postback;
pub mod privacy;
pub mod quiet;
pub mod quota;
pub mod quote;
pub mod registry;
pub mod reminders;
pub mod sandbox;
pub mod schema;
pub mod server;
pub mod source;
pub mod sources;
pub mod sticker;
pub mod store;
pub mod tls;
pub mod tool;
pub mod tools;
pub mod untrusted;
pub mod welcome;
