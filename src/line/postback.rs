//! Buttons that change state: postback data that is signed and bound to a conversation.
//!
//! A card button carries an action and an id (`a=cancel_reminder&i=42&s=…`). The signature is an
//! HMAC over the action, the id **and the conversation the card was sent to**, with a server
//! key. The conversation is not in the data: the handler recomputes the signature with the
//! conversation of the tap event, so a card forwarded to (or tapped in) another chat, a stale
//! card from another group, or hand-made data all fail verification and change nothing.
//! What an action and its id mean is not known here: see [`crate::features::button`].
//!
//! A rich menu is the same for everyone it is shown to, so its buttons are signed for
//! [`MENU_SCOPE`] instead of a chat; such data is accepted only in a 1:1 chat (where LINE
//! shows menus), and its actions act for the person who taps, in their own chat.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::contract::Surface;
use crate::platform::config::Secret;

type HmacSha256 = Hmac<Sha256>;

/// What rich menus' buttons are signed for: never a chat id (those are `U`, `C` or `R` and 32
/// hex digits).
pub const MENU_SCOPE: &str = "richmenu";

/// LINE's limit on postback data.
pub const MAX_DATA_LEN: usize = 300;
/// Signature length in base64 characters (96 bits).
const SIG_LEN: usize = 16;

/// A verified postback: what to do, to which item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Postback {
    /// The action (`cancel_reminder`, `snooze_reminder`, …).
    pub action: String,
    /// The item it acts on (a reminder id, a memory id…).
    pub id: String,
}

/// Why postback data was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PostbackError {
    /// Not data hearth produces.
    #[error("postback data is not in hearth's format")]
    Malformed,
    /// The signature does not match this conversation: forged, altered or from another chat.
    #[error("postback signature does not match this conversation")]
    BadSignature,
}

/// Signs and verifies postback data with the server key.
#[derive(Clone)]
pub struct PostbackKey(Secret);

impl PostbackKey {
    /// The key from `HEARTH_POSTBACK_KEY`, or derived from the channel secret when not set.
    pub fn new(explicit: &Secret, channel_secret: &Secret) -> Self {
        if !explicit.is_empty() {
            return Self(explicit.clone());
        }
        let mut mac = HmacSha256::new_from_slice(channel_secret.expose().as_bytes())
            .expect("HMAC accepts any key length");
        mac.update(b"hearth postback key v1");
        Self(Secret::from(URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())))
    }

    fn tag(&self, conversation_id: &str, action: &str, id: &str) -> String {
        let mut mac = HmacSha256::new_from_slice(self.0.expose().as_bytes())
            .expect("HMAC accepts any key length");
        for part in [conversation_id, action, id] {
            mac.update(part.as_bytes());
            mac.update(&[0]);
        }
        let full = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        full[..SIG_LEN].to_string()
    }

    /// The data for a button acting on `id` with `action`, valid only in `conversation_id`.
    /// Actions and ids are short identifiers (`[A-Za-z0-9_-]`).
    pub fn sign(&self, conversation_id: &str, action: &str, id: &str) -> String {
        format!("a={action}&i={id}&s={}", self.tag(conversation_id, action, id))
    }

    /// Checks `data` from a postback event in `conversation_id`.
    pub fn verify(&self, conversation_id: &str, data: &str) -> Result<Postback, PostbackError> {
        if data.len() > MAX_DATA_LEN {
            return Err(PostbackError::Malformed);
        }
        let mut action = None;
        let mut id = None;
        let mut sig = None;
        for pair in data.split('&') {
            match pair.split_once('=') {
                Some(("a", v)) if action.is_none() && is_token(v) => action = Some(v),
                Some(("i", v)) if id.is_none() && is_token(v) => id = Some(v),
                Some(("s", v)) if sig.is_none() => sig = Some(v),
                _ => return Err(PostbackError::Malformed),
            }
        }
        let (Some(action), Some(id), Some(_)) = (action, id, sig) else {
            return Err(PostbackError::Malformed);
        };
        // Only the exact data hearth signs is accepted (same fields, same order), compared in
        // constant time.
        let expected = self.sign(conversation_id, action, id);
        let same = expected.len() == data.len()
            && expected.bytes().zip(data.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
        if !same {
            return Err(PostbackError::BadSignature);
        }
        Ok(Postback { action: action.to_string(), id: id.to_string() })
    }
}

impl PostbackKey {
    /// Checks `data` from a postback event in `conversation`: signed for it (a card's button,
    /// [`Surface::Button`]), or, in a 1:1 chat, a rich menu's button (signed for
    /// [`MENU_SCOPE`], [`Surface::Menu`]).
    pub fn verify_in(
        &self,
        conversation: &crate::platform::conversation::Conversation,
        data: &str,
    ) -> Result<(Postback, Surface), PostbackError> {
        match self.verify(&conversation.id, data) {
            Ok(postback) => Ok((postback, Surface::Button)),
            Err(refused) if conversation.is_multi_person() => Err(refused),
            Err(refused) => self
                .verify(MENU_SCOPE, data)
                .map(|postback| (postback, Surface::Menu))
                .map_err(|_| refused),
        }
    }
}

