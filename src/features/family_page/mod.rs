//! The way into the family page (served by [`crate::server::family`]): the 「🏠 在網頁上打開」
//! button on every card that shows kept things. A tap mints a link for **that member in that
//! chat** — a random token, kept only as its SHA-256, valid [`LINK_TTL`] and once — and gives it
//! to that member alone ([`link_route`]): in a 1:1 chat as the answer; in a group pushed to
//! their 1:1 chat with hearth (the group is told it was), or, when they have not added hearth
//! as a friend, not at all (they are asked to); a LIFF link, which only they can open, is
//! answered in the group. Opening it starts a session of [`SESSION_TTL`] that only ever shows
//! that chat.
//! 「登出網頁」 ends the member's sessions of the chat; forgetting the chat (or hearth leaving it)
//! ends them all, since both tables carry its `conversation_id`. With a LIFF app
//! (`HEARTH_LIFF_ID`) the link opens it inside LINE, and the page also checks LINE's ID token of
//! whoever opens it ([`crate::server::family`]).

pub mod ops;

pub use ops::Sessions;

use jiff::SignedDuration;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::contract::{Answer, Card, CardButton, ToolCtx};
use crate::features::button::{Action, text};
use crate::features::deps::Deps;
use crate::line::flex::Palette;
use crate::line::message::Message;
use crate::platform::config::PriceColors;
use crate::platform::i18n::{Failure, Lang};
use crate::push::delivery::PushNowError;
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

/// Where the 🏠 answer goes, so that nobody but the member who tapped holds a link that acts
/// in their name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkRoute {
    /// Answered where it was tapped: in a 1:1 chat, or a LIFF link in a group (it opens only
    /// with LINE's ID token of the member it was minted for).
    Here,
    /// Pushed to the member's 1:1 chat with hearth (one message); the group is told it was.
    Private,
    /// No link: the member is asked to add hearth as a friend first (a plain link in a group
    /// would act in their name for whoever opened it first).
    AddFriendFirst,
}

/// Where the 🏠 answer goes for a tap in a group or room (`multi_person`) or not, with a LIFF app
/// or not, by a member who has hearth as a friend or not.
pub fn link_route(multi_person: bool, liff: bool, friend: bool) -> LinkRoute {
    match (multi_person, liff, friend) {
        (false, _, _) | (true, true, _) => LinkRoute::Here,
        (true, false, true) => LinkRoute::Private,
        (true, false, false) => LinkRoute::AddFriendFirst,
    }
}

/// The answer's card: what the page is, how the link works and who has it.
fn link_card(lang: Lang, url: String, route: LinkRoute, liff: bool) -> Card {
    let mut card = Card::new(lang.pick("🏠 家庭網頁", "🏠 The family page"));
    let (zh, en) = match (route, liff) {
        (LinkRoute::Private, _) => (
            "群組的清單、提醒、價格通知、記憶與設定。這個連結只私訊給你、會用你的名字操作，請不要轉傳：10 分鐘內有效、只能開一次；打開後 30 天內不用再登入。",
            "The group's lists, reminders, price alerts, memories and settings. This link was sent to you alone and acts in your name, so do not forward it: it works once, within 10 minutes; then the page stays open for 30 days.",
        ),
        (_, true) => (
            "這個聊天室的清單、提醒、價格通知、記憶與設定。連結只有你能打開（LINE 會確認是你），10 分鐘內有效、只能開一次；打開後 30 天內不用再登入。",
            "This chat's lists, reminders, price alerts, memories and settings. Only you can open the link (LINE checks it is you); it works once, within 10 minutes; then the page stays open for 30 days.",
        ),
        (_, false) => (
            "這個聊天室的清單、提醒、價格通知、記憶與設定。連結 10 分鐘內有效、只能開一次；打開後 30 天內不用再登入。",
            "This chat's lists, reminders, price alerts, memories and settings. The link works once, within 10 minutes; then the page stays open for 30 days.",
        ),
    };
    card.subtitle = Some(lang.pick(zh, en).to_string());
    card.buttons.push(CardButton::Link {
        label: lang.pick("打開家庭網頁", "Open the page").into(),
        uri: url,
    });
    card
}

/// The 「登出網頁」 button (it ends the tapper's sessions of the chat it is tapped in).
fn sign_out_button(lang: Lang) -> CardButton {
    EndPageSessions { all: 0 }.button(
        lang.pick("登出網頁", "Sign out of the page"),
        lang.pick("登出網頁", "Sign out of the page"),
    )
}

/// What the group is told when the link went to the member privately: a note without the link,
/// and the sign-out button (signed for the group, so it ends their sessions of the group).
fn sent_privately(lang: Lang, name: Option<&str>) -> Answer {
    let mut card = Card::new(lang.pick("🏠 家庭網頁", "🏠 The family page"));
    card.subtitle = Some(match (lang, name) {
        (Lang::ZhTw, Some(name)) => format!("已把連結私訊給 {name}，只有你收到（10 分鐘內有效）。其他人想打開，請自己按 🏠。"),
        (Lang::ZhTw, None) => "已把連結私訊給你，只有你收到（10 分鐘內有效）。其他人想打開，請自己按 🏠。".to_string(),
        (Lang::En, Some(name)) => format!("The link was sent to {name} privately (it works within 10 minutes). Anyone else: tap 🏠 for your own."),
        (Lang::En, None) => "The link was sent to you privately (it works within 10 minutes). Anyone else: tap 🏠 for your own.".to_string(),
    });
    card.buttons.push(sign_out_button(lang));
    Answer { cards: vec![card], ..Answer::default() }
}

