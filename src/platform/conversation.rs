//! Who a message comes from: the conversation (a 1:1 chat, a group or a room) and its id.
//!
//! The conversation is the unit of authority: everything a tool reads or changes belongs to the
//! conversation the message came from, never to one named in tool arguments.

use std::fmt;

/// The kind of LINE chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChatKind {
    /// A 1:1 chat with one user.
    User,
    /// A group chat.
    Group,
    /// A multi-person chat (the older form of a group).
    Room,
}

/// One LINE conversation: its kind and the id LINE uses to address it (`U…`, `C…` or `R…`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Conversation {
    /// 1:1, group or room.
    pub kind: ChatKind,
    /// The `userId`, `groupId` or `roomId`; also the push target.
    pub id: String,
}

impl Conversation {
    /// A 1:1 chat with `user_id`.
    pub fn user(user_id: impl Into<String>) -> Self {
        Self { kind: ChatKind::User, id: user_id.into() }
    }

    /// A group chat.
    pub fn group(group_id: impl Into<String>) -> Self {
        Self { kind: ChatKind::Group, id: group_id.into() }
    }

    /// The conversation a LINE id names: `C…` a group, `R…` a room, anything else a user.
    pub fn from_id(id: &str) -> Self {
        let kind = match id.as_bytes().first() {
            Some(b'C') => ChatKind::Group,
            Some(b'R') => ChatKind::Room,
            _ => ChatKind::User,
        };
        Self { kind, id: id.to_string() }
    }

    /// True for groups and rooms, where the bot answers only when called.
    pub fn is_multi_person(&self) -> bool {
        matches!(self.kind, ChatKind::Group | ChatKind::Room)
    }
}

impl fmt::Display for Conversation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            ChatKind::User => "user",
            ChatKind::Group => "group",
            ChatKind::Room => "room",
        };
        write!(f, "{kind}:{}", self.id)
    }
}
