-- Reminders: an anchor in a zone plus a recurrence rule; next_fire_at is the next occurrence
-- (UTC Unix ms), NULL once the series is over.
CREATE TABLE reminders (
    id                 BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id    TEXT NOT NULL,
    created_by         TEXT,
    mention_user_id    TEXT,
    mention_name       TEXT,
    text               TEXT NOT NULL,
    tz                 TEXT NOT NULL,
    anchor_local       TEXT NOT NULL,
    freq               TEXT NOT NULL,
    every_n            BIGINT NOT NULL DEFAULT 1,
    weekdays           BIGINT NOT NULL DEFAULT 0,
    month_day          BIGINT,
    until_ms           BIGINT,
    max_count          BIGINT,
    next_fire_at       BIGINT,
    next_occurrence    BIGINT NOT NULL DEFAULT 0,
    status             TEXT NOT NULL,
    snooze_of          BIGINT,
    snooze_occurrence  BIGINT,
    claimed_by         TEXT,
    claim_expires_at   BIGINT,
    created_at         BIGINT NOT NULL,
    last_fired_at      BIGINT
);
CREATE INDEX reminders_due ON reminders (status, next_fire_at);
CREATE INDEX reminders_conversation ON reminders (conversation_id, status);
CREATE UNIQUE INDEX reminders_one_snooze ON reminders (snooze_of, snooze_occurrence);

-- One row per occurrence pushed: the rendered payload and its retry key, written before the push.
CREATE TABLE reminder_deliveries (
    reminder_id      BIGINT NOT NULL,
    scheduled_for    BIGINT NOT NULL,
    conversation_id  TEXT NOT NULL,
    retry_key        TEXT NOT NULL,
    payload          TEXT NOT NULL,
    status           TEXT NOT NULL,
    attempts         BIGINT NOT NULL DEFAULT 0,
    first_attempt_at BIGINT NOT NULL,
    sent_at          BIGINT,
    PRIMARY KEY (reminder_id, scheduled_for)
);

-- Conversations whose pushes hit LINE's monthly quota, to be told on their next turn.
CREATE TABLE push_quota_notices (
    conversation_id TEXT PRIMARY KEY,
    missed          BIGINT NOT NULL,
    since_ms        BIGINT NOT NULL
);
