//! The rich menu of a person's language: when a turn learns someone's LINE profile in their
//! 1:1 chat (at their first message there), an English speaker is linked to the
//! English everyday menu ([`crate::features::richmenu::ops::english`]). A failure leaves the
//! default menu and is tried again when the profile is next read.

use crate::turn::Turns;

impl Turns {
    /// Links the menu of `language` (what `user_id`'s profile says, learned at `now_ms`).
    pub(crate) async fn menu_for_language(&self, user_id: &str, language: &str, now_ms: i64) {
        match self.english_menu.learned(user_id, language, now_ms).await {
            Ok(done) => tracing::debug!(?done, "the menu of their language"),
            Err(e) => tracing::warn!(error = %e, "the menu of their language was not linked"),
        }
    }
}
