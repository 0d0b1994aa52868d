//! HTTPS built in (`HEARTH_TLS_DOMAIN`): `serve` also listens on `HEARTH_TLS_LISTEN` (443),
//! obtains the domain's certificate by ACME itself and renews it with a third of its life left,
//! without a restart. The CA checks the domain by TLS-ALPN-01 on that same port, so no port 80
//! is needed.
//!
//! The certificate is kept with the data (`tls_certificates`): one replica at a time obtains or
//! renews it under the lease, every replica serves the one kept (read again each
//! `HEARTH_TLS_CHECK_SECS`), and the CA's check is answered from the challenge kept in the
//! store by whichever replica it reaches.

pub mod acme;
pub mod certificate;

use std::sync::{Arc, RwLock};
use std::time::Duration;

use jiff::SignedDuration;
use rustls::ServerConfig;
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;

use self::acme::Acme;
use self::certificate::{ACME_TLS_ALPN, CertificateError};
use crate::platform::clock::Clock;
use crate::platform::config::Config;
use crate::store::{Store, StoreError};

/// How long one replica holds the work of obtaining a certificate.
const LEASE: SignedDuration = SignedDuration::from_mins(10);
/// How long a challenge read from the store answers handshakes before it is read again.
const CHALLENGE_REREAD: Duration = Duration::from_secs(1);

