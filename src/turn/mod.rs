//! What happens to one event: whether a group message called hearth ([`gate`]), who is served
//! and how often ([`limits`]), the event itself ([`event`]: log, agent; [`deliver`]: reply or push), the quoted
//! message of a quote-reply ([`quoted`]), stickers ([`sticker`]), photos, voice and files
//! ([`media`]), spoken answers ([`speech`]), the menu of a person's language ([`menus`]), the one welcome ([`welcome`]) and the
//! writes a turn keeps for its end ([`answers`]).

pub mod answers;
pub mod deliver;
pub mod event;
pub mod gate;
pub mod limits;
pub mod media;
pub mod menus;
pub mod native;
pub mod quoted;
pub mod speech;
pub mod sticker;
pub mod welcome;

use std::sync::Arc;

use jiff::tz::TimeZone;

use crate::features::button::ActionRegistry;
use crate::features::deps::Deps;
use crate::line::client::LineClient;
use crate::line::flex::Palette;
use crate::line::message::ReplyStyle;
use crate::line::postback::{ButtonSigner, PostbackKey};
use crate::llm::agent::Agent;
use crate::platform::clock::Clock;
use crate::platform::conversation::Conversation;
use limits::Limits;

/// Display names by (conversation, user), cached in front of the store.
pub type NameCache = moka::future::Cache<(String, String), String>;

/// The turn handler: everything handling one event uses, and nothing else (the inbox, the
/// background loops and the HTTP server live in `server`).
pub struct Turns {
    /// The LINE client.
    pub line: LineClient,
    /// The LLM agent with its tools.
    pub agent: Agent,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// The family's time zone.
    pub tz: TimeZone,
    /// Trigger keywords for groups.
    pub keywords: Vec<String>,
    /// Card colours.
    pub palette: Palette,
    /// Signs and verifies the data of state-changing buttons.
    pub postback_key: PostbackKey,
    /// What a verified button tap does ([`crate::buttons`]).
    pub actions: ActionRegistry,
    /// What the tools were built from and the button actions run with: the store, the quota and
    /// the home place among them.
    pub deps: Deps,
    /// Who may use hearth, how often, and how many tokens a day.
    pub limits: Limits,
    /// History bounds.
    pub(crate) history_messages: usize,
    pub(crate) history_chars: usize,
    /// Display names by (conversation, user), kept for an hour in front of the store.
    pub(crate) names: NameCache,
    /// Draws and serves the charts on cards; `None` without `HEARTH_PUBLIC_URL`.
    pub charts: Option<crate::contract::chart::publish::Charts>,
    /// Photos, voice messages and files: LINE's content, transcription, limits.
    pub media: crate::features::media::Media,
    /// Speaks answers; `None` without `HEARTH_TTS_MODEL` or `HEARTH_PUBLIC_URL`.
    pub speech: Option<crate::features::speech::Speech>,
    /// Links the English everyday menu to whoever's LINE profile says English.
    pub english_menu: crate::features::richmenu::ops::english::EnglishMenu,
}

impl Turns {
    /// What the system prompt says about this deployment: the tools offered now, the home.
    pub fn prompt_setting(&self) -> crate::llm::prompt::Setting {
        crate::llm::prompt::Setting {
            search: self.agent.registry().offers(crate::llm::prompt::SEARCH_TOOL),
            home: self.deps.home.clone(),
        }
    }

    /// How answers look in `conversation`: colours, chip prefix in groups, signed buttons.
    pub fn reply_style(&self, conversation: &Conversation) -> ReplyStyle {
        ReplyStyle {
            palette: self.palette,
            chip_prefix: if conversation.is_multi_person() {
                self.keywords.first().cloned()
            } else {
                None
            },
            signer: Some(ButtonSigner::new(self.postback_key.clone(), &conversation.id)),
        }
    }
}
