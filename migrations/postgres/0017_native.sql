-- Members hearth welcomed when they joined a group or room: one welcome per member per chat.
CREATE TABLE welcomed_members (
    conversation_id TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    welcomed_at     BIGINT NOT NULL,
    PRIMARY KEY (conversation_id, user_id)
);
