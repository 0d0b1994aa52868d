-- A chat's settings, one typed table for all of them (`crate::features::settings`): a setting is
-- a name and its value as JSON, for the whole chat (`member_id` '') or for one member of a group
-- who set it for themselves. A new setting is a new name, not a new table. Spoken answers and the
-- weather's last place move in; their own tables go.
CREATE TABLE chat_settings (
    conversation_id TEXT NOT NULL,
    member_id       TEXT NOT NULL DEFAULT '',
    name            TEXT NOT NULL,
    value           TEXT NOT NULL,          -- JSON
    set_at          INTEGER NOT NULL,       -- Unix ms
    PRIMARY KEY (conversation_id, member_id, name)
);

INSERT INTO chat_settings (conversation_id, member_id, name, value, set_at)
SELECT conversation_id, user_id, 'spoken_answers', 'true', set_at FROM spoken_answers;

INSERT INTO chat_settings (conversation_id, member_id, name, value, set_at)
SELECT conversation_id, '', 'last_place', json_quote(place), updated_at FROM chat_places;

DROP TABLE spoken_answers;
DROP TABLE chat_places;
