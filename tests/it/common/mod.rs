//! Shared helpers for the integration tests: local fakes of the LINE Messaging API, an
//! OpenAI-compatible LLM, the upstream data providers and the web (search providers and pages),
//! each served on `127.0.0.1`.

#![allow(dead_code)]

pub mod db;
pub mod fake_cap;
pub mod fake_line;
pub mod fake_llm;
pub mod fake_media;
pub mod fake_upstreams;
pub mod fake_web;
pub mod family;
pub mod harness;
pub mod hostile_files;
pub mod pebble;
pub mod prompt_cache;
pub mod radicale;
pub mod replica;
pub mod rows;

// Not every test binary uses every fake.
#[allow(unused_imports)]
pub use fake_line::{FakeLine, PushMode, Recorded, ReplyMode};
#[allow(unused_imports)]
pub use fake_llm::{FakeLlm, Step};
#[allow(unused_imports)]
pub use fake_media::FakeMedia;
#[allow(unused_imports)]
pub use fake_upstreams::{FakeUpstreams, Mode, Route};
#[allow(unused_imports)]
pub use fake_web::FakeWeb;

/// The `hearth` executable, which the server under test starts as its parsing children.
pub fn hearth_exe() -> std::path::PathBuf {
    env!("CARGO_BIN_EXE_hearth").into()
}

/// A sandbox as the server builds it, starting this build's `hearth` as its children.
pub fn sandbox() -> hearth::sources::sandbox::Sandbox {
    let mut config = hearth::platform::config::Config::defaults();
    config.media.parser_program = Some(hearth_exe());
    hearth::sources::sandbox::Sandbox::from_config(&config)
}

/// GETs `url` with a client on hearth's TLS configuration (reqwest's own client needs a crypto
/// provider installed first, which hearth does as it builds its clients).
pub async fn get(url: impl reqwest::IntoUrl) -> reqwest::Result<reqwest::Response> {
    hearth::platform::tls::client_builder().build()?.get(url).send().await
}

/// A new, empty folder in the temporary directory for one test: `tag`, the process and a count
/// make its name, so tests running at once in one process never share a folder (nor a database
/// file in it).
pub fn scratch_dir(tag: &str) -> std::path::PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// A port free now for a server the test starts and cannot hand a listener to (a child process,
/// a second address the server binds itself). It lies below the kernel's ephemeral range (from
/// 32768), where no `bind(…:0)` of another test can take it between this check and the server's
/// bind; each process starts from its own place in 20000–31999 so tests at once look elsewhere.
pub fn unclaimed_port() -> u16 {
    static NEXT: std::sync::atomic::AtomicU16 = std::sync::atomic::AtomicU16::new(0);
    let start = 20_000 + (std::process::id() % 600) as u16 * 20;
    for _ in 0..12_000 {
        let step = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst) % 12_000;
        let port = 20_000 + (start - 20_000 + step) % 12_000;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port in 20000–31999")
}
