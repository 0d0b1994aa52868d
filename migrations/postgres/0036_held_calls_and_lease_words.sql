-- One word per concept. A state-changing call kept for the family's tap is a held call
-- (`held_calls`, was `pending_calls`); the inbox counts the attempt a handling started under
-- (`started_attempt`, was `started_claim`: a claim is the act of taking a lease, not a count).
ALTER TABLE pending_calls RENAME TO held_calls;
ALTER INDEX pending_calls_created RENAME TO held_calls_created;
ALTER TABLE inbox RENAME COLUMN started_claim TO started_attempt;
