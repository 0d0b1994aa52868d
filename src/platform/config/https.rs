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
    #[arg(long, env = "HEARTH_TLS_DOMAIN", default_value = "", global = true)]
    pub tls_domain: String,
    /// Where HTTPS is served with HEARTH_TLS_DOMAIN set. The CA checks the domain on port
    /// 443, so outside traffic to 443 must reach this address.
    #[arg(long, env = "HEARTH_TLS_LISTEN", default_value = "0.0.0.0:443", global = true)]
    pub tls_listen: SocketAddr,
    /// The e-mail address the CA may write to about the certificate (optional).
    #[arg(long, env = "HEARTH_ACME_EMAIL", default_value = "", global = true)]
    pub acme_email: String,
    /// The CA's ACME directory: Let's Encrypt by default; its staging
    /// (https://acme-staging-v02.api.letsencrypt.org/directory) or another CA's.
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
