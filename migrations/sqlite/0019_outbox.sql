-- One outbox per chat: reminders, alert fires and the digest record their rendered item here,
-- and one sender pushes everything due for a chat within a short window in one request.
-- `conversation_id` is the chat the item belongs to (where it waits for a reply when the month's
-- quota is out; forgetting that chat forgets it); `target` is the chat it is pushed to (the
-- person's 1:1 chat for a personal item set in a group). Items pushed together share the
-- `request_key` fixed before the first attempt (LINE's X-Line-Retry-Key), so every attempt of
-- a request, from any replica, carries the same items with the same key.
CREATE TABLE outbox (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id  TEXT NOT NULL,
    target           TEXT NOT NULL,
    kind             TEXT NOT NULL,            -- reminder | alert | digest
    retry_key        TEXT NOT NULL UNIQUE,     -- the item's own key (its source's)
    payload          TEXT NOT NULL,            -- JSON array of message objects
    silent           INTEGER NOT NULL DEFAULT 0, -- may go without a notification sound
    due_at           INTEGER NOT NULL,         -- Unix ms: not pushed before (quiet hours move it)
    status           TEXT NOT NULL DEFAULT 'pending', -- pending | sent | held | failed | abandoned
    request_key      TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,
    first_attempt_at INTEGER,
    claimed_by       TEXT,
    claim_until      INTEGER NOT NULL DEFAULT 0, -- also "not before" after a failed attempt
    created_at       INTEGER NOT NULL,
    done_at          INTEGER
);
CREATE INDEX outbox_due ON outbox (status, due_at);
CREATE INDEX outbox_target ON outbox (target, status);
CREATE INDEX outbox_conversation ON outbox (conversation_id);
