-- The place a conversation last asked the weather for: a later question with no place is about it.
CREATE TABLE chat_places (
    conversation_id TEXT PRIMARY KEY,
    place           TEXT NOT NULL,
    updated_at      BIGINT NOT NULL
);
