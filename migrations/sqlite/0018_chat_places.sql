-- The place a conversation last asked the weather for ("高雄明天會下雨嗎"): a later "要帶傘嗎"
-- with no place named is about it.
CREATE TABLE chat_places (
    conversation_id TEXT PRIMARY KEY,
    place           TEXT NOT NULL,          -- as the family named it ("高雄")
    updated_at      INTEGER NOT NULL        -- Unix ms
);
