-- LINE's monthly message quota (pushes cost one message per person reached; replies are free).

-- What hearth's pushes cost, per chat and month ('YYYY-MM' in the family's zone).
CREATE TABLE push_costs (
    conversation_id TEXT NOT NULL,
    month           TEXT NOT NULL,
    pushes          BIGINT NOT NULL,
    cost            BIGINT NOT NULL,
    PRIMARY KEY (conversation_id, month)
);

-- LINE's quota as last read each month, with what hearth had recorded as spent by then; a
-- monthly-limit 429 marks the month exhausted.
CREATE TABLE quota_readings (
    month        TEXT PRIMARY KEY,
    quota_limit  BIGINT,                 -- NULL: no limit
    used         BIGINT NOT NULL,
    recorded     BIGINT NOT NULL,
    read_at      BIGINT NOT NULL,        -- Unix ms
    exhausted_at BIGINT                  -- Unix ms
);

-- How many people a push into a group or room reaches (members count), cached.
CREATE TABLE chat_sizes (
    conversation_id TEXT PRIMARY KEY,
    members         BIGINT NOT NULL,
    checked_at      BIGINT NOT NULL
);

-- Whether a user has hearth as a friend (their 1:1 chat's id is their user id), cached.
CREATE TABLE friends (
    conversation_id TEXT PRIMARY KEY,
    is_friend       BOOLEAN NOT NULL,
    checked_at      BIGINT NOT NULL
);

-- Items that were due while the month's quota was out: the chat's next reply carries them.
CREATE TABLE held_pushes (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    summary         TEXT NOT NULL,
    held_at         BIGINT NOT NULL
);
CREATE INDEX held_pushes_conversation ON held_pushes (conversation_id, id);

-- Chats told this month that 80 % of the quota is used.
CREATE TABLE quota_warnings (
    conversation_id TEXT NOT NULL,
    month           TEXT NOT NULL,
    PRIMARY KEY (conversation_id, month)
);

-- A personal reminder or price alert set in a group may be pushed to its person's 1:1 chat
-- instead (its rows stay with the group: forgetting the group forgets them).
ALTER TABLE reminders ADD COLUMN deliver_to TEXT;
ALTER TABLE price_alerts ADD COLUMN deliver_to TEXT;
ALTER TABLE alert_deliveries ADD COLUMN deliver_to TEXT;

-- Replaced by held_pushes: items are kept, not counted as lost.
DROP TABLE push_quota_notices;
