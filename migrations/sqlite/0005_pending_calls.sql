-- State-changing tool calls held for the family's confirmation: the model asked for them after
-- untrusted web content entered the turn. A tap on the confirm button (signed for the
-- conversation) runs the stored call in that same conversation; held calls expire.
CREATE TABLE pending_calls (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL,
    tool            TEXT NOT NULL,
    args            TEXT NOT NULL,          -- the raw JSON arguments, as the model sent them
    lang            TEXT NOT NULL,          -- the language of the turn (zh-TW, en)
    created_at      INTEGER NOT NULL        -- Unix ms
);
CREATE INDEX pending_calls_created ON pending_calls (created_at);
