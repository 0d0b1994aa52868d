-- Spoken answers: a chat (user_id '') or one member of a group whose answers also come as a
-- voice message.
CREATE TABLE spoken_answers (
    conversation_id TEXT NOT NULL,
    user_id         TEXT NOT NULL DEFAULT '',
    set_at          BIGINT NOT NULL,
    PRIMARY KEY (conversation_id, user_id)
);
