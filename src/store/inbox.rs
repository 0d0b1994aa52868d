//! The durable inbox: verified webhook events are stored before LINE gets its 200 and handled
//! from the store. Storing is deduplication (LINE's `webhookEventId` is the key); the inbox is
//! also the queue of events waiting for a process with room to handle them.
//!
//! A process handles an event only under a *claim*: its name, a lease end, and a fencing token
//! (`attempts`, incremented by every claim). A live process renews the leases of what it holds;
//! it renews, confirms and finishes an event only with the token it claimed, so once another
//! process has taken an event over (the lease ran out: the first process died or stalled), the
//! first can neither renew nor finish it, and sees so before it starts.

use super::{InboxStore, NewMessage, StoreError};

/// A verified event to store.
#[derive(Debug, Clone)]
pub struct InboxEvent<'a> {
    /// LINE's `webhookEventId`.
    pub event_id: &'a str,
    /// The event type.
    pub event_type: &'a str,
    /// The event's JSON as received.
    pub payload: &'a str,
    /// When the webhook arrived (Unix ms).
    pub received_at_ms: i64,
}

/// Who takes newly stored events at once: the storing process, under a lease (its first claim,
/// token 1). Events stored without one wait in the inbox for
/// [`crate::store::InboxStore::claim_events`].
#[derive(Debug, Clone, Copy)]
pub struct Claim<'a> {
    /// The claiming process.
    pub owner: &'a str,
    /// When the lease ends unless renewed (Unix ms).
    pub lease_until_ms: i64,
}

/// What becomes of an event as it is stored.
#[derive(Debug, Clone)]
pub enum Intake<'a> {
    /// Claimed by the storing process, to handle at once.
    Claimed(Claim<'a>),
    /// Left waiting in the inbox for [`crate::store::InboxStore::claim_events`].
    Waiting,
    /// Handled as it is stored: its message goes into the chat log in the same transaction
    /// and the event is done (an untriggered group message, [`crate::server::inbox::chatter`]). Its
    /// JSON is not kept: the message is in the log, and the id is all deduplication needs.
    Logged(NewMessage<'a>),
}

impl<'a> From<Option<Claim<'a>>> for Intake<'a> {
    fn from(claim: Option<Claim<'a>>) -> Self {
        claim.map_or(Intake::Waiting, Intake::Claimed)
    }
}

row! {
    /// A stored event not handled yet, claimed for handling.
    #[derive(Debug, Clone, PartialEq)]
    pub struct PendingEvent {
        /// LINE's `webhookEventId`.
        pub event_id: String,
        /// The event's JSON.
        pub payload: String,
        /// When the webhook arrived (Unix ms): decides whether the reply token may still work.
        pub received_at: i64,
        /// How many times it has been claimed, this claim included: the claim's fencing token.
        pub attempts: i64,
    }
}

/// A handled event whose message goes into the chat log as it is marked done.
#[derive(Debug, Clone)]
pub struct LoggedEvent<'a> {
    /// LINE's `webhookEventId`.
    pub event_id: &'a str,
    /// The claim's fencing token.
    pub token: i64,
    /// The message to log.
    pub message: NewMessage<'a>,
}

/// An event whose handling began and did not finish this many times (not counting handlings
/// handed back at a graceful shutdown) is set aside, not claimed again: a poison event.
pub const MAX_UNFINISHED: i64 = 2;

/// Rows per INSERT: SQLite allows 32,766 bound values per statement; a row binds 9.
const ACCEPT_CHUNK: usize = 1000;

/// Events per statement matched by an `OR` of (id, claim) pairs: SQLite refuses an expression
/// tree deeper than 1,000, and each `OR` adds a level.
const MATCH_CHUNK: usize = 400;

