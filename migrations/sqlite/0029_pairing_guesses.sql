-- The service-wide budget of pairing-code guesses (HEARTH_PAIRING_GUESSES_PER_MIN): how many
-- codes were tried in each minute window (Unix ms / 60000), across every chat and replica. A
-- code tried adds one with a single INSERT … ON CONFLICT DO UPDATE … RETURNING, so replicas on
-- one database count together and each learns its own place in the minute. Windows are kept
-- two days: `hearth doctor` reads the last day's for a minute over the budget.
CREATE TABLE pairing_guesses (
    minute  INTEGER PRIMARY KEY,
    guesses INTEGER NOT NULL
);
