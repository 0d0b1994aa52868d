-- Reminders: an anchor in a zone plus a recurrence rule; next_fire_at is the next occurrence
-- (UTC Unix ms), NULL once the series is over.
CREATE TABLE reminders (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id    TEXT NOT NULL,
    created_by         TEXT,
    mention_user_id    TEXT,              -- in groups: who is @mentioned on delivery
    mention_name       TEXT,
    text               TEXT NOT NULL,
    tz                 TEXT NOT NULL,
    anchor_local       TEXT NOT NULL,     -- YYYY-MM-DDTHH:MM in tz
    freq               TEXT NOT NULL,     -- once | daily | weekly | monthly | yearly
    every_n            INTEGER NOT NULL DEFAULT 1,
    weekdays           INTEGER NOT NULL DEFAULT 0,   -- bit 0 = Monday
    month_day          INTEGER,
    until_ms           INTEGER,
    max_count          INTEGER,
    next_fire_at       INTEGER,
    next_occurrence    INTEGER NOT NULL DEFAULT 0,
    status             TEXT NOT NULL,     -- active | paused | done | cancelled
    snooze_of          INTEGER,           -- a snoozed copy of this reminder's occurrence
    snooze_occurrence  INTEGER,
    claimed_by         TEXT,
    claim_expires_at   INTEGER,           -- also "not before" after a failed attempt
    created_at         INTEGER NOT NULL,
    last_fired_at      INTEGER
);
CREATE INDEX reminders_due ON reminders (status, next_fire_at);
CREATE INDEX reminders_conversation ON reminders (conversation_id, status);
CREATE UNIQUE INDEX reminders_one_snooze ON reminders (snooze_of, snooze_occurrence);

-- One row per occurrence pushed: the rendered payload and its retry key, written before the
-- push, so every attempt (from any process) sends the identical request.
CREATE TABLE reminder_deliveries (
    reminder_id      INTEGER NOT NULL,
    scheduled_for    INTEGER NOT NULL,
    conversation_id  TEXT NOT NULL,
    retry_key        TEXT NOT NULL,
    payload          TEXT NOT NULL,
    status           TEXT NOT NULL,       -- pending | sent | failed | failed_quota | abandoned
    attempts         INTEGER NOT NULL DEFAULT 0,
    first_attempt_at INTEGER NOT NULL,
    sent_at          INTEGER,
    PRIMARY KEY (reminder_id, scheduled_for)
);

-- Conversations whose pushes hit LINE's monthly quota, to be told on their next turn.
CREATE TABLE push_quota_notices (
    conversation_id TEXT PRIMARY KEY,
    missed          INTEGER NOT NULL,
    since_ms        INTEGER NOT NULL
);
