//! Price alerts in the store: creation (one active alert per conversation, symbol, direction and
//! level), the conversation's list, cancel and mute (always within one conversation), and the
//! poller's cycle: claim due symbols with a lease → evaluate → record state changes and fires
//! (each fire fenced on `fire_seq`, its delivery row written in the same transaction) → push →
//! finish the delivery.

use super::price_alert_deliveries::AlertDelivery;
use super::{AlertStatus, Direction, Frequency, PriceAlertStore, Side, StoreError};
use crate::platform::i18n::Lang;

row! {
    /// A stored price alert.
    #[derive(Debug, Clone, PartialEq)]
    pub struct AlertRow {
        /// Its id.
        pub id: i64,
        /// The conversation it belongs to (and is pushed to).
        pub conversation_id: String,
        /// Who created it.
        pub created_by: Option<String>,
        /// The Yahoo symbol.
        pub symbol: String,
        /// The instrument's name at creation.
        pub name: Option<String>,
        /// The price currency.
        pub currency: Option<String>,
        /// Which way the price must go.
        pub direction: Direction,
        /// The level.
        pub level: f64,
        /// The dead band, percent of the level.
        pub band_pct: f64,
        /// How often it fires.
        pub frequency: Frequency,
        /// Least seconds between two fires of an every-time alert.
        pub cooldown_s: i64,
        /// The side of the level last seen.
        pub last_side: Option<Side>,
        /// Whether a cross fires.
        pub armed: bool,
        /// Fires so far; the fence of the next fire.
        pub fire_seq: i64,
        /// The price of the last fire.
        pub last_price: Option<f64>,
        /// When it last fired (Unix ms).
        pub last_fired_at: Option<i64>,
        /// Muted until (Unix ms).
        pub muted_until: Option<i64>,
        /// The conversation's zone at creation.
        pub tz: String,
        /// The language of the conversation at creation.
        pub lang: Lang,
        /// Where it is in its life.
        pub status: AlertStatus,
        /// When it was created (Unix ms).
        pub created_at: i64,
        /// The 1:1 chat its fires are pushed to instead of its own (a personal alert set in a group).
        pub deliver_to: Option<String>,
    }
}

impl AlertRow {
    /// The chat its fires are pushed to.
    pub fn target(&self) -> &str {
        self.deliver_to.as_deref().unwrap_or(&self.conversation_id)
    }
}

/// An alert to create.
#[derive(Debug, Clone)]
pub struct NewAlert<'a> {
    /// The conversation (from the tool context, never from arguments).
    pub conversation_id: &'a str,
    /// Who asked.
    pub created_by: Option<&'a str>,
    /// The symbol.
    pub symbol: &'a str,
    /// The instrument's name.
    pub name: Option<&'a str>,
    /// The currency.
    pub currency: Option<&'a str>,
    /// Which way the price must go.
    pub direction: Direction,
    /// The level.
    pub level: f64,
    /// The dead band, percent.
    pub band_pct: f64,
    /// How often it fires.
    pub frequency: Frequency,
    /// Cooldown in seconds.
    pub cooldown_s: i64,
    /// The side of the level the price is on now.
    pub initial_side: Side,
    /// Zone name.
    pub tz: &'a str,
    /// The conversation's language.
    pub lang: Lang,
    /// Now (Unix ms); the symbol is due at once.
    pub now_ms: i64,
    /// The 1:1 chat to push its fires to instead of its own, if any.
    pub deliver_to: Option<&'a str>,
}

row! {
    /// A watched symbol claimed by the poller.
    #[derive(Debug, Clone, PartialEq)]
    pub struct SymbolRow {
        /// The symbol.
        pub symbol: String,
        /// Consecutive failed fetches.
        pub failures: i64,
    }
}

/// A state change of one alert after an evaluation, fenced on the `fire_seq` read.
#[derive(Debug, Clone)]
pub struct AlertUpdate {
    /// The alert.
    pub alert_id: i64,
    /// `fire_seq` as read: the update applies only if nobody fired it since.
    pub seen_seq: i64,
    /// The new side.
    pub last_side: Side,
    /// The new armed flag.
    pub armed: bool,
    /// Set when it fires now: its delivery (retry key and rendered payload for `seen_seq + 1`).
    pub fire: Option<AlertFire>,
}

