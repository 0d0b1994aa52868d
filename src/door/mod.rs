//! One door: who may see and change a chat is decided here, and every way in asks it — turns
//! and button taps ([`crate::turn`]), the family page's reads, forms, links and LIFF sign-in
//! ([`crate::server`]), every loop that pushes (reminders, price alerts, the digest, care
//! plans, official alerts), through the one outbox ([`crate::push::delivery`]), and the one push
//! sent at once, the family page's private link ([`crate::push::delivery::Pusher::push_now`]).
//!
//! It owns the **standing of a chat** (pending, approved, revoked; `chat_access`) and the
//! **presence of a member** in a group (present, left; `member_departures`), and answers three
//! questions with the pure rule of [`rule`]: may hearth serve this chat, may this member see or
//! change it, may hearth push on its behalf. The events that close doors close all of them at
//! once, in one transaction each: revoking a chat ends its page sessions and unused links (and
//! the door then refuses its turns, taps and pushes); a member leaving ends their sessions and
//! links in that group; hearth being removed or blocked forgets the chat — except a revocation,
//! which is kept, so revoked stays revoked until `hearth approve` or a new pairing code.
//!
//! Which chats were served lately is remembered in memory for [`REMEMBERED`] (on the clock), so
//! the webhook's fast path for group chatter needs no store read; a revocation by another
//! process takes effect within it.

mod allow_list;
pub mod rule;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use jiff::{SignedDuration, Timestamp};

pub use allow_list::AllowList;
pub use rule::{Chat, Closed, Presence, Standing};

use crate::platform::clock::Clock;
use crate::platform::conversation::Conversation;
use crate::store::{ChatAccess, GuessesOver, HeldBack, Store, StoreError};

/// How long a served chat is trusted from memory before the store is asked again.
pub const REMEMBERED: SignedDuration = SignedDuration::from_secs(30);
/// Served chats remembered at most (beyond it, the oldest are asked about again).
const REMEMBERED_MAX: usize = 10_000;

/// The door's answer: open, or closed and why; a store failure is the caller's to handle
/// (every caller treats it as closed).
pub type Verdict = Result<(), Closed>;

/// The one authority on who may see and change a chat.
pub struct Door {
    store: Store,
    clock: Arc<dyn Clock>,
    open: bool,
    allowed: AllowList,
    served: Mutex<HashMap<String, Timestamp>>,
}

impl Door {
    /// The door of `store`'s chats: `open` serves every chat not revoked (`HEARTH_OPEN`),
    /// `allowed` chats are approved when they first call hearth.
    pub fn new(store: Store, clock: Arc<dyn Clock>, open: bool, allowed: AllowList) -> Self {
        Self { store, clock, open, allowed, served: Mutex::default() }
    }

    /// The door of `store`'s chats as the settings say (`HEARTH_OPEN`, `HEARTH_ALLOWED_CHATS`).
    pub fn from_settings(
        store: Store,
        clock: Arc<dyn Clock>,
        settings: &crate::platform::config::AccessSettings,
    ) -> Self {
        Self::new(store, clock, settings.open, AllowList::new(&settings.allowed_chats))
    }

    /// True when every chat not revoked is served (`HEARTH_OPEN`).
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// True when `conversation` is on `HEARTH_ALLOWED_CHATS`.
    pub fn listed(&self, conversation: &Conversation) -> bool {
        self.allowed.lists(conversation)
    }

    /// Known to be served without asking the store: it was found served lately.
    pub fn known_served(&self, conversation: &Conversation) -> bool {
        let now = self.clock.now();
        let served = self.served.lock().unwrap_or_else(PoisonError::into_inner);
        served.get(&conversation.id).is_some_and(|at| now.duration_since(*at) < REMEMBERED)
    }

    /// Remembers that `conversation_id` is served (for [`REMEMBERED`]).
    pub fn remember_served(&self, conversation_id: &str) {
        let now = self.clock.now();
        let mut served = self.served.lock().unwrap_or_else(PoisonError::into_inner);
        if served.len() >= REMEMBERED_MAX {
            served.retain(|_, at| now.duration_since(*at) < REMEMBERED);
        }
        if served.len() < REMEMBERED_MAX {
            served.insert(conversation_id.to_string(), now);
        }
    }

    /// What the door knows of the chat `conversation_id`.
    pub async fn chat_facts(&self, conversation_id: &str) -> Result<Chat, StoreError> {
        let standing =
            Standing::kept(self.store.access().chat_standing(conversation_id).await?.as_deref());
        Ok(Chat {
            standing,
            open: self.open,
            listed: self.listed(&Conversation::from_id(conversation_id)),
        })
    }

    /// May hearth serve the chat now (its standing as kept; a pending chat that may become
    /// approved — a code, an approved member — is the turn's business).
    pub async fn chat(&self, conversation_id: &str) -> Result<Verdict, StoreError> {
        Ok(rule::chat(self.chat_facts(conversation_id).await?))
    }

