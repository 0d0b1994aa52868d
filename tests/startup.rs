//! Start-up refuses what it cannot honour: an HTTP client that cannot be built stops hearth
//! with a typed error instead of falling back to a client without time limits.

use std::sync::Arc;

use hearth::app::{Hearth, StartError};
use hearth::clock::SystemClock;
use hearth::config::Config;

#[tokio::test]
async fn hearth_does_not_start_when_an_http_client_cannot_be_built() {
    let mut config = Config::defaults();
    config.database_url = "sqlite::memory:".into();
    config.user_agent = "hearth\nX-Injected: 1".into();
    let err = Hearth::build(&config, Arc::new(SystemClock)).await.err().expect("refused to start");
    match err {
        StartError::HttpClient { what, .. } => {
            assert!(what.contains("HEARTH_USER_AGENT"), "{what}")
        }
        other => panic!("not an HTTP client error: {other}"),
    }
}

#[tokio::test]
async fn hearth_starts_with_the_default_settings() {
    let mut config = Config::defaults();
    config.database_url = "sqlite::memory:".into();
    assert!(Hearth::build(&config, Arc::new(SystemClock)).await.is_ok());
}
