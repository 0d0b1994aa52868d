//! The HTTP server: where it listens, its public address, its time limits and its metrics.

use std::net::SocketAddr;

use clap::Args;

use super::Secret;

/// The HTTP server (webhook, family page, charts, metrics).
#[derive(Debug, Clone, Args)]
pub struct ServerSettings {
    /// Address the webhook server listens on.
    #[arg(long, env = "HEARTH_LISTEN", default_value = "0.0.0.0:8080", global = true)]
    pub listen: SocketAddr,
    /// The public HTTPS address of this server (the base of its webhook URL, e.g.
    /// <https://hearth.example.com>): quote, alert and weather cards then carry a chart that LINE
    /// fetches from here. Without it, cards have no chart.
    #[arg(long, env = "HEARTH_PUBLIC_URL", value_parser = public_url, global = true)]
    pub public_url: Option<String>,
    /// Seconds a client has to send the headers of a request; slower connections are closed.
    #[arg(long, env = "HEARTH_HEADER_READ_TIMEOUT_SECS", default_value_t = 10, global = true)]
    pub header_read_timeout_secs: u64,
    /// Seconds a client has to send the body of a request once its headers are in; slower
    /// requests get 408 and their connection is closed.
    #[arg(long, env = "HEARTH_BODY_READ_TIMEOUT_SECS", default_value_t = 10, global = true)]
    pub body_read_timeout_secs: u64,
    /// When set, `GET /metrics` requires `Authorization: Bearer <this token>` (401 otherwise).
    /// Unset (and without HEARTH_METRICS_LISTEN) the metrics are public on the webhook port.
    #[arg(
        long,
        env = "HEARTH_METRICS_TOKEN",
        default_value = "",
        hide_default_value = true,
        hide_env_values = true,
        global = true
    )]
    pub metrics_token: Secret,
    /// When set (e.g. 127.0.0.1:9090), `/metrics` is served only on this address, not on the
    /// webhook port.
    #[arg(long, env = "HEARTH_METRICS_LISTEN", global = true)]
    pub metrics_listen: Option<SocketAddr>,
}

/// Parses `HEARTH_PUBLIC_URL`: an `https://` URL without query or fragment (LINE fetches images
/// over HTTPS only), kept without its trailing slash.
fn public_url(value: &str) -> Result<String, String> {
    let url = url::Url::parse(value).map_err(|e| format!("not a URL: {e}"))?;
    if url.scheme() != "https" || url.host_str().is_none() {
        return Err("must be an https:// address LINE can reach".into());
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("must not have a query or a fragment".into());
    }
    Ok(value.trim_end_matches('/').to_string())
}

#[cfg(test)]
mod public_url_tests {
    use super::public_url;

    #[test]
    fn the_public_url_must_be_https_without_query_and_loses_its_trailing_slash() {
        assert_eq!(
            public_url("https://hearth.example.com/").as_deref(),
            Ok("https://hearth.example.com")
        );
        assert_eq!(public_url("https://h.example/bot").as_deref(), Ok("https://h.example/bot"));
        assert!(public_url("http://hearth.example.com").is_err(), "LINE fetches over HTTPS only");
        assert!(public_url("https://hearth.example.com/?a=1").is_err());
        assert!(public_url("hearth.example.com").is_err());
    }
}
