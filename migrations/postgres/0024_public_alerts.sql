-- Taiwan's official alerts (CAP documents from NCDR's feed), kept by their CAP identifier; the
-- feed's validators and the lease of the replica that reads it; the chats that follow them; and
-- what each chat was told, per thread of alerts (an alert with its updates and cancellations).
CREATE TABLE public_alerts (
    identifier    TEXT PRIMARY KEY,
    thread        TEXT NOT NULL,
    kind          TEXT NOT NULL,
    msg_type      TEXT NOT NULL,
    sent_at       BIGINT NOT NULL,
    expires_at    BIGINT,
    alert         TEXT,
    fetched_at    BIGINT NOT NULL,
    dispatched_at BIGINT
);
CREATE INDEX public_alerts_to_dispatch ON public_alerts (fetched_at) WHERE dispatched_at IS NULL;
CREATE INDEX public_alerts_sent ON public_alerts (sent_at);

CREATE TABLE public_alert_feed (
    id            INTEGER PRIMARY KEY,
    etag          TEXT,
    last_modified TEXT,
    owner         TEXT,
    lease_until   BIGINT NOT NULL DEFAULT 0,
    polled_at     BIGINT
);

CREATE TABLE public_alert_follows (
    conversation_id    TEXT PRIMARY KEY,
    place              TEXT,
    lang               TEXT NOT NULL,
    min_intensity      BIGINT NOT NULL DEFAULT 4,
    quiet_holds_urgent BOOLEAN NOT NULL DEFAULT FALSE,
    created_at         BIGINT NOT NULL
);

CREATE TABLE public_alert_told (
    conversation_id TEXT NOT NULL,
    identifier      TEXT NOT NULL,
    thread          TEXT NOT NULL,
    statement       TEXT NOT NULL,
    told            TEXT NOT NULL,
    told_at         BIGINT NOT NULL,
    PRIMARY KEY (conversation_id, identifier)
);
CREATE INDEX public_alert_told_thread ON public_alert_told (conversation_id, thread, told_at);
