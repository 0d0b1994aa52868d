-- The family calendar (`crate::features::calendar`): a chat's events, with a place and the
-- people going, once or repeating by the reminders' rules (the same columns as `reminders`:
-- `freq` … `days_before`), and the private feeds that put them on each member's phone.
--
-- An event's times are local to `tz`: `starts_local` is "YYYY-MM-DD" for a day (all day) or
-- "YYYY-MM-DDTHH:MM"; `ends_local` the same form (all day: the last day), or NULL. `uid` and
-- `sequence` are what a phone's calendar knows it by (RFC 5545); a cancelled event is kept,
-- `cancelled_at` set, so the feed can say so.
CREATE TABLE calendar_events (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    uid             TEXT NOT NULL UNIQUE,
    title           TEXT NOT NULL,
    tz              TEXT NOT NULL,
    starts_local    TEXT NOT NULL,
    ends_local      TEXT,
    place           TEXT NOT NULL DEFAULT '',
    people          TEXT NOT NULL DEFAULT '',
    notes           TEXT NOT NULL DEFAULT '',
    freq            TEXT NOT NULL,
    every_n         BIGINT  NOT NULL DEFAULT 1,
    weekdays        BIGINT  NOT NULL DEFAULT 0,
    month_day       BIGINT,
    until_ms        BIGINT,
    max_count       BIGINT,
    lunar_days      BIGINT  NOT NULL DEFAULT 0,
    lunar_month     BIGINT,
    lunar_leap      BIGINT  NOT NULL DEFAULT 0,
    days_before     BIGINT  NOT NULL DEFAULT 0,
    sequence        BIGINT  NOT NULL DEFAULT 0,
    created_by      TEXT NOT NULL DEFAULT '',
    created_at      BIGINT  NOT NULL,               -- Unix ms
    updated_at      BIGINT  NOT NULL,
    cancelled_at    BIGINT
);

CREATE INDEX calendar_events_chat ON calendar_events (conversation_id, cancelled_at);

-- A member's private feed of a chat's events (`webcal://…/calendar/<token>.ics`), by the
-- SHA-256 of its token (derived from the postback key, the chat, the member and the salt): one
-- per member and chat; ended by 登出網頁 or with the chat, and refused once the member left.
CREATE TABLE calendar_feeds (
    token_hash      TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    salt            TEXT NOT NULL,          -- random: a feed made again is another link
    created_at      BIGINT  NOT NULL,
    UNIQUE (conversation_id, user_id)
);

-- The reminders an event's ⏰ buttons set (the day before, two hours before): they follow the
-- event when it moves and go when it is cancelled.
CREATE TABLE event_reminders (
    event_id        BIGINT NOT NULL,
    reminder_id     BIGINT NOT NULL,
    conversation_id TEXT NOT NULL,
    minutes_before  BIGINT NOT NULL,
    PRIMARY KEY (event_id, minutes_before)
);
