-- Spending limits that must hold across restarts and replicas.
--
-- token_usage: LLM tokens used per day (the family's local date, YYYY-MM-DD) and scope (a
-- conversation id, or '*' for the whole service). A turn adds its tokens with one
-- INSERT … ON CONFLICT DO UPDATE, so replicas on one database count together.
CREATE TABLE token_usage (
    day    TEXT NOT NULL,
    scope  TEXT NOT NULL,
    tokens BIGINT NOT NULL,
    PRIMARY KEY (day, scope)
);

-- Chats not on the allow-list (HEARTH_ALLOWED_CHATS) that were told once that hearth is not
-- available to them; they get silence from then on.
CREATE TABLE refused_chats (
    conversation_id TEXT PRIMARY KEY,
    refused_at      BIGINT NOT NULL       -- Unix ms
);
