-- Files recently shared in a chat, by reference only (LINE's message id and the file's name,
-- never the content), so a question about "the file" finds it. Kept apart from the chat log,
-- where a file only appears as `[file: NAME]` text that anyone could also type. Rows are
-- deleted an hour after the file was sent (as new ones arrive), when the file is unsent, and
-- with the chat.
CREATE TABLE recent_files (
    conversation_id TEXT NOT NULL,
    message_id      TEXT NOT NULL,
    user_id         TEXT,
    file_name       TEXT NOT NULL,
    at_ms           INTEGER NOT NULL,      -- when it was sent, Unix ms
    PRIMARY KEY (conversation_id, message_id)
);
CREATE INDEX recent_files_at ON recent_files (at_ms);
