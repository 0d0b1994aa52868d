//! What the spending limits keep (see `crate::turn::limits`): the LLM tokens used per day by each
//! conversation and by the whole service, in single statements, atomic across replicas on one
//! database. (Who is served is kept in `access`; `refused_chats` only remembers the chats an
//! earlier allow-list refused, so upgrading does not approve them.)

use super::{Store, StoreError};

/// The scope that counts the whole service's tokens (no conversation id starts with `*`).
pub const SERVICE_SCOPE: &str = "*";

/// Tokens used on one day.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokensUsed {
    /// By the conversation asked about.
    pub chat: u64,
    /// By the whole service.
    pub service: u64,
}

const ADD_TOKENS: &str = "INSERT INTO token_usage (day, scope, tokens) VALUES ($1, $2, $4), ($1, $3, $4) ON CONFLICT (day, scope) DO UPDATE SET tokens = token_usage.tokens + excluded.tokens";
const TOKENS_USED: &str =
    "SELECT scope, tokens FROM token_usage WHERE day = $1 AND scope IN ($2, $3)";
const PRUNE_TOKENS: &str = "DELETE FROM token_usage WHERE day < $1";

/// Tokens a turn used, to count against the day's budgets of its chat and of the service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charge {
    /// The budget day (`YYYY-MM-DD` in the family's time zone).
    pub day: String,
    /// The chat.
    pub conversation_id: String,
    /// The tokens.
    pub tokens: u64,
}

impl Charge {
    /// Adds the count to `batch` (see [`Store::add_tokens`]).
    pub(super) fn add_to<'a>(&'a self, batch: &mut super::batch::Batch<'a>) {
        batch
            .push(ADD_TOKENS)
            .bind(self.day.as_str())
            .bind(self.conversation_id.as_str())
            .bind(SERVICE_SCOPE)
            .bind(i64::try_from(self.tokens).unwrap_or(i64::MAX));
    }
}

impl Store {
    /// Adds `tokens` to the day's count of the conversation and of the whole service, in one
    /// statement.
    pub async fn add_tokens(
        &self,
        day: &str,
        conversation_id: &str,
        tokens: u64,
    ) -> Result<(), StoreError> {
        let tokens = i64::try_from(tokens).unwrap_or(i64::MAX);
        db!(self, db => sqlx::query(ADD_TOKENS)
            .bind(day)
            .bind(conversation_id)
            .bind(SERVICE_SCOPE)
            .bind(tokens)
            .execute(db)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// The tokens the conversation and the whole service used on `day`.
    pub async fn tokens_used(
        &self,
        day: &str,
        conversation_id: &str,
    ) -> Result<TokensUsed, StoreError> {
        let rows: Vec<(String, i64)> = db!(self, db => sqlx::query_as(TOKENS_USED)
            .bind(day)
            .bind(conversation_id)
            .bind(SERVICE_SCOPE)
            .fetch_all(db)
            .await)?;
        let mut used = TokensUsed::default();
        for (scope, tokens) in rows {
            let tokens = u64::try_from(tokens).unwrap_or(0);
            if scope == SERVICE_SCOPE {
                used.service = tokens;
            } else {
                used.chat = tokens;
            }
        }
        Ok(used)
    }

    /// Forgets the counts of days before `day`; returns how many rows went.
    pub async fn prune_tokens(&self, day: &str) -> Result<u64, StoreError> {
        Ok(db!(self, db => sqlx::query(PRUNE_TOKENS)
            .bind(day)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?)
    }
}
