-- Every table holding work under a lease names it the same way: `lease_owner` (the process
-- that holds the row) and `lease_until` (Unix ms; the lease is over at that instant, and a
-- row with no lease, or a past one, is free). Indexes on the renamed columns follow them.
ALTER TABLE reminders RENAME COLUMN claimed_by TO lease_owner;
ALTER TABLE reminders RENAME COLUMN claim_expires_at TO lease_until;
ALTER TABLE alert_deliveries RENAME COLUMN claimed_by TO lease_owner;
ALTER TABLE alert_deliveries RENAME COLUMN claim_expires_at TO lease_until;
ALTER TABLE inbox RENAME COLUMN claimed_by TO lease_owner;
ALTER TABLE inbox RENAME COLUMN claim_expires_at TO lease_until;
ALTER TABLE digest_deliveries RENAME COLUMN claimed_by TO lease_owner;
ALTER TABLE digest_deliveries RENAME COLUMN claim_expires_at TO lease_until;
ALTER TABLE outbox RENAME COLUMN claimed_by TO lease_owner;
ALTER TABLE outbox RENAME COLUMN claim_until TO lease_until;
ALTER TABLE public_alert_feed RENAME COLUMN owner TO lease_owner;
