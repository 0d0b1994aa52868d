-- Spoken answers ("用講的回答我"): a chat whose answers also come as a voice message. `user_id`
-- is '' for the whole chat, or the one member of a group who asked for it for themselves.
CREATE TABLE spoken_answers (
    conversation_id TEXT NOT NULL,
    user_id         TEXT NOT NULL DEFAULT '',
    set_at          INTEGER NOT NULL,       -- Unix ms
    PRIMARY KEY (conversation_id, user_id)
);
