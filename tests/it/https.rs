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
    served_offering(port, root, None).await
}

/// [`served`] to a client offering the ALPN protocol `alpn`.
async fn served_offering(
    port: u16,
    root: &str,
    alpn: Option<&[u8]>,
) -> Option<CertificateDer<'static>> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(root.as_bytes()) {
        roots.add(cert.expect("root")).expect("root");
    }
    let mut config =
        rustls::ClientConfig::builder_with_provider(hearth::platform::tls::crypto_provider())
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
    config.alpn_protocols = alpn.into_iter().map(<[u8]>::to_vec).collect();
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

/// A client that reaches the domain at 127.0.0.1:`port`, trusting only `root` (PEM).
fn client_of_domain(port: u16, root: &str) -> reqwest::Client {
    hearth::platform::tls::client_trusting(root.as_bytes())
        .expect("root")
        .resolve(DOMAIN, std::net::SocketAddr::from(([127, 0, 0, 1], port)))
        .build()
        .expect("client")
}

/// Posts a signed webhook over HTTPS to the domain (at 127.0.0.1:`port`), trusting `root`.
async fn post_over_https(port: u16, root: &str, body: &str) -> u16 {
    let response = client_of_domain(port, root)
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

    // A stranger asking for the CA's check gets nothing: no challenge is pending.
    let acme = Some(b"acme-tls/1".as_slice());
    assert!(served_offering(checked_port, &root, acme).await.is_none());
    assert!(served_offering(asking_port, &root, acme).await.is_none());

    let round = other.tick().await.expect("a look");
    assert!(round.loaded && !round.obtained, "{round:?}: read from the store, not asked for");
    assert_eq!(served(checked_port, &root).await, Some(obtained), "the same certificate");
}

/// The account kept for the domain (JSON) and the failed tries in a row, read from the database.
async fn kept_account(db: &str) -> (Option<String>, i64) {
    let pool = sqlx::SqlitePool::connect(db).await.expect("sqlite");
    sqlx::query_as("SELECT account, failures FROM tls_certificates WHERE domain = $1")
        .bind(DOMAIN)
        .fetch_one(&pool)
        .await
        .expect("the row")
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs pebble (Debian's pebble package): .ci/run installs it"]
async fn a_domain_the_ca_cannot_check_is_tried_again_later_with_the_same_account_and_nothing_is_served()
 {
    // The CA checks a port where nothing listens: its check fails.
    let pebble = Pebble::start(crate::common::unclaimed_port(), 3600).await;
    let db =
        format!("sqlite://{}", crate::common::scratch_dir("https-failing").join("h.db").display());
    let store = hearth::store::Store::connect(&db).await.expect("store");
    let clock = Arc::new(hearth::platform::clock::ManualClock::new(jiff::Timestamp::now()));
    let mut config = hearth::platform::config::Config::defaults();
    config.https.tls_domain = DOMAIN.into();
    config.https.acme_directory = pebble.directory.clone();
    config.https.acme_ca_root = Some(pebble.ca_root.clone());
    let https = hearth::server::https::Https::from_config(
        &config,
        store.clone(),
        clock.clone(),
        "one".into(),
    )
    .expect("https")
    .expect("a domain");

    let first = https.tick().await.expect("a look");
    assert!(first.failed && !first.obtained && !first.loaded, "{first:?}");
    let (account, failures) = kept_account(&db).await;
    assert!(account.is_some(), "the account is kept as soon as it is made");
    assert_eq!(failures, 1);

    clock.advance(jiff::SignedDuration::from_mins(4));
    let held = https.tick().await.expect("a look");
    assert_eq!(held, Default::default(), "held back five minutes: the CA is not asked");

    clock.advance(jiff::SignedDuration::from_mins(2));
    let again = https.tick().await.expect("a look");
    assert!(again.failed, "{again:?}");
    assert_eq!(kept_account(&db).await, (account, 2), "the same account, the next wait longer");
    assert!(store.certificates().current(DOMAIN).await.expect("read").is_none(), "nothing kept");
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs pebble (Debian's pebble package): .ci/run installs it"]
async fn hearth_setup_registers_the_https_address_and_line_s_test_reaches_hearth_over_it() {
    let tls_port = crate::common::unclaimed_port();
    let pebble = Pebble::start(tls_port, 3600).await;
    let db = shared_database("https-setup").await;
    let (line, llm) = (FakeLine::start().await, FakeLlm::start().await);
    line.set_valid_token("test-access-token");
    let _hearth = serve_https(&db, &line, &llm, &pebble, tls_port).await;
    let root = pebble.issued_root().await;
    wait_for_certificate(tls_port, &root, None, Duration::from_secs(60)).await;
    // LINE's test request reaches the domain, trusting the CA as LINE trusts Let's Encrypt.
    line.call_webhook_in_tests(client_of_domain(tls_port, &root), SECRET);

    let mut config = hearth::platform::config::Config::defaults();
    config.line.line_channel_secret = SECRET.into();
    config.line.line_channel_access_token = "test-access-token".into();
    config.line.line_api_base = line.url();
    config.line.line_data_api_base = line.url();
    config.https.tls_domain = DOMAIN.into();
    // Outside, 443; here the test's port.
    config.server.public_url = Some(format!("https://{DOMAIN}:{tls_port}"));
    config.store.database_url = db.clone();
    let done = hearth::cli::setup::run(&config, false).await;
    let text = done.render(false);
    println!("{text}");
    let callback = format!("https://{DOMAIN}:{tls_port}/callback");
    assert!(
        text.contains(&format!("LINE's test request to {callback} was answered 200")),
        "{text}"
    );
    let put = line.requests().into_iter().find(|r| r.method == "PUT").expect("the webhook set");
    assert_eq!(put.body["endpoint"], callback.as_str());
}
