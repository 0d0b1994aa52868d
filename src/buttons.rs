//! THE list of button actions, beside THE list of tools (`crate::tools`). An action is a type
//! (its data and its handler, see [`crate::features::button`]) living with its feature; adding a
//! button-backed feature is its own files and one line here. A tap reaches an action only after
//! its data was verified against the tap's conversation (see [`crate::line::postback`]), and each
//! action acts on that conversation only.

use crate::features::button::{ActionRegistry, ActionRegistryError};
use crate::features::calendar::actions::RemindBeforeEvent;
use crate::features::care::actions::{CareLater, CareOnIt, CareStart, CareStop, CareTaken};
use crate::features::care::menu::{CareMenuCall, CareMenuReading, CareMenuTaken};
use crate::features::family_page::{EndPageSessions, OpenPage};
use crate::features::held_calls::combined::{ConfirmCalls, DiscardCalls};
use crate::features::held_calls::{ConfirmCall, DiscardCall};
use crate::features::lists::view::CheckListItem;
use crate::features::memory::actions::{ForgetAllMemories, ForgetMemory};
use crate::features::price_alerts::actions::{CancelPriceAlert, MutePriceAlert};
use crate::features::reminders::actions::{CancelReminder, ReminderDone, SnoozeReminder};
use crate::features::reminders::picker::{MoveReminder, RescheduleOccurrence};
use crate::platform::i18n::Lang;

/// Builds the production action registry.
pub fn registry() -> Result<ActionRegistry, ActionRegistryError> {
    ActionRegistry::builder()
        .action::<CancelReminder>()
        .action::<ReminderDone>()
        .action::<SnoozeReminder>()
        .action::<RescheduleOccurrence>()
        .action::<MoveReminder>()
        .action::<CancelPriceAlert>()
        .action::<MutePriceAlert>()
        .action::<ForgetMemory>()
        .action::<ForgetAllMemories>()
        .action::<ConfirmCall>()
        .action::<DiscardCall>()
        .action::<ConfirmCalls>()
        .action::<DiscardCalls>()
        .action::<CheckListItem>()
        .action::<OpenPage>()
        .action::<EndPageSessions>()
        .action::<CareTaken>()
        .action::<CareLater>()
        .action::<CareOnIt>()
        .action::<CareStart>()
        .action::<CareStop>()
        .action::<CareMenuTaken>()
        .action::<CareMenuCall>()
        .action::<CareMenuReading>()
        .action::<RemindBeforeEvent>()
        .build()
}

/// The polite answer to a button that does not belong to this conversation (or was forged).
pub fn refusal(lang: Lang) -> &'static str {
    lang.pick(
        "這個按鈕不屬於這個聊天室，所以我沒有做任何變更 🙏",
        "That button belongs to another chat, so I didn't change anything 🙏",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_production_actions_build_with_the_wire_names_of_existing_buttons() {
        let registry = registry().expect("the production action registry");
        assert_eq!(
            registry.names(),
            [
                "cancel_price_alert",
                "cancel_reminder",
                "care_later",
                "care_menu_call",
                "care_menu_reading",
                "care_menu_taken",
                "care_on_it",
                "care_start",
                "care_stop",
                "care_taken",
                "check_list_item",
                "confirm_call",
                "confirm_calls",
                "discard_call",
                "discard_calls",
                "end_page_sessions",
                "event_remind",
                "forget_all_memories",
                "forget_memory",
                "mute_price_alert",
                "open_page",
                "reminder_done",
                "reminder_move",
                "reminder_reschedule",
                "reminder_snooze",
            ]
        );
    }
}
