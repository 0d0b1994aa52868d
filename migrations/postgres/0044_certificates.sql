-- HTTPS by ACME (`HEARTH_TLS_DOMAIN`, `crate::server::https`): the domain's certificate, kept
-- with the data so every replica serves the same one. One replica at a time obtains or renews
-- it, under the lease; `renew_at` (Unix ms) is when it is due again (0: never obtained).
-- `account` is the ACME account's credentials (JSON), made once and used for every renewal.
CREATE TABLE tls_certificates (
    domain      TEXT PRIMARY KEY,
    account     TEXT,
    cert_pem    TEXT,
    key_pem     TEXT,
    not_after   BIGINT  NOT NULL DEFAULT 0,
    renew_at    BIGINT  NOT NULL DEFAULT 0,
    failures    BIGINT  NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until BIGINT  NOT NULL DEFAULT 0
);

-- A TLS-ALPN-01 challenge in progress: the certificate that proves control of the domain to
-- the CA, answered by whichever replica the CA's check reaches.
CREATE TABLE tls_challenges (
    domain     TEXT PRIMARY KEY,
    cert_pem   TEXT NOT NULL,
    key_pem    TEXT NOT NULL,
    expires_at BIGINT  NOT NULL
);
