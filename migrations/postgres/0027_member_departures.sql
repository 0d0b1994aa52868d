-- Members who left a group (memberLeft, or LINE no longer knows them there): the family page's
-- door is closed to them in that group until they are back (memberJoined). Forgotten with the
-- chat.
CREATE TABLE member_departures (
    conversation_id TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    left_at         BIGINT NOT NULL,
    PRIMARY KEY (conversation_id, user_id)
);
