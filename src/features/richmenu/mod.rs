//! hearth's rich menus: the panel of six large buttons under a 1:1 chat with hearth.
//!
//! - **The everyday menu**, everyone's default: 今天天氣 · 我的提醒 · 購物清單 · 股價 · 家庭網頁 ·
//!   說明. Each button sends what the person would type (a message action), so it is answered
//!   like typing it, as a reply; 家庭網頁 is the 🏠 button of cards (a signed postback).
//! - **The care menu**, linked to whoever a care plan asks (see
//!   [`crate::features::care::menu`]): ✅ 我吃藥了 · 📞 叫家人 · 🩺 量血壓 · 今天天氣 · 我的提醒 ·
//!   家庭網頁. Its state-changing buttons are signed postbacks acting for the one who taps, in
//!   her own chat only.
//!
//! - **The everyday menu in English**, linked to each person whose LINE profile says English
//!   ([`ops::english`]): Weather today · My reminders · Shopping list · Stocks · Family page · Help.
//!
//! A menu is a pure value ([`Menu`], [`layout`]): the request LINE gets and the image hearth
//! draws ([`draw`]) follow from it and the postback key alone. Its name carries a hash of the
//! request and of what the image is drawn from ([`request`]), so `hearth doctor` can tell a menu that is current from one an older
//! hearth (or another key) installed; `hearth richmenu install` puts the current ones in place
//! ([`crate::cli::richmenu`]).

pub mod draw;
pub mod layout;
pub mod ops;

use std::collections::BTreeMap;
use std::sync::Mutex;

use sha2::{Digest, Sha256};

pub use layout::{Button, Icon, Menu, Press};

use crate::line::postback::{MENU_SCOPE, PostbackKey};
use crate::line::richmenu::{Area, AreaAction, Bounds, ListedMenu, RichMenu, Size};

/// What every name of hearth's menus starts with; anything else is left alone.
pub const NAME_PREFIX: &str = "hearth-";

/// The image's width in pixels (LINE's largest).
pub const WIDTH: u32 = 2500;
/// The image's height in pixels (two rows of three).
pub const HEIGHT: u32 = 1686;
// LINE's limits on a menu's image (`MIN_ASPECT` is 1.45), checked when hearth is built.
const _: () = {
    use crate::line::richmenu::limits::{MAX_WIDTH, MIN_HEIGHT, MIN_WIDTH};
    assert!(WIDTH >= MIN_WIDTH && WIDTH <= MAX_WIDTH && HEIGHT >= MIN_HEIGHT);
    assert!(WIDTH * 100 >= HEIGHT * 145);
};

/// Columns of buttons.
const COLUMNS: u32 = 3;
/// Rows of buttons.
const ROWS: u32 = 2;

/// A menu ready to install: what LINE is sent, its image, and the alias it goes by.
#[derive(Debug, Clone)]
pub struct Built {
    /// The menu as defined.
    pub menu: &'static Menu,
    /// The request, its name carrying the content hash.
    pub request: RichMenu,
    /// The PNG.
    pub image: Vec<u8>,
}

impl Built {
    /// The name LINE keeps: the alias and the content hash (`hearth-care 3f9a…`).
    pub fn name(&self) -> &str {
        &self.request.name
    }
}

/// Where button `index` (row by row) lies in the image.
pub fn bounds(index: usize) -> Bounds {
    let index = u32::try_from(index).unwrap_or(0);
    let (column, row) = (index % COLUMNS, index / COLUMNS);
    let edge = |i: u32, n: u32, total: u32| i * total / n;
    let x = edge(column, COLUMNS, WIDTH);
    let y = edge(row, ROWS, HEIGHT);
    Bounds {
        x,
        y,
        width: edge(column + 1, COLUMNS, WIDTH) - x,
        height: edge(row + 1, ROWS, HEIGHT) - y,
    }
}

/// What tapping `button` does, its postbacks signed with `key` for any chat's menu.
fn action(button: &Button, key: &PostbackKey) -> AreaAction {
    match button.press {
        Press::Say(text) => AreaAction::Message { label: button.label.into(), text: text.into() },
        Press::Tap { action, id } => AreaAction::Postback {
            label: button.label.into(),
            data: key.sign(MENU_SCOPE, action, id),
            display_text: button.display_text(),
        },
    }
}

/// The request for `menu` without its name: what the content hash covers with the image.
fn unnamed(menu: &Menu, key: &PostbackKey) -> RichMenu {
    RichMenu {
        rich_menu_id: None,
        size: Size { width: WIDTH, height: HEIGHT },
        selected: menu.open_at_first,
        name: String::new(),
        chat_bar_text: menu.chat_bar_text.into(),
        areas: menu
            .buttons
            .iter()
            .enumerate()
            .map(|(i, b)| Area { bounds: bounds(i), action: action(b, key) })
            .collect(),
    }
}

