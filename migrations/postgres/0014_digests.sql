-- The morning digest (one per conversation) and its deliveries (one per conversation and day).
CREATE TABLE digests (
    conversation_id     TEXT PRIMARY KEY,
    local_time          TEXT NOT NULL,
    tz                  TEXT NOT NULL,
    place               TEXT,
    lang                TEXT NOT NULL,
    only_when_something BOOLEAN NOT NULL DEFAULT FALSE,
    next_at             BIGINT NOT NULL,
    created_by          TEXT,
    updated_at          BIGINT NOT NULL
);
CREATE INDEX digests_due ON digests (next_at);

CREATE TABLE digest_deliveries (
    conversation_id  TEXT NOT NULL,
    day              TEXT NOT NULL,
    scheduled_for    BIGINT NOT NULL,
    retry_key        TEXT NOT NULL,
    payload          TEXT,
    status           TEXT NOT NULL DEFAULT 'pending',
    claimed_by       TEXT,
    claim_expires_at BIGINT NOT NULL DEFAULT 0,
    attempts         BIGINT NOT NULL DEFAULT 0,
    sent_at          BIGINT,
    PRIMARY KEY (conversation_id, day)
);
CREATE INDEX digest_deliveries_pending ON digest_deliveries (status, claim_expires_at);
