-- A quoted message is found in the chat log by its LINE message id.
CREATE INDEX chat_log_message ON chat_log (conversation_id, message_id);

-- Members hearth welcomed when they joined a group or room: one welcome per member per chat.
CREATE TABLE welcomed_members (
    conversation_id TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    welcomed_at     BIGINT NOT NULL,
    PRIMARY KEY (conversation_id, user_id)
);
