-- Photos recently sent to a chat, by reference only (LINE's message id, never the content): a
-- question within minutes, or a quote-reply, is answered with the photo it refers to. Rows are
-- deleted an hour after the photo was sent.
CREATE TABLE recent_photos (
    conversation_id TEXT NOT NULL,
    message_id      TEXT NOT NULL,
    user_id         TEXT,
    set_id          TEXT,                   -- LINE's imageSet id for photos sent together
    set_index       INTEGER NOT NULL,       -- place in the set from 1 (0: not in a set)
    set_total       INTEGER NOT NULL,       -- photos in the set (0: not in a set)
    at_ms           INTEGER NOT NULL,       -- when it was sent, Unix ms
    PRIMARY KEY (conversation_id, message_id)
);
CREATE INDEX recent_photos_at ON recent_photos (at_ms);
