//! HTTPS built in, against a real ACME server: pebble (Debian's package, `.ci/run` installs
//! it) issues hearth's certificate after checking the domain by TLS-ALPN-01 on hearth's HTTPS
//! port; LINE's signed webhook is then answered over HTTPS, trusting pebble's root; a
//! short-lived certificate is renewed without a restart; and a replica that never asked the CA
//! answers its check and serves the certificate another obtained, both through the store.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hearth::line::signature;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};

use crate::common::harness::SECRET;
use crate::common::pebble::Pebble;
use crate::common::replica::{Replica, envelope, event, shared_database};
use crate::common::{FakeLine, FakeLlm};

/// The family's domain: pebble's DNS says it is this machine.
const DOMAIN: &str = "hearth.family.test";
const MOM: &str = "U5eaf00d5eaf00d5eaf00d5eaf00d5eaf";

/// `hearth serve` with HTTPS on `tls_port`, its certificate from `pebble`.
async fn serve_https(
    db: &str,
    line: &FakeLine,
    llm: &FakeLlm,
    pebble: &Pebble,
    tls_port: u16,
) -> Replica {
    let listen = format!("127.0.0.1:{tls_port}");
    let root = pebble.ca_root.display().to_string();
    let env = [
        ("HEARTH_TLS_DOMAIN", DOMAIN),
        ("HEARTH_TLS_LISTEN", listen.as_str()),
        ("HEARTH_ACME_DIRECTORY", pebble.directory.as_str()),
        ("HEARTH_ACME_CA_ROOT", root.as_str()),
        ("HEARTH_ACME_EMAIL", "dad@family.test"),
        ("HEARTH_TLS_CHECK_SECS", "1"),
    ];
    Replica::spawn_logging(db, line, llm, &env, std::process::Stdio::inherit()).await
}

/// The certificate served for the domain on `port`, trusting `root` (PEM): `None` while there
/// is none (the handshake fails).
async fn served(port: u16, root: &str) -> Option<CertificateDer<'static>> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(root.as_bytes()) {
        roots.add(cert.expect("root")).expect("root");
    }
    let config =
        rustls::ClientConfig::builder_with_provider(hearth::platform::tls::crypto_provider())
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.ok()?;
    let name = ServerName::try_from(DOMAIN).expect("name");
    let tls = connector.connect(name, tcp).await.ok()?;
    tls.get_ref().1.peer_certificates()?.first().map(|c| c.clone().into_owned())
}

