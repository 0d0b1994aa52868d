//! The rule of the door, as pure functions of what is kept: a chat's standing (pending,
//! approved, revoked), a member's presence in a group (present, left), and the deployment's
//! settings (`HEARTH_OPEN`, `HEARTH_ALLOWED_CHATS`). Three questions, one rule:
//!
//! - may hearth serve this chat now (a turn, a button tap)? — [`chat`]
//! - may this member see or change this chat now (the family page, its links)? — [`member`]
//! - may hearth push on this chat's behalf now, to this target (every loop)? — [`push`]
//!
//! Revoked wins over everything — the allow-list and `HEARTH_OPEN` too — until the operator
//! approves the chat again or a new pairing code is used in it.

/// A chat's standing, as kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Served.
    Approved,
    /// Never approved (or never heard from).
    Pending,
    /// Approved once, then revoked.
    Revoked,
}

impl Standing {
    /// The standing kept in the store (`None`: never heard from).
    pub fn kept(status: Option<&str>) -> Self {
        match status {
            Some("approved") => Standing::Approved,
            Some("revoked") => Standing::Revoked,
            _ => Standing::Pending,
        }
    }
}

/// A member's presence in a group or room, as kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// In the chat (or not known to have left; in a 1:1 chat, its own person).
    Present,
    /// Left the group (`memberLeft`, or LINE no longer knows them there).
    Left,
}

/// What the door knows of a chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chat {
    /// Its kept standing.
    pub standing: Standing,
    /// `HEARTH_OPEN`: every chat not revoked is served.
    pub open: bool,
    /// On `HEARTH_ALLOWED_CHATS`.
    pub listed: bool,
}

/// Why the door is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// The chat waits for approval.
    Pending,
    /// The chat's approval was revoked.
    Revoked,
    /// The member left the group.
    Left,
}

impl Closed {
    /// How logs and `/metrics` name it.
    pub fn reason(self) -> &'static str {
        match self {
            Closed::Pending => "pending",
            Closed::Revoked => "revoked",
            Closed::Left => "member_left",
        }
    }
}

/// May hearth serve `chat` now: not revoked, and approved, listed or open.
pub fn chat(chat: Chat) -> Result<(), Closed> {
    match chat.standing {
        Standing::Revoked => Err(Closed::Revoked),
        Standing::Approved => Ok(()),
        Standing::Pending if chat.open || chat.listed => Ok(()),
        Standing::Pending => Err(Closed::Pending),
    }
}

/// May a member whose presence is `presence` see or change `chat` now.
pub fn member(chat: Chat, presence: Presence) -> Result<(), Closed> {
    self::chat(chat)?;
    match presence {
        Presence::Present => Ok(()),
        Presence::Left => Err(Closed::Left),
    }
}

/// May hearth push on behalf of `home` to a chat whose standing is `target` (`None`: the push
/// goes to `home` itself). What a loop would push for a chat not served is not sent; a revoked
/// target (a caregiver's own revoked 1:1 chat) gets nothing either. A target merely pending —
/// a member's 1:1 chat never paired — is reached on the home chat's behalf.
pub fn push(home: Chat, target: Option<Standing>) -> Result<(), Closed> {
    self::chat(home)?;
    match target {
        Some(Standing::Revoked) => Err(Closed::Revoked),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn kept(standing: Standing) -> Chat {
        Chat { standing, open: false, listed: false }
    }

    #[test]
    fn the_kept_standing_is_pending_unless_it_says_otherwise() {
        assert_eq!(Standing::kept(Some("approved")), Standing::Approved);
        assert_eq!(Standing::kept(Some("revoked")), Standing::Revoked);
        assert_eq!(Standing::kept(Some("pending")), Standing::Pending);
        assert_eq!(Standing::kept(None), Standing::Pending);
    }

    #[test]
    fn an_approved_chat_is_served_and_a_pending_one_only_when_listed_or_open() {
        assert_eq!(chat(kept(Standing::Approved)), Ok(()));
        assert_eq!(chat(kept(Standing::Pending)), Err(Closed::Pending));
        assert_eq!(chat(Chat { listed: true, ..kept(Standing::Pending) }), Ok(()));
        assert_eq!(chat(Chat { open: true, ..kept(Standing::Pending) }), Ok(()));
    }

    #[test]
    fn revoked_stays_revoked_whatever_the_list_or_open_say() {
        let revoked = Chat { standing: Standing::Revoked, open: true, listed: true };
        assert_eq!(chat(revoked), Err(Closed::Revoked));
        assert_eq!(member(revoked, Presence::Present), Err(Closed::Revoked));
        assert_eq!(push(revoked, None), Err(Closed::Revoked));
    }

    #[test]
    fn a_member_who_left_is_refused_in_a_chat_still_served() {
        let served = kept(Standing::Approved);
        assert_eq!(member(served, Presence::Present), Ok(()));
        assert_eq!(member(served, Presence::Left), Err(Closed::Left));
        assert_eq!(member(kept(Standing::Pending), Presence::Left), Err(Closed::Pending));
    }

    #[test]
    fn a_push_needs_its_home_served_and_a_target_not_revoked() {
        let served = kept(Standing::Approved);
        assert_eq!(push(served, None), Ok(()));
        assert_eq!(push(served, Some(Standing::Pending)), Ok(()), "a caregiver's unpaired 1:1");
        assert_eq!(push(served, Some(Standing::Approved)), Ok(()));
        assert_eq!(push(served, Some(Standing::Revoked)), Err(Closed::Revoked));
        assert_eq!(push(kept(Standing::Pending), None), Err(Closed::Pending));
    }
}
