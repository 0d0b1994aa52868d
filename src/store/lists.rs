//! What the store keeps for shared lists: a conversation's named lists and their items, each
//! item with who added it and when, and who checked it off and when. Every query is keyed by the
//! conversation id; nothing here can read or change another conversation's lists.
//!
//! Adding items is one transaction that reads the list as it is ([`ListState`]), lets the caller
//! decide what changes (merging duplicates and the caps are decided by `crate::features::lists`, a pure
//! function of that state) and applies the decision. Concurrent additions to one chat queue
//! behind each other: SQLite takes the write lock when the transaction begins
//! (`BEGIN IMMEDIATE`), PostgreSQL takes the conversation's advisory lock (see `capped`).

use super::{Backend, ListStore, StoreError};

row! {
    /// A list of a conversation.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct ListRow {
        /// Its id.
        pub id: i64,
        /// Its normalised name, unique in the conversation.
        pub key: String,
        /// Its name as the family first said it.
        pub name: String,
        /// When it was started, Unix ms.
        pub created_at: i64,
    }
}

row! {
    /// A list with how many of its items are open and checked.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct ListSummary {
        /// Its id.
        pub id: i64,
        /// Its normalised name.
        pub key: String,
        /// Its name.
        pub name: String,
        /// Items not checked off yet.
        pub open: i64,
        /// Items checked off.
        pub checked: i64,
    }
}

row! {
    /// An item of a list.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct ListItem {
        /// Its id.
        pub id: i64,
        /// The list it is on.
        pub list_id: i64,
        /// As the family wrote it.
        pub name: String,
        /// Normalised: one list holds one item per key.
        pub key: String,
        /// How many (1 unless a number was said or the item was added again).
        pub quantity: i64,
        /// The LINE user id of who added it.
        pub added_by: Option<String>,
        /// Their display name at the time.
        pub added_by_name: Option<String>,
        /// When, Unix ms.
        pub added_at: i64,
        /// The LINE user id of who checked it off.
        pub checked_by: Option<String>,
        /// Their display name at the time.
        pub checked_by_name: Option<String>,
        /// When it was checked off, Unix ms; `None` while open.
        pub checked_at: Option<i64>,
    }
}

impl ListItem {
    /// True while the item is not checked off.
    pub fn is_open(&self) -> bool {
        self.checked_at.is_none()
    }
}

/// A list as it is when items are about to be added: what a decision is made from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListState {
    /// The list, if the conversation has it already.
    pub list: Option<ListRow>,
    /// Its items, oldest first.
    pub items: Vec<ListItem>,
    /// How many lists the conversation has.
    pub lists_in_chat: usize,
    /// How many items all the conversation's lists hold.
    pub items_in_chat: usize,
}

/// One change to a list's items, decided from a [`ListState`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemChange {
    /// A new item.
    Add {
        /// As the family wrote it.
        name: String,
        /// Normalised.
        key: String,
        /// How many.
        quantity: i64,
    },
    /// An item already on the list, now open with this quantity: a duplicate merged into an open
    /// item, or a checked-off item needed again (then it counts as added by the new person).
    Reopen {
        /// The item.
        id: i64,
        /// Its new quantity.
        quantity: i64,
    },
}

/// Who adds items to which list, and when.
#[derive(Debug, Clone)]
pub struct ListEdit<'a> {
    /// The conversation.
    pub conversation_id: &'a str,
    /// The list's normalised name.
    pub key: &'a str,
    /// Its name, used when the list is new.
    pub name: &'a str,
    /// The LINE user id of who asked.
    pub user_id: Option<&'a str>,
    /// Their display name.
    pub user_name: Option<&'a str>,
    /// When, Unix ms.
    pub at_ms: i64,
}

/// What checking off an item found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    /// Checked off now.
    Now(ListItem),
    /// Someone had checked it off already.
    Already(ListItem),
    /// The conversation has no such item (cleared, or never there).
    Gone,
}

