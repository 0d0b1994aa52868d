//! Strangers are not served by default. Anyone can find a LINE Official Account and add it, so a
//! new chat is *pending* until approved: by `hearth approve ID`, by a one-time pairing code from
//! `hearth pair` sent in it, by `HEARTH_ALLOWED_CHATS`, or — for a group — by a member whose own
//! 1:1 chat is approved speaking in it (LINE does not say who invited the bot; the one who did
//! is there). A pending chat is told once how to get approved; nothing it sends is downloaded,
//! parsed, logged or sent to a model. `HEARTH_OPEN=true` serves everyone.
//!
//! Whether a chat is served is the door's question ([`crate::door`]); this is how a chat becomes
//! approved, as pure decisions: the pairing code a message may carry and the code's form
//! (Crockford's base32, 40 bits with a digit and a letter, ten minutes, used once), and what a
//! waiting chat is told.

use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::platform::conversation::Conversation;

/// How long a pairing code works.
pub const PAIRING_VALID: Duration = Duration::from_secs(10 * 60);
/// The pairing code's symbols: Crockford's base32 (no I, L, O or U).
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/// Symbols in a pairing code (5 bits each).
const CODE_LEN: usize = 8;

/// A new pairing code from 40 random bits, shown as `XXXX-XXXX`, with at least one digit and
/// one letter (so a word or a number a family types is never taken for one).
pub fn new_pairing_code() -> String {
    loop {
        // The low 40 bits of a version-4 UUID are random (its fixed bits are higher up).
        let bits = uuid::Uuid::new_v4().as_u128();
        let symbols: String =
            (0..CODE_LEN).map(|i| ALPHABET[((bits >> (5 * i)) & 31) as usize] as char).collect();
        if mixed(&symbols) {
            return format!("{}-{}", &symbols[..4], &symbols[4..]);
        }
    }
}

/// True when `code` has a digit and a letter.
fn mixed(code: &str) -> bool {
    code.chars().any(|c| c.is_ascii_digit()) && code.chars().any(|c| c.is_ascii_alphabetic())
}

/// The pairing code `text` is, normalised (upper case, without separators; O read as 0 and I
/// or L as 1, as Crockford's base32 does), when it is one and nothing else.
pub fn pairing_code_in(text: &str) -> Option<String> {
    let mut code = String::with_capacity(CODE_LEN);
    for c in text.trim().chars() {
        let c = match c.to_ascii_uppercase() {
            '-' | ' ' | '\u{3000}' => continue,
            'O' => '0',
            'I' | 'L' => '1',
            c => c,
        };
        if !ALPHABET.contains(&u8::try_from(c).ok()?) || code.len() == CODE_LEN {
            return None;
        }
        code.push(c);
    }
    (code.len() == CODE_LEN && mixed(&code)).then_some(code)
}