impl Action for OpenPage {
    const NAME: &'static str = "open_page";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        let lang = ctx.lang;
        let Some(base) = deps.public_url.as_deref() else {
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
        let multi = ctx.conversation.is_multi_person();
        let liff = deps.liff_id.is_some();
        // Only asked when it matters: a plain link tapped for in a group.
        let friend = multi && !liff && deps.quota.is_friend(&user_id).await;
        let route = link_route(multi, liff, friend);
        if route == LinkRoute::AddFriendFirst {
            return text(lang.pick(
                "為了安全，群組裡的家庭網頁連結只私訊給按的人。請先把我加為好友（點我的頭像 →「加入好友」），再按一次 🏠。",
                "To keep it safe, the page's link for a group is sent only to whoever tapped, privately. Add me as a friend (tap my picture, then Add friend) and tap 🏠 again.",
            ));
        }
        let member = WebMember { conversation_id: ctx.conversation.id.clone(), user_id, lang };
        let token = new_token();
        let door = if liff { LinkDoor::Liff } else { LinkDoor::Plain };
        let now = ctx.now();
        let expires = now.saturating_add(LINK_TTL).unwrap_or(now);
        let minted = Sessions::from_deps(deps)
            .mint_link(
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
        let url = match &deps.liff_id {
            Some(liff) => format!("https://liff.line.me/{liff}?t={token}"),
            None => format!("{}{OPEN_PATH}?t={token}", base.trim_end_matches('/')),
        };
        let mut card = link_card(lang, url, route, liff);
        if route == LinkRoute::Here {
            card.buttons.push(sign_out_button(lang));
            return Answer { cards: vec![card], ..Answer::default() };
        }
        // One message to the member's 1:1 chat: the card with its link alone (a postback button
        // would be signed for that chat, not this one). The card has no tones: any palette.
        let alt = lang.pick("🏠 家庭網頁的連結", "🏠 Your link to the family page");
        let message = Message::card(&card, alt, Palette::new(PriceColors::Tw), None);
        let pushed = deps
            .pusher
            .push_now(&ctx.conversation.id, &member.user_id, &[message], uuid::Uuid::new_v4())
            .await;
        match pushed {
            Ok(()) => sent_privately(lang, ctx.display_name.as_deref()),
            Err(PushNowError::Closed(closed)) => {
                tracing::info!(reason = closed.reason(), "the family page's link was not pushed: the door is closed");
                text(lang.pick(
                    "我們的私訊聊天室目前停用中，沒辦法私訊連結給你；為了安全，連結不會貼在群組裡。請問問幫家裡設定 hearth 的人。",
                    "Our 1:1 chat is switched off, so I can't send you the link privately (and it is never posted in the group). Ask whoever set hearth up for the family.",
                ))
            }
            Err(PushNowError::QuotaOut) => text(lang.pick(
                "這個月的 LINE 訊息額度用完了，沒辦法私訊連結給你；為了安全，連結不會貼在群組裡。下個月再按一次 🏠。",
                "This month's LINE messages are used up, so I can't send you the link privately (and it is never posted in the group). Tap 🏠 again next month.",
            )),
            Err(e @ (PushNowError::Line(_) | PushNowError::Store(_))) => {
                tracing::warn!(error = %e, "the family page's link was not pushed");
                text(lang.pick(
                    "連結沒有私訊成功，請稍後再按一次 🏠。",
                    "I couldn't send you the link privately; please tap 🏠 again in a moment.",
                ))
            }
        }
    }
}

impl Action for EndPageSessions {
    const NAME: &'static str = "end_page_sessions";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        let lang = ctx.lang;
        let Some(user_id) = ctx.user_id.as_deref() else {
            return text(lang.pick("我看不出是誰按的 🙏", "I can't tell who tapped 🙏"));
        };
        match Sessions::from_deps(deps).end_all(ctx, user_id).await {
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
    fn a_link_reaches_only_the_member_who_tapped() {
        // A 1:1 chat is theirs alone: answered there, LIFF or not, friend or not.
        for (liff, friend) in [(false, false), (false, true), (true, false), (true, true)] {
            assert_eq!(link_route(false, liff, friend), LinkRoute::Here);
        }
        // In a group a plain link goes to the member privately, or nowhere.
        assert_eq!(link_route(true, false, true), LinkRoute::Private);
        assert_eq!(link_route(true, false, false), LinkRoute::AddFriendFirst);
        // A LIFF link opens only with their own ID token: it may stay in the group (free).
        assert_eq!(link_route(true, true, false), LinkRoute::Here);
        assert_eq!(link_route(true, true, true), LinkRoute::Here);
    }

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
