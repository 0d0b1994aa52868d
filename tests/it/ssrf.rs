//! SSRF: hostile URLs never reach a private address. Each gets a clear refusal before anything
//! is sent (IP literals in every encoding, schemes, userinfo, ports), after resolution (names
//! that resolve to private addresses), or at a redirect hop; the test setting opens the loopback
//! fakes, and with the default a 127.0.0.1 URL is refused.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::common::FakeWeb;
use hearth::sources::fetch::{
    DownloadError, FetchError, FetchPolicy, FetchSettings, Fetcher, StaticLookup,
};

fn settings(policy: FetchPolicy) -> FetchSettings {
    FetchSettings {
        policy,
        max_bytes: 2_000_000,
        timeout: Duration::from_secs(5),
        user_agent: "hearth-test".into(),
    }
}

/// The default policy, with names resolved by a table: public-looking names that point inside.
fn guarded() -> Fetcher {
    let ip = |s: &str| s.parse::<IpAddr>().expect("ip");
    let names = StaticLookup(vec![
        ("localhost".into(), vec![ip("127.0.0.1"), ip("::1")]),
        ("intranet.example".into(), vec![ip("10.0.0.5")]),
        ("metadata.example".into(), vec![ip("169.254.169.254")]),
        ("rebind.example".into(), vec![ip("192.168.1.1"), ip("fd00::1")]),
        ("mapped.example".into(), vec![ip("::ffff:127.0.0.1")]),
    ]);
    Fetcher::with_lookup(settings(FetchPolicy::default()), Arc::new(names)).expect("fetcher")
}

fn is_refusal(e: &FetchError) -> bool {
    matches!(e, FetchError::Refused(_))
}

#[tokio::test]
async fn hostile_urls_are_refused_before_reaching_a_private_address() {
    let fetcher = guarded();
    let table = [
        "http://127.0.0.1/",
        "http://127.0.0.1:80/admin",
        "https://127.0.0.1/",
        "http://2130706433/",
        "http://0x7f.1/",
        "http://0x7f000001/",
        "http://017700000001/",
        "http://0177.0.0.1/",
        "http://127.1/",
        "http://0/",
        "http://0.0.0.0/",
        "http://10.0.0.1/",
        "http://172.16.5.4/",
        "http://192.168.0.1/",
        "http://100.64.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:169.254.169.254]/latest/meta-data/",
        "http://224.0.0.251/",
        "http://255.255.255.255/",
        "http://192.0.2.10/",
        "http://[::1]/",
        "http://[::]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://[::127.0.0.1]/",
        "http://[64:ff9b::7f00:1]/",
        "http://[fc00::1]/",
        "http://[fd00:ec2::254]/",
        "http://[fe80::1]/",
        "http://[ff02::1]/",
        "http://localhost/",
        "http://LOCALHOST./",
        "http://intranet.example/",
        "http://metadata.example/latest/meta-data/",
        "http://rebind.example/",
        "http://mapped.example/",
        "http://user:pass@example.com/",
        "http://example.com@127.0.0.1/",
        "http://127.0.0.1#@example.com/",
        "ftp://example.com/",
        "file:///etc/passwd",
        "gopher://127.0.0.1:6379/_INFO",
        "http://example.com:22/",
        "http://example.com:6379/",
    ];
    assert!(table.len() >= 30);
    for url in table {
        let result = tokio::time::timeout(Duration::from_secs(5), fetcher.fetch(url))
            .await
            .unwrap_or_else(|_| panic!("{url}: no quick refusal"));
        let error = result.err().unwrap_or_else(|| panic!("{url} was fetched"));
        // `LOCALHOST.` is not in the test table: it fails the lookup, which is also a refusal
        // to connect; everything else is refused by the policy itself.
        if url != "http://LOCALHOST./" {
            assert!(is_refusal(&error), "{url}: {error:?}");
        }
        assert!(!error.to_string().is_empty(), "{url}: a clear reason");
    }
}

#[tokio::test]
async fn the_system_resolver_refuses_localhost_too() {
    let fetcher = Fetcher::new(settings(FetchPolicy::default())).expect("fetcher");
    let error = fetcher.fetch("http://localhost/").await.expect_err("refused");
    assert!(is_refusal(&error), "{error:?}");
    assert!(error.to_string().contains("private"), "{error}");
}

