//! The counts of pairing-code guesses (see `crate::turn::limits::pairing`): codes tried per
//! minute window by each source (a chat, a person) and by the whole service, each counted in one
//! statement, atomic across replicas on one database.

use super::{AccessStore, StoreError};

const COUNT: &str = "INSERT INTO pairing_guesses (minute, guesses) VALUES ($1, 1) ON CONFLICT (minute) DO UPDATE SET guesses = pairing_guesses.guesses + 1 RETURNING guesses";
const OVER: &str =
    "SELECT COUNT(*), MAX(minute) FROM pairing_guesses WHERE minute >= $1 AND guesses > $2";
const PRUNE: &str = "DELETE FROM pairing_guesses WHERE minute < $1";
const COUNT_SOURCE: &str = "INSERT INTO pairing_source_guesses (source, minute, guesses) VALUES ($1, $2, 1) ON CONFLICT (source, minute) DO UPDATE SET guesses = pairing_source_guesses.guesses + 1 RETURNING guesses";
const PRUNE_SOURCES: &str = "DELETE FROM pairing_source_guesses WHERE minute < $1";

/// The minutes a budget of guesses was passed in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GuessesOver {
    /// How many minute windows saw more guesses than the budget.
    pub minutes: i64,
    /// The last of them (minutes since the Unix epoch), if any.
    pub last: Option<i64>,
}

impl AccessStore<'_> {
    /// Counts one pairing guess of `source` (a chat, or a person) in the minute window
    /// `minute`; returns its place in that source's minute (1 for the first), across every
    /// process on this database.
    pub async fn count_source_guess(self, source: &str, minute: i64) -> Result<i64, StoreError> {
        Ok(db!(self.store, db => sqlx::query_scalar(COUNT_SOURCE)
            .bind(source)
            .bind(minute)
            .fetch_one(db)
            .await)?)
    }

    /// Counts one pairing guess in the minute window `minute`; returns its place in that
    /// minute (1 for the first), across every process on this database.
    pub async fn count_pairing_guess(self, minute: i64) -> Result<i64, StoreError> {
        Ok(db!(self.store, db => sqlx::query_scalar(COUNT).bind(minute).fetch_one(db).await)?)
    }

    /// The minute windows from `since` on in which more than `budget` guesses were counted.
    pub async fn pairing_guesses_over(
        self,
        since: i64,
        budget: u32,
    ) -> Result<GuessesOver, StoreError> {
        let (minutes, last): (i64, Option<i64>) = db!(self.store, db => sqlx::query_as(OVER)
            .bind(since)
            .bind(i64::from(budget))
            .fetch_one(db)
            .await)?;
        Ok(GuessesOver { minutes, last })
    }

    /// Forgets the counts of windows before `minute` (the service's and each source's);
    /// returns how many went.
    pub async fn prune_pairing_guesses(self, minute: i64) -> Result<u64, StoreError> {
        let mut pruned = 0;
        for sql in [PRUNE, PRUNE_SOURCES] {
            pruned += db!(self.store, db => sqlx::query(sql)
                .bind(minute)
                .execute(db)
                .await
                .map(|r| r.rows_affected()))?;
        }
        Ok(pruned)
    }
}
