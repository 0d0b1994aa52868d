-- Quiet hours of a conversation: pushes that can wait are held until the window's end.
CREATE TABLE quiet_hours (
    conversation_id TEXT PRIMARY KEY,
    start_local     TEXT NOT NULL,
    end_local       TEXT NOT NULL,
    tz              TEXT NOT NULL,
    updated_at      BIGINT NOT NULL
);
