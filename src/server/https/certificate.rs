//! A certificate as hearth keeps and serves it: the PEM chain and key read into what rustls
//! serves, when it expires (read from the leaf's DER), when to renew it, and the TLS-ALPN-01
//! certificate that proves the domain to the CA (RFC 8737). Pure functions, tested here.

use std::sync::Arc;

use jiff::Timestamp;
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::sign::{CertifiedKey, SingleCertAndKey};

/// The ALPN protocol of the CA's TLS-ALPN-01 check.
pub const ACME_TLS_ALPN: &[u8] = b"acme-tls/1";

/// Why a certificate could not be used.
#[derive(Debug, thiserror::Error)]
pub enum CertificateError {
    /// The PEM held no certificate or no usable key.
    #[error("the certificate or its key is unreadable: {0}")]
    Unreadable(String),
    /// rustls refused the pair.
    #[error("the certificate cannot be served: {0}")]
    Refused(#[from] rustls::Error),
    /// The challenge certificate could not be made.
    #[error("the challenge certificate could not be made: {0}")]
    Challenge(#[from] rcgen::Error),
}

/// The server configuration that serves `cert_pem` (chain, leaf first) with `key_pem`, offering
/// `alpn` (HTTP/1.1 for the webhook and the page; `acme-tls/1` for a challenge).
pub fn server_config(
    cert_pem: &str,
    key_pem: &str,
    alpn: &[u8],
) -> Result<Arc<ServerConfig>, CertificateError> {
    let chain = chain(cert_pem)?;
    let key = PrivateKeyDer::from_pem_slice(key_pem.as_bytes())
        .map_err(|e| CertificateError::Unreadable(e.to_string()))?;
    let provider = crate::platform::tls::crypto_provider();
    let key = CertifiedKey::new(chain, provider.key_provider.load_private_key(key)?);
    // The key must be the certificate's. The challenge certificate is made here, and webpki
    // refuses to read it (its acmeIdentifier extension is critical).
    if alpn != ACME_TLS_ALPN {
        key.keys_match()?;
    }
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(SingleCertAndKey::from(key)));
    config.alpn_protocols = vec![alpn.to_vec()];
    Ok(Arc::new(config))
}

fn chain(cert_pem: &str) -> Result<Vec<CertificateDer<'static>>, CertificateError> {
    let chain = CertificateDer::pem_slice_iter(cert_pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| CertificateError::Unreadable(e.to_string()))?;
    if chain.is_empty() {
        return Err(CertificateError::Unreadable("no certificate in the PEM".into()));
    }
    Ok(chain)
}

/// When the leaf of `cert_pem` starts and stops being valid.
pub fn validity(cert_pem: &str) -> Result<(Timestamp, Timestamp), CertificateError> {
    let chain = chain(cert_pem)?;
    der_validity(&chain[0])
        .ok_or_else(|| CertificateError::Unreadable("no validity in the certificate".into()))
}

/// When a certificate valid from `not_before` to `not_after` is renewed: with a third of its
/// life left (30 days before a 90-day certificate ends, 2 days before a 6-day one), so a CA
/// that is down for days still leaves time.
pub fn renew_at(not_before: Timestamp, not_after: Timestamp) -> Timestamp {
    let life = not_after.duration_since(not_before);
    not_after.checked_sub(life / 3).unwrap_or(not_before)
}

/// How long to wait after the `failures`-th failed try in a row: 5 minutes, doubling, at most
/// 6 hours (Let's Encrypt allows 5 failed checks per domain an hour).
pub fn retry_after(failures: i64) -> jiff::SignedDuration {
    let minutes = 5i64.saturating_mul(1 << failures.clamp(1, 10).saturating_sub(1));
    jiff::SignedDuration::from_mins(minutes.min(360))
}

/// The self-signed certificate (and its key, PEM) that answers the CA's TLS-ALPN-01 check of
/// `domain`: it names the domain and carries the key authorization's digest (RFC 8737 §3).
pub fn challenge(domain: &str, digest: &[u8]) -> Result<(String, String), CertificateError> {
    let mut params = rcgen::CertificateParams::new(vec![domain.to_string()])?;
    params.custom_extensions = vec![rcgen::CustomExtension::new_acme_identifier(digest)];
    let key = rcgen::KeyPair::generate()?;
    let cert = params.self_signed(&key)?;
    Ok((cert.pem(), key.serialize_pem()))
}

/// The validity of a DER certificate: `Certificate ::= SEQUENCE { tbsCertificate SEQUENCE {
/// [0] version OPTIONAL, serialNumber, signature, issuer, validity SEQUENCE { notBefore,
/// notAfter }, … } … }` (RFC 5280 §4.1), read in one pass of at most six elements.
fn der_validity(der: &[u8]) -> Option<(Timestamp, Timestamp)> {
    let (0x30, certificate, _) = element(der)? else { return None };
    let (0x30, mut tbs, _) = element(certificate)? else { return None };
    let (tag, _, rest) = element(tbs)?;
    if tag == 0xa0 {
        tbs = rest; // the version
    }
    for _ in 0..3 {
        tbs = element(tbs)?.2; // serial number, signature algorithm, issuer
    }
    let (0x30, validity, _) = element(tbs)? else { return None };
    let (before_tag, before, rest) = element(validity)?;
    let (after_tag, after, _) = element(rest)?;
    Some((der_time(before_tag, before)?, der_time(after_tag, after)?))
}

