-- The durable inbox: every verified webhook event is stored here before LINE gets its 200, and
-- handled from here. The id is LINE's webhookEventId, so a redelivered or duplicated event is
-- stored once. The process that stored an event holds a lease on it; when a process dies, its
-- unfinished events are claimed by another (or by itself after a restart) when the lease ends.
CREATE TABLE inbox (
    event_id         TEXT PRIMARY KEY,
    event_type       TEXT NOT NULL,
    payload          TEXT NOT NULL,        -- the event's JSON as LINE sent it
    received_at      INTEGER NOT NULL,     -- Unix ms
    status           TEXT NOT NULL,        -- pending | done
    claimed_by       TEXT,
    claim_expires_at INTEGER NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 1,
    done_at          INTEGER
);
CREATE INDEX inbox_pending ON inbox (status, claim_expires_at);
CREATE INDEX inbox_done ON inbox (done_at);

-- The ids seen so far keep deduplicating.
INSERT INTO inbox (event_id, event_type, payload, received_at, status, claim_expires_at, done_at)
    SELECT event_id, event_type, '{}', received_at, 'done', 0, received_at FROM webhook_events;
DROP TABLE webhook_events;