const LISTS: &str = "SELECT l.id, l.key, l.name, COUNT(CASE WHEN i.id IS NOT NULL AND i.checked_at IS NULL THEN 1 END) AS open, COUNT(i.checked_at) AS checked FROM lists AS l LEFT JOIN list_items AS i ON i.list_id = l.id AND i.conversation_id = l.conversation_id WHERE l.conversation_id = $1 GROUP BY l.id, l.key, l.name ORDER BY l.id";
const LIST_BY_KEY: &str =
    "SELECT id, key, name, created_at FROM lists WHERE conversation_id = $1 AND key = $2";
const LIST_BY_ID: &str =
    "SELECT id, key, name, created_at FROM lists WHERE conversation_id = $1 AND id = $2";
const ITEMS: &str = "SELECT id, list_id, name, key, quantity, added_by, added_by_name, added_at, checked_by, checked_by_name, checked_at FROM list_items WHERE conversation_id = $1 AND list_id = $2 ORDER BY id";
const ITEM: &str = "SELECT id, list_id, name, key, quantity, added_by, added_by_name, added_at, checked_by, checked_by_name, checked_at FROM list_items WHERE conversation_id = $1 AND id = $2";
const COUNT_LISTS: &str = "SELECT COUNT(*) FROM lists WHERE conversation_id = $1";
const COUNT_ITEMS: &str = "SELECT COUNT(*) FROM list_items WHERE conversation_id = $1";
const NEW_LIST: &str = "INSERT INTO lists (conversation_id, key, name, created_at) VALUES ($1, $2, $3, $4) RETURNING id, key, name, created_at";
const ADD_ITEM: &str = "INSERT INTO list_items (conversation_id, list_id, name, key, quantity, added_by, added_by_name, added_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
const REOPEN_ITEM: &str = "UPDATE list_items SET quantity = $3, added_by = CASE WHEN checked_at IS NULL THEN added_by ELSE $4 END, added_by_name = CASE WHEN checked_at IS NULL THEN added_by_name ELSE $5 END, added_at = CASE WHEN checked_at IS NULL THEN added_at ELSE $6 END, checked_by = NULL, checked_by_name = NULL, checked_at = NULL WHERE conversation_id = $1 AND id = $2";
const UNCHECK_ITEM: &str = "UPDATE list_items SET checked_by = NULL, checked_by_name = NULL, checked_at = NULL WHERE conversation_id = $1 AND id = $2 AND checked_at IS NOT NULL RETURNING name";
const CHECK_ITEM: &str = "UPDATE list_items SET checked_by = $3, checked_by_name = $4, checked_at = $5 WHERE conversation_id = $1 AND id = $2 AND checked_at IS NULL RETURNING id, list_id, name, key, quantity, added_by, added_by_name, added_at, checked_by, checked_by_name, checked_at";
const REMOVE_ITEM: &str = "DELETE FROM list_items WHERE conversation_id = $1 AND id = $2 RETURNING id, list_id, name, key, quantity, added_by, added_by_name, added_at, checked_by, checked_by_name, checked_at";
const CLEAR_CHECKED: &str =
    "DELETE FROM list_items WHERE conversation_id = $1 AND list_id = $2 AND checked_at IS NOT NULL";
const CLEAR_ITEMS: &str = "DELETE FROM list_items WHERE conversation_id = $1 AND list_id = $2";
const DELETE_LIST: &str = "DELETE FROM lists WHERE conversation_id = $1 AND id = $2";