/// One DER element of `der`: its tag, its content and what follows it.
fn element(der: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = der.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let len = rest[..count].iter().fold(0usize, |n, &b| (n << 8) | usize::from(b));
        (len, &rest[count..])
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

/// A UTCTime (`0x17`, `YYMMDDHHMMSSZ`, years 1950–2049) or GeneralizedTime (`0x18`,
/// `YYYYMMDDHHMMSSZ`).
fn der_time(tag: u8, value: &[u8]) -> Option<Timestamp> {
    let text = std::str::from_utf8(value).ok()?.strip_suffix('Z')?;
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let full = match (tag, text.len()) {
        (0x17, 12) => {
            let yy: i16 = text[..2].parse().ok()?;
            format!("{}{text}", if yy < 50 { "20" } else { "19" })
        }
        (0x18, 14) => text.to_string(),
        _ => return None,
    };
    let civil = jiff::civil::DateTime::strptime("%Y%m%d%H%M%S", &full).ok()?;
    jiff::tz::TimeZone::UTC.to_timestamp(civil).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn self_signed(from: (i32, u8, u8), to: (i32, u8, u8)) -> (String, String) {
        let mut params =
            rcgen::CertificateParams::new(vec!["hearth.example".into()]).expect("test value");
        params.not_before = rcgen::date_time_ymd(from.0, from.1, from.2);
        params.not_after = rcgen::date_time_ymd(to.0, to.1, to.2);
        let key = rcgen::KeyPair::generate().expect("test value");
        (params.self_signed(&key).expect("test value").pem(), key.serialize_pem())
    }

    #[test]
    fn the_validity_is_read_from_the_leaf_in_both_time_forms() {
        let (pem, _) = self_signed((2026, 12, 1), (2027, 3, 1));
        let (from, to) = validity(&pem).expect("validity");
        assert_eq!(from.to_string(), "2026-12-01T00:00:00Z");
        assert_eq!(to.to_string(), "2027-03-01T00:00:00Z");
        // After 2049 the time is a GeneralizedTime.
        let (pem, _) = self_signed((2049, 6, 1), (2051, 1, 2));
        assert_eq!(validity(&pem).expect("test value").1.to_string(), "2051-01-02T00:00:00Z");
    }

    #[test]
    fn garbage_and_cut_certificates_have_no_validity() {
        assert!(validity("not a certificate").is_err());
        let (pem, _) = self_signed((2026, 12, 1), (2027, 3, 1));
        let der = chain(&pem).expect("test value").remove(0);
        for cut in [0, 1, 2, 10, 40, der.len() / 2] {
            assert!(der_validity(&der[..cut]).is_none(), "cut at {cut}");
        }
        assert!(der_validity(&[0x30, 0x84, 0xff, 0xff, 0xff, 0xff]).is_none());
        assert!(der_time(0x17, b"261301000000Z").is_none(), "month 13");
        assert!(der_time(0x17, "1é000000000Z".as_bytes()).is_none(), "not digits");
    }

    #[test]
    fn a_certificate_is_renewed_with_a_third_of_its_life_left() {
        let from: Timestamp = "2026-12-01T00:00:00Z".parse().expect("test value");
        let to: Timestamp = "2027-03-01T00:00:00Z".parse().expect("test value"); // 90 days
        assert_eq!(renew_at(from, to).to_string(), "2027-01-30T00:00:00Z");
        let short = from.checked_add(jiff::SignedDuration::from_secs(30)).expect("test value");
        assert_eq!(renew_at(from, short).to_string(), "2026-12-01T00:00:20Z");
    }

    #[test]
    fn failed_tries_wait_longer_each_time_up_to_six_hours() {
        let minutes: Vec<i64> = (1..=9).map(|n| retry_after(n).as_mins()).collect();
        assert_eq!(minutes, [5, 10, 20, 40, 80, 160, 320, 360, 360]);
        assert_eq!(retry_after(0).as_mins(), 5);
        assert_eq!(retry_after(i64::MAX).as_mins(), 360);
    }

    #[test]
    fn a_kept_pair_is_served_over_http_1_1_and_a_mismatched_key_is_refused() {
        let (cert, key) = self_signed((2026, 12, 1), (2027, 3, 1));
        let config = server_config(&cert, &key, b"http/1.1").expect("served");
        assert_eq!(config.alpn_protocols, [b"http/1.1".to_vec()]);
        let (_, other_key) = self_signed((2026, 12, 1), (2027, 3, 1));
        assert!(server_config(&cert, &other_key, b"http/1.1").is_err());
        assert!(server_config("", &key, b"http/1.1").is_err());
    }

    #[test]
    fn the_challenge_certificate_names_the_domain_and_carries_the_digest() {
        let digest = [7u8; 32];
        let (cert, key) = challenge("hearth.example", &digest).expect("made");
        server_config(&cert, &key, ACME_TLS_ALPN).expect("served");
        let der = chain(&cert).expect("test value").remove(0);
        // id-pe-acmeIdentifier (1.3.6.1.5.5.7.1.31), then the digest as an OCTET STRING.
        let oid = [0x06, 0x08, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x1f];
        assert!(der.windows(oid.len()).any(|w| w == oid));
        let value: Vec<u8> = [0x04, 0x20].into_iter().chain(digest).collect();
        assert!(der.windows(value.len()).any(|w| w == value.as_slice()));
        assert!(String::from_utf8_lossy(&der).contains("hearth.example"));
    }
}
