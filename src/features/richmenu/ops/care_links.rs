//! Linking the care menu to whoever a care plan asks, and taking it away when no plan asks her
//! any more. A round compares the people started (or paused) plans ask with the people the
//! store says are linked ([`changes`], a pure decision), links the new ones to the menu the
//! `hearth-care` alias names and unlinks the others, recording each change only once LINE
//! accepted it. A plan started, paused, resumed, changed or stopped runs a round at once
//! ([`crate::features::richmenu::ops::care_plans`]); the care loop also runs one after each of its own,
//! which retries what LINE refused. Someone the care menu is taken from whose LINE profile says
//! English gets the English everyday menu back ([`crate::features::richmenu::ops::english`]), anyone
//! else the default. Without an installed care menu nobody is linked (and the alias is looked
//! up again after [`RETRY_MISSING`]).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::features::richmenu::layout::CARE;
use crate::features::richmenu::ops::english::EnglishMenu;
use crate::line::client::{LineClient, LineError};
use crate::store::{Store, StoreError};

/// How long a care menu found missing is not looked up again.
pub const RETRY_MISSING: Duration = Duration::from_secs(300);

/// What a round should do.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changes {
    /// People to link to the care menu.
    pub link: Vec<String>,
    /// People to take it from.
    pub unlink: Vec<String>,
}

/// The changes from the people `linked` (user, menu) to `wanted`, the care menu being
/// `current` when known: a wanted person linked to another menu is linked again.
pub fn changes(wanted: &[String], linked: &[(String, String)], current: Option<&str>) -> Changes {
    let link = wanted
        .iter()
        .filter(|w| w.starts_with('U'))
        .filter(|w| match linked.iter().find(|(user, _)| user == *w) {
            None => true,
            Some((_, menu)) => current.is_some_and(|c| c != menu),
        })
        .cloned()
        .collect();
    let unlink =
        linked.iter().filter(|(user, _)| !wanted.contains(user)).map(|(u, _)| u.clone()).collect();
    Changes { link, unlink }
}

/// What a round did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LinkRound {
    /// People linked.
    pub linked: usize,
    /// People unlinked.
    pub unlinked: usize,
    /// Changes LINE refused or did not answer (tried again next round).
    pub failed: usize,
}