    /// May `user_id` see or change the chat `conversation_id` now (the family page, its links).
    pub async fn member(
        &self,
        conversation_id: &str,
        user_id: &str,
    ) -> Result<Verdict, StoreError> {
        let chat = self.chat_facts(conversation_id).await?;
        let left = Conversation::from_id(conversation_id).is_multi_person()
            && self.store.access().member_left_at(conversation_id, user_id).await?.is_some();
        let presence = if left { Presence::Left } else { Presence::Present };
        Ok(rule::member(chat, presence))
    }

    /// May hearth push on behalf of the chat `home` to the chat `target` now (every loop, at
    /// the outbox).
    pub async fn push(&self, home: &str, target: &str) -> Result<Verdict, StoreError> {
        let chat = self.chat_facts(home).await?;
        let target = if target == home {
            None
        } else {
            Some(Standing::kept(self.store.access().chat_standing(target).await?.as_deref()))
        };
        Ok(rule::push(chat, target))
    }

    /// Members left the group `conversation_id`: their page sessions and unused links there end
    /// now, and the door refuses them until they are back.
    pub async fn members_left(
        &self,
        conversation_id: &str,
        user_ids: &[String],
    ) -> Result<u64, StoreError> {
        let now = self.clock.now().as_millisecond();
        self.store.access().members_left(conversation_id, user_ids, now).await
    }

    /// Members (re)joined the group `conversation_id`.
    pub async fn members_back(
        &self,
        conversation_id: &str,
        user_ids: &[String],
    ) -> Result<(), StoreError> {
        self.store.access().members_back(conversation_id, user_ids).await
    }

    /// A chat waiting for approval called hearth at `now_ms`: true the first time (it is told
    /// how to be approved once).
    pub async fn note_unapproved(&self, chat: &str, now_ms: i64) -> Result<bool, StoreError> {
        self.store.access().note_unapproved(chat, now_ms).await
    }

    /// Approves `chat` at `now_ms`, `by` the way it came in (`allow-list`, `member`).
    pub async fn approve(&self, chat: &str, by: &str, now_ms: i64) -> Result<(), StoreError> {
        self.store.access().approve_chat(chat, by, now_ms).await
    }

    /// Approves `chat` with the pairing code of hash `code_hash`, used once; false when no
    /// such code waits (wrong, used, or expired).
    pub async fn pair(&self, code_hash: &str, chat: &str, now_ms: i64) -> Result<bool, StoreError> {
        self.store.access().pair_chat(code_hash, chat, now_ms).await
    }

    /// Counts one pairing guess of `source` in the minute window `minute`: how many that
    /// source tried in it now.
    pub async fn count_source_guess(&self, source: &str, minute: i64) -> Result<i64, StoreError> {
        self.store.access().count_source_guess(source, minute).await
    }

    /// Counts one pairing guess in the minute window `minute`: how many there are now.
    pub async fn count_guess(&self, minute: i64) -> Result<i64, StoreError> {
        self.store.access().count_pairing_guess(minute).await
    }

    /// Every chat hearth has heard from, pending ones first, each revoked one with what it
    /// holds back (`hearth chats`).
    pub async fn chats(&self) -> Result<Vec<(ChatAccess, Option<HeldBack>)>, StoreError> {
        let mut chats = Vec::new();
        for chat in self.store.access().chat_accesses().await? {
            let held = match chat.status.as_str() {
                "revoked" => Some(self.store.access().held_back(&chat.conversation_id).await?),
                _ => None,
            };
            chats.push((chat, held));
        }
        Ok(chats)
    }

    /// Where `chat` stands (`approved`, `pending`, `revoked`); none for a chat never heard from.
    pub async fn standing(&self, chat: &str) -> Result<Option<String>, StoreError> {
        self.store.access().chat_standing(chat).await
    }

    /// Revokes `chat` at `now_ms`: its family-page sessions end (how many), what it keeps is
    /// held back until it is approved again.
    pub async fn revoke(&self, chat: &str, now_ms: i64) -> Result<u64, StoreError> {
        self.store.access().revoke_chat(chat, now_ms).await
    }

    /// Keeps a new pairing code's hash from `now_ms` until `expires_ms`.
    pub async fn add_pairing_code(
        &self,
        code_hash: &str,
        now_ms: i64,
        expires_ms: i64,
    ) -> Result<(), StoreError> {
        self.store.access().add_pairing_code(code_hash, now_ms, expires_ms).await
    }

    /// The minutes since `since` when more than `budget` pairing guesses came, service-wide
    /// (the operator's alarm: `hearth doctor`).
    pub async fn guesses_over(&self, since: i64, budget: u32) -> Result<GuessesOver, StoreError> {
        self.store.access().pairing_guesses_over(since, budget).await
    }

    /// Forgets the counts of pairing guesses of minute windows before `minute`.
    pub async fn prune_guesses(&self, minute: i64) -> Result<u64, StoreError> {
        self.store.access().prune_pairing_guesses(minute).await
    }
}
