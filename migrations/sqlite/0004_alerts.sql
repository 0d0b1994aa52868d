-- Price alerts: a conversation asks to be told when a symbol rises to / falls to a level.
-- Crossing detection with a dead band: last_side is the side of the level the price was last
-- seen on (outside the band); an alert fires when it moves to its target side while armed.
CREATE TABLE price_alerts (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL,
    created_by      TEXT,
    symbol          TEXT NOT NULL,             -- Yahoo symbol: 2330.TW, AAPL, BTC-USD, ^TWII
    name            TEXT,                      -- the instrument's name at creation
    currency        TEXT,
    direction       TEXT NOT NULL,             -- up | down
    level           REAL NOT NULL,
    band_pct        REAL NOT NULL DEFAULT 0.2, -- dead band around the level, percent of it
    frequency       TEXT NOT NULL,             -- once | every_time
    cooldown_s      INTEGER NOT NULL DEFAULT 3600,
    last_side       TEXT,                      -- above | below
    armed           INTEGER NOT NULL DEFAULT 1,
    fire_seq        INTEGER NOT NULL DEFAULT 0,
    last_price      REAL,
    last_fired_at   INTEGER,                   -- Unix ms
    muted_until     INTEGER,                   -- Unix ms
    tz              TEXT NOT NULL,             -- the conversation's zone, for times on the card
    lang            TEXT NOT NULL,             -- zh-TW | en
    status          TEXT NOT NULL,             -- active | triggered | cancelled
    created_at      INTEGER NOT NULL
);
CREATE INDEX price_alerts_symbol ON price_alerts (symbol, status);
CREATE INDEX price_alerts_conversation ON price_alerts (conversation_id, status);
CREATE UNIQUE INDEX price_alerts_one_active ON price_alerts (conversation_id, symbol, direction, level)
    WHERE status = 'active';

-- One row per watched symbol: when it is next fetched, who holds it, and its 429 backoff.
CREATE TABLE alert_symbols (
    symbol        TEXT PRIMARY KEY,
    next_check_at INTEGER NOT NULL,            -- Unix ms
    failures      INTEGER NOT NULL DEFAULT 0,  -- consecutive failed fetches (backoff)
    last_price    REAL,
    lease_owner   TEXT,
    lease_until   INTEGER
);
CREATE INDEX alert_symbols_due ON alert_symbols (next_check_at);

-- One row per fire: the rendered push and its retry key, written in the same transaction as the
-- fire, so every attempt (from any process) sends the identical request.
CREATE TABLE alert_deliveries (
    alert_id         INTEGER NOT NULL,
    fire_seq         INTEGER NOT NULL,
    conversation_id  TEXT NOT NULL,
    retry_key        TEXT NOT NULL,
    payload          TEXT NOT NULL,
    status           TEXT NOT NULL,            -- pending | sent | failed | failed_quota | abandoned
    attempts         INTEGER NOT NULL DEFAULT 0,
    first_attempt_at INTEGER NOT NULL,
    claimed_by       TEXT,
    claim_expires_at INTEGER NOT NULL,         -- also "not before" after a failed attempt
    sent_at          INTEGER,
    PRIMARY KEY (alert_id, fire_seq)
);
CREATE INDEX alert_deliveries_pending ON alert_deliveries (status, claim_expires_at);
CREATE INDEX alert_deliveries_conversation ON alert_deliveries (conversation_id);
