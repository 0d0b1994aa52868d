-- Photos and files recently sent in a chat, by reference only (LINE's message id, never the
-- content), in one table: a row with a file name is a file, one without is a photo (with its
-- place in an image set when sent with others). A question about "the photo" or "the file"
-- finds it here; the chat log only says `[photo]` or `[file: NAME]`, which anyone could type.
-- Rows are deleted an hour after they were sent (as new ones arrive), when unsent, and with
-- the chat. Replaces recent_photos and recent_files, which held the same for each kind.
CREATE TABLE recent_media (
    conversation_id TEXT NOT NULL,
    message_id      TEXT NOT NULL,
    user_id         TEXT,
    file_name       TEXT,                   -- a file's name; NULL for a photo
    set_id          TEXT,                   -- LINE's imageSet id for photos sent together
    set_index       INTEGER NOT NULL,       -- place in the set from 1 (0: not in a set, or a file)
    set_total       INTEGER NOT NULL,       -- photos in the set (0: not in a set, or a file)
    at_ms           INTEGER NOT NULL,        -- when it was sent, Unix ms
    PRIMARY KEY (conversation_id, message_id)
);
CREATE INDEX recent_media_at ON recent_media (at_ms);
INSERT INTO recent_media (conversation_id, message_id, user_id, file_name, set_id, set_index, set_total, at_ms)
    SELECT conversation_id, message_id, user_id, NULL, set_id, set_index, set_total, at_ms FROM recent_photos;
INSERT INTO recent_media (conversation_id, message_id, user_id, file_name, set_id, set_index, set_total, at_ms)
    SELECT conversation_id, message_id, user_id, file_name, NULL, 0, 0, at_ms FROM recent_files WHERE true
    ON CONFLICT (conversation_id, message_id) DO NOTHING;
DROP TABLE recent_photos;
DROP TABLE recent_files;
