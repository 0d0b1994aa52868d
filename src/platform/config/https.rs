//! HTTPS built in: the domain hearth obtains a certificate for by ACME, and from which CA.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

/// Let's Encrypt's production directory, the default CA.
pub const LETS_ENCRYPT: &str = "https://acme-v02.api.letsencrypt.org/directory";

/// HTTPS without a proxy in front: a certificate obtained and renewed by ACME.
#[derive(Debug, Clone, Args)]
pub struct HttpsSettings {
    /// The domain hearth serves HTTPS for (e.g. hearth.example.com, pointing at this server):
    /// `serve` then obtains its certificate by ACME (TLS-ALPN-01 on HEARTH_TLS_LISTEN, so no
    /// port 80 is needed), keeps it with the data, and renews it before it expires. Empty: no
    /// HTTPS here (a proxy or tunnel in front terminates it).
    #[arg(long, env = "HEARTH_TLS_DOMAIN", default_value = "", value_parser = domain, global = true)]
    pub tls_domain: String,
    /// Where HTTPS is served with HEARTH_TLS_DOMAIN set. The CA checks the domain on port
    /// 443, so outside traffic to 443 must reach this address.
    #[arg(long, env = "HEARTH_TLS_LISTEN", default_value = "0.0.0.0:443", global = true)]
    pub tls_listen: SocketAddr,
    /// The e-mail address the CA may write to about the certificate (optional).
    #[arg(long, env = "HEARTH_ACME_EMAIL", default_value = "", global = true)]
    pub acme_email: String,
    /// The CA's ACME directory: Let's Encrypt by default; its staging
    /// (<https://acme-staging-v02.api.letsencrypt.org/directory>) or another CA's.
    #[arg(long, env = "HEARTH_ACME_DIRECTORY", default_value = LETS_ENCRYPT, global = true)]
    pub acme_directory: String,
    /// A PEM file of the root certificate(s) to trust for the ACME directory itself, for a
    /// private CA (step-ca, pebble); unset, the system's roots.
    #[arg(long, env = "HEARTH_ACME_CA_ROOT", global = true)]
    pub acme_ca_root: Option<PathBuf>,
    /// Seconds between looks at the certificate: whether it is due for renewal, and whether
    /// another replica renewed it.
    #[arg(long, env = "HEARTH_TLS_CHECK_SECS", default_value_t = 300, global = true)]
    pub tls_check_secs: u64,
}

impl HttpsSettings {
    /// The domain to serve HTTPS for, when one is set.
    pub fn domain(&self) -> Option<String> {
        Some(self.tls_domain.trim().trim_end_matches('.').to_ascii_lowercase())
            .filter(|d| !d.is_empty())
    }
}

/// Parses `HEARTH_TLS_DOMAIN`: a host name alone (no scheme, port, path or address), lower case.
fn domain(value: &str) -> Result<String, String> {
    let name = value.trim().trim_end_matches('.').to_ascii_lowercase();
    if name.is_empty() {
        return Ok(name);
    }
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    let labels: Vec<&str> = name.split('.').collect();
    let numeric = labels.last().is_some_and(|l| l.bytes().all(|b| b.is_ascii_digit()));
    if labels.len() < 2 || name.len() > 253 || numeric || !labels.iter().all(|l| label_ok(l)) {
        return Err("must be a domain name alone, such as hearth.example.com".into());
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::super::parse_for_test;

    #[test]
    fn the_domain_is_a_host_name_alone_and_makes_the_public_address() {
        let config = parse_for_test(&["--tls-domain", "Hearth.Example.com."]).expect("parsed");
        assert_eq!(config.https.domain().as_deref(), Some("hearth.example.com"));
        let config = config.with_public_url_from_https();
        assert_eq!(config.server.public_url.as_deref(), Some("https://hearth.example.com"));
        for bad in [
            "https://hearth.example.com",
            "hearth.example.com:443",
            "1.2.3.4",
            "hearth",
            "a_b.example",
        ] {
            assert!(parse_for_test(&["--tls-domain", bad]).is_err(), "{bad}");
        }
        let other_port = ["--tls-domain", "h.example", "--tls-listen", "0.0.0.0:8443"];
        let config = parse_for_test(&other_port).expect("parsed").with_public_url_from_https();
        assert_eq!(
            config.server.public_url.as_deref(),
            Some("https://h.example"),
            "the CA checks 443: a forward to 8443 here is invisible outside"
        );
        let set = ["--tls-domain", "h.example", "--public-url", "https://other.example"];
        let config = parse_for_test(&set).expect("parsed").with_public_url_from_https();
        assert_eq!(config.server.public_url.as_deref(), Some("https://other.example"), "kept");
        let none = parse_for_test(&[]).expect("parsed");
        assert!(
            none.https.domain().is_none()
                && none.with_public_url_from_https().server.public_url.is_none()
        );
    }
}