/// What the store keeps of a normalised code: its SHA-256, in hex.
pub fn code_hash(code: &str) -> String {
    Sha256::digest(code.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// What a pending chat is told, once: how to get approved, with its id for the command.
pub fn pending_notice(conversation: &Conversation) -> String {
    let id = &conversation.id;
    if conversation.is_multi_person() {
        format!(
            "大家好，我是家庭小幫手 hearth 👋 這個群組還沒開通。已開通的家人在群組裡 @我 說句話，或 @我 傳送 `hearth pair` 產生的配對碼，就可以開始使用；管理者也可以執行 hearth approve {id}。\nThis group isn't set up yet: a family member already using hearth can @mention me here, or @mention me with a pairing code from `hearth pair` (or run hearth approve {id})."
        )
    } else {
        format!(
            "你好，我是家庭小幫手 hearth 👋 這個聊天室還沒開通。請傳送 `hearth pair` 產生的配對碼，或請管理 hearth 的家人執行 hearth approve {id}。\nThis chat isn't set up yet: send a pairing code from `hearth pair`, or ask whoever runs hearth to run hearth approve {id}."
        )
    }
}

/// A chat id as typed to `hearth approve` / `revoke`: a LINE user, group or room id.
pub fn chat_id(typed: &str) -> Result<String, BadChatId> {
    let id = typed.trim();
    let well_formed = id.len() == 33
        && matches!(id.as_bytes()[0], b'U' | b'C' | b'R')
        && id[1..].bytes().all(|b| b.is_ascii_hexdigit());
    if well_formed { Ok(id.to_string()) } else { Err(BadChatId(id.to_string())) }
}

/// Not a LINE chat id.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not a LINE chat id (U…, C… or R… and 32 hexadecimal digits): see `hearth chats`")]
pub struct BadChatId(String);

/// `hearth chats`: one line a chat, pending ones first; under a revoked chat, what it keeps that
/// the loops would push and how many pushes were withheld from it.
pub fn render_chats(
    chats: &[(crate::store::ChatAccess, Option<crate::store::HeldBack>)],
) -> String {
    if chats.is_empty() {
        return "no chat has talked to hearth yet\n".into();
    }
    let mut out = String::new();
    for (chat, held) in chats {
        let kind = if Conversation::from_id(&chat.conversation_id).is_multi_person() {
            "group"
        } else {
            "1:1"
        };
        let by = chat.decided_by.as_deref().map(|by| format!(" (by {by})")).unwrap_or_default();
        out.push_str(&format!("{:<9} {:<6} {}{by}\n", chat.status, kind, chat.conversation_id));
        if let Some(held) = held {
            out.push_str(&format!("          held back: {}\n", held_back(held)));
        }
    }
    out
}

/// What a revoked chat keeps and was not pushed, in a few words.
fn held_back(held: &crate::store::HeldBack) -> String {
    let counted = |n: i64, one: &str, many: &str| match n {
        0 => None,
        1 => Some(format!("1 {one}")),
        n => Some(format!("{n} {many}")),
    };
    let parts: Vec<String> = [
        counted(held.reminders, "reminder", "reminders"),
        counted(held.alerts, "price alert", "price alerts"),
        counted(held.care_plans, "care plan", "care plans"),
        counted(held.digests, "daily digest", "daily digests"),
        counted(held.withheld, "push not sent", "pushes not sent"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if parts.is_empty() { "nothing".into() } else { parts.join(", ") }
}

/// What a chat is told when a pairing code approved it.
pub const PAIRED: &str =
    "配對成功 ✅ 從現在起我會在這裡幫忙，有事叫我就好！\nPaired ✅ I'm here to help from now on.";

/// What a chat is told when what it sent looks like a pairing code that does not work.
pub const CODE_REFUSED: &str = "這個配對碼不對或已經過期了，請重新執行 hearth pair 取得新的 🙏\nThat pairing code is wrong or has expired: run hearth pair for a new one 🙏";

/// What a chat is told when it sent a pairing code while too many were tried (by it, or by
/// everyone this minute): the code was not checked, right or wrong ([`super::pairing`]).
pub const PAIRING_WAIT: &str = "剛剛試了太多次配對碼，這次沒有檢查 🙏 請等一分鐘後再傳一次。\nToo many pairing codes were tried just now, so this one wasn't checked 🙏 Please wait a minute and send it again.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revoked_chat_lists_what_it_keeps_and_what_was_not_pushed() {
        let chat = |id: &str, status: &str| crate::store::ChatAccess {
            conversation_id: id.into(),
            status: status.into(),
            first_seen_at: 0,
            decided_at: Some(1),
            decided_by: Some("cli".into()),
        };
        let held = crate::store::HeldBack {
            reminders: 2,
            alerts: 1,
            care_plans: 0,
            digests: 1,
            withheld: 3,
        };
        let out = render_chats(&[
            (chat("Cfamily", "revoked"), Some(held)),
            (chat("Umom", "approved"), None),
        ]);
        assert!(
            out.contains(
                "held back: 2 reminders, 1 price alert, 1 daily digest, 3 pushes not sent"
            )
        );
        assert_eq!(out.lines().count(), 3, "{out}");
    }

    #[test]
    fn a_new_code_reads_back_as_itself_and_codes_differ() {
        let code = new_pairing_code();
        assert_eq!(code.len(), 9, "{code}");
        assert_eq!(pairing_code_in(&code), Some(code.replace('-', "")));
        assert_ne!(new_pairing_code(), new_pairing_code());
    }

    #[test]
    fn a_code_is_read_the_way_a_person_types_it() {
        assert_eq!(pairing_code_in(" k7qx-3m9p "), Some("K7QX3M9P".into()));
        assert_eq!(pairing_code_in("K7QX 3M9P"), Some("K7QX3M9P".into()));
        assert_eq!(pairing_code_in("k7qo-3mlp"), Some("K7Q03M1P".into()), "O is 0, L is 1");
        assert_eq!(pairing_code_in("K7QX-3M9"), None, "too short");
        assert_eq!(pairing_code_in("K7QX-3M9PP"), None, "too long");
        assert_eq!(pairing_code_in("今天天氣如何"), None);
        assert_eq!(pairing_code_in("K7QX-3M9U"), None, "U is not a symbol");
        assert_eq!(pairing_code_in("hahahaha"), None, "a word is not a code");
        assert_eq!(pairing_code_in("12345678"), None, "nor is a number");
    }

    #[test]
    fn the_store_keeps_a_hash_not_the_code() {
        let hash = code_hash("K7QX3M9P");
        assert_eq!(hash.len(), 64);
        assert!(!hash.contains("K7QX3M9P"));
        assert_eq!(hash, code_hash("K7QX3M9P"));
    }
}
