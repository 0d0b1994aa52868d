-- The morning digest: at most one per conversation, pushed once a day at a local time. `next_at`
-- is the next instant it is due; a replica that moves it on (compare-and-set on its old value)
-- records that day's delivery, so each day is recorded once however many processes look.
CREATE TABLE digests (
    conversation_id     TEXT PRIMARY KEY,
    local_time          TEXT NOT NULL,          -- "07:00"
    tz                  TEXT NOT NULL,          -- IANA zone
    place               TEXT,                   -- the weather's place, as the family said it
    lang                TEXT NOT NULL,          -- zh-TW | en
    only_when_something INTEGER NOT NULL DEFAULT 0,
    next_at             INTEGER NOT NULL,       -- Unix ms
    created_by          TEXT,
    updated_at          INTEGER NOT NULL
);
CREATE INDEX digests_due ON digests (next_at);

-- One row per conversation and local day: the digest of that day, composed once (payload), pushed
-- with a deterministic retry key under a renewable claim, and what became of it.
CREATE TABLE digest_deliveries (
    conversation_id  TEXT NOT NULL,
    day              TEXT NOT NULL,             -- local date, YYYY-MM-DD
    scheduled_for    INTEGER NOT NULL,          -- Unix ms
    retry_key        TEXT NOT NULL,
    payload          TEXT,                      -- the messages, once composed
    status           TEXT NOT NULL DEFAULT 'pending', -- pending | sent | skipped | failed | held
    claimed_by       TEXT,
    claim_expires_at INTEGER NOT NULL DEFAULT 0,
    attempts         INTEGER NOT NULL DEFAULT 0,
    sent_at          INTEGER,
    PRIMARY KEY (conversation_id, day)
);
CREATE INDEX digest_deliveries_pending ON digest_deliveries (status, claim_expires_at);
