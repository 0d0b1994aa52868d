-- A push's X-Line-Retry-Key is random (UUID v4), made once when its item is recorded in the
-- outbox and stored beside it: every attempt of that item reuses it, and a new item never gets
-- an old one — not after a restore brings row ids back, not on another database. `retry_key`
-- (its historical name) stays the item's identity: the occurrence's stable name (a reminder's
-- time, an alert's fire), unique, how a loop finds its record again; it is never sent to LINE.
-- Items recorded before this change get a fresh key of their own here.
ALTER TABLE outbox ADD COLUMN line_key TEXT;
UPDATE outbox SET line_key =
    lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4'
    || substr(lower(hex(randomblob(2))), 2) || '-'
    || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-'
    || lower(hex(randomblob(6)))
WHERE line_key IS NULL;
