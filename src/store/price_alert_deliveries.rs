//! Recorded price-alert pushes: a fire writes its delivery row (payload and retry key) in the same
//! transaction as the fenced fire (see [`crate::store::PriceAlertStore::record_evaluation`]); a
//! push whose outcome is unknown stays pending and is claimed again, with a lease, by any process
//! after its wait.

use super::{DeliveryStatus, PriceAlertStore, StoreError};

row! {
    /// A recorded alert push to attempt.
    #[derive(Debug, Clone, PartialEq)]
    pub struct AlertDelivery {
        /// The alert.
        pub alert_id: i64,
        /// Which fire.
        pub fire_seq: i64,
        /// The alert's chat (where it waits when held).
        pub conversation_id: String,
        /// The 1:1 chat it is pushed to instead, if any.
        pub deliver_to: Option<String>,
        /// The retry key of every attempt.
        pub retry_key: String,
        /// The payload of every attempt.
        pub payload: String,
        /// When it was first prepared (Unix ms).
        pub first_attempt_at: i64,
    }
}

impl AlertDelivery {
    /// The chat it is pushed to.
    pub fn target(&self) -> &str {
        self.deliver_to.as_deref().unwrap_or(&self.conversation_id)
    }
}

const CLAIM_DELIVERIES: super::lease::ClaimSql = claim_sql!(
    table: "alert_deliveries",
    key: "alert_id, fire_seq",
    due: "status = 'pending'",
    order: "alert_id, fire_seq",
    returning: "alert_id, fire_seq, conversation_id, deliver_to, retry_key, payload, first_attempt_at",
);
const FINISH_DELIVERY: &str = "UPDATE alert_deliveries SET status = $4, attempts = attempts + 1, lease_owner = NULL, sent_at = CASE WHEN $4 = 'sent' THEN $5 ELSE sent_at END WHERE alert_id = $1 AND fire_seq = $2 AND lease_owner = $3 AND status = 'pending'";
const RETRY_DELIVERY: &str = "UPDATE alert_deliveries SET attempts = attempts + 1, lease_owner = NULL, lease_until = $4 WHERE alert_id = $1 AND fire_seq = $2 AND lease_owner = $3 AND status = 'pending'";

impl PriceAlertStore<'_> {
    /// Claims the pending alert deliveries whose earlier attempt's claim or wait is over.
    pub async fn claim_deliveries(
        self,
        owner: &str,
        now_ms: i64,
        lease_until_ms: i64,
    ) -> Result<Vec<AlertDelivery>, StoreError> {
        let lease = super::Lease { owner, now_ms, until_ms: lease_until_ms };
        self.store.claim(&CLAIM_DELIVERIES, lease, i64::MAX, &[]).await
    }

    /// Records the outcome of a push `owner` attempted: a final `status`, or (with `None`) a
    /// retry not before `retry_at_ms`.
    pub async fn finish_delivery(
        self,
        owner: &str,
        d: &AlertDelivery,
        status: Option<DeliveryStatus>,
        now_ms: i64,
        retry_at_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => {
            let query = match status {
                Some(status) => sqlx::query(FINISH_DELIVERY)
                    .bind(d.alert_id)
                    .bind(d.fire_seq)
                    .bind(owner)
                    .bind(status)
                    .bind(now_ms),
                None => sqlx::query(RETRY_DELIVERY)
                    .bind(d.alert_id)
                    .bind(d.fire_seq)
                    .bind(owner)
                    .bind(retry_at_ms),
            };
            query.execute(db).await?;
            Ok(())
        })
    }
}
