//! The one TLS client configuration every outgoing HTTP client shares, and the one crypto
//! provider (ring) the HTTPS server uses too. Left to itself, reqwest
//! builds a configuration for each client, and each reads and keeps its own copy of the
//! system's root certificates and its own session cache (about 100 KiB per client, seven
//! clients at start-up); here they are read once, when the first client is built.
//!
//! The configuration is the one reqwest builds by default: rustls with the process's default
//! crypto provider (ring, installed here as the process's default when none was), TLS 1.2 and 1.3, the platform's certificate verifier and SNI — except that ALPN
//! offers HTTP/1.1 alone, the only HTTP hearth's clients are built with.

use std::sync::{Arc, LazyLock};

use rustls::crypto::CryptoProvider;

/// A `reqwest::ClientBuilder` on the shared TLS configuration: every client hearth builds
/// starts here. Where the configuration cannot be built (no root certificates, say), the
/// builder is reqwest's own, and building the client reports why.
pub fn client_builder() -> reqwest::ClientBuilder {
    let builder = reqwest::Client::builder();
    match &*SHARED {
        Some(config) => builder.tls_backend_preconfigured(config.clone()),
        None => builder,
    }
}

/// A `reqwest::ClientBuilder` that trusts only the root certificates in `roots_pem` (a private
/// CA's, as for `HEARTH_ACME_CA_ROOT`), otherwise configured like [`client_builder`].
pub fn client_trusting(roots_pem: &[u8]) -> Result<reqwest::ClientBuilder, String> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(roots_pem) {
        let cert = cert.map_err(|e| format!("not a PEM certificate: {e}"))?;
        roots.add(cert).map_err(|e| format!("not a usable root certificate: {e}"))?;
    }
    if roots.is_empty() {
        return Err("holds no certificate".into());
    }
    let mut config = rustls::ClientConfig::builder_with_provider(crypto_provider())
        .with_protocol_versions(rustls::ALL_VERSIONS)
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(reqwest::Client::builder().tls_backend_preconfigured(config))
}

static SHARED: LazyLock<Option<rustls::ClientConfig>> = LazyLock::new(|| shared_config().ok());

/// What reqwest's `ClientBuilder::build` puts together when no TLS option is set.
fn shared_config() -> Result<rustls::ClientConfig, rustls::Error> {
    let provider = crypto_provider();
    let verifier = rustls_platform_verifier::Verifier::new(provider.clone())?;
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(rustls::ALL_VERSIONS)?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// Installs ring as the process's crypto provider, unless one is installed already: any
/// `reqwest::Client` built afterwards, anywhere, finds it (`main` calls this first thing).
pub fn install_crypto_provider() {
    if CryptoProvider::get_default().is_none() {
        // Another thread may install one meanwhile: whichever is installed is the one used.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

/// The process's crypto provider (ring, unless another was installed first).
pub fn crypto_provider() -> Arc<CryptoProvider> {
    install_crypto_provider();
    CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_configuration_is_built_and_offers_http_1_1_alone() {
        assert!(SHARED.is_some(), "built wherever reqwest could build its own");
        let config = shared_config().expect("the system has root certificates");
        assert_eq!(
            config.alpn_protocols,
            [b"http/1.1".to_vec()],
            "no HTTP/2: reqwest is built without it"
        );
        assert!(config.enable_sni);
        assert!(!config.client_auth_cert_resolver.has_certs(), "no client certificate");
        client_builder().build().expect("a client on the shared configuration");
    }
}
