-- Pairing-code guesses counted per source, keyed by a SHA-256 of it (no chat's or person's id
-- is kept): each chat waiting for approval, and each person who sends a code (LINE for PC/Mac
-- may not say who: then the chat alone), per minute window (Unix ms / 60000), across replicas
-- on one database. A source over its own budget (HEARTH_PAIRING_GUESSES_PER_SOURCE) has its
-- codes not checked; another source's guesses never keep a family's right code from being
-- checked. The service-wide count (pairing_guesses) stays as the operator's alarm. Kept two
-- days, like it.
CREATE TABLE pairing_source_guesses (
    source  TEXT NOT NULL,
    minute  BIGINT NOT NULL,
    guesses BIGINT NOT NULL,
    PRIMARY KEY (source, minute)
);
CREATE INDEX pairing_source_guesses_minute ON pairing_source_guesses (minute);
