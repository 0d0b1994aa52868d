-- Facts a conversation asked hearth to remember ("記得奶奶對花生過敏"). A memory belongs to one
-- conversation and is only ever read or deleted through that conversation's id.
CREATE TABLE memories (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL,
    text            TEXT NOT NULL,
    user_id         TEXT,                   -- who asked hearth to remember it
    speaker         TEXT,                   -- their display name at the time
    created_at      INTEGER NOT NULL        -- Unix ms
);
CREATE INDEX memories_conversation ON memories (conversation_id, id);

-- Retention pruning deletes by age; an unsent message is found by its LINE id.
CREATE INDEX chat_log_at ON chat_log (at_ms);
CREATE INDEX chat_log_message ON chat_log (conversation_id, message_id);
CREATE INDEX sent_messages_sent_at ON sent_messages (sent_at);
