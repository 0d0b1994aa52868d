-- A poison event is set aside, not retried forever. `started` counts the times its handling
-- began (not its claims: an event claimed in a batch by a process that died before reaching it
-- was never tried), `started_claim` is the claim (`attempts`) that began it last, and
-- `released` counts handlings a process handed back whole at a graceful shutdown. So
-- `started - released` is how many handlings ended unfinished (a crash, a kill, a lease lost);
-- after the second, the event's status becomes 'set_aside' (a dead letter: kept like a handled
-- event, counted by `hearth doctor` and /metrics) and its chat gets one apology.
ALTER TABLE inbox ADD COLUMN started INTEGER NOT NULL DEFAULT 0;
ALTER TABLE inbox ADD COLUMN started_claim INTEGER NOT NULL DEFAULT 0;
ALTER TABLE inbox ADD COLUMN released INTEGER NOT NULL DEFAULT 0;
