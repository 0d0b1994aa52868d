-- The family's own calendar server (`HEARTH_CALDAV_URL`, `crate::features::calendar::ops::caldav`):
-- one calendar there per chat with events, kept in step by the sync loop. `ctag` is the
-- calendar's version at the last sync; the lease keeps two replicas from syncing one chat at once.
CREATE TABLE caldav_calendars (
    conversation_id TEXT PRIMARY KEY,
    ctag            TEXT,
    lease_owner     TEXT,
    lease_until     INTEGER NOT NULL DEFAULT 0,
    synced_at       INTEGER NOT NULL DEFAULT 0      -- Unix ms; 0: never
);

-- Where each event is on the server and which of its versions both sides last agreed on: the
-- object's `ETag` and the event's `sequence` then. A later sequence is a change made in hearth,
-- another ETag a change made on the server.
CREATE TABLE caldav_objects (
    event_id        INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    href            TEXT NOT NULL,
    etag            TEXT NOT NULL,
    sequence        INTEGER NOT NULL,
    UNIQUE (conversation_id, href)
);
