//! Obtaining a certificate by ACME (RFC 8555) with instant-acme: its requests go through
//! hearth's own HTTP client (reqwest, rustls), the domain is proved by TLS-ALPN-01 (RFC 8737)
//! on the port hearth serves HTTPS on, and the challenge certificate is kept in the store, so
//! whichever replica the CA's check reaches answers it.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use axum::body::Bytes;
use instant_acme::{
    Account, AccountCredentials, AuthorizationStatus, BodyWrapper, BytesResponse, ChallengeType,
    HttpClient, Identifier, NewAccount, NewOrder, OrderStatus, RetryPolicy,
};
use serde::{Deserialize, Serialize};

use super::certificate::{self, CertificateError};
use crate::store::{CertificateRow, Store, StoreError};

/// The most an ACME response may hold (a certificate chain is a few KiB).
const MAX_RESPONSE_BYTES: usize = 1 << 20;
/// How long the CA may take to check the domain, and then to issue.
const CA_PATIENCE: Duration = Duration::from_secs(120);
/// How long a challenge certificate is kept for the CA's check.
const CHALLENGE_LIFE_MS: i64 = 15 * 60 * 1000;

/// Why no certificate was obtained.
#[derive(Debug, thiserror::Error)]
pub enum AcmeError {
    /// The CA refused a request or could not be reached.
    #[error("the CA: {0}")]
    Ca(#[from] instant_acme::Error),
    /// The CA offers no TLS-ALPN-01 check for the domain.
    #[error("the CA offers no TLS-ALPN-01 check (hearth proves the domain on port 443 only)")]
    NoTlsAlpn,
    /// The CA checked the domain and was not satisfied.
    #[error(
        "the CA could not verify {domain} ({why}): its DNS must point at this server and port 443 must reach HEARTH_TLS_LISTEN"
    )]
    NotVerified {
        /// The domain.
        domain: String,
        /// What the CA said.
        why: String,
    },
    /// The kept account could not be read.
    #[error("the kept ACME account is unreadable: {0}")]
    Account(#[from] serde_json::Error),
    /// The challenge or the certificate could not be made or read.
    #[error(transparent)]
    Certificate(#[from] CertificateError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The ACME account kept with the certificate: the CA's directory it belongs to, and its
/// credentials (a new directory makes a new account).
#[derive(Serialize, Deserialize)]
struct KeptAccount {
    directory: String,
    credentials: AccountCredentials,
}

/// A certificate just obtained, with the account (JSON) to keep for the next renewal.
pub struct Obtained {
    /// The account, as kept.
    pub account: String,
    /// The certificate and its key.
    pub certificate: CertificateRow,
    /// When it is due for renewal ([`certificate::renew_at`] of its validity).
    pub renew_at: jiff::Timestamp,
}

/// A CA: its directory, the contact given to it, and the client that reaches it.
pub struct Acme {
    directory: String,
    contact: Vec<String>,
    http: reqwest::Client,
}

impl Acme {
    /// The CA at `directory`, given `email` (may be empty) as contact, reached with `http`.
    pub fn new(directory: &str, email: &str, http: reqwest::Client) -> Self {
        let contact = Some(email.trim())
            .filter(|e| !e.is_empty())
            .map(|e| vec![format!("mailto:{e}")])
            .unwrap_or_default();
        Self { directory: directory.trim().to_string(), contact, http }
    }

    /// Obtains a certificate for `domain` with the `account` kept so far (a new one, kept at
    /// once under `owner`'s lease, when `None` or made at another CA), publishing the challenge
    /// through `store` at `now_ms`.
    pub async fn obtain(
        &self,
        domain: &str,
        account: Option<&str>,
        (store, owner): (&Store, &str),
        now_ms: i64,
    ) -> Result<Obtained, AcmeError> {
        let (account, kept, made) = self.account(account).await?;
        if made {
            store.certificates().keep_account(domain, owner, &kept).await?;
        }
        let identifiers = [Identifier::Dns(domain.to_string())];
        let mut order = account.new_order(&NewOrder::new(&identifiers)).await?;
        let mut published = Vec::new();
        let mut authorizations = order.authorizations();
        while let Some(authorization) = authorizations.next().await {
            let mut authorization = authorization?;
            match authorization.status {
                AuthorizationStatus::Pending => {}
                AuthorizationStatus::Valid => continue,
                other => {
                    return Err(AcmeError::NotVerified {
                        domain: domain.into(),
                        why: format!("authorization {other:?}"),
                    });
                }
            }
            let mut challenge =
                authorization.challenge(ChallengeType::TlsAlpn01).ok_or(AcmeError::NoTlsAlpn)?;
            let digest = challenge.key_authorization().digest();
            let (cert_pem, key_pem) = certificate::challenge(domain, digest.as_ref())?;
            let certificates = store.certificates();
            certificates
                .put_challenge(domain, &cert_pem, &key_pem, now_ms + CHALLENGE_LIFE_MS)
                .await?;
            published.push(cert_pem);
            challenge.set_ready().await?;
        }
        let patience =
            RetryPolicy::new().initial_delay(Duration::from_millis(500)).timeout(CA_PATIENCE);
        let status = order.poll_ready(&patience).await;
        for cert_pem in &published {
            store.certificates().drop_challenge(domain, cert_pem).await?;
        }
        // A check that failed comes back as the CA's problem document.
        let status = status.map_err(|e| match e {
            instant_acme::Error::Api(problem) => {
                AcmeError::NotVerified { domain: domain.into(), why: problem.to_string() }
            }
            e => AcmeError::Ca(e),
        })?;
        match status {
            OrderStatus::Ready => {}
            other => {
                let why = problems(&mut order).await.unwrap_or_else(|| format!("order {other:?}"));
                return Err(AcmeError::NotVerified { domain: domain.into(), why });
            }
        }
        let key_pem = order.finalize().await?;
        let cert_pem = order.poll_certificate(&patience).await?;
        let (not_before, not_after) = certificate::validity(&cert_pem)?;
        // Refused now rather than served broken later.
        certificate::server_config(&cert_pem, &key_pem, b"http/1.1")?;
        Ok(Obtained {
            account: kept,
            certificate: CertificateRow {
                cert_pem,
                key_pem,
                not_after: not_after.as_millisecond(),
            },
            renew_at: certificate::renew_at(not_before, not_after),
        })
    }

    /// The account kept in `kept` when it belongs to this CA, else a new one: with its JSON,
    /// and whether it was made now.
    async fn account(&self, kept: Option<&str>) -> Result<(Account, String, bool), AcmeError> {
        let builder = || Account::builder_with_http(Box::new(Http(self.http.clone())));
        if let Some(kept) = kept {
            let kept: KeptAccount = serde_json::from_str(kept)?;
            if kept.directory == self.directory {
                let json = serde_json::to_string(&kept)?;
                return Ok((builder().from_credentials(kept.credentials).await?, json, false));
            }
        }
        let contact: Vec<&str> = self.contact.iter().map(String::as_str).collect();
        let new = NewAccount {
            contact: &contact,
            terms_of_service_agreed: true,
            only_return_existing: false,
        };
        let (account, credentials) = builder().create(&new, self.directory.clone(), None).await?;
        let kept = KeptAccount { directory: self.directory.clone(), credentials };
        Ok((account, serde_json::to_string(&kept)?, true))
    }
}

impl AcmeError {
    /// Whether the kept account is what failed (unreadable, or unknown to the CA): the next try
    /// makes a new one.
    pub fn account_unusable(&self) -> bool {
        match self {
            Self::Account(_) => true,
            Self::Ca(instant_acme::Error::Api(problem)) => {
                problem.r#type.as_deref().is_some_and(|t| t.ends_with(":accountDoesNotExist"))
            }
            _ => false,
        }
    }
}

/// What the CA said of the checks that failed, if it said anything.
async fn problems(order: &mut instant_acme::Order) -> Option<String> {
    let mut said = Vec::new();
    let mut authorizations = order.authorizations();
    while let Some(Ok(authorization)) = authorizations.next().await {
        for challenge in &authorization.challenges {
            if let Some(problem) = &challenge.error {
                said.push(problem.to_string());
            }
        }
    }
    (!said.is_empty()).then(|| said.join("; "))
}

/// instant-acme's requests sent with hearth's reqwest client, responses bounded in size.
struct Http(reqwest::Client);

impl HttpClient for Http {
    fn request(
        &self,
        request: axum::http::Request<BodyWrapper<Bytes>>,
    ) -> Pin<Box<dyn Future<Output = Result<BytesResponse, instant_acme::Error>> + Send>> {
        let client = self.0.clone();
        Box::pin(async move {
            let other = |e: Box<dyn std::error::Error + Send + Sync>| instant_acme::Error::Other(e);
            let (parts, body) = request.into_parts();
            let body = axum::body::to_bytes(axum::body::Body::new(body), MAX_RESPONSE_BYTES)
                .await
                .map_err(|e| other(e.into()))?;
            let mut response = client
                .request(parts.method, parts.uri.to_string())
                .headers(parts.headers)
                .body(body)
                .send()
                .await
                .map_err(|e| other(e.into()))?;
            let mut bytes = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(|e| other(e.into()))? {
                if bytes.len() + chunk.len() > MAX_RESPONSE_BYTES {
                    return Err(other("the CA's response is too large".into()));
                }
                bytes.extend_from_slice(&chunk);
            }
            let mut answer = axum::http::Response::builder().status(response.status());
            if let Some(headers) = answer.headers_mut() {
                *headers = response.headers().clone();
            }
            let (parts, ()) = answer.body(()).map_err(instant_acme::Error::Http)?.into_parts();
            Ok(BytesResponse { parts, body: Box::new(Bytes::from(bytes)) })
        })
    }
}
