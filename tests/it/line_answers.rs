//! Every answer of LINE's API that hearth reads, read by hearth's own client: each fixture of
//! `tests/fixtures/line-answers` (written to LINE's schemas, in the richest shapes LINE may send:
//! every rich-menu action type, labels left out, optional fields present and absent) is served by
//! a fake LINE, and the client method that calls its endpoint must read it and return what it
//! says. `.ci/run` checks the same fixtures with LINE's Python SDK and, where LINE's OpenAPI spec
//! is at hand, writes the spec's own examples of these answers to `LINE_ANSWER_EXAMPLES`, which
//! this test reads through the client too.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use hearth::line::client::LineClient;
use hearth::line::richmenu::{Area, AreaAction, Bounds, RichMenu, Size};
use hearth::platform::conversation::Conversation;
use serde_json::{Value, json};

/// One answer: the endpoint (`GET /v2/bot/info`), the SDK model LINE names it by, the body.
#[derive(Debug, Clone, serde::Deserialize)]
struct Fixture {
    endpoint: String,
    body: Value,
}

type Check = for<'a> fn(&'a LineClient, &'a Value) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Each endpoint hearth reads, and how: the client's method, and what it must have read.
fn endpoints() -> BTreeMap<&'static str, Check> {
    let mut checks: BTreeMap<&'static str, Check> = BTreeMap::new();
    checks.insert("GET /v2/bot/info", |c, body| {
        Box::pin(async move {
            let info = c.bot_info().await.expect("bot info");
            assert_eq!(info.display_name, body["displayName"].as_str().expect("name"));
            assert_eq!(info.basic_id, body["basicId"].as_str().expect("basic id"));
        })
    });
    checks.insert("GET /v2/bot/channel/webhook/endpoint", |c, body| {
        Box::pin(async move {
            let endpoint = c.webhook_endpoint().await.expect("webhook endpoint");
            assert_eq!(endpoint.active, body["active"].as_bool().expect("active"));
            assert_eq!(endpoint.endpoint, body["endpoint"].as_str().unwrap_or_default());
        })
    });
    checks.insert("POST /v2/bot/channel/webhook/test", |c, body| {
        Box::pin(async move {
            let test = c.test_webhook(None).await.expect("webhook test");
            assert_eq!(test.success, body["success"].as_bool().unwrap_or_default());
            assert_eq!(test.status_code, body["statusCode"].as_i64().expect("status"));
        })
    });
    checks.insert("GET /v2/bot/message/quota", |c, body| {
        Box::pin(async move {
            let quota = c.quota().await.expect("quota");
            let limited = body["type"] == "limited";
            assert_eq!(quota.limit, if limited { body["value"].as_i64() } else { None });
        })
    });
    checks.insert("GET /v2/bot/message/quota/consumption", |c, body| {
        Box::pin(async move {
            let quota = c.quota().await.expect("quota");
            assert_eq!(quota.used, body["totalUsage"].as_i64().expect("usage"));
        })
    });
    checks.insert("GET /v2/bot/profile/{userId}", |c, body| {
        Box::pin(async move {
            let chat = Conversation::user("U0123456789abcdef0123456789abcdef");
            let profile = c.profile(&chat, &chat.id).await.expect("profile");
            assert_eq!(profile.display_name, body["displayName"].as_str().expect("name"));
            assert_eq!(profile.language.as_deref(), body["language"].as_str());
            assert!(c.is_friend(&chat.id).await.expect("friend"), "a profile answered: a friend");
        })
    });
    checks.insert("GET /v2/bot/group/{groupId}/member/{userId}", |c, body| {
        Box::pin(async move {
            let chat = Conversation::group("C0123456789abcdef0123456789abcdef");
            let profile = c.profile(&chat, "U0123").await.expect("member profile");
            assert_eq!(profile.display_name, body["displayName"].as_str().expect("name"));
        })
    });
    checks.insert("GET /v2/bot/room/{roomId}/member/{userId}", |c, body| {
        Box::pin(async move {
            let chat = Conversation::from_id("R0123456789abcdef0123456789abcdef");
            let profile = c.profile(&chat, "U0123").await.expect("member profile");
            assert_eq!(profile.display_name, body["displayName"].as_str().expect("name"));
        })
    });
    checks.insert("GET /v2/bot/group/{groupId}/members/count", |c, body| {
        Box::pin(async move {
            let chat = Conversation::group("C0123456789abcdef0123456789abcdef");
            assert_eq!(c.members_count(&chat).await.expect("count"), body["count"].as_i64());
        })
    });
    checks.insert("GET /v2/bot/room/{roomId}/members/count", |c, body| {
        Box::pin(async move {
            let chat = Conversation::from_id("R0123456789abcdef0123456789abcdef");
            assert_eq!(c.members_count(&chat).await.expect("count"), body["count"].as_i64());
        })
    });
    checks.insert("POST /v2/bot/richmenu", |c, body| {
        Box::pin(async move {
            let id = c.create_rich_menu(&small_menu()).await.expect("created");
            assert_eq!(id, body["richMenuId"].as_str().expect("id"));
        })
    });
    checks.insert("GET /v2/bot/richmenu/list", |c, body| {
        Box::pin(async move {
            let menus = c.rich_menus().await.expect("rich menu list");
            let names: Vec<&str> = menus.iter().map(|m| m.name.as_str()).collect();
            let listed: Vec<&str> = body["richmenus"]
                .as_array()
                .expect("menus")
                .iter()
                .map(|m| m["name"].as_str().expect("name"))
                .collect();
            assert_eq!(names, listed);
        })
    });
    checks.insert("GET /v2/bot/richmenu/alias/list", |c, body| {
        Box::pin(async move {
            let aliases = c.rich_menu_aliases().await.expect("aliases");
            assert_eq!(aliases.len(), body["aliases"].as_array().expect("aliases").len());
        })
    });
    checks.insert("GET /v2/bot/richmenu/alias/{richMenuAliasId}", |c, body| {
        Box::pin(async move {
            let menu = c.rich_menu_alias("hearth-everyday").await.expect("alias");
            assert_eq!(menu.as_deref(), body["richMenuId"].as_str());
        })
    });
    checks.insert("GET /v2/bot/user/all/richmenu", |c, body| {
        Box::pin(async move {
            let menu = c.default_rich_menu().await.expect("default menu");
            assert_eq!(menu.as_deref(), body["richMenuId"].as_str());
        })
    });
    checks.insert("POST /v2/bot/message/reply", |c, body| {
        Box::pin(async move {
            let text = [hearth::line::message::Message::text("好的")];
            let sent = c.reply("token", &text, Duration::from_secs(30)).await.expect("reply");
            assert_eq!(sent.ids().len(), sent_count(body));
        })
    });
    checks.insert("POST /v2/bot/message/push", |c, body| {
        Box::pin(async move {
            let text = [hearth::line::message::Message::text("好的")];
            let to = "U0123456789abcdef0123456789abcdef";
            let sent = c.push(to, &text[..], uuid::Uuid::new_v4(), false).await.expect("push");
            assert_eq!(sent.ids().len(), sent_count(body));
        })
    });
    checks
}