/// The record of one fire.
#[derive(Debug, Clone)]
pub struct AlertFire {
    /// The price that fired it.
    pub price: f64,
    /// The alert's chat.
    pub conversation_id: String,
    /// The 1:1 chat the push goes to instead, if any.
    pub deliver_to: Option<String>,
    /// `uuid_v5("alert:{id}:{fire_seq}")`.
    pub retry_key: String,
    /// The messages (JSON).
    pub payload: String,
}

const INSERT: &str = "INSERT INTO price_alerts (conversation_id, created_by, symbol, name, currency, direction, level, band_pct, frequency, cooldown_s, last_side, armed, fire_seq, tz, lang, status, created_at, deliver_to) SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 0, $13, $14, 'active', $15, $17 WHERE (SELECT COUNT(*) FROM price_alerts WHERE conversation_id = $1 AND status = 'active') < $16 ON CONFLICT DO NOTHING RETURNING id";
const COUNT_ACTIVE: &str =
    "SELECT COUNT(*) FROM price_alerts WHERE conversation_id = $1 AND status = 'active'";
const WATCH: &str = "INSERT INTO alert_symbols (symbol, next_check_at, failures) VALUES ($1, $2, 0) ON CONFLICT (symbol) DO UPDATE SET next_check_at = CASE WHEN excluded.next_check_at < alert_symbols.next_check_at THEN excluded.next_check_at ELSE alert_symbols.next_check_at END";
const GET: &str = "SELECT id, conversation_id, created_by, symbol, name, currency, direction, level, band_pct, frequency, cooldown_s, last_side, armed, fire_seq, last_price, last_fired_at, muted_until, tz, lang, status, created_at, deliver_to FROM price_alerts WHERE id = $1 AND (conversation_id = $2 OR deliver_to = $2)";
const LIST: &str = "SELECT id, conversation_id, created_by, symbol, name, currency, direction, level, band_pct, frequency, cooldown_s, last_side, armed, fire_seq, last_price, last_fired_at, muted_until, tz, lang, status, created_at, deliver_to FROM price_alerts WHERE conversation_id = $1 AND status = 'active' ORDER BY symbol, level, id";
const FOR_SYMBOL: &str = "SELECT id, conversation_id, created_by, symbol, name, currency, direction, level, band_pct, frequency, cooldown_s, last_side, armed, fire_seq, last_price, last_fired_at, muted_until, tz, lang, status, created_at, deliver_to FROM price_alerts WHERE symbol = $1 AND status = 'active'";
const SCHEDULED: &str = "SELECT id, conversation_id, created_by, symbol, name, currency, direction, level, band_pct, frequency, cooldown_s, last_side, armed, fire_seq, last_price, last_fired_at, muted_until, tz, lang, status, created_at, deliver_to FROM price_alerts WHERE status = 'active' ORDER BY id LIMIT CAST($1 AS BIGINT)";
const CANCEL: &str = "UPDATE price_alerts SET status = 'cancelled' WHERE id = $1 AND (conversation_id = $2 OR deliver_to = $2) AND status = 'active'";
const CANCEL_SYMBOL: &str = "UPDATE price_alerts SET status = 'cancelled' WHERE conversation_id = $1 AND symbol = $2 AND status = 'active' RETURNING id";
const MUTE: &str = "UPDATE price_alerts SET muted_until = $3 WHERE id = $1 AND (conversation_id = $2 OR deliver_to = $2) AND status = 'active'";
const CLAIM_SYMBOLS: super::lease::ClaimSql = claim_sql!(
    table: "alert_symbols",
    key: "symbol",
    due: "next_check_at <= $3",
    order: "next_check_at",
    returning: "symbol, failures",
);
const RESCHEDULE: &str = "UPDATE alert_symbols SET next_check_at = $3, failures = $4, last_price = COALESCE($5, last_price), lease_owner = NULL, lease_until = NULL WHERE symbol = $1 AND lease_owner = $2";
const UNWATCH: &str = "DELETE FROM alert_symbols WHERE symbol = $1 AND NOT EXISTS (SELECT 1 FROM price_alerts WHERE symbol = $1 AND status = 'active')";
const SET_STATE: &str = "UPDATE price_alerts SET last_side = $3, armed = $4 WHERE id = $1 AND fire_seq = $2 AND status = 'active'";
const FIRE: &str = "UPDATE price_alerts SET last_side = $3, armed = $4, last_fired_at = $5, last_price = $6, fire_seq = fire_seq + 1, status = CASE WHEN frequency = 'once' THEN 'triggered' ELSE status END WHERE id = $1 AND fire_seq = $2 AND status = 'active'";
const RECORD_DELIVERY: &str = "INSERT INTO alert_deliveries (alert_id, fire_seq, conversation_id, retry_key, payload, status, attempts, first_attempt_at, lease_owner, lease_until, deliver_to) VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $7, $8, $9) ON CONFLICT (alert_id, fire_seq) DO NOTHING";

