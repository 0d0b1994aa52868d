//! The English everyday menu, linked per person. Everyone sees the default everyday menu (in
//! zh-TW); someone whose LINE profile says English (`en`, `en-GB`…) is linked to the English
//! one as soon as hearth learns their profile — at their first message in their 1:1 chat (a
//! follow alone asks LINE nothing) — and unlinked if their profile later says otherwise. The care menu comes first:
//! someone a care plan asks keeps the care menu, and gets the English menu back when no plan
//! asks her any more ([`crate::features::richmenu::ops::care_links`]). A link is recorded only once
//! LINE accepted it; without an installed English menu nobody is linked, and `hearth richmenu
//! install` links every English speaker to the new one.

use crate::features::richmenu::layout::EVERYDAY_EN;
use crate::line::client::{LineClient, LineError};
use crate::store::{Store, StoreError};

/// True for a BCP 47 tag of English (`en`, `en-US`; any case).
pub fn is_english(language: &str) -> bool {
    let language = language.to_ascii_lowercase();
    language == "en" || language.starts_with("en-")
}

/// What to do with one person's English menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// Link it.
    Link,
    /// Take it away.
    Unlink,
    /// Nothing to do.
    Stay,
}

/// The move for someone whose profile says `language`, who has the English menu (`linked`) or
/// not, and whom a care plan asks (`cared`: the care menu is theirs, and the care links move
/// it).
pub fn decide(language: &str, linked: bool, cared: bool) -> Move {
    match (cared, is_english(language), linked) {
        (true, _, _) => Move::Stay,
        (false, true, false) => Move::Link,
        (false, false, true) => Move::Unlink,
        _ => Move::Stay,
    }
}

/// Why a link was not made.
#[derive(Debug, thiserror::Error)]
pub enum EnglishMenuError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// LINE refused or did not answer.
    #[error("LINE: {0}")]
    Line(#[source] LineError),
}

/// Links and unlinks the English everyday menu.
#[derive(Clone)]
pub struct EnglishMenu {
    line: LineClient,
    store: Store,
}

impl EnglishMenu {
    /// Links through `line`, keeping who is linked in `store`.
    pub fn new(line: LineClient, store: Store) -> Self {
        Self { line, store }
    }

    /// Records that `user_id`'s LINE profile says `language` (at `now_ms`) and links or unlinks
    /// the English menu to match; what was done.
    pub async fn learned(
        &self,
        user_id: &str,
        language: &str,
        now_ms: i64,
    ) -> Result<Move, EnglishMenuError> {
        self.store.menus().learn_language(user_id, language, now_ms).await?;
        let linked =
            self.store.menus().english_menu_links().await?.iter().any(|(u, _)| u == user_id);
        let cared = self.store.menus().care_menu_wanted().await?.iter().any(|u| u == user_id)
            || self.store.menus().care_menu_links().await?.iter().any(|(u, _)| u == user_id);
        let wanted = decide(language, linked, cared);
        match wanted {
            Move::Link => {
                self.link(user_id).await?;
            }
            Move::Unlink => {
                self.line.unlink_rich_menu(user_id).await.map_err(EnglishMenuError::Line)?;
                self.store.menus().set_english_menu_link(user_id, None).await?;
            }
            Move::Stay => {}
        }
        Ok(wanted)
    }

    /// True when `user_id`'s profile said English.
    pub async fn speaks_english(&self, user_id: &str) -> Result<bool, StoreError> {
        Ok(self.store.menus().language_of(user_id).await?.is_some_and(|l| is_english(&l)))
    }

    /// Links the installed English menu to `user_id` (in place of whatever was linked); false
    /// when it is not installed.
    pub async fn link(&self, user_id: &str) -> Result<bool, EnglishMenuError> {
        let found = self.line.rich_menu_alias(EVERYDAY_EN.alias).await;
        let Some(menu) = found.map_err(EnglishMenuError::Line)? else {
            tracing::warn!(
                "an English speaker's menu is not installed: run `hearth richmenu install`"
            );
            return Ok(false);
        };
        self.line.link_rich_menu(user_id, &menu).await.map_err(EnglishMenuError::Line)?;
        self.store.menus().set_english_menu_link(user_id, Some(&menu)).await?;
        Ok(true)
    }

    /// Links `menu` (a new install's English menu) to every English speaker no care plan asks;
    /// how many.
    pub async fn relink_all(&self, menu: &str) -> Result<usize, EnglishMenuError> {
        let cared: Vec<String> =
            self.store.menus().care_menu_links().await?.into_iter().map(|(u, _)| u).collect();
        let wanted = self.store.menus().care_menu_wanted().await?;
        let mut done = 0;
        for user in self.store.menus().english_speakers().await? {
            if cared.contains(&user) || wanted.contains(&user) {
                continue;
            }
            match self.line.link_rich_menu(&user, menu).await {
                Ok(()) => {
                    self.store.menus().set_english_menu_link(&user, Some(menu)).await?;
                    done += 1;
                }
                Err(e) => tracing::warn!(error = %e, "the new English menu was not linked"),
            }
        }
        Ok(done)
    }

    /// Records that nobody has the English menu any more (`hearth richmenu remove`).
    pub async fn forget_links(&self) -> Result<(), StoreError> {
        for (user, _) in self.store.menus().english_menu_links().await? {
            self.store.menus().set_english_menu_link(&user, None).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_tags_are_english_and_others_are_not() {
        for tag in ["en", "en-US", "EN-gb"] {
            assert!(is_english(tag), "{tag}");
        }
        for tag in ["zh-TW", "ja", "eng", "", "de-en"] {
            assert!(!is_english(tag), "{tag}");
        }
    }

    #[test]
    fn an_english_speaker_is_linked_once_and_the_care_menu_comes_first() {
        assert_eq!(decide("en", false, false), Move::Link);
        assert_eq!(decide("en", true, false), Move::Stay, "once");
        assert_eq!(decide("en", false, true), Move::Stay, "the care menu is hers");
        assert_eq!(decide("zh-TW", true, false), Move::Unlink, "her profile changed");
        assert_eq!(decide("zh-TW", false, false), Move::Stay);
    }
}