impl ListStore<'_> {
    /// The conversation's lists, oldest first, with their counts of open and checked items.
    pub async fn of_chat(self, conversation_id: &str) -> Result<Vec<ListSummary>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(LISTS).bind(conversation_id).fetch_all(db).await)?)
    }

    /// The list named `key` of the conversation with its items, oldest first.
    pub async fn list_by_key(
        self,
        conversation_id: &str,
        key: &str,
    ) -> Result<Option<(ListRow, Vec<ListItem>)>, StoreError> {
        let list: Option<ListRow> = db!(self.store, db => sqlx::query_as(LIST_BY_KEY)
            .bind(conversation_id)
            .bind(key)
            .fetch_optional(db)
            .await)?;
        self.with_items(conversation_id, list).await
    }

    /// List `id` of the conversation with its items, oldest first.
    pub async fn list_by_id(
        self,
        conversation_id: &str,
        id: i64,
    ) -> Result<Option<(ListRow, Vec<ListItem>)>, StoreError> {
        let list: Option<ListRow> = db!(self.store, db => sqlx::query_as(LIST_BY_ID)
            .bind(conversation_id)
            .bind(id)
            .fetch_optional(db)
            .await)?;
        self.with_items(conversation_id, list).await
    }

    async fn with_items(
        self,
        conversation_id: &str,
        list: Option<ListRow>,
    ) -> Result<Option<(ListRow, Vec<ListItem>)>, StoreError> {
        let Some(list) = list else { return Ok(None) };
        let items = db!(self.store, db => sqlx::query_as(ITEMS)
            .bind(conversation_id)
            .bind(list.id)
            .fetch_all(db)
            .await)?;
        Ok(Some((list, items)))
    }

    /// Adds to the list `edit` names (started if the conversation does not have it): `decide`
    /// reads the list as it is and says what changes, or refuses; its decision is applied in the
    /// same transaction. Returns the list and its items afterwards.
    pub async fn add_to_list<E: From<StoreError>>(
        self,
        edit: &ListEdit<'_>,
        decide: impl FnOnce(&ListState) -> Result<Vec<ItemChange>, E>,
    ) -> Result<(ListRow, Vec<ListItem>), E> {
        let conversation = edit.conversation_id;
        let begin = self.write_transaction();
        let outcome: Result<Result<(ListRow, Vec<ListItem>), E>, sqlx::Error> = db!(self.store, db => {
            async {
                transaction!(db, tx, begin);
                if let Some(lock) = self.store.conversation_lock() {
                    sqlx::query(lock).bind(conversation).execute(&mut *tx).await?;
                }
                let list: Option<ListRow> = sqlx::query_as(LIST_BY_KEY)
                    .bind(conversation)
                    .bind(edit.key)
                    .fetch_optional(&mut *tx)
                    .await?;
                let items: Vec<ListItem> = match &list {
                    Some(l) => {
                        sqlx::query_as(ITEMS).bind(conversation).bind(l.id).fetch_all(&mut *tx).await?
                    }
                    None => Vec::new(),
                };
                let (lists_in_chat,): (i64,) =
                    sqlx::query_as(COUNT_LISTS).bind(conversation).fetch_one(&mut *tx).await?;
                let (items_in_chat,): (i64,) =
                    sqlx::query_as(COUNT_ITEMS).bind(conversation).fetch_one(&mut *tx).await?;
                let state = ListState {
                    list,
                    items,
                    lists_in_chat: usize::try_from(lists_in_chat).unwrap_or(usize::MAX),
                    items_in_chat: usize::try_from(items_in_chat).unwrap_or(usize::MAX),
                };
                let changes = match decide(&state) {
                    Ok(changes) => changes,
                    Err(refused) => return Ok(Err(refused)),
                };
                let list = match state.list {
                    Some(list) => list,
                    None => {
                        sqlx::query_as(NEW_LIST)
                            .bind(conversation)
                            .bind(edit.key)
                            .bind(edit.name)
                            .bind(edit.at_ms)
                            .fetch_one(&mut *tx)
                            .await?
                    }
                };
                for change in &changes {
                    match change {
                        ItemChange::Add { name, key, quantity } => {
                            sqlx::query(ADD_ITEM)
                                .bind(conversation)
                                .bind(list.id)
                                .bind(name)
                                .bind(key)
                                .bind(quantity)
                                .bind(edit.user_id)
                                .bind(edit.user_name)
                                .bind(edit.at_ms)
                                .execute(&mut *tx)
                                .await?;
                        }
                        ItemChange::Reopen { id, quantity } => {
                            sqlx::query(REOPEN_ITEM)
                                .bind(conversation)
                                .bind(id)
                                .bind(quantity)
                                .bind(edit.user_id)
                                .bind(edit.user_name)
                                .bind(edit.at_ms)
                                .execute(&mut *tx)
                                .await?;
                        }
                    }
                }
                let items: Vec<ListItem> =
                    sqlx::query_as(ITEMS).bind(conversation).bind(list.id).fetch_all(&mut *tx).await?;
                tx.commit().await?;
                Ok(Ok((list, items)))
            }
            .await
        });
        outcome.map_err(|e| E::from(StoreError::Database(e)))?
    }

    /// Checks off item `id` of the conversation for `user_id` (`user_name`) at `at_ms`.
    pub async fn check_list_item(
        self,
        conversation_id: &str,
        id: i64,
        user_id: Option<&str>,
        user_name: Option<&str>,
        at_ms: i64,
    ) -> Result<Checked, StoreError> {
        let checked: Option<ListItem> = db!(self.store, db => sqlx::query_as(CHECK_ITEM)
            .bind(conversation_id)
            .bind(id)
            .bind(user_id)
            .bind(user_name)
            .bind(at_ms)
            .fetch_optional(db)
            .await)?;
        if let Some(item) = checked {
            return Ok(Checked::Now(item));
        }
        let item: Option<ListItem> = db!(self.store, db => sqlx::query_as(ITEM)
            .bind(conversation_id)
            .bind(id)
            .fetch_optional(db)
            .await)?;
        Ok(item.map_or(Checked::Gone, Checked::Already))
    }

    /// Puts checked item `id` of the conversation back on its list (the family page's ↩): its
    /// name, or none when it was not checked (or not there).
    pub async fn uncheck_list_item(
        self,
        conversation_id: &str,
        id: i64,
    ) -> Result<Option<String>, StoreError> {
        let row: Option<(String,)> = db!(self.store, db => sqlx::query_as(UNCHECK_ITEM)
            .bind(conversation_id)
            .bind(id)
            .fetch_optional(db)
            .await)?;
        Ok(row.map(|(name,)| name))
    }

    /// Removes item `id` of the conversation; returns it, or `None` if it was not there.
    pub async fn remove_list_item(
        self,
        conversation_id: &str,
        id: i64,
    ) -> Result<Option<ListItem>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(REMOVE_ITEM)
            .bind(conversation_id)
            .bind(id)
            .fetch_optional(db)
            .await)?)
    }

    /// Removes the checked-off items of list `list_id` (`only_checked`), or the whole list with
    /// its items; returns how many items went.
    pub async fn clear_list(
        self,
        conversation_id: &str,
        list_id: i64,
        only_checked: bool,
    ) -> Result<u64, StoreError> {
        let clear = if only_checked { CLEAR_CHECKED } else { CLEAR_ITEMS };
        Ok(db!(self.store, db => {
            transaction!(db, tx);
            let removed = sqlx::query(clear)
                .bind(conversation_id)
                .bind(list_id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            if !only_checked {
                sqlx::query(DELETE_LIST).bind(conversation_id).bind(list_id).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            removed
        }))
    }

    /// The statement that begins a transaction which will write: on SQLite it takes the write
    /// lock at once, so a concurrent writer waits instead of failing on a stale read.
    pub(super) fn write_transaction(self) -> &'static str {
        match &*self.store.backend {
            Backend::Sqlite(_) => "BEGIN IMMEDIATE",
            Backend::Postgres(_) => "BEGIN",
        }
    }
}
