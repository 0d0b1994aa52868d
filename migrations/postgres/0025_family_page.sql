-- The family page: one-time links minted for a person in a chat (kept by the SHA-256 of their
-- token, valid 10 minutes, used once) and the sessions they open (30 days, one chat each, ended
-- by the member, and forgotten with the chat).
CREATE TABLE web_links (
    token_hash      TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    lang            TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    used_at         BIGINT
);

CREATE TABLE web_sessions (
    token_hash      TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    lang            TEXT NOT NULL,
    csrf            TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL
);
CREATE INDEX web_sessions_member ON web_sessions (conversation_id, user_id);