/// Why HTTPS could not be set up or a look at the certificate failed.
#[derive(Debug, thiserror::Error)]
pub enum HttpsError {
    /// `HEARTH_ACME_CA_ROOT` could not be read or used.
    #[error("HEARTH_ACME_CA_ROOT {0}")]
    CaRoot(String),
    /// The HTTP client could not be built.
    #[error("the HTTP client for the CA: {0}")]
    Client(#[from] reqwest::Error),
    /// The kept certificate cannot be served.
    #[error(transparent)]
    Certificate(#[from] CertificateError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a look at the certificate did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Round {
    /// A certificate (new here) is now served.
    pub loaded: bool,
    /// This replica obtained one from the CA.
    pub obtained: bool,
    /// This replica tried and failed (logged with the CA's reason).
    pub failed: bool,
}

/// The certificate being served, as kept.
struct Served {
    cert_pem: String,
    config: Arc<ServerConfig>,
}

/// The domain's HTTPS: its certificate (served, kept, renewed) and the CA.
pub struct Https {
    domain: String,
    store: Store,
    clock: Arc<dyn Clock>,
    owner: String,
    acme: Acme,
    every: Duration,
    served: RwLock<Option<Served>>,
    /// The challenge last read from the store, and when.
    challenge_read: tokio::sync::Mutex<Option<(std::time::Instant, Option<Arc<ServerConfig>>)>>,
}

impl Https {
    /// The HTTPS `config` asks for (`None` without `HEARTH_TLS_DOMAIN`), keeping its
    /// certificate in `store`; `owner` names this process in the lease.
    pub fn from_config(
        config: &Config,
        store: Store,
        clock: Arc<dyn Clock>,
        owner: String,
    ) -> Result<Option<Arc<Self>>, HttpsError> {
        let settings = &config.https;
        let Some(domain) = settings.domain() else { return Ok(None) };
        let builder = match &settings.acme_ca_root {
            Some(path) => {
                let pem = std::fs::read(path)
                    .map_err(|e| HttpsError::CaRoot(format!("{}: {e}", path.display())))?;
                crate::platform::tls::client_trusting(&pem).map_err(HttpsError::CaRoot)?
            }
            None => crate::platform::tls::client_builder(),
        };
        let http = builder
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(30))
            .build()?;
        Ok(Some(Arc::new(Self {
            acme: Acme::new(&settings.acme_directory, &settings.acme_email, http),
            domain,
            store,
            clock,
            owner,
            every: Duration::from_secs(settings.tls_check_secs.max(1)),
            served: RwLock::new(None),
            challenge_read: tokio::sync::Mutex::new(None),
        })))
    }

    /// The domain served.
    pub fn domain(&self) -> &str {
        &self.domain
    }

    /// How often the certificate is looked at.
    pub fn every(&self) -> Duration {
        self.every
    }

    /// One look at the certificate: serves the one kept if it is new here; when it is due
    /// (never obtained, or a third of its life left) and no other replica is at it, obtains
    /// one from the CA, keeps it and serves it.
    pub async fn tick(&self) -> Result<Round, HttpsError> {
        let loaded = self.load().await.unwrap_or_else(|e| {
            // Not served, but not in the way of obtaining a new one either.
            tracing::error!(domain = self.domain, error = %e, "the kept HTTPS certificate is not served");
            false
        });
        let mut round = Round { loaded, ..Round::default() };
        let now = self.clock.now();
        let until = now.as_millisecond().saturating_add(LEASE.as_millis() as i64);
        let certificates = self.store.certificates();
        let Some((account, failures)) =
            certificates.claim(&self.domain, &self.owner, now.as_millisecond(), until).await?
        else {
            return Ok(round);
        };
        tracing::info!(domain = self.domain, "obtaining the HTTPS certificate");
        let kept_by = (&self.store, self.owner.as_str());
        let obtained =
            self.acme.obtain(&self.domain, account.as_deref(), kept_by, now.as_millisecond());
        match obtained.await {
            Ok(got) => {
                let renew_at = got.renew_at;
                let kept = certificates
                    .issued(
                        &self.domain,
                        &self.owner,
                        &got.account,
                        &got.certificate,
                        renew_at.as_millisecond(),
                    )
                    .await?;
                if !kept {
                    tracing::warn!(
                        domain = self.domain,
                        "a certificate obtained after the lease ended: not kept"
                    );
                    return Ok(round);
                }
                tracing::info!(domain = self.domain, %renew_at, "HTTPS certificate obtained");
                round.obtained = true;
                round.loaded |= self.load().await?;
            }
            Err(e) => {
                let wait = certificate::retry_after(failures + 1);
                let retry_at = self.clock.now().checked_add(wait).unwrap_or(now);
                // The account (kept as soon as it was made) stays for the next try, unless it
                // is what failed.
                let forget = e.account_unusable();
                certificates
                    .failed(&self.domain, &self.owner, forget, retry_at.as_millisecond())
                    .await?;
                tracing::error!(domain = self.domain, error = %e, %retry_at, "no HTTPS certificate obtained");
                round.failed = true;
            }
        }
        Ok(round)
    }

    /// Serves the certificate kept, when it is not the one served: whether it changed.
    async fn load(&self) -> Result<bool, HttpsError> {
        let Some(kept) = self.store.certificates().current(&self.domain).await? else {
            return Ok(false);
        };
        let same = self
            .served
            .read()
            .is_ok_and(|served| served.as_ref().is_some_and(|s| s.cert_pem == kept.cert_pem));
        if same {
            return Ok(false);
        }
        let config = certificate::server_config(&kept.cert_pem, &kept.key_pem, b"http/1.1")?;
        if kept.not_after <= self.clock.now().as_millisecond() {
            tracing::warn!(
                domain = self.domain,
                "the kept HTTPS certificate has expired: served until a new one comes"
            );
        }
        if let Ok(mut served) = self.served.write() {
            *served = Some(Served { cert_pem: kept.cert_pem, config });
        }
        Ok(true)
    }

    /// The TLS handshake of a connection to the HTTPS port, within `within`: the stream to
    /// serve HTTP on, or `None` when there is nothing to serve (no certificate yet, a failed
    /// handshake, or the CA's TLS-ALPN-01 check, which ends with the handshake).
    pub async fn handshake(
        &self,
        stream: TcpStream,
        within: Duration,
    ) -> Option<TlsStream<TcpStream>> {
        let acceptor =
            tokio_rustls::LazyConfigAcceptor::new(rustls::server::Acceptor::default(), stream);
        let start = tokio::time::timeout(within, acceptor).await.ok()?.ok()?;
        let hello = start.client_hello();
        let checking = hello.alpn().is_some_and(|mut offered| offered.any(|p| p == ACME_TLS_ALPN));
        if checking {
            let named = hello.server_name().is_some_and(|n| n.eq_ignore_ascii_case(&self.domain));
            let challenge = tokio::time::timeout(within, self.challenge()).await.ok().flatten();
            if named && let Some(config) = challenge {
                let _ = tokio::time::timeout(within, start.into_stream(config)).await;
            }
            return None;
        }
        let config = self.served.read().ok()?.as_ref()?.config.clone();
        tokio::time::timeout(within, start.into_stream(config)).await.ok()?.ok()
    }

    /// The configuration that answers the CA's check, while a challenge is kept. Anyone can
    /// offer `acme-tls/1`: the store is read at most once a second by this process, one
    /// handshake at a time, and the others share what it read.
    async fn challenge(&self) -> Option<Arc<ServerConfig>> {
        let mut read = self.challenge_read.lock().await;
        if let Some((at, config)) = &*read
            && at.elapsed() < CHALLENGE_REREAD
        {
            return config.clone();
        }
        let now = self.clock.now().as_millisecond();
        let config = match self.store.certificates().challenge(&self.domain, now).await {
            Ok(Some((cert_pem, key_pem))) => {
                certificate::server_config(&cert_pem, &key_pem, ACME_TLS_ALPN).ok()
            }
            Ok(None) => None,
            Err(e) => {
                tracing::warn!(error = %e, "the ACME challenge could not be read");
                None
            }
        };
        *read = Some((std::time::Instant::now(), config.clone()));
        config
    }
}
