//! A plan's changes as one operation whatever the surface (the `care` tool, a card's button):
//! starting, pausing, resuming, changing or stopping a plan writes it and, at once, links the
//! care menu to whoever it now asks and takes it from whoever no plan asks any more
//! ([`super::care_links`]), instead of leaving that to the next care round. A link LINE
//! refuses is retried by the care loop; the plan's change stands either way.

use super::care_links::CareMenuLinks;
use crate::store::{CarePlanRow, CareStatus, NewCarePlan, Store, StoreError};

/// Changes plans, the care menu following.
#[derive(Clone)]
pub struct CarePlans {
    store: Store,
    /// The care menu's links (none where nothing talks to LINE: `hearth tools`, some tests).
    menus: Option<CareMenuLinks>,
}

impl CarePlans {
    /// Plans kept in `store`, the care menu linked by `menus`.
    pub fn new(store: Store, menus: Option<CareMenuLinks>) -> Self {
        Self { store, menus }
    }

    /// Moves plan `id` of `chat` from `from` to `to`, its next dose and report at `next` and
    /// `report`; false when it was not `from`.
    pub async fn set_status(
        &self,
        id: i64,
        chat: &str,
        (from, to): (CareStatus, CareStatus),
        next: Option<i64>,
        report: Option<i64>,
    ) -> Result<bool, StoreError> {
        let changed = self.store.care().set_status(id, chat, from, to, next, report).await?;
        if changed {
            self.menus_follow().await;
        }
        Ok(changed)
    }

    /// Changes plan `id` to `plan` (its person or confirmer may change), an active plan's next
    /// dose at `next_due_at`; `None` when the chat has no such plan.
    pub async fn change(
        &self,
        id: i64,
        plan: &NewCarePlan<'_>,
        next_due_at: Option<i64>,
    ) -> Result<Option<CarePlanRow>, StoreError> {
        let changed = self.store.care().change_plan(id, plan, next_due_at).await?;
        if changed.is_some() {
            self.menus_follow().await;
        }
        Ok(changed)
    }

    /// Stops plan `id` of `chat` for good (its doses and readings deleted); false when the
    /// chat has no such plan.
    pub async fn stop(&self, id: i64, chat: &str) -> Result<bool, StoreError> {
        let deleted = self.store.care().delete_plan(id, chat).await?;
        if deleted {
            self.menus_follow().await;
        }
        Ok(deleted)
    }

    /// Links and unlinks the care menu now.
    async fn menus_follow(&self) {
        let Some(menus) = &self.menus else { return };
        match menus.sync().await {
            Ok(round) => tracing::debug!(?round, "the care menu followed the plan"),
            Err(e) => tracing::warn!(error = %e, "the care menu did not follow the plan yet"),
        }
    }
}
