-- State-changing tool calls held for the family's confirmation after untrusted web content
-- entered the turn; a signed tap in the same conversation runs them. Held calls expire.
CREATE TABLE pending_calls (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    tool            TEXT NOT NULL,
    args            TEXT NOT NULL,
    lang            TEXT NOT NULL,
    created_at      BIGINT NOT NULL
);
CREATE INDEX pending_calls_created ON pending_calls (created_at);
