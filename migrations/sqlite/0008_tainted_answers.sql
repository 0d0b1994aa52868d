-- Answers hearth wrote after untrusted web content entered the turn (or its history): later
-- turns see them fenced as untrusted and start tainted, so state changes and outgoing requests
-- the model makes then are held for the family's confirmation.
ALTER TABLE chat_log ADD COLUMN tainted INTEGER NOT NULL DEFAULT 0;
