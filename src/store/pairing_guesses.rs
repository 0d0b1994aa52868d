//! The service-wide count of pairing-code guesses (see `crate::turn::limits::pairing`): codes
//! tried per minute window, counted in one statement, atomic across replicas on one database.

use super::{AccessStore, StoreError};

const COUNT: &str = "INSERT INTO pairing_guesses (minute, guesses) VALUES ($1, 1) ON CONFLICT (minute) DO UPDATE SET guesses = pairing_guesses.guesses + 1 RETURNING guesses";
const OVER: &str =
    "SELECT COUNT(*), MAX(minute) FROM pairing_guesses WHERE minute >= $1 AND guesses > $2";
const PRUNE: &str = "DELETE FROM pairing_guesses WHERE minute < $1";

/// The minutes a budget of guesses was passed in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GuessesOver {
    /// How many minute windows saw more guesses than the budget.
    pub minutes: i64,
    /// The last of them (minutes since the Unix epoch), if any.
    pub last: Option<i64>,
}

impl AccessStore<'_> {
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

    /// Forgets the counts of windows before `minute`; returns how many went.
    pub async fn prune_pairing_guesses(self, minute: i64) -> Result<u64, StoreError> {
        Ok(db!(self.store, db => sqlx::query(PRUNE)
            .bind(minute)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?)
    }
}
