//! Forgetting a conversation that removed hearth (left the group, blocked the bot): every row
//! kept about it goes, in one transaction. The tables to clear are not a hand-kept list: they
//! are read from the database's own catalogue at that moment — every table with a
//! `conversation_id` column — so a table added later cannot be forgotten. Every table that
//! holds a conversation's data (deliveries included) carries that column; the tables without
//! it hold no one conversation's data: the inbox of webhook events (a few minutes' work, pruned
//! once handled), the watched symbols shared by every conversation, and the migration record.
//! One row is kept: a chat's revocation (`chat_access` revoked), so that blocking and unblocking
//! hearth, or removing and re-inviting it, does not undo it (`crate::door`).

use super::{Backend, Store, StoreError};

/// What was deleted when a conversation removed hearth.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Removed {
    /// Messages of the chat log.
    pub messages: u64,
    /// Memories.
    pub memories: u64,
    /// Reminders (with their delivery records).
    pub reminders: u64,
    /// Price alerts (with their delivery records).
    pub alerts: u64,
}

impl Removed {
    /// The counts worth logging, out of the rows deleted per table.
    fn from_tables(deleted: &[(String, u64)]) -> Self {
        let count = |name: &str| deleted.iter().find(|(t, _)| t == name).map_or(0, |(_, n)| *n);
        Self {
            messages: count("chat_log"),
            memories: count("memories"),
            reminders: count("reminders"),
            alerts: count("price_alerts"),
        }
    }
}

/// The tables with a `conversation_id` column, from SQLite's catalogue.
const SQLITE_CHAT_TABLES: &str = "SELECT m.name FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS c WHERE m.type = 'table' AND c.name = 'conversation_id' ORDER BY m.name";
/// The tables with a `conversation_id` column in the current schema, from PostgreSQL's
/// catalogue.
const POSTGRES_CHAT_TABLES: &str = "SELECT c.table_name::text FROM information_schema.columns AS c JOIN information_schema.tables AS t ON t.table_schema = c.table_schema AND t.table_name = c.table_name WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.column_name = 'conversation_id' ORDER BY 1";

impl Store {
    /// Deletes everything kept about a conversation that removed hearth, in one transaction:
    /// the rows of every table with a `conversation_id` column (its log, memories, reminders
    /// and price alerts with their delivery records, held calls, the ids of hearth's messages,
    /// cached names, quota notices, and whatever a later migration adds).
    pub async fn forget_conversation(&self, conversation_id: &str) -> Result<Removed, StoreError> {
        let catalogue = match &*self.backend {
            Backend::Sqlite(_) => SQLITE_CHAT_TABLES,
            Backend::Postgres(_) => POSTGRES_CHAT_TABLES,
        };
        let deleted = db!(self, db => {
            transaction!(db, tx);
            let tables: Vec<(String,)> = sqlx::query_as(catalogue).fetch_all(&mut *tx).await?;
            let mut deleted = Vec::with_capacity(tables.len());
            for (table,) in tables {
                let mut sql =
                    format!("DELETE FROM {} WHERE conversation_id = $1", quote_ident(&table));
                if table == "chat_access" {
                    // Revoked stays revoked: a chat that blocks and unblocks hearth, or removes
                    // and re-invites it, is not approved again by it.
                    sql.push_str(" AND status <> 'revoked'");
                }
                let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
                    .bind(conversation_id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                deleted.push((table, rows));
            }
            tx.commit().await?;
            deleted
        });
        Ok(Removed::from_tables(&deleted))
    }
}

/// `name` as a quoted SQL identifier (the same syntax on both backends).
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_quoted_with_inner_quotes_doubled() {
        assert_eq!(quote_ident("chat_log"), "\"chat_log\"");
        assert_eq!(quote_ident("a\"b"), "\"a\"\"b\"");
    }

    #[test]
    fn removed_counts_come_from_their_tables_and_others_are_not_counted() {
        let deleted = [
            ("chat_log".to_string(), 3),
            ("memories".to_string(), 2),
            ("reminders".to_string(), 1),
            ("price_alerts".to_string(), 4),
            ("members".to_string(), 9),
        ];
        assert_eq!(
            Removed::from_tables(&deleted),
            Removed { messages: 3, memories: 2, reminders: 1, alerts: 4 }
        );
    }
}
