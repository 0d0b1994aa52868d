//! Which chat a reminder is pushed to: a personal reminder set in a group goes to that person's
//! 1:1 chat with hearth (one message instead of the group's size) when they have added hearth
//! as a friend; one for everyone stays in the group.

/// Where a reminder goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// The chat it was set in.
    Chat,
    /// This user's 1:1 chat with hearth.
    Direct(String),
}

/// The route of a reminder set in a chat (`multi_person`: a group or room) for `person` (the
/// member it is for, if one), `for_everyone` when the family asked for the whole chat,
/// `is_friend` whether that person has hearth as a friend, `direct_on` the setting.
pub fn route(
    multi_person: bool,
    person: Option<&str>,
    for_everyone: bool,
    is_friend: bool,
    direct_on: bool,
) -> Route {
    match person {
        Some(p) if multi_person && !for_everyone && is_friend && direct_on => {
            Route::Direct(p.to_string())
        }
        _ => Route::Chat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_personal_reminder_in_a_group_goes_to_a_friend_s_1to1_chat() {
        assert_eq!(
            route(true, Some("Ugrandma"), false, true, true),
            Route::Direct("Ugrandma".into())
        );
    }

    #[test]
    fn everyone_s_reminders_non_friends_1to1_chats_and_the_opt_out_stay_put() {
        assert_eq!(route(true, Some("U1"), true, true, true), Route::Chat, "for everyone");
        assert_eq!(route(true, Some("U1"), false, false, true), Route::Chat, "not a friend");
        assert_eq!(route(true, Some("U1"), false, true, false), Route::Chat, "setting off");
        assert_eq!(route(false, Some("U1"), false, true, true), Route::Chat, "already 1:1");
        assert_eq!(route(true, None, false, true, true), Route::Chat, "no one named");
    }
}