/// Signs the buttons of cards sent to one conversation.
#[derive(Clone)]
pub struct ButtonSigner {
    key: PostbackKey,
    conversation_id: String,
}

impl std::fmt::Debug for ButtonSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ButtonSigner").field("conversation_id", &self.conversation_id).finish()
    }
}

impl ButtonSigner {
    /// A signer for cards sent to `conversation_id`.
    pub fn new(key: PostbackKey, conversation_id: impl Into<String>) -> Self {
        Self { key, conversation_id: conversation_id.into() }
    }

    /// The postback data for `action` on `id`.
    pub fn data(&self, action: &str, id: &str) -> String {
        self.key.sign(&self.conversation_id, action, id)
    }
}

/// True for a short identifier (`[A-Za-z0-9_-]{1,64}`): an action name or a button's data.
pub fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn key() -> PostbackKey {
        PostbackKey::new(&Secret::default(), &Secret::from("channel-secret"))
    }

    #[test]
    fn data_signed_for_a_conversation_verifies_there() {
        let data = key().sign("Cgroup1", "cancel_reminder", "42");
        assert!(data.len() <= MAX_DATA_LEN);
        assert_eq!(
            key().verify("Cgroup1", &data),
            Ok(Postback { action: "cancel_reminder".into(), id: "42".into() })
        );
    }

    #[test]
    fn the_same_data_from_another_conversation_is_refused() {
        let data = key().sign("Cgroup1", "cancel_reminder", "42");
        assert_eq!(key().verify("Cgroup2", &data), Err(PostbackError::BadSignature));
    }

    #[test]
    fn altered_or_hand_made_data_is_refused() {
        let data = key().sign("Cgroup1", "cancel_reminder", "42");
        let altered = data.replace("i=42", "i=43");
        assert_eq!(key().verify("Cgroup1", &altered), Err(PostbackError::BadSignature));
        assert_eq!(
            key().verify("Cgroup1", "a=cancel_reminder&i=42"),
            Err(PostbackError::Malformed)
        );
        assert_eq!(key().verify("Cgroup1", "action=cancel&id=1"), Err(PostbackError::Malformed));
        assert_eq!(key().verify("Cgroup1", &format!("{data}&a=x")), Err(PostbackError::Malformed));
    }

    #[test]
    fn reordered_fields_are_not_data_hearth_signed() {
        let data = key().sign("Cgroup1", "cancel_reminder", "42");
        let sig = data.rsplit_once("&s=").map(|(_, s)| s).expect("signature");
        let reordered = format!("i=42&a=cancel_reminder&s={sig}");
        assert_eq!(key().verify("Cgroup1", &reordered), Err(PostbackError::BadSignature));
    }

    fn any_data() -> impl Strategy<Value = String> {
        let token = "[a-z_]{1,12}|[0-9]{1,4}|[A-Za-z0-9_-]{16}";
        let signed = (token, token).prop_map(|(a, i)| key().sign("Cgroup1", &a, &i));
        let field =
            prop_oneof![Just("a".into()), Just("i".into()), Just("s".into()), "[a-z=&]{0,3}"];
        let pairs = prop::collection::vec((field, token), 0..5).prop_map(|pairs| {
            pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&")
        });
        let mutated = (signed.clone(), any::<prop::sample::Index>(), any::<char>()).prop_map(
            |(data, at, c)| {
                let mut chars: Vec<char> = data.chars().collect();
                let at = at.index(chars.len());
                chars[at] = c;
                chars.into_iter().collect()
            },
        );
        prop_oneof![signed, pairs, mutated, ".{0,320}"]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn verify_accepts_only_data_it_signed(data in any_data(), other in any::<bool>()) {
            let conversation = if other { "Cgroup2" } else { "Cgroup1" };
            if let Ok(pb) = key().verify(conversation, &data) {
                prop_assert_eq!(key().sign(conversation, &pb.action, &pb.id), data);
            }
        }
    }

    #[test]
    fn a_menu_button_verifies_in_any_one_to_one_chat_and_in_no_group() {
        use crate::platform::conversation::Conversation;
        let data = key().sign(MENU_SCOPE, "care_menu_taken", "0");
        let dm = Conversation::from_id("U00000000000000000000000000000001");
        let group = Conversation::from_id("C00000000000000000000000000000001");
        assert_eq!(
            key().verify_in(&dm, &data).map(|(p, surface)| (p.action, surface)),
            Ok(("care_menu_taken".into(), Surface::Menu))
        );
        assert_eq!(key().verify_in(&group, &data), Err(PostbackError::BadSignature));
        let card = key().sign(&group.id, "cancel_reminder", "42");
        assert_eq!(key().verify_in(&group, &card).map(|(_, s)| s), Ok(Surface::Button));
        assert_eq!(key().verify_in(&dm, &card), Err(PostbackError::BadSignature));
    }

    #[test]
    fn another_server_key_does_not_verify() {
        let other =
            PostbackKey::new(&Secret::from("explicit key"), &Secret::from("channel-secret"));
        let data = key().sign("Cgroup1", "cancel_reminder", "42");
        assert_eq!(other.verify("Cgroup1", &data), Err(PostbackError::BadSignature));
    }
}