fn sent_count(body: &Value) -> usize {
    body["sentMessages"].as_array().map_or(0, Vec::len)
}

fn small_menu() -> RichMenu {
    RichMenu {
        rich_menu_id: None,
        size: Size { width: 2500, height: 843 },
        selected: false,
        name: "hearth-test".into(),
        chat_bar_text: "小幫手".into(),
        areas: vec![Area {
            bounds: Bounds { x: 0, y: 0, width: 2500, height: 843 },
            action: AreaAction::Message { label: "你好".into(), text: "你好".into() },
        }],
    }
}

/// What the fake answers where a check calls two endpoints and the fixture is for the other.
fn companion(endpoint: &str) -> Value {
    match endpoint {
        "GET /v2/bot/message/quota" => json!({"type": "none"}),
        "GET /v2/bot/message/quota/consumption" => json!({"totalUsage": 0}),
        _ => json!({}),
    }
}

/// Whether `path` is an instance of the template `pattern` (`{name}` matches one segment).
fn matches(pattern: &str, path: &str) -> bool {
    let (pattern, path): (Vec<&str>, Vec<&str>) =
        (pattern.split('/').collect(), path.split('/').collect());
    pattern.len() == path.len()
        && pattern.iter().zip(&path).all(|(p, s)| p == s || (p.starts_with('{') && !s.is_empty()))
}

