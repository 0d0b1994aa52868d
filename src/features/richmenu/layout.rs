//! The menus as data: six buttons each, in reading order (left to right, top row first), each
//! with its label, icon, tile colour and what a tap does. Every character of a label must be
//! in the bundled menu font (`assets/fonts/`, made by `scripts/menu_font.py` from the labels
//! in this file); a test checks it.

/// What tapping a button does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Press {
    /// Sends this text as the person's own message: answered as if typed.
    Say(&'static str),
    /// A button action of [`crate::buttons`], signed for the menu: `action` with data `id`.
    Tap {
        /// The action's wire name.
        action: &'static str,
        /// Its data.
        id: &'static str,
    },
}

/// The simple shape drawn above a label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Icon {
    /// A sun: the weather.
    Sun,
    /// A clock: reminders.
    Clock,
    /// A list: the shopping list.
    List,
    /// A rising line: quotes.
    Chart,
    /// A house: the family page.
    House,
    /// A question mark: help.
    Question,
    /// A tick: a dose taken.
    Check,
    /// A handset: call the family.
    Phone,
    /// A heart: blood pressure.
    Heart,
}

/// One button.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Button {
    /// The label, large, under the icon (also the area's accessible label).
    pub label: &'static str,
    /// The icon.
    pub icon: Icon,
    /// The tile's colour (white text and icon on it).
    pub tile: (u8, u8, u8),
    /// What a tap does.
    pub press: Press,
}

impl Button {
    /// What the chat shows as the person's message after a tap on a postback button.
    pub fn display_text(&self) -> String {
        let mark = match self.icon {
            Icon::Check => "✅ ",
            Icon::Phone => "📞 ",
            Icon::Heart => "🩺 ",
            Icon::House => "🏠 ",
            _ => "",
        };
        format!("{mark}{}", self.label)
    }
}

/// A menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Menu {
    /// Its alias at LINE, and the start of its name (`[a-z0-9_-]{1,32}`).
    pub alias: &'static str,
    /// The chat bar's text that opens it (≤ 14 characters).
    pub chat_bar_text: &'static str,
    /// Shown open when first displayed.
    pub open_at_first: bool,
    /// The six buttons, row by row.
    pub buttons: [Button; 6],
}

const GREEN: (u8, u8, u8) = (0x1B, 0x5E, 0x20);
const RED: (u8, u8, u8) = (0x8E, 0x00, 0x00);
const BLUE: (u8, u8, u8) = (0x0D, 0x47, 0xA1);
const TEAL: (u8, u8, u8) = (0x00, 0x4D, 0x40);
const PURPLE: (u8, u8, u8) = (0x4A, 0x14, 0x8C);
const SLATE: (u8, u8, u8) = (0x26, 0x32, 0x38);
const BROWN: (u8, u8, u8) = (0x4E, 0x34, 0x2E);

const WEATHER: Button =
    Button {
        label: "今天天氣", icon: Icon::Sun, tile: BLUE, press: Press::Say("今天天氣")
    };
const REMINDERS: Button =
    Button {
        label: "我的提醒", icon: Icon::Clock, tile: PURPLE, press: Press::Say("我的提醒")
    };
const FAMILY_PAGE: Button = Button {
    label: "家庭網頁",
    icon: Icon::House,
    tile: BROWN,
    press: Press::Tap { action: "open_page", id: "0" },
};

/// Everyone's default menu.
pub const EVERYDAY: Menu = Menu {
    alias: "hearth-everyday",
    chat_bar_text: "選單",
    open_at_first: false,
    buttons: [
        WEATHER,
        REMINDERS,
        Button {
            label: "購物清單", icon: Icon::List, tile: TEAL, press: Press::Say("購物清單")
        },
        Button { label: "股價", icon: Icon::Chart, tile: GREEN, press: Press::Say("股價") },
        FAMILY_PAGE,
        Button { label: "說明", icon: Icon::Question, tile: SLATE, press: Press::Say("說明") },
    ],
};

/// The everyday menu in English, linked to each person whose LINE profile says English (see
/// [`super::ops::english`]): each button sends what typing it in English would.
pub const EVERYDAY_EN: Menu = Menu {
    alias: "hearth-everyday-en",
    chat_bar_text: "Menu",
    open_at_first: false,
    buttons: [
        Button {
            label: "Weather today",
            icon: Icon::Sun,
            tile: BLUE,
            press: Press::Say("Weather today"),
        },
        Button {
            label: "My reminders",
            icon: Icon::Clock,
            tile: PURPLE,
            press: Press::Say("My reminders"),
        },
        Button {
            label: "Shopping list",
            icon: Icon::List,
            tile: TEAL,
            press: Press::Say("Shopping list"),
        },
        Button { label: "Stocks", icon: Icon::Chart, tile: GREEN, press: Press::Say("Stocks") },
        Button { label: "Family page", ..FAMILY_PAGE },
        Button { label: "Help", icon: Icon::Question, tile: SLATE, press: Press::Say("Help") },
    ],
};

/// The menu of whoever a care plan asks.
pub const CARE: Menu = Menu {
    alias: "hearth-care",
    chat_bar_text: "照顧選單",
    open_at_first: true,
    buttons: [
        Button {
            label: "我吃藥了",
            icon: Icon::Check,
            tile: GREEN,
            press: Press::Tap { action: "care_menu_taken", id: "0" },
        },
        Button {
            label: "叫家人",
            icon: Icon::Phone,
            tile: RED,
            press: Press::Tap { action: "care_menu_call", id: "0" },
        },
        Button {
            label: "量血壓",
            icon: Icon::Heart,
            tile: TEAL,
            press: Press::Tap { action: "care_menu_reading", id: "0" },
        },
        WEATHER,
        REMINDERS,
        FAMILY_PAGE,
    ],
};

/// Every menu hearth installs, the default first.
pub const MENUS: [&Menu; 3] = [&EVERYDAY, &CARE, &EVERYDAY_EN];

/// True for an alias LINE accepts (`[a-z0-9_-]{1,32}`).
pub fn is_alias(alias: &str) -> bool {
    (1..=32).contains(&alias.len())
        && alias
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}