/// The first 12 hex digits of SHA-256 over the request and what its image is drawn from: the
/// menu's definition, the drawing's version and the font (the image is a pure function of
/// them, so the doctor need not draw it to know).
fn content_hash(request: &RichMenu, menu: &Menu) -> String {
    let mut hasher = Sha256::new();
    hasher.update(serde_json::to_vec(request).unwrap_or_default());
    hasher.update(format!("{menu:?}").as_bytes());
    hasher.update(draw::VERSION.to_be_bytes());
    hasher.update(draw::FONT);
    hasher.finalize().iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// The request for `menu` (postbacks signed with `key`), named with its content hash.
pub fn request(menu: &Menu, key: &PostbackKey) -> RichMenu {
    let mut request = unnamed(menu, key);
    request.name = format!("{} {}", menu.alias, content_hash(&request, menu));
    request
}

/// The image of `menu`, drawn once per process (it depends on the menu alone).
fn image(menu: &'static Menu) -> Result<Vec<u8>, draw::DrawError> {
    static DRAWN: Mutex<BTreeMap<&'static str, Vec<u8>>> = Mutex::new(BTreeMap::new());
    if let Some(png) = DRAWN.lock().unwrap_or_else(|e| e.into_inner()).get(menu.alias) {
        return Ok(png.clone());
    }
    let png = draw::menu(menu)?;
    DRAWN.lock().unwrap_or_else(|e| e.into_inner()).insert(menu.alias, png.clone());
    Ok(png)
}

/// `menu` built: its request (postbacks signed with `key`), its image and its hashed name.
pub fn build(menu: &'static Menu, key: &PostbackKey) -> Result<Built, draw::DrawError> {
    Ok(Built { menu, request: request(menu, key), image: image(menu)? })
}

/// The ids of hearth's menus among `menus` (by name).
pub fn hearths(menus: &[ListedMenu]) -> Vec<String> {
    menus.iter().filter(|m| is_hearths(&m.name)).map(|m| m.rich_menu_id.clone()).collect()
}

/// True when `name` is one hearth gives its menus.
pub fn is_hearths(name: &str) -> bool {
    name.starts_with(NAME_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line::richmenu::limits;
    use crate::platform::config::Secret;

    fn key(secret: &str) -> PostbackKey {
        PostbackKey::new(&Secret::default(), &Secret::from(secret))
    }

    #[test]
    fn six_buttons_tile_the_whole_image_each_a_sixth_of_it() {
        let areas: Vec<Bounds> = (0..6).map(bounds).collect();
        let total: u32 = areas.iter().map(|b| b.width * b.height).sum();
        assert_eq!(total, WIDTH * HEIGHT, "no gap, no overlap");
        for b in &areas {
            assert!(b.x + b.width <= WIDTH && b.y + b.height <= HEIGHT, "{b:?}");
            assert!(b.width >= WIDTH / COLUMNS && b.height >= HEIGHT / ROWS, "{b:?} is a sixth");
        }
    }

    #[test]
    fn every_menu_is_within_line_s_limits() {
        for menu in layout::MENUS {
            let request = unnamed(menu, &key("secret"));
            assert!(request.chat_bar_text.chars().count() <= limits::MAX_CHAT_BAR);
            assert!(request.areas.len() <= 6 && request.areas.len() <= limits::MAX_AREAS);
            for area in &request.areas {
                let (label, long) = match &area.action {
                    AreaAction::Message { label, text } => (label, text),
                    AreaAction::Postback { label, data, .. } => (label, data),
                };
                assert!(label.chars().count() <= 20 && long.len() <= 300, "{area:?}");
            }
            assert!(layout::is_alias(menu.alias), "{}", menu.alias);
        }
    }

    #[test]
    fn the_name_changes_with_the_definition_or_the_key_and_nothing_else() {
        let care = &layout::CARE;
        let a = content_hash(&unnamed(care, &key("one")), care);
        assert_eq!(a, content_hash(&unnamed(care, &key("one")), care), "stable");
        assert_ne!(a, content_hash(&unnamed(care, &key("two")), care), "the key");
        let mut recoloured = layout::CARE;
        recoloured.buttons[0].tile = (0, 0, 0);
        assert_ne!(a, content_hash(&unnamed(care, &key("one")), &recoloured), "the image");
        assert_eq!(a.len(), 12);
        assert!(is_hearths(&format!("{} {a}", layout::CARE.alias)));
        assert!(!is_hearths("spring sale"));
    }
}
