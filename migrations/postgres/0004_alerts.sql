-- Price alerts: a conversation asks to be told when a symbol rises to / falls to a level.
-- Crossing detection with a dead band: last_side is the side of the level the price was last
-- seen on (outside the band); an alert fires when it moves to its target side while armed.
CREATE TABLE price_alerts (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    created_by      TEXT,
    symbol          TEXT NOT NULL,             -- Yahoo symbol: 2330.TW, AAPL, BTC-USD, ^TWII
    name            TEXT,                      -- the instrument's name at creation
    currency        TEXT,
    direction       TEXT NOT NULL,             -- up | down
    level           DOUBLE PRECISION NOT NULL,
    band_pct        DOUBLE PRECISION NOT NULL DEFAULT 0.2, -- dead band around the level, percent of it
    frequency       TEXT NOT NULL,             -- once | every_time
    cooldown_s      BIGINT NOT NULL DEFAULT 3600,
    last_side       TEXT,                      -- above | below
    armed           BOOLEAN NOT NULL DEFAULT TRUE,
    fire_seq        BIGINT NOT NULL DEFAULT 0,
    last_price      DOUBLE PRECISION,
    last_fired_at   BIGINT,                   -- Unix ms
    muted_until     BIGINT,                   -- Unix ms
    tz              TEXT NOT NULL,             -- the conversation's zone, for times on the card
    lang            TEXT NOT NULL,             -- zh-TW | en
    status          TEXT NOT NULL,             -- active | triggered | cancelled
    created_at      BIGINT NOT NULL
);
CREATE INDEX price_alerts_symbol ON price_alerts (symbol, status);
CREATE INDEX price_alerts_conversation ON price_alerts (conversation_id, status);
CREATE UNIQUE INDEX price_alerts_one_active ON price_alerts (conversation_id, symbol, direction, level)
    WHERE status = 'active';

-- One row per watched symbol: when it is next fetched, who holds it, and its 429 backoff.
CREATE TABLE alert_symbols (
    symbol        TEXT PRIMARY KEY,
    next_check_at BIGINT NOT NULL,            -- Unix ms
    failures      BIGINT NOT NULL DEFAULT 0,  -- consecutive failed fetches (backoff)
    last_price    DOUBLE PRECISION,
    lease_owner   TEXT,
    lease_until   BIGINT
);
CREATE INDEX alert_symbols_due ON alert_symbols (next_check_at);

-- One row per fire: the rendered push and its retry key, written in the same transaction as the
-- fire, so every attempt (from any process) sends the identical request.
CREATE TABLE alert_deliveries (
    alert_id         BIGINT NOT NULL,
    fire_seq         BIGINT NOT NULL,
    conversation_id  TEXT NOT NULL,
    retry_key        TEXT NOT NULL,
    payload          TEXT NOT NULL,
    status           TEXT NOT NULL,            -- pending | sent | failed | failed_quota | abandoned
    attempts         BIGINT NOT NULL DEFAULT 0,
    first_attempt_at BIGINT NOT NULL,
    claimed_by       TEXT,
    claim_expires_at BIGINT NOT NULL,         -- also "not before" after a failed attempt
    sent_at          BIGINT,
    PRIMARY KEY (alert_id, fire_seq)
);
CREATE INDEX alert_deliveries_pending ON alert_deliveries (status, claim_expires_at);
CREATE INDEX alert_deliveries_conversation ON alert_deliveries (conversation_id);
