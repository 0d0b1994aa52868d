-- Webhook event ids seen (replaced by the inbox in 0006; kept so the history matches SQLite's).
CREATE TABLE webhook_events (
    event_id    TEXT PRIMARY KEY,
    event_type  TEXT NOT NULL,
    received_at BIGINT NOT NULL
);

-- The conversation log: what people said (triggered or not) and what hearth answered.
CREATE TABLE chat_log (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    message_id      TEXT,
    user_id         TEXT,
    speaker         TEXT,
    from_bot        BOOLEAN NOT NULL DEFAULT FALSE,
    text            TEXT NOT NULL,
    at_ms           BIGINT NOT NULL
);
CREATE INDEX chat_log_conversation ON chat_log (conversation_id, id);

-- Ids of messages hearth sent, to recognise a user quoting (replying to) the bot.
CREATE TABLE sent_messages (
    message_id      TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    sent_at         BIGINT NOT NULL
);

-- Display names learned from LINE's profile APIs, per conversation.
CREATE TABLE members (
    conversation_id TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    display_name    TEXT NOT NULL,
    updated_at      BIGINT NOT NULL,
    PRIMARY KEY (conversation_id, user_id)
);