const ACCEPT_HEAD: &str = "INSERT INTO inbox (event_id, event_type, payload, received_at, status, lease_owner, lease_until, attempts, done_at) ";
const ACCEPT_TAIL: &str = " ON CONFLICT (event_id) DO NOTHING RETURNING event_id";
const FINISH_MANY_HEAD: &str = "UPDATE inbox SET status = 'done', done_at = ";
const FINISH_MANY_WHERE: &str = ", lease_owner = NULL WHERE status = 'pending' AND lease_owner = ";
const LOG_MANY_HEAD: &str = "INSERT INTO chat_log (conversation_id, message_id, user_id, speaker, from_bot, text, at_ms, tainted) ";
const FINISH: &str = "UPDATE inbox SET status = 'done', done_at = $4, lease_owner = NULL WHERE event_id = $1 AND lease_owner = $2 AND attempts = $3 AND status = 'pending'";
const CONFIRM: &str = "UPDATE inbox SET lease_until = $3 WHERE event_id = $1 AND lease_owner = $2 AND status = 'pending' RETURNING attempts";
const RENEW_HEAD: &str = "UPDATE inbox SET lease_until = CASE WHEN lease_until < ";
const RENEW_MID: &str = " THEN ";
const RENEW_WHERE: &str = " ELSE lease_until END WHERE status = 'pending' AND lease_owner = ";
const CLAIM: super::lease::ClaimSql = claim_sql!(
    table: "inbox",
    key: "event_id",
    due: "status = 'pending' AND started - released < $5",
    order: "received_at",
    returning: "event_id, payload, received_at, attempts",
    set: ", attempts = attempts + 1",
);
const POISONED: &str = "SELECT event_id, payload, received_at, attempts FROM inbox WHERE status = 'pending' AND lease_until <= $1 AND started - released >= $2 ORDER BY received_at LIMIT 100";
const SET_ASIDE: &str = "UPDATE inbox SET status = 'set_aside', done_at = $3, lease_owner = NULL WHERE event_id = $1 AND attempts = $2 AND status = 'pending' AND lease_until <= $3";
const COUNT_SET_ASIDE: &str = "SELECT COUNT(*) FROM inbox WHERE status = 'set_aside'";
const START: &str = "UPDATE inbox SET started = started + 1, started_attempt = $2 WHERE event_id = $1 AND attempts = $2 AND status = 'pending'";
const PRUNE: &str = "DELETE FROM inbox WHERE event_id IN (SELECT event_id FROM inbox WHERE status IN ('done', 'set_aside') AND done_at < $1 LIMIT CAST($2 AS BIGINT))";
const COUNT_PENDING: &str = "SELECT COUNT(*) FROM inbox WHERE status = 'pending'";

/// What an inbox event's turn writes at its end, with its done mark
/// ([`crate::store::InboxStore::finish_turn`]).
#[derive(Debug, Default)]
pub struct TurnWrites<'a> {
    /// The messages it took in, to log before its answers.
    pub incoming: Vec<NewMessage<'a>>,
    /// The answers it sent, each with the ids LINE gave its messages (see
    /// [`crate::store::ChatLogStore::record_answer`]).
    pub answers: Vec<(NewMessage<'a>, &'a [String])>,
    /// The tokens it used (see [`crate::store::UsageStore::add_tokens`]).
    pub charges: &'a [super::Charge],
}

impl TurnWrites<'_> {
    /// True when there is nothing to write but the done mark.
    pub fn is_empty(&self) -> bool {
        self.incoming.is_empty() && self.answers.is_empty() && self.charges.is_empty()
    }
}

/// The INSERT into the chat log of `$chunk`'s messages (`&NewMessage`s).
macro_rules! log_rows {
    ($chunk:expr) => {{
        let mut insert = sqlx::QueryBuilder::new(LOG_MANY_HEAD);
        insert.push_values($chunk, |mut row, m| {
            row.push_bind(m.conversation_id)
                .push_bind(m.message_id)
                .push_bind(m.user_id)
                .push_bind(m.speaker)
                .push_bind(m.from_bot)
                .push_bind(m.text)
                .push_bind(m.at_ms)
                .push_bind(m.tainted);
        });
        insert
    }};
}

