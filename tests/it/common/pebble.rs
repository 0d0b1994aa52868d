//! A real ACME server for the HTTPS tests: Debian's `pebble` (the ACME server Let's Encrypt
//! tests against), checking domains by TLS-ALPN-01 on one given port, with
//! `pebble-challtestsrv` as its DNS (every name is 127.0.0.1). Pebble's own HTTPS uses a CA made
//! here; the certificates it issues chain to a root it makes as it starts, read from its
//! management port. Stopped when dropped.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};

/// A running pebble and its DNS.
pub struct Pebble {
    children: Vec<Child>,
    /// The ACME directory: `HEARTH_ACME_DIRECTORY`.
    pub directory: String,
    /// The root pebble's own HTTPS chains to (a PEM file): `HEARTH_ACME_CA_ROOT`.
    pub ca_root: std::path::PathBuf,
    management: u16,
}

impl Pebble {
    /// Starts pebble checking domains on `tls_port`, issuing certificates valid for
    /// `validity_secs`, and waits until its directory answers.
    pub async fn start(tls_port: u16, validity_secs: u64) -> Self {
        let dir = super::scratch_dir("pebble");
        let ca_key = KeyPair::generate().expect("key");
        let mut ca = CertificateParams::new(Vec::<String>::new()).expect("params");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = CertifiedIssuer::self_signed(ca, ca_key).expect("CA");
        let key = KeyPair::generate().expect("key");
        let leaf = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .expect("params")
            .signed_by(&key, &ca)
            .expect("pebble's certificate");
        let ca_root = dir.join("ca.pem");
        std::fs::write(&ca_root, ca.pem()).expect("ca");
        std::fs::write(dir.join("cert.pem"), leaf.pem()).expect("cert");
        std::fs::write(dir.join("key.pem"), key.serialize_pem()).expect("key");
        let (acme, management, dns) =
            (super::unclaimed_port(), super::unclaimed_port(), super::unclaimed_port());
        let config = serde_json::json!({"pebble": {
            "listenAddress": format!("127.0.0.1:{acme}"),
            "managementListenAddress": format!("127.0.0.1:{management}"),
            "certificate": dir.join("cert.pem"),
            "privateKey": dir.join("key.pem"),
            "httpPort": super::unclaimed_port(),
            "tlsPort": tls_port,
            "ocspResponderURL": "",
            "externalAccountBindingRequired": false,
            "certificateValidityPeriod": validity_secs,
        }});
        std::fs::write(dir.join("pebble.json"), config.to_string()).expect("config");
        let dns_server = Command::new("pebble-challtestsrv")
            .args(["-defaultIPv4", "127.0.0.1", "-defaultIPv6", ""])
            .args(["-dns01", &format!("127.0.0.1:{dns}")])
            .args(["-http01", "", "-https01", "", "-tlsalpn01", ""])
            .args(["-management", &format!("127.0.0.1:{}", super::unclaimed_port())])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start pebble-challtestsrv (Debian's pebble package)");
        let mut pebble = Self {
            children: vec![dns_server],
            directory: format!("https://127.0.0.1:{acme}/dir"),
            ca_root,
            management,
        };
        let server = Command::new("pebble")
            .arg("-config")
            .arg(dir.join("pebble.json"))
            .args(["-dnsserver", &format!("127.0.0.1:{dns}")])
            // No random waits before checks, every nonce good, every order checked anew.
            .env("PEBBLE_VA_NOSLEEP", "1")
            .env("PEBBLE_WFE_NONCEREJECT", "0")
            .env("PEBBLE_AUTHZREUSE", "0")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start pebble (Debian's pebble package)");
        pebble.children.push(server);
        let client = pebble.client();
        for _ in 0..100 {
            if client.get(&pebble.directory).send().await.is_ok_and(|r| r.status() == 200) {
                return pebble;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("pebble did not start");
    }

    /// A client trusting pebble's own HTTPS.
    fn client(&self) -> reqwest::Client {
        let pem = std::fs::read(&self.ca_root).expect("ca");
        hearth::platform::tls::client_trusting(&pem).expect("roots").build().expect("client")
    }

    /// The root (PEM) of the certificates pebble issues.
    pub async fn issued_root(&self) -> String {
        let url = format!("https://127.0.0.1:{}/roots/0", self.management);
        let response = self.client().get(url).send().await.expect("pebble's root");
        assert_eq!(response.status(), 200);
        response.text().await.expect("root")
    }
}

impl Drop for Pebble {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
