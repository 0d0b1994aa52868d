-- Photos recently sent to a chat, by reference only (never the content); deleted after an hour.
CREATE TABLE recent_photos (
    conversation_id TEXT NOT NULL,
    message_id      TEXT NOT NULL,
    user_id         TEXT,
    set_id          TEXT,
    set_index       INTEGER NOT NULL,
    set_total       INTEGER NOT NULL,
    at_ms           BIGINT NOT NULL,
    PRIMARY KEY (conversation_id, message_id)
);
CREATE INDEX recent_photos_at ON recent_photos (at_ms);
