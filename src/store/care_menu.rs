//! Who LINE shows the care menu to, and when each last asked the family to call: see
//! `features::care::menu`. One row per person a care plan asks, kept by LINE user id.

use super::{MenuStore, StoreError};

const WANTED: &str = "SELECT DISTINCT COALESCE(confirmer_id, person_id) FROM care_plans WHERE status IN ('active', 'paused') AND COALESCE(confirmer_id, person_id) IS NOT NULL ORDER BY 1";
const LINKED: &str = "SELECT user_id, rich_menu_id FROM care_menu_users WHERE rich_menu_id IS NOT NULL ORDER BY user_id";
const SET_LINK: &str = "INSERT INTO care_menu_users (user_id, rich_menu_id) VALUES ($1, $2) ON CONFLICT (user_id) DO UPDATE SET rich_menu_id = excluded.rich_menu_id";
const CLAIM_CALL: &str = "INSERT INTO care_menu_users (user_id, call_asked_at) VALUES ($1, $2) ON CONFLICT (user_id) DO UPDATE SET call_asked_at = excluded.call_asked_at WHERE care_menu_users.call_asked_at IS NULL OR care_menu_users.call_asked_at <= $3";

impl MenuStore<'_> {
    /// The people a started plan asks (its confirmer, else its person), each once: whom the
    /// care menu is for. A paused plan has not stopped.
    pub async fn care_menu_wanted(self) -> Result<Vec<String>, StoreError> {
        let rows: Vec<(String,)> =
            db!(self.store, db => sqlx::query_as(WANTED).fetch_all(db).await)?;
        Ok(rows.into_iter().map(|(id,)| id).collect())
    }

    /// Who the care menu is linked to, with the menu linked.
    pub async fn care_menu_links(self) -> Result<Vec<(String, String)>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(LINKED).fetch_all(db).await)?)
    }

    /// Records that `user_id` was linked to menu `menu` (none: unlinked).
    pub async fn set_care_menu_link(
        self,
        user_id: &str,
        menu: Option<&str>,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(SET_LINK).bind(user_id).bind(menu).execute(db).await.map(|_| ()))?;
        Ok(())
    }

    /// Records a 📞 of `user_id` at `now_ms` unless they asked after `since_ms`; true when
    /// recorded (the family is to be told), false when it is too soon.
    pub async fn claim_care_call(
        self,
        user_id: &str,
        now_ms: i64,
        since_ms: i64,
    ) -> Result<bool, StoreError> {
        let n = db!(self.store, db => sqlx::query(CLAIM_CALL)
            .bind(user_id)
            .bind(now_ms)
            .bind(since_ms)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }
}
