//! A chat's data handed over (`hearth export --chat ID`): one JSON document of everything hearth keeps for a chat, readable
//! by a person — its reminders (with their repetition in words and next time), lists and their
//! items, memories, price alerts, daily digest, quiet hours, spoken answers, care plans, calendar events
//! ([`care`]) and the family's messages still in the chat log, gathered by [`ops::export`]. The format is documented in `docs/export.md`; `format` and `version` name it.

pub mod care;
pub mod ops;

use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde::Serialize;

use crate::store::Frequency;

/// What the document calls itself.
pub const FORMAT: &str = "hearth-export";
/// The version of its shape.
pub const VERSION: u32 = 1;
/// The most chat-log messages exported (the log keeps `HEARTH_LOG_RETENTION_DAYS` anyway).
pub(crate) const MAX_MESSAGES: u32 = 50_000;

/// Everything kept for one chat.
#[derive(Debug, Serialize)]
pub struct Export {
    /// Always [`FORMAT`].
    pub format: &'static str,
    /// Always [`VERSION`].
    pub version: u32,
    /// The chat's LINE id.
    pub chat: String,
    /// When the export was made (the times below are local to `time_zone`).
    pub exported_at: String,
    /// The zone of the local times.
    pub time_zone: String,
    /// Active and paused reminders.
    pub reminders: Vec<ExportedReminder>,
    /// The shared lists, with their items.
    pub lists: Vec<ExportedList>,
    /// What the chat asked hearth to remember.
    pub memories: Vec<ExportedMemory>,
    /// Active price alerts.
    pub price_alerts: Vec<ExportedAlert>,
    /// The daily digest, if set.
    pub digest: Option<ExportedDigest>,
    /// Quiet hours, if set.
    pub quiet_hours: Option<ExportedQuietHours>,
    /// Whether answers are also spoken, if the chat (or a member of it) asked.
    pub spoken_answers: Option<ExportedSpoken>,
    /// Care plans set in this chat, with their doses and readings (left out when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub care_plans: Vec<care::ExportedCarePlan>,
    /// The calendar's events that are not cancelled (left out when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub calendar_events: Vec<ExportedEvent>,
    /// The family's messages still in the chat log, oldest first (hearth's answers are not
    /// kept there).
    pub messages: Vec<ExportedMessage>,
}

impl Export {
    /// True when nothing at all is kept for the chat.
    pub fn is_empty(&self) -> bool {
        self.reminders.is_empty()
            && self.lists.is_empty()
            && self.memories.is_empty()
            && self.price_alerts.is_empty()
            && self.digest.is_none()
            && self.quiet_hours.is_none()
            && self.spoken_answers.is_none()
            && self.care_plans.is_empty()
            && self.calendar_events.is_empty()
            && self.messages.is_empty()
    }
}

/// An event of the family calendar.
#[derive(Debug, Serialize)]
pub struct ExportedEvent {
    /// Its number.
    pub id: i64,
    /// What.
    pub title: String,
    /// When it (first) starts: "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM", local.
    pub start: String,
    /// When it ends, if said.
    pub end: Option<String>,
    /// Where.
    pub place: String,
    /// Who goes.
    pub people: String,
    /// How it repeats (`weekly`, `lunar_yearly`…); `None` for once.
    pub repeats: Option<&'static str>,
    /// The days one time of it was called off ("YYYY-MM-DD").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub called_off: Vec<String>,
}

/// A reminder.
#[derive(Debug, Serialize)]
pub struct ExportedReminder {
    /// Its id.
    pub id: i64,
    /// What it is about.
    pub text: String,
    /// How it repeats, in words; `None` for once.
    pub repeats: Option<String>,
    /// Its next time, local.
    pub next: Option<String>,
    /// Whom it @mentions, in a group.
    pub for_member: Option<String>,
    /// `active` or `paused`.
    pub status: &'static str,
}

/// A list and its items.
#[derive(Debug, Serialize)]
pub struct ExportedList {
    /// Its name.
    pub name: String,
    /// Its items, in order.
    pub items: Vec<ExportedItem>,
}

/// An item of a list.
#[derive(Debug, Serialize)]
pub struct ExportedItem {
    /// The thing.
    pub name: String,
    /// How many.
    pub quantity: i64,
    /// Who added it.
    pub added_by: Option<String>,
    /// Who checked it off, when it is.
    pub checked_by: Option<String>,
    /// Checked off.
    pub checked: bool,
}

/// A memory.
#[derive(Debug, Serialize)]
pub struct ExportedMemory {
    /// Its number.
    pub id: i64,
    /// The fact.
    pub text: String,
    /// Who asked hearth to remember it.
    pub said_by: Option<String>,
    /// When, local.
    pub at: String,
}

/// A price alert.
#[derive(Debug, Serialize)]
pub struct ExportedAlert {
    /// Its id.
    pub id: i64,
    /// The symbol watched.
    pub symbol: String,
    /// Its name, when known.
    pub name: Option<String>,
    /// `rises_to` or `falls_to`.
    pub direction: &'static str,
    /// The level.
    pub level: f64,
    /// `once` or `every_time`.
    pub frequency: Frequency,
}

/// The daily digest.
#[derive(Debug, Serialize)]
pub struct ExportedDigest {
    /// Its daily time, HH:MM.
    pub time: String,
    /// The weather's place.
    pub place: Option<String>,
    /// Only on days with something to say.
    pub only_when_something: bool,
}

/// Quiet hours.
#[derive(Debug, Serialize)]
pub struct ExportedQuietHours {
    /// Start, HH:MM.
    pub start: String,
    /// End, HH:MM.
    pub end: String,
}

/// Spoken answers (「用講的回答我」): for the whole chat, or for some of its members.
#[derive(Debug, Serialize)]
pub struct ExportedSpoken {
    /// Every answer in the chat is spoken.
    pub whole_chat: bool,
    /// The members who asked for themselves (their names when hearth knows them).
    pub members: Vec<String>,
}

/// A message of the chat log.
#[derive(Debug, Serialize)]
pub struct ExportedMessage {
    /// Who said it.
    pub speaker: Option<String>,
    /// When, local.
    pub at: String,
    /// What.
    pub text: String,
}

/// A local time as `2026-12-03T08:00+08:00`.
pub(crate) fn local(ms: i64, tz: &TimeZone) -> String {
    Timestamp::from_millisecond(ms)
        .map(|t| t.to_zoned_datetime(tz.clone()).strftime("%Y-%m-%dT%H:%M%:z").to_string())
        .unwrap_or_default()
}