#[tokio::test]
async fn with_the_default_a_loopback_fake_is_refused_and_never_hit() {
    let web = FakeWeb::start().await;
    let fetcher = Fetcher::new(settings(FetchPolicy::default())).expect("fetcher");
    let error = fetcher.fetch(&format!("{}/secret", web.url())).await.expect_err("refused");
    assert!(is_refusal(&error), "{error:?}");
    assert_eq!(web.hits("/secret"), 0);
}

#[tokio::test]
async fn with_the_test_setting_the_loopback_fake_is_read() {
    let web = FakeWeb::start().await;
    let open = FetchPolicy { allow_private: true, exceptions: Vec::new() };
    let page = Fetcher::new(settings(open))
        .expect("fetcher")
        .fetch(&format!("{}/secret", web.url()))
        .await;
    assert!(page.expect("fetched").body.contains("internal secret"));
    assert_eq!(web.hits("/secret"), 1);
}

#[tokio::test]
async fn redirects_from_an_allowed_site_to_private_addresses_are_refused_at_the_hop() {
    let public = FakeWeb::start().await;
    let private = FakeWeb::start().await;
    let port = private.addr().port();
    // Only the "public" fake's exact address is reachable, as a public site would be.
    let policy = FetchPolicy { allow_private: false, exceptions: vec![public.addr()] };
    let fetcher = Fetcher::new(settings(policy)).expect("fetcher");
    for target in [
        format!("http://127.0.0.1:{port}/secret"),
        format!("http://localhost:{port}/secret"),
        format!("http://[::ffff:127.0.0.1]:{port}/secret"),
        format!("http://2130706433:{port}/secret"),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://127.0.0.1/secret".to_string(),
        "file:///etc/passwd".to_string(),
    ] {
        let url = format!("{}/redirect?to={}", public.url(), urlencode(&target));
        let error = fetcher.fetch(&url).await.expect_err("refused");
        assert!(is_refusal(&error), "{target}: {error:?}");
    }
    assert_eq!(private.hits("/secret"), 0, "the private fake was never reached");
    assert_eq!(public.hits("/redirect"), 7, "each redirect was served, and stopped there");

    let page = fetcher
        .fetch(&format!("{}/redirect?to=/article", public.url()))
        .await
        .expect("a redirect to another allowed page is followed");
    assert_eq!(page.url.path(), "/article");
    let looping = fetcher.fetch(&format!("{}/loop", public.url())).await.expect_err("loop");
    assert!(looping.to_string().contains("too many redirects"), "{looping}");
    assert_eq!(public.hits("/loop"), 6, "the first request and five redirects");
}

#[tokio::test]
async fn a_file_download_is_guarded_at_every_hop_and_checks_its_content_type() {
    let public = FakeWeb::start().await;
    let private = FakeWeb::start().await;
    let port = private.addr().port();
    let policy = FetchPolicy { allow_private: false, exceptions: vec![public.addr()] };
    let fetcher = Fetcher::new(settings(policy)).expect("fetcher");
    let target = format!("http://127.0.0.1:{port}/secret");
    let url = format!("{}/redirect?to={}", public.url(), urlencode(&target));
    let error = fetcher.fetch_file(&url, &["image/"]).await.expect_err("refused");
    assert!(matches!(error, DownloadError::Fetch(FetchError::Refused(_))), "{error:?}");
    assert_eq!(private.hits("/secret"), 0, "the private fake was never reached");

    let page = format!("{}/article", public.url());
    let error = fetcher.fetch_file(&page, &["image/"]).await.expect_err("not a picture");
    assert!(
        matches!(&error, DownloadError::Fetch(FetchError::Unsupported(kind)) if kind == "text/html"),
        "{error:?}"
    );
}

#[tokio::test]
async fn ipv4_translated_and_local_nat64_forms_of_private_addresses_are_refused() {
    let fetcher = guarded();
    for url in [
        "http://[::ffff:0:127.0.0.1]/",
        "http://[::ffff:0:169.254.169.254]/latest/meta-data/",
        "http://[::ffff:0:a00:1]/",
        "http://[64:ff9b:1:7f00:0:100:808:808]/",
        "http://[64:ff9b:1:a9fe:a9:fe00::]/latest/meta-data/",
        "http://[64:ff9b:1:c0a8:1:100:808:808]/",
    ] {
        let error = fetcher.fetch(url).await.expect_err(url);
        assert!(is_refusal(&error), "{url}: {error:?}");
        assert!(error.to_string().contains("private"), "{url}: {error}");
    }
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
