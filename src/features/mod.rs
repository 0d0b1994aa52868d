//! One folder per capability: its rules, cards, buttons and background work. Their tools are in
//! [`crate::tools`], their button actions in [`crate::buttons`]; they push through
//! [`crate::push`], and the charts on their cards are [`crate::contract::chart`]'s.
//!
//! - [`reminders`]: recurrence, the scheduler that pushes each occurrence once, their buttons.
//! - [`calendar`]: the family calendar: events with a place and who, the agenda, clashes, and
//!   each member's private feed for their phone (iCalendar).
//! - [`price_alerts`]: price alerts (a stock or a coin reaching a level): the crossing state machine, market hours, the poller that fetches
//!   each watched symbol once per tick and pushes each fire once.
//! - [`lists`]: shared lists: merging duplicates, caps, the list card and its ✓ buttons.
//! - [`digest`]: the morning digest: when it is due, what it says, delivered once a day.
//! - [`care`]: care plans for an elder: doses asked and confirmed, caregivers told when one is
//!   not, readings against their limits, the weekly report.
//! - [`family_page`]: the way into the family page: one-time links for a member in a chat.
//! - [`memory`]: a conversation's memories in its system prompt, within a budget.
//! - [`official_alerts`]: Taiwan's official alerts (suspensions, typhoon, rain, earthquakes) for
//!   the family's place, told once to the chats that follow them.
//! - [`media`]: photos, voice messages and files: LINE's content, transcription, and which photo
//!   a question is about.
//! - [`speech`]: answers she can hear: spoken answers as LINE audio messages, the text read the
//!   way a person says it, the M4A they are served in.
//! - [`held_calls`]: state-changing calls made after untrusted content entered a turn, held until
//!   the family taps confirm.
//! - [`budget`]: the daily token budgets of a chat and of the service, as pure decisions.
//! - [`richmenu`]: hearth's rich menus (the everyday one, the care one): their buttons, their
//!   image, drawn, and the name that says which version is installed.
//! - [`button`]: the contract of a button action (its data and its handler), erasure and
//!   dispatch.
//! - [`settings`]: a chat's small settings: the place it last asked about, spoken answers.
//! - [`deps`]: what tools and button actions are built from and run with.
//! - [`verbs`]: THE list of verbs, the changes a member can make, each one function in its
//!   capability's `ops`, with the surfaces it is offered on; [`changes`]: the feed every verb
//!   records itself in, with who and from where.

pub mod budget;
pub mod button;
pub mod calendar;
pub mod care;
pub mod changes;
pub mod deps;
pub mod digest;
pub mod export;
pub mod family_page;
pub mod held_calls;
pub mod lists;
pub mod media;
pub mod memory;
pub mod official_alerts;
pub mod price_alerts;
pub mod reminders;
pub mod richmenu;
pub mod settings;
pub mod speech;
pub mod verbs;
