-- Spoken answers' audio (M4A), served to LINE by token for a day (`crate::features::speech`):
-- kept here rather than in the server's memory, so a day's answers stay served whatever their
-- number or size, after a restart too, and by any replica. Forgotten with the chat.
CREATE TABLE spoken_audio (
    token           TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    audio           BLOB NOT NULL,
    expires_at      INTEGER NOT NULL        -- Unix ms
);

CREATE INDEX spoken_audio_expiry ON spoken_audio (expires_at);
