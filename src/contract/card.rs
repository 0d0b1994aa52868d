//! What an answer is made of, shared by every layer that builds or shows one: the [`Card`] a
//! tool returns (rendered as a LINE Flex bubble by `line::flex`, as text by `hearth chat`), its
//! rows and buttons, the quick-reply [`Chip`], and the finished [`Answer`] of a turn.

use serde::Serialize;

use super::chart::ChartSpec;

/// A tone for a value on a card: semantic, coloured by the renderer (up is red in Taiwan).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    /// A price went up.
    Up,
    /// A price went down.
    Down,
    /// Something to watch out for (rain, a warning).
    Warning,
    /// Done and kept for the record (a checked-off list item): greyed and struck through.
    Muted,
}

/// A piece of text with an optional tone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Styled {
    /// The text.
    pub text: String,
    /// How to colour it.
    pub tone: Option<Tone>,
}

/// One label–value line of a card.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CardRow {
    /// The label ("最高溫").
    pub label: String,
    /// The value ("25°C").
    pub value: String,
    /// How to colour the value.
    pub tone: Option<Tone>,
    /// A small button at the end of the row (cancel this item).
    pub button: Option<CardButton>,
}

impl CardRow {
    /// A row without a tone.
    pub fn new(label: impl Into<String>, value: impl Into<String>) -> Self {
        Self { label: label.into(), value: value.into(), tone: None, button: None }
    }

    /// The same row, with a button.
    pub fn with_button(mut self, button: CardButton) -> Self {
        self.button = Some(button);
        self
    }

    /// The same row, coloured.
    pub fn toned(mut self, tone: Option<Tone>) -> Self {
        self.tone = tone;
        self
    }
}

/// A button on a card.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CardButton {
    /// Sends `text` as the user's message when tapped.
    Message {
        /// The button label.
        label: String,
        /// The message sent.
        text: String,
    },
    /// Changes state (cancel, done, snooze). The data is signed and bound to the conversation
    /// the card is sent to when the card is rendered; tools give only the action and the id.
    Postback {
        /// The button label.
        label: String,
        /// The action, a short identifier (`cancel_reminder`).
        action: String,
        /// The item acted on, a short identifier.
        id: String,
        /// What the chat shows as the user's tap ("❌ 取消").
        display_text: String,
    },
    /// Opens LINE's date-time picker; the chosen local time comes back with the tap. Signed and
    /// bound to the conversation like [`CardButton::Postback`].
    Picker {
        /// The button label.
        label: String,
        /// The action, a short identifier (`reminder_reschedule`).
        action: String,
        /// The item acted on, a short identifier.
        id: String,
        /// Where the picker opens, local `YYYY-MM-DDTHH:MM`.
        initial: String,
        /// The earliest choice, local `YYYY-MM-DDTHH:MM`.
        min: String,
        /// The latest choice, local `YYYY-MM-DDTHH:MM`.
        max: String,
    },
    /// Opens a link.
    Link {
        /// The button label.
        label: String,
        /// An http(s) URL.
        uri: String,
    },
}

/// hearth's own small card type. Rendered as a LINE Flex bubble by `line::flex`, as text by
/// `hearth chat`; tests assert on it directly. Tools never write Flex JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Card {
    /// The title ("台北 天氣").
    pub title: String,
    /// A smaller line under the title.
    pub subtitle: Option<String>,
    /// A large line (a price, a conversion result).
    pub headline: Option<Styled>,
    /// Label–value rows.
    pub rows: Vec<CardRow>,
    /// Buttons at the bottom.
    pub buttons: Vec<CardButton>,
    /// Small print (data source, time of the data).
    pub footnote: Option<String>,
    /// The chart the card would carry as its picture, when `HEARTH_PUBLIC_URL` is set.
    pub chart: Option<ChartSpec>,
    /// The picture's URL, once the chart is drawn and published (see
    /// [`crate::contract::chart::publish`]); tools leave it empty.
    pub image_url: Option<String>,
    /// Shown for someone who reads small print badly (an elder's 「吃了嗎？」): the headline
    /// larger and the buttons big and filled.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub large: bool,
}

impl Card {
    /// A card with just a title.
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            subtitle: None,
            headline: None,
            rows: Vec::new(),
            buttons: Vec::new(),
            footnote: None,
            chart: None,
            image_url: None,
            large: false,
        }
    }

    /// The card as plain text: the fallback when a card cannot be sent, and `hearth chat`'s view.
    pub fn to_text(&self) -> String {
        let mut out = format!("【{}】", self.title);
        if let Some(sub) = &self.subtitle {
            out.push_str(&format!("\n{sub}"));
        }
        if let Some(h) = &self.headline {
            out.push_str(&format!("\n{}", h.text));
        }
        for row in &self.rows {
            out.push_str(&format!("\n{}：{}", row.label, row.value));
        }
        if let Some(note) = &self.footnote {
            out.push_str(&format!("\n{note}"));
        }
        out
    }
}

/// A quick-reply chip: tapping it sends `text` as an ordinary message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Chip {
    /// What the chip shows (≤ 20 characters; longer labels are shortened when rendered).
    pub label: String,
    /// What tapping it sends.
    pub text: String,
}

impl Chip {
    /// A chip.
    pub fn new(label: impl Into<String>, text: impl Into<String>) -> Self {
        Self { label: label.into(), text: text.into() }
    }
}

/// A finished answer: text, plus the cards and chips the tools produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// What the model wrote (may be empty when cards say it all).
    pub text: String,
    /// Cards, in call order.
    pub cards: Vec<Card>,
    /// Follow-up chips, without duplicates.
    pub chips: Vec<Chip>,
    /// True when untrusted content shaped this answer (it entered the turn, or the turn's
    /// history held such an answer): logged with the answer, so later turns start tainted.
    pub tainted: bool,
}