/// Why a round stopped.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// LINE could not say which menu the care alias names.
    #[error("the care menu's alias could not be read")]
    Alias(#[source] LineError),
    /// LINE did not take the menu away.
    #[error("the care menu was not taken away")]
    Unlink(#[source] LineError),
}

/// Links and unlinks the care menu (clones share what they learned of the alias).
#[derive(Clone)]
pub struct CareMenuLinks {
    line: LineClient,
    store: Store,
    /// What an English speaker gets back when the care menu is taken away.
    english: EnglishMenu,
    /// When the alias was last found to name no menu.
    missing_since: Arc<Mutex<Option<Instant>>>,
}

impl CareMenuLinks {
    /// Links through `line`, keeping who is linked in `store`.
    pub fn new(line: LineClient, store: Store) -> Self {
        let english = EnglishMenu::new(line.clone(), store.clone());
        Self { line, store, english, missing_since: Arc::default() }
    }

    /// The English everyday menu's links, which give way to the care menu.
    pub fn english(&self) -> &EnglishMenu {
        &self.english
    }

    fn recently_missing(&self) -> bool {
        let since = self.missing_since.lock().unwrap_or_else(|e| e.into_inner());
        since.is_some_and(|at| at.elapsed() < RETRY_MISSING)
    }

    /// One round.
    pub async fn sync(&self) -> Result<LinkRound, LinkError> {
        let wanted = self.store.menus().care_menu_wanted().await?;
        let linked = self.store.menus().care_menu_links().await?;
        let mut changes = changes(&wanted, &linked, None);
        let mut round = LinkRound::default();
        if !changes.link.is_empty() && !self.recently_missing() {
            match self.line.rich_menu_alias(CARE.alias).await.map_err(LinkError::Alias)? {
                Some(menu) => {
                    *self.missing_since.lock().unwrap_or_else(|e| e.into_inner()) = None;
                    for user in std::mem::take(&mut changes.link) {
                        match self.line.link_rich_menu(&user, &menu).await {
                            Ok(()) => {
                                self.store.menus().set_care_menu_link(&user, Some(&menu)).await?;
                                // It took the English menu's place, if she had it.
                                self.store.menus().set_english_menu_link(&user, None).await?;
                                round.linked += 1;
                            }
                            Err(e) => {
                                tracing::warn!(error = %e, "the care menu was not linked");
                                round.failed += 1;
                            }
                        }
                    }
                }
                None => {
                    tracing::warn!(
                        "a care plan asks someone but the care menu is not installed: run `hearth richmenu install`"
                    );
                    *self.missing_since.lock().unwrap_or_else(|e| e.into_inner()) =
                        Some(Instant::now());
                }
            }
        }
        for user in changes.unlink {
            match self.take_away(&user).await {
                Ok(()) => {
                    self.store.menus().set_care_menu_link(&user, None).await?;
                    round.unlinked += 1;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "the care menu was not unlinked");
                    round.failed += 1;
                }
            }
        }
        Ok(round)
    }

    /// Takes the care menu from `user`: the English everyday menu in its place for an English
    /// speaker (when installed), else the default.
    async fn take_away(&self, user: &str) -> Result<(), LinkError> {
        if self.english.speaks_english(user).await? {
            match self.english.link(user).await {
                Ok(true) => return Ok(()),
                Ok(false) => {}
                Err(e) => tracing::warn!(error = %e, "the English menu was not linked back"),
            }
        }
        self.line.unlink_rich_menu(user).await.map_err(LinkError::Unlink)
    }

    /// Records that nobody has the care menu any more, nor the English one (the menus were
    /// removed from LINE).
    pub async fn forget_all(&self) -> Result<(), StoreError> {
        for (user, _) in self.store.menus().care_menu_links().await? {
            self.store.menus().set_care_menu_link(&user, None).await?;
        }
        self.english.forget_links().await
    }

    /// Links everyone the store says is linked to `menu` (a new install's care menu); how many.
    pub async fn relink_all(&self, menu: &str) -> Result<usize, LinkError> {
        let linked = self.store.menus().care_menu_links().await?;
        let wanted: Vec<String> = linked.iter().map(|(u, _)| u.clone()).collect();
        let mut done = 0;
        for user in changes(&wanted, &linked, Some(menu)).link {
            match self.line.link_rich_menu(&user, menu).await {
                Ok(()) => {
                    self.store.menus().set_care_menu_link(&user, Some(menu)).await?;
                    done += 1;
                }
                Err(e) => tracing::warn!(error = %e, "the new care menu was not linked"),
            }
        }
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn the_newly_asked_are_linked_and_those_no_plan_asks_unlinked() {
        let linked = vec![("Ua".to_string(), "m1".to_string()), ("Ub".to_string(), "m1".into())];
        let c = changes(&ids(&["Ua", "Uc"]), &linked, None);
        assert_eq!(c, Changes { link: ids(&["Uc"]), unlink: ids(&["Ub"]) });
        assert_eq!(changes(&ids(&["Ua", "Ub"]), &linked, Some("m1")), Changes::default());
    }

    #[test]
    fn a_new_care_menu_is_linked_again_to_everyone_on_the_old_one() {
        let linked = vec![("Ua".to_string(), "old".to_string())];
        assert_eq!(changes(&ids(&["Ua"]), &linked, Some("new")).link, ids(&["Ua"]));
    }

    #[test]
    fn only_user_ids_are_linked() {
        assert!(changes(&ids(&["Cgroup", "Rroom"]), &[], None).link.is_empty());
    }
}
