-- The inbox is also the queue: events that wait for capacity are stored unclaimed
-- (claimed_by NULL, claim_expires_at 0, attempts 0) and taken oldest first. `attempts` is the
-- claim's fencing token: each claim increments it, and only the holder of the latest claim may
-- renew or finish the event.
CREATE INDEX inbox_queue ON inbox (status, received_at);
