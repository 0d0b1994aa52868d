//! Rows tests put in the store directly.

use hearth::store::{NewReminder, Recurrence};

/// A one-off reminder in `conversation`, set by `U1`, first due at `first_fire_at` (Unix ms).
pub fn once_reminder<'a>(
    conversation: &'a str,
    text: &'a str,
    first_fire_at: i64,
) -> NewReminder<'a> {
    NewReminder {
        conversation_id: conversation,
        created_by: Some("U1"),
        mention_user_id: None,
        mention_name: None,
        text,
        tz: "Asia/Taipei",
        anchor_local: "2026-12-01T08:00",
        rule: Recurrence::once(),
        first_fire_at,
        created_at: 0,
        deliver_to: None,
    }
}