impl PriceAlertStore<'_> {
    /// Creates an alert and puts its symbol on the poller's list, due at once; `None` if the
    /// conversation already has the same active alert, [`StoreError::Full`] if it already has
    /// [`super::MAX_ALERTS`] (checked atomically in the insert itself).
    pub async fn create(self, a: &NewAlert<'_>) -> Result<Option<i64>, StoreError> {
        let cap = super::capped::cap(super::MAX_ALERTS);
        db!(self.store, db => {
            transaction!(db, tx);
            if let Some(lock) = self.store.conversation_lock() {
                sqlx::query(lock).bind(a.conversation_id).execute(&mut *tx).await?;
            }
            let id: Option<(i64,)> = sqlx::query_as(INSERT)
                .bind(a.conversation_id)
                .bind(a.created_by)
                .bind(a.symbol)
                .bind(a.name)
                .bind(a.currency)
                .bind(a.direction)
                .bind(a.level)
                .bind(a.band_pct)
                .bind(a.frequency)
                .bind(a.cooldown_s)
                .bind(a.initial_side)
                .bind(true)
                .bind(a.tz)
                .bind(a.lang.code())
                .bind(a.now_ms)
                .bind(cap)
                .bind(a.deliver_to)
                .fetch_optional(&mut *tx)
                .await?;
            if id.is_some() {
                sqlx::query(WATCH).bind(a.symbol).bind(a.now_ms).execute(&mut *tx).await?;
            } else {
                let (active,): (i64,) =
                    sqlx::query_as(COUNT_ACTIVE).bind(a.conversation_id).fetch_one(&mut *tx).await?;
                if active >= cap {
                    return Err(StoreError::Full { what: "price alerts", cap: super::MAX_ALERTS });
                }
            }
            tx.commit().await?;
            Ok(id.map(|(id,)| id))
        })
    }

    /// One alert of this conversation (another conversation's id finds nothing).
    pub async fn get(self, conversation_id: &str, id: i64) -> Result<Option<AlertRow>, StoreError> {
        db!(self.store, db => {
            Ok(sqlx::query_as(GET).bind(id).bind(conversation_id).fetch_optional(db).await?)
        })
    }

    /// The conversation's active alerts, by symbol and level.
    pub async fn list(self, conversation_id: &str) -> Result<Vec<AlertRow>, StoreError> {
        db!(self.store, db => {
            Ok(sqlx::query_as(LIST).bind(conversation_id).fetch_all(db).await?)
        })
    }

    /// Cancels an active alert of this conversation; false if there was none.
    pub async fn cancel(self, conversation_id: &str, id: i64) -> Result<bool, StoreError> {
        db!(self.store, db => {
            let done = sqlx::query(CANCEL).bind(id).bind(conversation_id).execute(db).await?;
            Ok(done.rows_affected() == 1)
        })
    }

    /// Cancels every active alert of this conversation on `symbol`; returns their ids.
    pub async fn cancel_on(
        self,
        conversation_id: &str,
        symbol: &str,
    ) -> Result<Vec<i64>, StoreError> {
        db!(self.store, db => {
            let rows: Vec<(i64,)> = sqlx::query_as(CANCEL_SYMBOL)
                .bind(conversation_id)
                .bind(symbol)
                .fetch_all(db)
                .await?;
            Ok(rows.into_iter().map(|(id,)| id).collect())
        })
    }

    /// Mutes an active alert of this conversation until `until_ms`; false if there was none.
    pub async fn mute(
        self,
        conversation_id: &str,
        id: i64,
        until_ms: i64,
    ) -> Result<bool, StoreError> {
        db!(self.store, db => {
            let done = sqlx::query(MUTE)
                .bind(id)
                .bind(conversation_id)
                .bind(until_ms)
                .execute(db)
                .await?;
            Ok(done.rows_affected() == 1)
        })
    }

    /// Claims up to `limit` symbols due for a fetch, for `owner` until `lease_until_ms`.
    pub async fn claim_due_symbols(
        self,
        owner: &str,
        now_ms: i64,
        lease_until_ms: i64,
        limit: i64,
    ) -> Result<Vec<SymbolRow>, StoreError> {
        let lease = super::Lease { owner, now_ms, until_ms: lease_until_ms };
        self.store.claim(&CLAIM_SYMBOLS, lease, limit, &[]).await
    }

    /// Every conversation's active alerts (at most `limit`): their fires are expected to spend
    /// LINE's quota.
    pub async fn scheduled(self, limit: i64) -> Result<Vec<AlertRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(SCHEDULED).bind(limit).fetch_all(db).await)?)
    }

    /// The active alerts on `symbol`, every conversation's.
    pub async fn active_on(self, symbol: &str) -> Result<Vec<AlertRow>, StoreError> {
        db!(self.store, db => {
            Ok(sqlx::query_as(FOR_SYMBOL).bind(symbol).fetch_all(db).await?)
        })
    }

    /// Records an evaluation of `symbol` in one transaction: state changes and fires (each fenced
    /// on its `fire_seq`; a fire that wins records its delivery, claimed by `owner` until
    /// `lease_until_ms`), then the symbol's next check (fenced on the lease), or its removal when
    /// nothing watches it any more. Returns the deliveries to push now.
    pub async fn record_evaluation(
        self,
        owner: &str,
        symbol: &str,
        updates: &[AlertUpdate],
        next: (i64, i64, Option<f64>),
        now_ms: i64,
        lease_until_ms: i64,
    ) -> Result<Vec<AlertDelivery>, StoreError> {
        db!(self.store, db => {
            transaction!(db, tx);
            let mut fired = Vec::new();
            for u in updates {
                let Some(fire) = &u.fire else {
                    sqlx::query(SET_STATE)
                        .bind(u.alert_id)
                        .bind(u.seen_seq)
                        .bind(u.last_side)
                        .bind(u.armed)
                        .execute(&mut *tx)
                        .await?;
                    continue;
                };
                let won = sqlx::query(FIRE)
                    .bind(u.alert_id)
                    .bind(u.seen_seq)
                    .bind(u.last_side)
                    .bind(u.armed)
                    .bind(now_ms)
                    .bind(fire.price)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected()
                    == 1;
                if !won {
                    continue;
                }
                let fire_seq = u.seen_seq + 1;
                sqlx::query(RECORD_DELIVERY)
                    .bind(u.alert_id)
                    .bind(fire_seq)
                    .bind(&fire.conversation_id)
                    .bind(&fire.retry_key)
                    .bind(&fire.payload)
                    .bind(now_ms)
                    .bind(owner)
                    .bind(lease_until_ms)
                    .bind(&fire.deliver_to)
                    .execute(&mut *tx)
                    .await?;
                fired.push(AlertDelivery {
                    alert_id: u.alert_id,
                    fire_seq,
                    conversation_id: fire.conversation_id.clone(),
                    deliver_to: fire.deliver_to.clone(),
                    retry_key: fire.retry_key.clone(),
                    payload: fire.payload.clone(),
                    first_attempt_at: now_ms,
                });
            }
            let (next_check_at, failures, price) = next;
            sqlx::query(RESCHEDULE)
                .bind(symbol)
                .bind(owner)
                .bind(next_check_at)
                .bind(failures)
                .bind(price)
                .execute(&mut *tx)
                .await?;
            sqlx::query(UNWATCH).bind(symbol).execute(&mut *tx).await?;
            tx.commit().await?;
            Ok(fired)
        })
    }

    /// Sets when `symbol` is fetched next (and its failure count), releasing `owner`'s lease.
    pub async fn reschedule_symbol(
        self,
        owner: &str,
        symbol: &str,
        next_check_at: i64,
        failures: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => {
            transaction!(db, tx);
            sqlx::query(RESCHEDULE)
                .bind(symbol)
                .bind(owner)
                .bind(next_check_at)
                .bind(failures)
                .bind(None::<f64>)
                .execute(&mut *tx)
                .await?;
            sqlx::query(UNWATCH).bind(symbol).execute(&mut *tx).await?;
            tx.commit().await?;
            Ok(())
        })
    }
}
