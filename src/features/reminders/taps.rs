//! What the buttons of the reminders cards carry: each a tap's data, signed into
//! its postback; what a tap does is in [`super::actions`].

use serde::{Deserialize, Serialize};

/// ❌: cancel reminder `id` (reminder cards, the list, the confirmation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CancelReminder {
    /// The reminder.
    pub id: i64,
}

/// One delivered occurrence of a reminder, `42-3` on a button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Occurrence {
    /// The reminder.
    pub reminder: i64,
    /// Which of its deliveries.
    pub occurrence: i64,
}

impl From<Occurrence> for String {
    fn from(o: Occurrence) -> String {
        format!("{}-{}", o.reminder, o.occurrence)
    }
}

impl TryFrom<String> for Occurrence {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        let parsed = s.split_once('-').and_then(|(rid, occ)| {
            Some(Occurrence { reminder: rid.parse().ok()?, occurrence: occ.parse().ok()? })
        });
        parsed.ok_or_else(|| format!("{s:?} is not a reminder occurrence"))
    }
}

/// ✅ on a delivered reminder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ReminderDone(pub Occurrence);

/// ⏰ on a delivered reminder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SnoozeReminder(pub Occurrence);
