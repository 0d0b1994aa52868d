-- Facts a conversation asked hearth to remember; read and deleted only through that conversation.
CREATE TABLE memories (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    text            TEXT NOT NULL,
    user_id         TEXT,
    speaker         TEXT,
    created_at      BIGINT NOT NULL
);
CREATE INDEX memories_conversation ON memories (conversation_id, id);

CREATE INDEX chat_log_at ON chat_log (at_ms);
CREATE INDEX chat_log_message ON chat_log (conversation_id, message_id);
CREATE INDEX sent_messages_sent_at ON sent_messages (sent_at);
