-- Members hearth welcomed when they joined a group or room: one welcome per member per chat,
-- however often they leave and come back, whichever replica handles the event.
CREATE TABLE welcomed_members (
    conversation_id TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    welcomed_at     INTEGER NOT NULL,       -- Unix ms
    PRIMARY KEY (conversation_id, user_id)
);
