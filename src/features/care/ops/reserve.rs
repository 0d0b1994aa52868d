//! What the month keeps back for care plans: the quota's [`KeptBack`], [`super::super::cost::reserve`]
//! over the active plans in the store.

use futures::future::BoxFuture;
use jiff::Timestamp;

use crate::features::care::Plan;
use crate::features::care::cost::reserve;
use crate::push::quota::tracking::KeptBack;
use crate::store::Store;

/// The quota's [`KeptBack`] for care plans: [`reserve`] over the active plans in the store.
pub struct CareReserve {
    store: Store,
}

impl CareReserve {
    /// The reserve of the plans in `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }
}

impl KeptBack for CareReserve {
    fn messages(&self, now: Timestamp, until: Timestamp) -> BoxFuture<'_, i64> {
        Box::pin(async move {
            match self.store.care().active_plans().await {
                Ok(rows) => {
                    let plans: Vec<Plan> = rows.into_iter().filter_map(Plan::read).collect();
                    reserve(&plans, now, until)
                }
                Err(e) => {
                    tracing::error!(error = %e, "care plans unreadable; nothing kept back for them");
                    0
                }
            }
        })
    }
}