#[derive(Clone, Default)]
struct Answers(Arc<Mutex<Vec<(String, Value)>>>);

async fn answer(State(answers): State<Answers>, request: Request) -> Response {
    let asked = format!("{} {}", request.method(), request.uri().path());
    let answers = answers.0.lock().unwrap_or_else(PoisonError::into_inner);
    let found = answers.iter().find(|(endpoint, _)| {
        let (method, pattern) = endpoint.split_once(' ').expect("METHOD /path");
        asked.split_once(' ').is_some_and(|(m, path)| m == method && matches(pattern, path))
    });
    match found {
        Some((_, body)) => axum::Json(body.clone()).into_response(),
        None => (axum::http::StatusCode::NOT_FOUND, axum::Json(json!({"message": asked})))
            .into_response(),
    }
}

/// A fake LINE answering `fixture` at its endpoint (and a plain answer at its companion).
async fn serving(fixture: &Fixture) -> (LineClient, tokio::task::JoinHandle<()>) {
    let answers = Answers::default();
    {
        let mut served = answers.0.lock().expect("answers");
        served.push((fixture.endpoint.clone(), fixture.body.clone()));
        for other in ["GET /v2/bot/message/quota", "GET /v2/bot/message/quota/consumption"] {
            served.push((other.to_string(), companion(other)));
        }
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let app = Router::new().fallback(answer).with_state(answers);
    let server = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let client = LineClient::new(&url, "token".into(), 1000).expect("client");
    (client, server)
}

/// The `*.answer.json` files of `dir`, with their names.
fn fixtures_in(dir: &Path) -> Vec<(String, Fixture)> {
    let mut found: Vec<(String, Fixture)> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect::<Vec<PathBuf>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|path| path.to_string_lossy().ends_with(".answer.json"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("fixture");
            let fixture =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path.file_name().unwrap_or_default().to_string_lossy().into_owned(), fixture)
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

fn ours() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/line-answers")
}

async fn read_through_the_client(fixtures: Vec<(String, Fixture)>) {
    let checks = endpoints();
    for (name, fixture) in fixtures {
        let check = *checks
            .get(fixture.endpoint.as_str())
            .unwrap_or_else(|| panic!("{name}: no check reads {}", fixture.endpoint));
        let (client, server) = serving(&fixture).await;
        let outcome = tokio::spawn({
            let fixture = fixture.clone();
            async move { check(&client, &fixture.body).await }
        })
        .await;
        server.abort();
        if let Err(panic) = outcome {
            panic!("{name} ({}): not read as LINE sends it: {panic}", fixture.endpoint);
        }
    }
}

#[tokio::test]
async fn every_answer_of_line_that_hearth_reads_is_read_whole_by_its_client() {
    let fixtures = fixtures_in(&ours());
    assert!(fixtures.len() >= endpoints().len(), "fixtures missing in {}", ours().display());
    read_through_the_client(fixtures).await;
}

#[test]
fn every_endpoint_hearth_reads_has_a_fixture_of_its_answer() {
    let covered: Vec<String> = fixtures_in(&ours()).into_iter().map(|(_, f)| f.endpoint).collect();
    for endpoint in endpoints().keys() {
        assert!(covered.iter().any(|c| c == endpoint), "no fixture of {endpoint}'s answer");
    }
}

#[tokio::test]
async fn lines_own_examples_of_its_answers_are_read_by_the_client_where_the_spec_is_at_hand() {
    // `.ci/run` writes them from LINE's OpenAPI spec when it has the spec; without it there is
    // nothing to read (the fixtures above are read either way).
    let Some(dir) = std::env::var_os("LINE_ANSWER_EXAMPLES") else { return };
    let examples = fixtures_in(Path::new(&dir));
    assert!(!examples.is_empty(), "LINE_ANSWER_EXAMPLES names a folder without examples");
    read_through_the_client(examples).await;
}
