//! The chats approved from the start (`HEARTH_ALLOWED_CHATS`): listed chats are approved the
//! first time they call hearth (so they show in `hearth chats` and can be revoked); a revoked
//! chat stays revoked whatever the list says ([`super::rule`]).

use std::collections::HashSet;

use crate::platform::conversation::Conversation;

/// The chats approved from the start (`HEARTH_ALLOWED_CHATS`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList(HashSet<String>);

impl AllowList {
    /// The list from the setting's entries; blanks are ignored.
    pub fn new<S: AsRef<str>>(entries: &[S]) -> Self {
        Self(
            entries
                .iter()
                .map(|e| e.as_ref().trim().to_string())
                .filter(|e| !e.is_empty())
                .collect(),
        )
    }

    /// True when the conversation's own id (the user of a 1:1 chat, the group, the room) is on
    /// the list. Who speaks in a group does not matter: a listed person in an unlisted group is
    /// not served there because of the list.
    pub fn lists(&self, conversation: &Conversation) -> bool {
        self.0.contains(&conversation.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_allow_list_lists_nobody() {
        let list = AllowList::new(&["", " "]);
        assert!(!list.lists(&Conversation::user("Uanyone")));
        assert!(!list.lists(&Conversation::group("Canygroup")));
    }

    #[test]
    fn a_listed_user_is_listed_one_to_one_and_others_are_not() {
        let list = AllowList::new(&["Umom", " Cfamily "]);
        assert!(list.lists(&Conversation::user("Umom")));
        assert!(!list.lists(&Conversation::user("Ustranger")));
    }

    #[test]
    fn a_group_is_listed_only_by_its_own_id() {
        let list = AllowList::new(&["Umom", "Cfamily"]);
        assert!(list.lists(&Conversation::group("Cfamily")));
        assert!(!list.lists(&Conversation::group("Cother")), "a listed member does not count");
        assert!(!list.lists(&Conversation::from_id("Rroom")));
        assert!(AllowList::new(&["Rroom"]).lists(&Conversation::from_id("Rroom")));
    }
}
