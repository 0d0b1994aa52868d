-- One outbox per chat: reminders, alert fires and the digest record their rendered item here,
-- and one sender pushes everything due for a chat within a short window in one request.
-- `conversation_id` is the chat the item belongs to (where it waits for a reply when the month's
-- quota is out; forgetting that chat forgets it); `target` is the chat it is pushed to. Items
-- pushed together share the `request_key` fixed before the first attempt.
CREATE TABLE outbox (
    id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id  TEXT NOT NULL,
    target           TEXT NOT NULL,
    kind             TEXT NOT NULL,
    retry_key        TEXT NOT NULL UNIQUE,
    payload          TEXT NOT NULL,
    silent           BOOLEAN NOT NULL DEFAULT FALSE,
    due_at           BIGINT NOT NULL,
    status           TEXT NOT NULL DEFAULT 'pending',
    request_key      TEXT,
    attempts         BIGINT NOT NULL DEFAULT 0,
    first_attempt_at BIGINT,
    claimed_by       TEXT,
    claim_until      BIGINT NOT NULL DEFAULT 0,
    created_at       BIGINT NOT NULL,
    done_at          BIGINT
);
CREATE INDEX outbox_due ON outbox (status, due_at);
CREATE INDEX outbox_target ON outbox (target, status);
CREATE INDEX outbox_conversation ON outbox (conversation_id);
