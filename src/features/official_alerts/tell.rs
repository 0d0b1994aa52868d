//! Whether a chat is told of an alert, and as what — a pure function of the alert's type, what
//! it now says for the chat's place, and what the chat was told before in the same thread of
//! alerts (an alert and the updates and cancellations that reference it).

use crate::sources::cap::MsgType;

use super::reading::Statement;

/// What a chat is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tell {
    /// Nothing.
    Skip,
    /// A new alert.
    New,
    /// An update of one it was told.
    Updated,
    /// One it was told was cancelled.
    Cancelled,
    /// One it was told no longer covers its place.
    NoLonger,
}

impl Tell {
    /// The stored name of what was told.
    pub fn name(self) -> &'static str {
        match self {
            Tell::Skip => "skip",
            Tell::New => "new",
            Tell::Updated => "updated",
            Tell::Cancelled => "cancelled",
            Tell::NoLonger => "no_longer",
        }
    }
}

/// What the chat was told before.
#[derive(Debug, Clone, Copy, Default)]
pub struct Told<'a> {
    /// The key of the last statement told in this thread, if any (empty when what was told was
    /// lifted).
    pub in_thread: Option<&'a str>,
    /// The same sentence was told lately from another thread (an announcement repeated as a
    /// new alert).
    pub same_lately: bool,
}

/// What a chat is told of an alert of `msg_type` that says `now` for its place (`None`: nothing
/// for it), `expired` when it no longer holds.
pub fn decide(msg_type: MsgType, expired: bool, now: Option<&Statement>, told: Told<'_>) -> Tell {
    match (msg_type, now, told.in_thread) {
        (MsgType::Other, _, _) => Tell::Skip,
        // A cancellation is told whatever its expiry says.
        (MsgType::Cancel, _, Some(before)) if !before.is_empty() => Tell::Cancelled,
        (MsgType::Cancel, _, _) => Tell::Skip,
        _ if expired => Tell::Skip,
        (_, None, Some("")) => Tell::Skip,
        (_, Some(s), Some(before)) if s.key == before => Tell::Skip,
        (_, Some(_), Some(_)) => Tell::Updated,
        (_, Some(s), None) if s.notable && !told.same_lately => Tell::New,
        (_, Some(_), None) => Tell::Skip,
        (_, None, Some(_)) => Tell::NoLonger,
        (_, None, None) => Tell::Skip,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn says(text: &str, notable: bool) -> Statement {
        Statement { text: text.into(), notable, key: text.into() }
    }

    #[test]
    fn a_new_notable_alert_is_told_once_and_its_repeat_is_not() {
        let s = says("臺北市明天停止上班、停止上課", true);
        assert_eq!(decide(MsgType::Alert, false, Some(&s), Told::default()), Tell::New);
        let told = Told { in_thread: Some(s.key.as_str()), same_lately: false };
        assert_eq!(
            decide(MsgType::Update, false, Some(&s), told),
            Tell::Skip,
            "update saying the same"
        );
        let lately = Told { in_thread: None, same_lately: true };
        assert_eq!(decide(MsgType::Alert, false, Some(&s), lately), Tell::Skip, "re-announced");
    }

    #[test]
    fn an_update_that_changes_what_was_told_is_told_as_an_update() {
        let before = "臺北市明天照常上班、照常上課";
        let told = Told { in_thread: Some(before), same_lately: false };
        let now = says("臺北市明天停止上班、停止上課", true);
        assert_eq!(decide(MsgType::Update, false, Some(&now), told), Tell::Updated);
        let calm = says("臺北市明天照常上班、照常上課", false);
        let told = Told {
            in_thread: Some("臺北市明天停止上班、停止上課"), same_lately: false
        };
        assert_eq!(
            decide(MsgType::Update, false, Some(&calm), told),
            Tell::Updated,
            "back to work"
        );
        assert_eq!(decide(MsgType::Update, false, None, told), Tell::NoLonger);
    }

    #[test]
    fn a_cancel_is_told_only_to_chats_told_of_the_alert_and_expired_or_quiet_news_not_at_all() {
        let told = Told { in_thread: Some("陸上颱風警報：臺北市"), same_lately: false };
        assert_eq!(decide(MsgType::Cancel, false, None, told), Tell::Cancelled);
        assert_eq!(decide(MsgType::Cancel, false, None, Told::default()), Tell::Skip);
        let lifted = Told { in_thread: Some(""), same_lately: false };
        assert_eq!(decide(MsgType::Cancel, false, None, lifted), Tell::Skip, "told once");
        assert_eq!(decide(MsgType::Update, false, None, lifted), Tell::Skip, "lifted already");
        let s = says("陸上颱風警報：臺北市", true);
        assert_eq!(decide(MsgType::Alert, true, Some(&s), Told::default()), Tell::Skip, "expired");
        let calm = says("臺中市10/4照常上班、照常上課", false);
        assert_eq!(decide(MsgType::Alert, false, Some(&calm), Told::default()), Tell::Skip);
        assert_eq!(decide(MsgType::Other, false, Some(&s), Told::default()), Tell::Skip);
    }
}
