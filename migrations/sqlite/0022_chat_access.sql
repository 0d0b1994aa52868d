-- Strangers are not served by default: a chat (a 1:1 chat's user, a group, a room) is served
-- once approved — by `hearth approve`, by a pairing code sent in it, by HEARTH_ALLOWED_CHATS,
-- or, for a group, by an approved member speaking in it. Until then it is pending: told once
-- (told_at), and nothing it sends is downloaded, parsed or sent to a model.
CREATE TABLE chat_access (
    conversation_id TEXT PRIMARY KEY,
    status          TEXT NOT NULL,        -- pending | approved | revoked
    first_seen_at   INTEGER NOT NULL,     -- Unix ms
    decided_at      INTEGER,              -- Unix ms
    decided_by      TEXT,                 -- upgrade | allow-list | cli | pairing | member
    told_at         INTEGER               -- Unix ms: when it was told it waits for approval
);

-- One-time pairing codes (`hearth pair`), kept as SHA-256 hashes: used once, before they expire;
-- a used one names the chat it approved (and is forgotten with it).
CREATE TABLE pairing_codes (
    code_hash  TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER,
    conversation_id TEXT                 -- the chat it approved
);

-- Upgrading keeps serving every chat that already used hearth: one where someone spoke, or
-- that keeps reminders, memories, lists, alerts, a digest or quiet hours — but not one an
-- earlier allow-list refused (its refusal is in the chat log as hearth's own message).
INSERT INTO chat_access (conversation_id, status, first_seen_at, decided_at, decided_by)
SELECT conversation_id, 'approved', 0, 0, 'upgrade' FROM (
    SELECT conversation_id FROM chat_log WHERE from_bot = 0
    UNION SELECT conversation_id FROM reminders
    UNION SELECT conversation_id FROM memories
    UNION SELECT conversation_id FROM lists
    UNION SELECT conversation_id FROM price_alerts
    UNION SELECT conversation_id FROM digests
    UNION SELECT conversation_id FROM quiet_hours
) AS used
WHERE conversation_id NOT IN (SELECT conversation_id FROM refused_chats);