/// Waits until the domain's certificate served on `port` is not `old`: the one served then.
async fn wait_for_certificate(
    port: u16,
    root: &str,
    old: Option<&CertificateDer<'static>>,
    within: Duration,
) -> CertificateDer<'static> {
    let deadline = Instant::now() + within;
    loop {
        if let Some(cert) = served(port, root).await
            && Some(&cert) != old
        {
            return cert;
        }
        assert!(Instant::now() < deadline, "no (new) certificate served within {within:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Posts a signed webhook over HTTPS to the domain (at 127.0.0.1:`port`), trusting `root`.
async fn post_over_https(port: u16, root: &str, body: &str) -> u16 {
    let client = hearth::platform::tls::client_trusting(root.as_bytes())
        .expect("root")
        .resolve(DOMAIN, std::net::SocketAddr::from(([127, 0, 0, 1], port)))
        .build()
        .expect("client");
    let response = client
        .post(format!("https://{DOMAIN}:{port}/callback"))
        .header("x-line-signature", signature::sign(SECRET, body.as_bytes()))
        .body(body.to_string())
        .send()
        .await
        .expect("the webhook over HTTPS");
    response.status().as_u16()
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs pebble (Debian's pebble package): .ci/run installs it"]
async fn a_certificate_from_the_ca_serves_a_signed_webhook_and_is_renewed_without_a_restart() {
    let tls_port = crate::common::unclaimed_port();
    // Certificates of 30 seconds: renewed with a third of their life left, 20 seconds in.
    let pebble = Pebble::start(tls_port, 30).await;
    let db = shared_database("https").await;
    let (line, llm) = (FakeLine::start().await, FakeLlm::start().await);
    llm.reply_text("收到，這是加密的連線");
    llm.reply_text("續約後也收到");
    let _hearth = serve_https(&db, &line, &llm, &pebble, tls_port).await;
    let root = pebble.issued_root().await;

    let first = wait_for_certificate(tls_port, &root, None, Duration::from_secs(60)).await;
    let body = envelope(vec![event(1, MOM, "你好")]);
    assert_eq!(post_over_https(tls_port, &root, &body).await, 200);
    line.wait_for(|r| r.iter().any(|r| r.path.ends_with("/reply")), Duration::from_secs(20)).await;
    assert_eq!(line.replies().len(), 1, "the webhook sent over HTTPS is answered");

    let renewed =
        wait_for_certificate(tls_port, &root, Some(&first), Duration::from_secs(60)).await;
    assert_ne!(renewed, first);
    let body = envelope(vec![event(2, MOM, "還在嗎")]);
    assert_eq!(post_over_https(tls_port, &root, &body).await, 200, "served on the renewed one");
    line.wait_for(
        |r| r.iter().filter(|r| r.path.ends_with("/reply")).count() >= 2,
        Duration::from_secs(20),
    )
    .await;

    // The certificate is kept with the data, its renewal due with a third of its life left.
    let store = hearth::store::Store::connect(&db).await.expect("store");
    let kept = store.certificates().current(DOMAIN).await.expect("read").expect("kept");
    assert_eq!(
        CertificateDer::pem_slice_iter(kept.cert_pem.as_bytes()).next().expect("pem").expect("der"),
        renewed,
        "the one served is the one kept"
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs pebble (Debian's pebble package): .ci/run installs it"]
async fn a_replica_that_never_asked_the_ca_answers_its_check_and_serves_the_kept_certificate() {
    // The CA checks the domain on the port of a replica that never asks for a certificate: its
    // look at the certificate is this test's, here, and its certificate lease is never due.
    let (checked_port, asking_port) =
        (crate::common::unclaimed_port(), crate::common::unclaimed_port());
    let pebble = Pebble::start(checked_port, 3600).await;
    let db = shared_database("https-replicas").await;
    let mut config = hearth::platform::config::Config::defaults();
    config.https.tls_domain = DOMAIN.into();
    config.https.acme_directory = "https://ca.invalid/directory".into();
    let store = hearth::store::Store::connect(&db).await.expect("store");
    let clock = Arc::new(hearth::platform::clock::SystemClock);
    let other = hearth::server::https::Https::from_config(&config, store, clock, "other".into())
        .expect("https")
        .expect("a domain");
    let listener =
        tokio::net::TcpListener::bind(("127.0.0.1", checked_port)).await.expect("checked port");
    let (_stop, stopped) = tokio::sync::watch::channel(false);
    let timeout = Duration::from_secs(5);
    let routes = axum::Router::new();
    tokio::spawn(hearth::server::listen::accept(
        listener,
        routes,
        timeout,
        stopped,
        Some(other.clone()),
    ));

    let (line, llm) = (FakeLine::start().await, FakeLlm::start().await);
    let _asking = serve_https(&db, &line, &llm, &pebble, asking_port).await;
    let root = pebble.issued_root().await;
    let obtained = wait_for_certificate(asking_port, &root, None, Duration::from_secs(60)).await;
    assert!(served(checked_port, &root).await.is_none(), "not looked at yet: nothing served");

    let round = other.tick().await.expect("a look");
    assert!(round.loaded && !round.obtained, "{round:?}: read from the store, not asked for");
    assert_eq!(served(checked_port, &root).await, Some(obtained), "the same certificate");
}
