//! The registry contract: the production list builds, its schemas are what OpenAI's strict mode
//! accepts, bad registries are refused at build time, and dispatch never fails.

use std::sync::Arc;

use hearth::contract::registry::{Outcome, Registry, RegistryError};
use hearth::contract::schema::Audience;
use hearth::contract::{ErrorKind, Tool, ToolCtx, ToolError};
use hearth::platform::clock::SystemClock;
use hearth::platform::config::Config;
use hearth::platform::conversation::Conversation;
use hearth::platform::i18n::Lang;
use hearth::sources::Sources;
use hearth::store::Store;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// The production registry with a search provider configured (so `web_search` is in it).
async fn production() -> Registry {
    let mut config = Config::defaults();
    config.web.searxng_url = "http://searxng.invalid:8080".into();
    let deps = hearth::features::deps::Deps::offline(
        &config,
        Sources::from_config(&config).expect("sources"),
        Store::in_memory().await.expect("store"),
        hearth::sources::calendar::WorkCalendar::builtin().expect("calendar"),
    )
    .expect("deps");
    hearth::tools::registry(&deps).expect("production registry builds")
}

fn ctx() -> ToolCtx {
    ToolCtx {
        conversation: Conversation::user("U0123456789abcdef0123456789abcdef"),
        user_id: None,
        display_name: None,
        tz: jiff::tz::TimeZone::get("Asia/Taipei").expect("zone"),
        lang: Lang::ZhTw,
        clock: Arc::new(SystemClock),
        surface: hearth::contract::Surface::Chat,
    }
}

fn walk(value: &Value, visit: &mut dyn FnMut(&serde_json::Map<String, Value>)) {
    match value {
        Value::Object(map) => {
            visit(map);
            map.values().for_each(|v| walk(v, visit));
        }
        Value::Array(items) => items.iter().for_each(|v| walk(v, visit)),
        _ => {}
    }
}

#[tokio::test]
async fn production_tools_have_the_seed_wire_names() {
    let names: Vec<String> = production()
        .await
        .definitions(Audience::Group)
        .iter()
        .map(|d| d.name.to_string())
        .collect();
    assert_eq!(
        names,
        [
            "weather",
            "fx",
            "get_quote",
            "reminders",
            "price_alerts",
            "recap",
            "memory",
            "list",
            "digest",
            "quiet_hours",
            "quota",
            "official_alerts",
            "web_search",
            "summarize_url",
            // Those with group-only arguments, and a group's own tools, last: a 1:1 chat and a
            // group share the rest.
            "reminder",
            "calendar",
            "price_alert",
            "care",
        ]
    );
}

#[tokio::test]
async fn state_changing_and_untrusted_tools_are_flagged_in_the_registry() {
    let registry = production().await;
    let changing: Vec<String> = registry
        .definitions(Audience::Group)
        .iter()
        .map(|d| d.name.to_string())
        .filter(|n| registry.changes_state(n))
        .collect();
    assert_eq!(
        changing,
        [
            "reminders",
            "price_alerts",
            "memory",
            "list",
            "digest",
            "quiet_hours",
            "official_alerts",
            "reminder",
            "calendar",
            "price_alert",
            "care",
        ]
    );
    let untrusted: Vec<String> = registry
        .definitions(Audience::Group)
        .iter()
        .map(|d| d.name.to_string())
        .filter(|n| registry.untrusted_output(n))
        .collect();
    assert_eq!(untrusted, ["web_search", "summarize_url"]);
    assert!(!registry.changes_state("no_such_tool"));
}

