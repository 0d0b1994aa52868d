-- Quiet hours of a conversation ("晚上十點到早上七點不要吵"): pushes that can wait (alert fires,
-- the digest) are held until `end_local`; reminders the family set for those hours still fire.
CREATE TABLE quiet_hours (
    conversation_id TEXT PRIMARY KEY,
    start_local     TEXT NOT NULL,          -- "22:00"
    end_local       TEXT NOT NULL,          -- "07:00" (before start: the window crosses midnight)
    tz              TEXT NOT NULL,          -- IANA zone
    updated_at      INTEGER NOT NULL        -- Unix ms
);
