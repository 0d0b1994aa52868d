//! The way into the family page (served by [`crate::server::family`]): the 「🏠 在網頁上打開」
//! button on every card that shows kept things. A tap mints a link for **that member in that
//! chat** — a random token, kept only as its SHA-256, valid [`LINK_TTL`] and once — and answers
//! with it; opening it starts a session of [`SESSION_TTL`] that only ever shows that chat.
//! 「登出網頁」 ends the member's sessions of the chat; forgetting the chat (or hearth leaving it)
//! ends them all, since both tables carry its `conversation_id`. With a LIFF app
//! (`HEARTH_LIFF_ID`) the link opens it inside LINE, and the page also checks LINE's ID token of
//! whoever opens it ([`crate::server::family`]).

use jiff::SignedDuration;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::contract::{Answer, Card, CardButton, ToolCtx};
use crate::features::button::{Action, ActionServices, text};
use crate::platform::i18n::{Failure, Lang};
use crate::store::{LinkDoor, WebMember};

/// How long a minted link may be opened.
pub const LINK_TTL: SignedDuration = SignedDuration::from_mins(10);
/// How long a session lasts.
pub const SESSION_TTL: SignedDuration = SignedDuration::from_hours(30 * 24);
/// The path links open.
pub const OPEN_PATH: &str = "/family/open";

/// A fresh random token (244 random bits, hex).
pub fn new_token() -> String {
    format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

/// What the store keeps of a token: its SHA-256, hex.
pub fn token_hash(token: &str) -> String {
    Sha256::digest(token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// 🏠: the button that opens the family page (on the list, reminder, alert, memory, digest and
/// quota cards).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct OpenPage {
    /// Unused (a button carries an id); 0.
    pub page: u8,
}

/// 「登出網頁」: ends the tapping member's sessions of the chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EndPageSessions {
    /// Unused; 0.
    pub all: u8,
}

/// The 🏠 button for a card.
pub fn open_button(lang: Lang) -> CardButton {
    OpenPage { page: 0 }.button(
        lang.pick("🏠 在網頁上打開", "🏠 Open the page"),
        lang.pick("🏠 在網頁上打開", "🏠 Open the page"),
    )
}

/// `card` with the 🏠 button at its end.
pub fn with_open_button(mut card: Card, lang: Lang) -> Card {
    card.buttons.push(open_button(lang));
    card
}

/// Takes the 🏠 buttons off `cards` (a server without `HEARTH_PUBLIC_URL` has no page).
pub fn without_open_buttons(cards: &mut [Card]) {
    for card in cards {
        card.buttons.retain(
            |b| !matches!(b, CardButton::Postback { action, .. } if action == OpenPage::NAME),
        );
    }
}

impl Action for OpenPage {
    const NAME: &'static str = "open_page";

    async fn run(self, services: &ActionServices, ctx: &ToolCtx) -> Answer {
        let lang = ctx.lang;
        let Some(base) = services.public_url.as_deref() else {
            return text(lang.pick(
                "家庭網頁還沒有開放（需要設定 HEARTH_PUBLIC_URL）。",
                "The family page is not set up (HEARTH_PUBLIC_URL is not set).",
            ));
        };
        let Some(user_id) = ctx.user_id.clone() else {
            return text(lang.pick(
                "我看不出是誰按的，沒辦法給你專屬連結 🙏",
                "I can't tell who tapped, so I can't make you a link 🙏",
            ));
        };
        let member = WebMember { conversation_id: ctx.conversation.id.clone(), user_id, lang };
        let token = new_token();
        let door = if services.liff_id.is_some() { LinkDoor::Liff } else { LinkDoor::Plain };
        let now = ctx.now();
        let expires = now.saturating_add(LINK_TTL).unwrap_or(now);
        let minted = services
            .store
            .mint_web_link(
                &token_hash(&token),
                &member,
                door,
                now.as_millisecond(),
                expires.as_millisecond(),
            )
            .await;
        if let Err(e) = minted {
            tracing::error!(error = %e, "could not mint a family page link");
            return text(Failure::Internal.message(lang));
        }
        // Through the LIFF app when there is one (inside LINE, LINE's ID token is checked).
        let url = match &services.liff_id {
            Some(liff) => format!("https://liff.line.me/{liff}?t={token}"),
            None => format!("{}{OPEN_PATH}?t={token}", base.trim_end_matches('/')),
        };
        let mut card = Card::new(lang.pick("🏠 家庭網頁", "🏠 The family page"));
        card.subtitle = Some(
            lang.pick(
                "這個聊天室的清單、提醒、價格通知、記憶與設定。連結 10 分鐘內有效、只能開一次；打開後 30 天內不用再登入。",
                "This chat's lists, reminders, price alerts, memories and settings. The link works once, within 10 minutes; then the page stays open for 30 days.",
            )
            .to_string(),
        );
        card.buttons.push(CardButton::Link {
            label: lang.pick("打開家庭網頁", "Open the page").into(),
            uri: url,
        });
        card.buttons.push(EndPageSessions { all: 0 }.button(
            lang.pick("登出網頁", "Sign out of the page"),
            lang.pick("登出網頁", "Sign out of the page"),
        ));
        Answer { cards: vec![card], ..Answer::default() }
    }
}

impl Action for EndPageSessions {
    const NAME: &'static str = "end_page_sessions";

    async fn run(self, services: &ActionServices, ctx: &ToolCtx) -> Answer {
        let lang = ctx.lang;
        let Some(user_id) = ctx.user_id.as_deref() else {
            return text(lang.pick("我看不出是誰按的 🙏", "I can't tell who tapped 🙏"));
        };
        match services.store.end_web_sessions(&ctx.conversation.id, user_id).await {
            Ok(0) => text(
                lang.pick("你在這個聊天室沒有開著的網頁。", "You had no page open for this chat."),
            ),
            Ok(n) => text(&match lang {
                Lang::ZhTw => format!("好，已登出 {n} 個網頁。"),
                Lang::En => {
                    format!("Done: signed out of {n} page{}.", if n == 1 { "" } else { "s" })
                }
            }),
            Err(e) => {
                tracing::error!(error = %e, "could not end family page sessions");
                text(Failure::Internal.message(lang))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_kept_only_as_their_hash() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        let hash = token_hash(&a);
        assert_eq!(hash.len(), 64);
        assert_ne!(hash, a);
        assert_eq!(hash, token_hash(&a));
    }
}