#[tokio::test]
async fn without_a_search_provider_web_search_is_not_registered() {
    let mut config = Config::defaults();
    config.web.searxng_url = String::new();
    config.web.tavily_api_key = Default::default();
    config.web.brave_api_key = Default::default();
    let deps = hearth::features::deps::Deps::offline(
        &config,
        Sources::from_config(&config).expect("sources"),
        Store::in_memory().await.expect("store"),
        hearth::sources::calendar::WorkCalendar::builtin().expect("calendar"),
    )
    .expect("deps");
    let registry = hearth::tools::registry(&deps).expect("registry");
    let names: Vec<String> =
        registry.definitions(Audience::Group).iter().map(|d| d.name.to_string()).collect();
    assert!(
        !names.iter().any(|n| n == "web_search") && names.iter().any(|n| n == "summarize_url"),
        "{names:?}"
    );
    assert!(!registry.offers("web_search") && registry.offers("summarize_url"));
    config.web.tavily_api_key = "tvly-x".into();
    let deps = hearth::features::deps::Deps {
        sources: Sources::from_config(&config).expect("sources"),
        ..deps
    };
    let registry = hearth::tools::registry(&deps).expect("registry");
    assert!(
        registry.definitions(Audience::Group).iter().any(|d| d.name == "web_search"),
        "a hosted key is enough"
    );
    assert!(registry.offers("web_search"), "offered as listed");
}

#[tokio::test]
async fn descriptions_fence_fx_and_get_quote_off_from_each_other() {
    let registry = production().await;
    let describe = |name: &str| {
        registry
            .definitions(Audience::Group)
            .iter()
            .find(|d| d.name == name)
            .map(|d| d.description.to_string())
            .unwrap_or_default()
    };
    assert!(describe("fx").contains("Does NOT handle cryptocurrencies"));
    let quote = describe("get_quote");
    for kind in ["stock", "ETF", "index", "crypto"] {
        assert!(quote.contains(kind), "get_quote mentions {kind}");
    }
}

#[tokio::test]
async fn every_schema_follows_openai_strict_rules() {
    for def in production().await.definitions(Audience::Group) {
        let schema = &def.parameters;
        assert_eq!(schema["type"], "object", "{}", def.name);
        walk(schema, &mut |map| {
            for banned in
                ["$ref", "$defs", "allOf", "oneOf", "not", "if", "format", "default", "$schema"]
            {
                assert!(!map.contains_key(banned), "{}: {banned} in {map:?}", def.name);
            }
            if map.get("type") == Some(&Value::from("object")) {
                assert_eq!(
                    map.get("additionalProperties"),
                    Some(&Value::Bool(false)),
                    "{}",
                    def.name
                );
                let props: Vec<&String> =
                    map["properties"].as_object().map(|p| p.keys().collect()).unwrap_or_default();
                let required: Vec<&str> = map["required"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                assert_eq!(props.len(), required.len(), "{}: every property required", def.name);
            }
        });
    }
}

#[tokio::test]
async fn tool_definitions_match_the_committed_snapshots_for_a_group_and_a_1to1_chat() {
    let registry = production().await;
    for (audience, path) in [
        (Audience::Group, "tests/snapshots/tool_definitions.json"),
        (Audience::OneToOne, "tests/snapshots/tool_definitions_1to1.json"),
    ] {
        let current =
            serde_json::to_string_pretty(&registry.definitions(audience)).expect("json") + "\n";
        if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
            std::fs::write(path, &current).expect("write snapshot");
        }
        let committed =
            std::fs::read_to_string(path).expect("snapshot exists (UPDATE_SNAPSHOTS=1 writes it)");
        assert_eq!(current, committed, "{path} changed; review and run with UPDATE_SNAPSHOTS=1");
    }
}

/// Empty arguments.
#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

struct Named<const N: usize>;

macro_rules! named_tool {
    ($n:literal, $name:literal) => {
        impl Tool for Named<$n> {
            const NAME: &'static str = $name;
            const DESCRIPTION: &'static str = "test";
            type Args = NoArgs;
            type Output = ();
            async fn run(&self, _: &ToolCtx, _: NoArgs) -> Result<(), ToolError> {
                Ok(())
            }
        }
    };
}
named_tool!(0, "same");
named_tool!(1, "same");
named_tool!(2, "has space");
named_tool!(3, "");

/// A non-object argument type.
struct StringArgs;

impl Tool for StringArgs {
    const NAME: &'static str = "string_args";
    const DESCRIPTION: &'static str = "test";
    type Args = String;
    type Output = ();
    async fn run(&self, _: &ToolCtx, _: String) -> Result<(), ToolError> {
        Ok(())
    }
}

