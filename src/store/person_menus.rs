//! What the store keeps of each person's menu: the language LINE's profile gives them and the
//! English everyday menu linked to them (see `features::richmenu::ops::english`). One row per LINE
//! user hearth learned the profile of in a 1:1 chat.

use super::{MenuStore, StoreError};

const LEARN: &str = "INSERT INTO person_menus (user_id, language, learned_at) VALUES ($1, $2, $3) ON CONFLICT (user_id) DO UPDATE SET language = excluded.language, learned_at = excluded.learned_at";
const LANGUAGE: &str = "SELECT language FROM person_menus WHERE user_id = $1";
const ENGLISH: &str = "SELECT user_id FROM person_menus WHERE language = 'en' OR language LIKE 'en-%' ORDER BY user_id";
const LINKED: &str = "SELECT user_id, english_menu_id FROM person_menus WHERE english_menu_id IS NOT NULL ORDER BY user_id";
const SET_LINK: &str = "UPDATE person_menus SET english_menu_id = $2 WHERE user_id = $1";

impl MenuStore<'_> {
    /// Records `language` (a BCP 47 tag, as LINE's profile gives it) as `user_id`'s, learned at
    /// `now_ms`.
    pub async fn learn_language(
        self,
        user_id: &str,
        language: &str,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(LEARN)
            .bind(user_id)
            .bind(language)
            .bind(now_ms)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// The language last learned of `user_id`, if any.
    pub async fn language_of(self, user_id: &str) -> Result<Option<String>, StoreError> {
        let row: Option<(String,)> =
            db!(self.store, db => sqlx::query_as(LANGUAGE).bind(user_id).fetch_optional(db).await)?;
        Ok(row.map(|(language,)| language))
    }

    /// The people whose profile says English (`en`, `en-…`).
    pub async fn english_speakers(self) -> Result<Vec<String>, StoreError> {
        let rows: Vec<(String,)> =
            db!(self.store, db => sqlx::query_as(ENGLISH).fetch_all(db).await)?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }

    /// Who the English everyday menu is linked to, with the menu linked.
    pub async fn english_menu_links(self) -> Result<Vec<(String, String)>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(LINKED).fetch_all(db).await)?)
    }

    /// Records that `user_id` was linked to the English menu `menu` (none: it was taken away,
    /// or replaced by the care menu). Nothing happens for someone whose language is not known.
    pub async fn set_english_menu_link(
        self,
        user_id: &str,
        menu: Option<&str>,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(SET_LINK).bind(user_id).bind(menu).execute(db).await.map(|_| ()))?;
        Ok(())
    }
}
