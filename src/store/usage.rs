//! What the spending limits keep (see `crate::turn::limits`): the LLM tokens used per day by each
//! conversation and by the whole service, in single statements, atomic across replicas on one
//! database; beside them the turns and the tokens in their parts (input, cached, output) that
//! `hearth usage` sums by month. (Who is served is kept in `access`; `refused_chats` only remembers the chats an
//! earlier allow-list refused, so upgrading does not approve them.)

use super::{StoreError, UsageStore};

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

const ADD_TOKENS: &str = "INSERT INTO token_usage (day, scope, tokens, turns, input_tokens, cached_tokens, output_tokens) VALUES ($1, $2, $4, $5, $6, $7, $8), ($1, $3, $4, $5, $6, $7, $8) ON CONFLICT (day, scope) DO UPDATE SET tokens = token_usage.tokens + excluded.tokens, turns = token_usage.turns + excluded.turns, input_tokens = token_usage.input_tokens + excluded.input_tokens, cached_tokens = token_usage.cached_tokens + excluded.cached_tokens, output_tokens = token_usage.output_tokens + excluded.output_tokens";
const MONTH_USAGE: &str = "SELECT scope, CAST(SUM(turns) AS BIGINT), CAST(SUM(input_tokens) AS BIGINT), CAST(SUM(cached_tokens) AS BIGINT), CAST(SUM(output_tokens) AS BIGINT) FROM token_usage WHERE day >= $1 AND day < $2 GROUP BY scope";
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
    /// The same turn's tokens in their parts.
    pub parts: TokenParts,
}

/// The turns answered and the tokens they used, in their parts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenParts {
    /// Turns.
    pub turns: u64,
    /// Input (prompt) tokens, the cached ones included.
    pub input: u64,
    /// Of the input, the tokens the provider served from its prompt cache.
    pub cached: u64,
    /// Output (completion) tokens.
    pub output: u64,
}

impl TokenParts {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: TokenParts) {
        self.turns = self.turns.saturating_add(other.turns);
        self.input = self.input.saturating_add(other.input);
        self.cached = self.cached.saturating_add(other.cached);
        self.output = self.output.saturating_add(other.output);
    }
}

/// One chat's (or the whole service's, [`SERVICE_SCOPE`]) use in a month.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatUsage {
    /// The chat, or [`SERVICE_SCOPE`].
    pub scope: String,
    /// Its turns and tokens.
    pub parts: TokenParts,
}

fn db_count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Charge {
    /// Adds the count to `batch` (see [`crate::store::UsageStore::add_tokens`]).
    pub(super) fn add_to<'a>(&'a self, batch: &mut super::batch::Batch<'a>) {
        batch
            .push(ADD_TOKENS)
            .bind(self.day.as_str())
            .bind(self.conversation_id.as_str())
            .bind(SERVICE_SCOPE)
            .bind(db_count(self.tokens))
            .bind(db_count(self.parts.turns))
            .bind(db_count(self.parts.input))
            .bind(db_count(self.parts.cached))
            .bind(db_count(self.parts.output));
    }
}

impl UsageStore<'_> {
    /// Adds `tokens` (one turn's, with no parts known) to the day's count of the conversation
    /// and of the whole service, in one statement.
    pub async fn add_tokens(
        self,
        day: &str,
        conversation_id: &str,
        tokens: u64,
    ) -> Result<(), StoreError> {
        let parts = TokenParts { turns: 1, ..TokenParts::default() };
        let charge =
            Charge { day: day.into(), conversation_id: conversation_id.into(), tokens, parts };
        self.add_charge(&charge).await
    }

    /// Adds a turn's charge to the day's counts of its conversation and of the whole service,
    /// in one statement (the one [`Charge::add_to`] puts in a turn's end-of-turn batch).
    pub async fn add_charge(self, charge: &Charge) -> Result<(), StoreError> {
        let mut batch = super::batch::Batch::new();
        charge.add_to(&mut batch);
        self.store.run_batch(&batch).await.map(|_| ())
    }

    /// Each chat's turns and tokens in `month` (`YYYY-MM`), and the whole service's
    /// ([`SERVICE_SCOPE`]), in no particular order.
    pub async fn month_usage(self, month: &str) -> Result<Vec<ChatUsage>, StoreError> {
        let (from, to) = (format!("{month}-01"), format!("{month}-32"));
        let rows: Vec<(String, i64, i64, i64, i64)> = db!(self.store, db => sqlx::query_as(MONTH_USAGE)
            .bind(from.as_str())
            .bind(to.as_str())
            .fetch_all(db)
            .await)?;
        let count = |n: i64| u64::try_from(n).unwrap_or(0);
        Ok(rows
            .into_iter()
            .map(|(scope, turns, input, cached, output)| ChatUsage {
                scope,
                parts: TokenParts {
                    turns: count(turns),
                    input: count(input),
                    cached: count(cached),
                    output: count(output),
                },
            })
            .collect())
    }

    /// The tokens the conversation and the whole service used on `day`.
    pub async fn tokens_used(
        self,
        day: &str,
        conversation_id: &str,
    ) -> Result<TokensUsed, StoreError> {
        let rows: Vec<(String, i64)> = db!(self.store, db => sqlx::query_as(TOKENS_USED)
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
    pub async fn prune_tokens(self, day: &str) -> Result<u64, StoreError> {
        Ok(db!(self.store, db => sqlx::query(PRUNE_TOKENS)
            .bind(day)
            .execute(db)
            .await
            .map(|r| r.rows_affected()))?)
    }
}
