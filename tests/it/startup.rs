//! Start-up refuses what it cannot honour: an HTTP client that cannot be built stops hearth
//! with a typed error instead of falling back to a client without time limits, a working
//! calendar file that contradicts itself stops it with the reason, and a Taiwan securities file
//! that does not parse stops it rather than being quietly replaced.

use std::sync::Arc;

use hearth::platform::clock::SystemClock;
use hearth::platform::config::Config;
use hearth::server::app::{Hearth, StartError};
use hearth::sources::securities::SecuritiesError;

#[tokio::test]
async fn hearth_does_not_start_when_an_http_client_cannot_be_built() {
    let mut config = Config::defaults();
    config.store.database_url = "sqlite::memory:".into();
    config.sources.user_agent = "hearth\nX-Injected: 1".into();
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
    config.store.database_url = "sqlite::memory:".into();
    assert!(Hearth::build(&config, Arc::new(SystemClock)).await.is_ok());
}

#[tokio::test]
async fn hearth_does_not_start_with_a_working_calendar_that_contradicts_itself() {
    let dir = std::env::temp_dir().join(format!("hearth-startup-calendar-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("calendar.json");
    // 2030-01-02 is a Wednesday: it cannot be a make-up workday.
    let bad = r#"{"years": [{"year": 2030, "source": "t", "days_off": [],
        "make_up_workdays": [{"date": "2030-01-02", "name": "補班"}], "twse_closed": []}]}"#;
    std::fs::write(&path, bad).expect("write");
    let mut config = Config::defaults();
    config.store.database_url = "sqlite::memory:".into();
    config.family.work_calendar = Some(path);
    let err = Hearth::build(&config, Arc::new(SystemClock)).await.err().expect("refused to start");
    let message = err.to_string();
    assert!(matches!(err, StartError::WorkCalendar(_)), "{message}");
    assert!(
        message.contains("HEARTH_WORK_CALENDAR") && message.contains("2030-01-02"),
        "{message}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn hearth_does_not_start_on_a_securities_file_that_does_not_parse() {
    let dir =
        std::env::temp_dir().join(format!("hearth-startup-securities-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("broken.tsv");
    std::fs::write(&file, "2330\t台積電\ttwse\tstock\n8069,元太,tpex,stock\n").expect("write");
    let mut config = Config::defaults();
    config.store.database_url = "sqlite::memory:".into();
    config.sources.tw_securities_file = Some(file);
    let err = Hearth::build(&config, Arc::new(SystemClock)).await.err().expect("refused to start");
    let _ = std::fs::remove_dir_all(&dir);
    match err {
        StartError::Securities(SecuritiesError::Line { line, .. }) => assert_eq!(line, 2),
        other => panic!("not a securities error: {other}"),
    }
}

#[tokio::test]
async fn hearth_does_not_start_when_the_securities_file_is_missing() {
    let mut config = Config::defaults();
    config.store.database_url = "sqlite::memory:".into();
    config.sources.tw_securities_file = Some("no/such/tw_securities.tsv".into());
    let err = Hearth::build(&config, Arc::new(SystemClock)).await.err().expect("refused to start");
    assert!(matches!(err, StartError::Securities(SecuritiesError::Read { .. })), "{err}");
}
