//! The HTTPS certificate hearth obtains by ACME (`HEARTH_TLS_DOMAIN`), kept with the data so
//! every replica serves the same one: one replica at a time obtains or renews it, under the lease
//! ([`super::lease::TLS_CERTIFICATES`]); every replica reads it, and answers the CA's
//! TLS-ALPN-01 check from the challenge kept here, whichever replica the check reaches.

use super::{CertificateStore, StoreError};

row! {
    /// A domain's certificate as served: its chain and key (PEM), and when it is due again.
    // No `Debug`: the key is never printed.
    #[derive(Clone, PartialEq, Eq)]
    pub struct CertificateRow {
        /// The certificate chain, leaf first (PEM).
        pub cert_pem: String,
        /// Its private key (PEM).
        pub key_pem: String,
        /// When it expires, Unix ms.
        pub not_after: i64,
    }
}

const ROW: &str =
    "INSERT INTO tls_certificates (domain) VALUES ($1) ON CONFLICT (domain) DO NOTHING";
const CLAIM: &str = "UPDATE tls_certificates SET lease_owner = $2, lease_until = $3 WHERE domain = $1 AND renew_at <= $4 AND lease_until <= $4 RETURNING account, failures";
const CURRENT: &str = "SELECT cert_pem, key_pem, not_after FROM tls_certificates WHERE domain = $1 AND cert_pem IS NOT NULL AND key_pem IS NOT NULL";
const ISSUED: &str = "UPDATE tls_certificates SET account = $3, cert_pem = $4, key_pem = $5, not_after = $6, renew_at = $7, failures = 0, lease_owner = NULL, lease_until = 0 WHERE domain = $1 AND lease_owner = $2";
const KEEP_ACCOUNT: &str =
    "UPDATE tls_certificates SET account = $3 WHERE domain = $1 AND lease_owner = $2";
const FAILED: &str = "UPDATE tls_certificates SET account = CASE WHEN $3 THEN NULL ELSE account END, failures = failures + 1, lease_owner = NULL, lease_until = $4 WHERE domain = $1 AND lease_owner = $2 RETURNING failures";
const PUT_CHALLENGE: &str = "INSERT INTO tls_challenges (domain, cert_pem, key_pem, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (domain) DO UPDATE SET cert_pem = excluded.cert_pem, key_pem = excluded.key_pem, expires_at = excluded.expires_at";
const CHALLENGE: &str =
    "SELECT cert_pem, key_pem FROM tls_challenges WHERE domain = $1 AND expires_at > $2";
const DROP_CHALLENGE: &str = "DELETE FROM tls_challenges WHERE domain = $1 AND cert_pem = $2";

impl CertificateStore<'_> {
    /// Takes the lease on obtaining `domain`'s certificate for `owner` until `until_ms`, when it
    /// is due at `now_ms` (never obtained, or its renewal time has come) and no one holds it:
    /// `Some` with the ACME account's credentials kept so far and how many tries in a row
    /// failed.
    pub async fn claim(
        self,
        domain: &str,
        owner: &str,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<Option<(Option<String>, i64)>, StoreError> {
        Ok(db!(self.store, db => {
            sqlx::query(ROW).bind(domain).execute(db).await?;
            sqlx::query_as(CLAIM).bind(domain).bind(owner).bind(until_ms).bind(now_ms)
                .fetch_optional(db).await
        })?)
    }

    /// `domain`'s certificate, when one was obtained.
    pub async fn current(self, domain: &str) -> Result<Option<CertificateRow>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(CURRENT).bind(domain).fetch_optional(db).await)?)
    }

    /// Keeps the ACME `account` `owner` made under its lease, whatever comes of this try.
    pub async fn keep_account(
        self,
        domain: &str,
        owner: &str,
        account: &str,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(KEEP_ACCOUNT)
            .bind(domain).bind(owner).bind(account)
            .execute(db).await.map(|_| ()))?;
        Ok(())
    }

    /// Keeps the certificate `owner` obtained under its lease (with the `account` that did),
    /// due again at `renew_at_ms`, and gives the lease up: false when the lease was no longer
    /// its own (nothing is kept then).
    pub async fn issued(
        self,
        domain: &str,
        owner: &str,
        account: &str,
        certificate: &CertificateRow,
        renew_at_ms: i64,
    ) -> Result<bool, StoreError> {
        let kept = db!(self.store, db => sqlx::query(ISSUED)
            .bind(domain).bind(owner).bind(account)
            .bind(&certificate.cert_pem).bind(&certificate.key_pem).bind(certificate.not_after)
            .bind(renew_at_ms)
            .execute(db).await.map(|r| r.rows_affected()))?;
        Ok(kept == 1)
    }

    /// Notes that `owner`'s try failed (forgetting the account kept when `forget_account`: the
    /// CA no longer knows it) and holds the work back until `retry_at_ms`: how many tries in a
    /// row have failed.
    pub async fn failed(
        self,
        domain: &str,
        owner: &str,
        forget_account: bool,
        retry_at_ms: i64,
    ) -> Result<i64, StoreError> {
        let failures: Option<(i64,)> = db!(self.store, db => sqlx::query_as(FAILED)
            .bind(domain).bind(owner).bind(forget_account).bind(retry_at_ms)
            .fetch_optional(db).await)?;
        Ok(failures.map_or(0, |(n,)| n))
    }

    /// Keeps the TLS-ALPN-01 certificate (and key, PEM) proving `domain` until `expires_ms`.
    pub async fn put_challenge(
        self,
        domain: &str,
        cert_pem: &str,
        key_pem: &str,
        expires_ms: i64,
    ) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(PUT_CHALLENGE)
            .bind(domain).bind(cert_pem).bind(key_pem).bind(expires_ms)
            .execute(db).await.map(|_| ()))?;
        Ok(())
    }

    /// The TLS-ALPN-01 certificate and key (PEM) proving `domain` at `now_ms`, if one is
    /// waiting for the CA's check.
    pub async fn challenge(
        self,
        domain: &str,
        now_ms: i64,
    ) -> Result<Option<(String, String)>, StoreError> {
        Ok(db!(self.store, db => sqlx::query_as(CHALLENGE)
            .bind(domain).bind(now_ms)
            .fetch_optional(db).await)?)
    }

    /// Forgets `domain`'s challenge `cert_pem` once the CA has decided (another replica's
    /// later one is left).
    pub async fn drop_challenge(self, domain: &str, cert_pem: &str) -> Result<(), StoreError> {
        db!(self.store, db => sqlx::query(DROP_CHALLENGE)
            .bind(domain).bind(cert_pem)
            .execute(db).await.map(|_| ()))?;
        Ok(())
    }
}