/// For each of `events`, whether it is the copy that was stored: its id is among the
/// `inserted`, and it is the first copy of that id (the same event may come twice, and a
/// conflicting row is not inserted).
fn first_copies<T>(events: &[(InboxEvent<'_>, T)], inserted: &[(String,)]) -> Vec<bool> {
    let mut fresh: std::collections::HashSet<&str> =
        inserted.iter().map(|(id,)| id.as_str()).collect();
    events.iter().map(|(e, _)| fresh.remove(e.event_id)).collect()
}

impl InboxStore<'_> {
    /// Whether a statement built for `rows` rows stays in the connection's statement cache. On
    /// SQLite the shapes that recur (one webhook's one event) do; a batch's size varies with the
    /// load, and each size would be a new entry, pushing the store's fixed statements out of the
    /// cache (sqlx keeps 100 per connection) and holding memory for shapes that may never come
    /// back. On PostgreSQL every shape is kept: a statement not kept costs a round trip to the
    /// server to prepare it each time.
    fn cached(self, rows: usize) -> bool {
        rows <= 2 || matches!(&*self.store.backend, super::Backend::Postgres(_))
    }

    /// Stores verified events atomically (one statement, or one transaction of chunks of
    /// [`ACCEPT_CHUNK`] rows), claimed by `claim` or left waiting in the inbox; returns, for
    /// each, whether it is new (a duplicate is already stored and is not handled again).
    pub async fn accept_events(
        self,
        events: &[InboxEvent<'_>],
        claim: Option<Claim<'_>>,
    ) -> Result<Vec<bool>, StoreError> {
        let rows: Vec<(InboxEvent<'_>, Intake<'_>)> =
            events.iter().map(|e| (e.clone(), claim.into())).collect();
        self.accept(&rows).await
    }

    /// Stores verified events, each with its own [`Intake`] (the events of several webhooks
    /// acknowledged together, see [`crate::server::inbox::commit`]), atomically: one statement, or one
    /// transaction when there are more than [`ACCEPT_CHUNK`] rows or messages to log. Returns,
    /// for each, whether it is new: an event stored before, or earlier in `events`, is not, and
    /// its message is not logged again.
    pub async fn accept(
        self,
        events: &[(InboxEvent<'_>, Intake<'_>)],
    ) -> Result<Vec<bool>, StoreError> {
        if events.is_empty() {
            return Ok(Vec::new());
        }
        /// The INSERT of `chunk`'s rows.
        macro_rules! insert_rows {
            ($chunk:expr) => {{
                let mut insert = sqlx::QueryBuilder::new(ACCEPT_HEAD);
                insert.push_values($chunk, |mut row, (e, intake)| {
                    let (status, owner, lease_until, attempts, done_at) = match intake {
                        Intake::Claimed(c) => {
                            ("pending", Some(c.owner), c.lease_until_ms, 1i64, None)
                        }
                        Intake::Waiting => ("pending", None, 0, 0, None),
                        // Done as it arrived: pruned with the events handled at that time.
                        Intake::Logged(_) => ("done", None, 0, 1, Some(e.received_at_ms)),
                    };
                    // A done event's JSON is never read again: a logged one keeps only its id
                    // (for deduplication), its message being in the chat log.
                    let payload = if matches!(intake, Intake::Logged(_)) { "" } else { e.payload };
                    row.push_bind(e.event_id)
                        .push_bind(e.event_type)
                        .push_bind(payload)
                        .push_bind(e.received_at_ms)
                        .push_bind(status)
                        .push_bind(owner)
                        .push_bind(lease_until)
                        .push_bind(attempts)
                        .push_bind(done_at);
                });
                insert.push(ACCEPT_TAIL);
                insert
            }};
        }
        let logs = events.iter().any(|(_, intake)| matches!(intake, Intake::Logged(_)));
        let mut inserted: Vec<(String,)> = Vec::new();
        db!(self.store, db => {
            if events.len() <= ACCEPT_CHUNK && !logs {
                // One statement is atomic by itself: no transaction to open and commit (two
                // round trips fewer for every acknowledgement).
                inserted = insert_rows!(events)
                    .build_query_as()
                    .persistent(self.cached(events.len()))
                    .fetch_all(db)
                    .await?;
            } else {
                transaction!(db, tx);
                for chunk in events.chunks(ACCEPT_CHUNK) {
                    let rows: Vec<(String,)> =
                        insert_rows!(chunk)
                            .build_query_as()
                            .persistent(self.cached(chunk.len()))
                            .fetch_all(&mut *tx)
                            .await?;
                    inserted.extend(rows);
                }
                // Only a stored row's message is logged: the first copy of an event, whatever
                // its intake (a later copy of one stored pending is its lane's to log).
                let logged: Vec<&NewMessage<'_>> = events
                    .iter()
                    .zip(first_copies(events, &inserted))
                    .filter_map(|((_, intake), new)| match intake {
                        Intake::Logged(m) if new => Some(m),
                        _ => None,
                    })
                    .collect();
                for chunk in logged.chunks(ACCEPT_CHUNK) {
                    log_rows!(chunk).build().persistent(self.cached(chunk.len())).execute(&mut *tx).await?;
                }
                tx.commit().await?;
            }
        });
        Ok(first_copies(events, &inserted))
    }

    /// Marks handled events done under `owner`'s claims and adds the message of each one it
    /// finished to the chat log, in one transaction (the untriggered group messages of
    /// [`crate::server::inbox::chatter`]); returns, for each, whether it was finished here. An event
    /// whose claim is no longer the latest (another process took it over) is neither finished
    /// nor logged here: whoever holds it logs it.
    pub async fn finish_logged(
        self,
        owner: &str,
        now_ms: i64,
        events: &[LoggedEvent<'_>],
    ) -> Result<Vec<bool>, StoreError> {
        if events.is_empty() {
            return Ok(Vec::new());
        }
        let mut finished: Vec<(String,)> = Vec::new();
        db!(self.store, db => {
            transaction!(db, tx);
            for chunk in events.chunks(MATCH_CHUNK) {
                let mut update = sqlx::QueryBuilder::new(FINISH_MANY_HEAD);
                update.push_bind(now_ms);
                update.push(FINISH_MANY_WHERE);
                update.push_bind(owner);
                update.push(" AND (");
                for (i, e) in chunk.iter().enumerate() {
                    if i > 0 {
                        update.push(" OR ");
                    }
                    update.push("(event_id = ");
                    update.push_bind(e.event_id);
                    update.push(" AND attempts = ");
                    update.push_bind(e.token);
                    update.push(")");
                }
                update.push(") RETURNING event_id");
                let rows: Vec<(String,)> = update
                    .build_query_as()
                    .persistent(self.cached(chunk.len()))
                    .fetch_all(&mut *tx)
                    .await?;
                finished.extend(rows);
            }
            let mut done: std::collections::HashSet<&str> =
                finished.iter().map(|(id,)| id.as_str()).collect();
            let outcome: Vec<bool> = events.iter().map(|e| done.remove(e.event_id)).collect();
            let logged: Vec<&NewMessage<'_>> = events
                .iter()
                .zip(&outcome)
                .filter(|(_, finished)| **finished)
                .map(|(e, _)| &e.message)
                .collect();
            for chunk in logged.chunks(ACCEPT_CHUNK) {
                log_rows!(chunk).build().persistent(self.cached(chunk.len())).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            Ok(outcome)
        })
    }

    /// Marks an event handled under `owner`'s claim `token`; false if the claim is no longer
    /// the latest (another process took the event over).
    pub async fn finish_event(
        self,
        event_id: &str,
        owner: &str,
        token: i64,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let n = db!(self.store, db => sqlx::query(FINISH)
            .bind(event_id)
            .bind(owner)
            .bind(token)
            .bind(now_ms)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?;
        Ok(n == 1)
    }

    /// [`crate::store::InboxStore::finish_event`], recording atomically with it what the event's
    /// turn left for its end ([`TurnWrites`]), in one [`super::batch`]. They are recorded even when
    /// the claim is no longer the latest: the answers were sent and the tokens spent.
    pub async fn finish_turn(
        self,
        event_id: &str,
        owner: &str,
        token: i64,
        now_ms: i64,
        writes: &TurnWrites<'_>,
    ) -> Result<bool, StoreError> {
        if writes.is_empty() {
            return self.finish_event(event_id, owner, token, now_ms).await;
        }
        let mut batch = super::batch::Batch::new();
        for message in &writes.incoming {
            super::chat_log::log_message_in(&mut batch, message);
        }
        for (answer, ids) in &writes.answers {
            super::chat_log::record_answer_in(&mut batch, answer, ids);
        }
        for charge in writes.charges {
            charge.add_to(&mut batch);
        }
        batch.push(FINISH).bind(event_id).bind(owner).bind(token).bind(now_ms);
        let changed = self.store.run_batch(&batch).await?;
        Ok(changed.last() == Some(&1))
    }

    /// Extends `owner`'s claim on an event to `lease_until_ms` if `owner` still holds it: the
    /// check before handling starts when the lease may have lapsed meanwhile. Returns the
    /// claim's token, which is newer than the caller's when `owner` itself claimed the event
    /// again after its lease lapsed (owners are unique per process, so the claim is still the
    /// caller's); `None` when another process took it over or it is done.
    pub async fn confirm_claim(
        self,
        event_id: &str,
        owner: &str,
        lease_until_ms: i64,
    ) -> Result<Option<i64>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_scalar(CONFIRM)
            .bind(event_id)
            .bind(owner)
            .bind(lease_until_ms)
            .fetch_optional(db)
            .await)?)
    }

    /// Renews `owner`'s leases on `held` events (id and claim token) to at least
    /// `lease_until_ms`, never shortening one; returns the ids still held (an id missing from
    /// the answer was taken over).
    pub async fn renew_events(
        self,
        owner: &str,
        held: &[(&str, i64)],
        lease_until_ms: i64,
    ) -> Result<Vec<String>, StoreError> {
        let mut renewed = Vec::with_capacity(held.len());
        for chunk in held.chunks(MATCH_CHUNK) {
            let rows: Vec<(String,)> = db!(self.store, db => {
                let mut update = sqlx::QueryBuilder::new(RENEW_HEAD);
                update.push_bind(lease_until_ms);
                update.push(RENEW_MID);
                update.push_bind(lease_until_ms);
                update.push(RENEW_WHERE);
                update.push_bind(owner);
                update.push(" AND (");
                for (i, (id, token)) in chunk.iter().enumerate() {
                    if i > 0 {
                        update.push(" OR ");
                    }
                    update.push("(event_id = ");
                    update.push_bind(*id);
                    update.push(" AND attempts = ");
                    update.push_bind(*token);
                    update.push(")");
                }
                update.push(") RETURNING event_id");
                update.build_query_as().persistent(self.cached(chunk.len())).fetch_all(db).await
            })?;
            renewed.extend(rows.into_iter().map(|(id,)| id));
        }
        Ok(renewed)
    }

    /// Claims up to `limit` unfinished events no live process holds — waiting unclaimed, or
    /// whose lease ran out — oldest first, each with a new fencing token.
    pub async fn claim_events(
        self,
        owner: &str,
        now_ms: i64,
        lease_until_ms: i64,
        limit: i64,
    ) -> Result<Vec<PendingEvent>, StoreError> {
        if limit <= 0 {
            return Ok(Vec::new());
        }
        let lease = super::Lease { owner, now_ms, until_ms: lease_until_ms };
        let mut claimed: Vec<PendingEvent> =
            self.store.claim(&CLAIM, lease, limit, &[MAX_UNFINISHED]).await?;
        // PostgreSQL returns updated rows in no particular order, and the events of one webhook
        // share a `received_at`: LINE's webhook event ids are ULIDs, ordered by time, so they
        // keep a chat's messages in the order they were sent.
        claimed.sort_by(|a, b| (a.received_at, &a.event_id).cmp(&(b.received_at, &b.event_id)));
        Ok(claimed)
    }

    /// Notes that handling of an event begins under claim `token` (what [`MAX_UNFINISHED`]
    /// counts: an event claimed by a process that died before reaching it was never tried).
    pub async fn start_event(self, event_id: &str, token: i64) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(START)
            .bind(event_id)
            .bind(token)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// Events whose handling began and did not finish [`MAX_UNFINISHED`] times and that nobody holds:
    /// poison events (or ones that crashed every process that took them), to set aside.
    pub async fn poisoned_events(self, now_ms: i64) -> Result<Vec<PendingEvent>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(POISONED)
            .bind(now_ms)
            .bind(MAX_UNFINISHED)
            .fetch_all(db)
            .await)?)
    }

    /// Sets a poisoned event aside (see [`crate::store::InboxStore::poisoned_events`]) if it is
    /// still as it was read (the same claim, unheld); false when another process did first or took
    /// it meanwhile.
    pub async fn set_aside_event(
        self,
        event_id: &str,
        attempts: i64,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        Ok(db!(self.store, db => sqlx::query(SET_ASIDE)
            .bind(event_id)
            .bind(attempts)
            .bind(now_ms)
            .execute(db)
            .await
            .map(|r| r.rows_affected() == 1))?)
    }

    /// How many events are set aside (within the inbox's retention).
    pub async fn set_aside_count(self) -> Result<i64, StoreError> {
        Ok(db!(self.store, db => sqlx::query_scalar(COUNT_SET_ASIDE).fetch_one(db).await)?)
    }

    /// How many stored events are not handled yet: waiting for a process, or in one's hands.
    pub async fn pending_events(self) -> Result<i64, StoreError> {
        Ok(db!(self.store, db => sqlx::query_scalar(COUNT_PENDING).fetch_one(db).await)?)
    }

    /// Forgets handled events finished before `before_ms`, in batches; returns how many.
    pub async fn prune(self, before_ms: i64) -> Result<u64, StoreError> {
        self.store.delete_in_batches(PRUNE, before_ms).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// SQLite's plan for claiming waiting events.
    async fn claim_plan() -> String {
        let store = Store::in_memory().await.expect("store");
        let crate::store::Backend::Sqlite(pool) = &*store.backend else {
            unreachable!("in-memory is SQLite")
        };
        let rows: Vec<(i64, i64, i64, String)> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("EXPLAIN QUERY PLAN {}", CLAIM.sqlite)))
                .bind("owner")
                .bind(0i64)
                .bind(0i64)
                .bind(1i64)
                .bind(MAX_UNFINISHED)
                .fetch_all(pool)
                .await
                .expect("plan");
        rows.into_iter().map(|(.., detail)| detail).collect::<Vec<_>>().join("\n")
    }

    #[tokio::test]
    async fn claiming_walks_the_queue_in_order_instead_of_sorting_the_backlog() {
        let plan = claim_plan().await;
        assert!(plan.contains("INDEX inbox_queue"), "{plan}");
        assert!(
            !plan.contains("TEMP B-TREE"),
            "each claim would sort every pending event:\n{plan}"
        );
    }
}
