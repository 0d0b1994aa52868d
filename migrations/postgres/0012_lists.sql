-- Shared lists of a conversation; items keep who added and who checked them, and when.
CREATE TABLE lists (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    key             TEXT NOT NULL,
    name            TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    UNIQUE (conversation_id, key)
);

CREATE TABLE list_items (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    list_id         BIGINT NOT NULL,
    name            TEXT NOT NULL,
    key             TEXT NOT NULL,
    quantity        BIGINT NOT NULL,
    added_by        TEXT,
    added_by_name   TEXT,
    added_at        BIGINT NOT NULL,
    checked_by      TEXT,
    checked_by_name TEXT,
    checked_at      BIGINT,
    UNIQUE (list_id, key)
);
CREATE INDEX list_items_conversation ON list_items (conversation_id, list_id);
