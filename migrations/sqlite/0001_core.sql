-- Webhook event ids seen, so a redelivered or duplicated event is handled once.
CREATE TABLE webhook_events (
    event_id    TEXT PRIMARY KEY,
    event_type  TEXT NOT NULL,
    received_at INTEGER NOT NULL            -- Unix ms
);
CREATE INDEX webhook_events_received ON webhook_events (received_at);

-- The conversation log: what people said (triggered or not) and what hearth answered.
CREATE TABLE chat_log (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL,
    message_id      TEXT,                   -- LINE message id, when known
    user_id         TEXT,
    speaker         TEXT,                   -- display name at the time
    from_bot        INTEGER NOT NULL DEFAULT 0,
    text            TEXT NOT NULL,
    at_ms           INTEGER NOT NULL
);
CREATE INDEX chat_log_conversation ON chat_log (conversation_id, id);

-- Ids of messages hearth sent, to recognise a user quoting (replying to) the bot.
CREATE TABLE sent_messages (
    message_id      TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    sent_at         INTEGER NOT NULL
);

-- Display names learned from LINE's profile APIs, per conversation.
CREATE TABLE members (
    conversation_id TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    display_name    TEXT NOT NULL,
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (conversation_id, user_id)
);
