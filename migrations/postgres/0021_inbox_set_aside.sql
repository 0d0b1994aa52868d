-- A poison event is set aside, not retried forever: `released` counts the claims a process
-- handed back whole at a graceful shutdown, so `attempts - released` is how many claims ended
-- unfinished (a crash, a kill, a lease lost). After the second, the event's status becomes
-- 'set_aside' (a dead letter: kept like a handled event, counted by `hearth doctor` and
-- /metrics) and its chat gets one apology.
ALTER TABLE inbox ADD COLUMN released BIGINT NOT NULL DEFAULT 0;