#[test]
fn duplicate_bad_names_and_non_object_schemas_are_refused() {
    let dup = Registry::builder().tool(Named::<0>).tool(Named::<1>).build();
    assert!(matches!(dup, Err(RegistryError::Duplicate("same"))));
    assert!(matches!(Registry::builder().tool(Named::<2>).build(), Err(RegistryError::BadName(_))));
    assert!(matches!(Registry::builder().tool(Named::<3>).build(), Err(RegistryError::BadName(_))));
    assert!(matches!(
        Registry::builder().tool(StringArgs).build(),
        Err(RegistryError::BadSchema { .. })
    ));
}

#[tokio::test]
async fn dispatch_turns_every_problem_into_an_error_reply() {
    let registry = production().await;
    let unknown = registry.dispatch("nope", "{}", &ctx()).await;
    assert_eq!(unknown.outcome, Outcome::Error(ErrorKind::UnknownTool));
    assert_eq!(unknown.content["error"]["kind"], "unknown_tool");
    let bad_json = registry.dispatch("fx", "{not json", &ctx()).await;
    assert_eq!(bad_json.outcome, Outcome::Error(ErrorKind::InvalidArguments));
    let wrong_shape = registry.dispatch("weather", r#"{"location": 5}"#, &ctx()).await;
    assert_eq!(wrong_shape.outcome, Outcome::Error(ErrorKind::InvalidArguments));
    let missing = registry.dispatch("get_quote", "", &ctx()).await;
    assert_eq!(
        missing.outcome,
        Outcome::Error(ErrorKind::InvalidArguments),
        "empty args mean {{}}, which lacks symbol"
    );
    assert!(missing.card.is_none() && missing.chips.is_empty());
}

#[tokio::test]
async fn the_definitions_stay_within_the_token_budget_and_twenty_tools_in_both_kinds_of_chat() {
    // The most a deployment offers: web search and spoken answers both configured.
    let mut config = Config::defaults();
    config.web.searxng_url = "http://searxng.invalid:8080".into();
    config.speech.tts_model = "tts-test".into();
    config.speech.tts_url = "http://speech.invalid".into();
    config.server.public_url = Some("https://hearth.example".into());
    let deps = hearth::features::deps::Deps::offline(
        &config,
        Sources::from_config(&config).expect("sources"),
        Store::in_memory().await.expect("store"),
        hearth::sources::calendar::WorkCalendar::builtin().expect("calendar"),
    )
    .expect("deps");
    let registry = hearth::tools::registry(&deps).expect("registry");
    assert!(registry.offers("spoken_answers") && registry.offers("web_search"));
    for (audience, budget) in [(Audience::OneToOne, 3_800), (Audience::Group, 4_300)] {
        let definitions = registry.definitions(audience);
        let (each, total) = hearth::llm::tokens::of_tools(&definitions, true);
        assert!(total <= budget, "{audience:?}: {total} tokens > {budget}: {each:?}");
        assert!(definitions.len() <= 20, "{audience:?}: {} tools", definitions.len());
    }
}

#[tokio::test]
async fn a_1to1_chat_is_not_offered_arguments_only_a_group_can_use() {
    let registry = production().await;
    let argument = |audience, tool: &str, name: &str| {
        registry
            .definitions(audience)
            .iter()
            .find(|d| d.name == tool)
            .is_some_and(|d| d.parameters["properties"].get(name).is_some())
    };
    for (tool, name) in [("reminder", "for_member"), ("price_alert", "everyone")] {
        assert!(!argument(Audience::OneToOne, tool, name), "{tool}.{name} in a 1:1 chat");
        assert!(argument(Audience::Group, tool, name), "{tool}.{name} in a group");
    }
}

#[tokio::test]
async fn no_definition_carries_a_dated_example_that_goes_stale() {
    for def in production().await.definitions(Audience::Group) {
        let text = serde_json::to_string(&def).expect("json");
        let chars: Vec<char> = text.chars().collect();
        let dated = chars.windows(10).any(|w| {
            let digit = |i: usize| w[i].is_ascii_digit();
            (0..4).all(digit)
                && w[4] == '-'
                && digit(5)
                && digit(6)
                && w[7] == '-'
                && digit(8)
                && digit(9)
        });
        assert!(!dated, "{}: a calendar date in {text}", def.name);
        for weekday in ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "週三"] {
            assert!(!text.contains(&format!("on a {weekday}")), "{}: {weekday}", def.name);
        }
    }
}
