-- The feed of changes: every change a member makes to what hearth keeps for a chat (a list's
-- thing checked off, a reminder cancelled, a dose confirmed), recorded once by the operation
-- that made it, with who made it and from where (the chat, a button, the rich menu, the family
-- page). The family page shows a chat's latest. Kept as long as the chat log, and forgotten
-- with the chat.
CREATE TABLE changes (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL,
    user_id         TEXT,                   -- who, when LINE said
    member_name     TEXT,                   -- their display name at the time
    surface         TEXT NOT NULL,          -- chat, button, menu, page, cli, loop
    verb            TEXT NOT NULL,          -- the operation's name (list_check, reminder_cancel…)
    what            TEXT NOT NULL,          -- what it was done to, as the family reads it
    at_ms           INTEGER NOT NULL
);
CREATE INDEX changes_chat ON changes (conversation_id, id);
CREATE INDEX changes_at ON changes (at_ms);
