-- Waiting events are claimed oldest first. With an index on (status, claim_expires_at) beside
-- the one on (status, received_at), SQLite's planner chose the former and sorted every pending
-- row on each claim, so a backlog of 100,000 events cost tens of milliseconds per claim. The
-- queue index serves claiming, recovery and giving up alike.
DROP INDEX inbox_pending;
