-- Shared lists of a conversation ("購物清單", "露營要帶的", "待辦"). A list is named once per
-- conversation by its normalised key; its items keep who added them and when, and who checked
-- them off and when. Caps (items per list, items and lists per conversation) are decided by the
-- lists module before each change, in the same transaction.
CREATE TABLE lists (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL,
    key             TEXT NOT NULL,          -- normalised name ("shopping" for the default list)
    name            TEXT NOT NULL,          -- the name as the family first said it
    created_at      INTEGER NOT NULL,       -- Unix ms
    UNIQUE (conversation_id, key)
);

-- No foreign key to lists: an item is always read and deleted through its conversation, and a
-- list's items are deleted with it in one transaction.
CREATE TABLE list_items (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL,
    list_id         INTEGER NOT NULL,
    name            TEXT NOT NULL,          -- as the family wrote it
    key             TEXT NOT NULL,          -- normalised: the same key on one list is one item
    quantity        INTEGER NOT NULL,
    added_by        TEXT,                   -- LINE user id
    added_by_name   TEXT,                   -- display name at the time
    added_at        INTEGER NOT NULL,       -- Unix ms
    checked_by      TEXT,
    checked_by_name TEXT,
    checked_at      INTEGER,                -- NULL while open
    UNIQUE (list_id, key)
);
CREATE INDEX list_items_conversation ON list_items (conversation_id, list_id);
