//! Tests of the action contract: the data codec, the registry's checks and dispatch.

use std::sync::Arc;

use jiff::tz::TimeZone;
use serde::{Deserialize, Serialize};

use super::*;
use crate::platform::clock::SystemClock;
use crate::platform::conversation::Conversation;

/// An action whose data is an id.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
struct Poke {
    id: i64,
}

impl Action for Poke {
    const NAME: &'static str = "poke";
    async fn run(self, _: &Deps, ctx: &ToolCtx) -> Answer {
        text(format!("poked {} in {}", self.id, ctx.conversation.id))
    }
}

/// An action whose data is a string made of two numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
struct Pair(i64, i64);

impl From<Pair> for String {
    fn from(p: Pair) -> String {
        format!("{}-{}", p.0, p.1)
    }
}

impl TryFrom<String> for Pair {
    type Error = &'static str;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        let (a, b) = s.split_once('-').ok_or("no dash")?;
        Ok(Pair(a.parse().map_err(|_| "a")?, b.parse().map_err(|_| "b")?))
    }
}

impl Action for Pair {
    const NAME: &'static str = "pair";
    async fn run(self, _: &Deps, _: &ToolCtx) -> Answer {
        text(format!("{} and {}", self.0, self.1))
    }
}

/// An action whose data is a name.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
struct Named(String);

impl Action for Named {
    const NAME: &'static str = "named";
    async fn run(self, _: &Deps, _: &ToolCtx) -> Answer {
        text(self.0)
    }
}

/// An action whose data is not a token.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Wide {
    a: i64,
    b: i64,
}

impl Action for Wide {
    const NAME: &'static str = "wide";
    async fn run(self, _: &Deps, _: &ToolCtx) -> Answer {
        Answer::default()
    }
}

/// An action with a name that could not be signed.
#[derive(Serialize, Deserialize)]
struct BadName;

impl Action for BadName {
    const NAME: &'static str = "bad name";
    async fn run(self, _: &Deps, _: &ToolCtx) -> Answer {
        Answer::default()
    }
}

#[test]
fn data_round_trips_through_the_button_token() {
    assert_eq!(encode(&Poke { id: 42 }).expect("encode"), "42");
    assert_eq!(decode::<Poke>("42").expect("decode"), Poke { id: 42 });
    assert_eq!(encode(&Pair(7, 3)).expect("encode"), "7-3");
    assert_eq!(decode::<Pair>("7-3").expect("decode"), Pair(7, 3));
    assert_eq!(decode::<Named>("123").expect("an all-digit name"), Named("123".into()));
    assert_eq!(decode::<Named>("abc_d").expect("decode"), Named("abc_d".into()));
}

#[test]
fn data_that_is_not_a_short_identifier_cannot_be_a_button() {
    assert!(matches!(encode(&Wide { a: 1, b: 2 }), Err(DataError::NotAToken(_))));
    assert!(matches!(encode(&Named("two words".into())), Err(DataError::NotAToken(_))));
    let CardButton::Postback { action, id, .. } = Wide { a: 1, b: 2 }.button("x", "x") else {
        panic!("a postback button");
    };
    assert_eq!((action.as_str(), id.as_str()), ("wide", ""), "dropped when rendered");
}

#[test]
fn tokens_that_are_not_the_data_do_not_decode() {
    assert!(matches!(decode::<Poke>("abc"), Err(DataError::Undecodable { action: "poke", .. })));
    assert!(decode::<Pair>("7").is_err());
    assert!(decode::<Pair>("7-x").is_err());
}

#[test]
fn buttons_carry_the_action_name_and_the_encoded_data() {
    let button = Pair(7, 3).button("✅ Done", "✅ done");
    assert_eq!(
        button,
        CardButton::Postback {
            label: "✅ Done".into(),
            action: "pair".into(),
            id: "7-3".into(),
            display_text: "✅ done".into(),
        }
    );
}

#[test]
fn the_registry_refuses_duplicate_and_bad_names() {
    let twice = ActionRegistry::builder().action::<Poke>().action::<Pair>().action::<Poke>();
    assert_eq!(twice.build().err(), Some(ActionRegistryError::Duplicate("poke")));
    let bad = ActionRegistry::builder().action::<BadName>();
    assert_eq!(bad.build().err(), Some(ActionRegistryError::BadName("bad name")));
    let ok = ActionRegistry::builder().action::<Poke>().action::<Pair>().build();
    assert_eq!(ok.expect("registry").names(), ["pair", "poke"]);
}

async fn deps() -> Deps {
    let config = crate::platform::config::Config::defaults();
    let sources = crate::sources::Sources::from_config(&config).expect("sources");
    let store = crate::store::Store::in_memory().await.expect("store");
    let calendar = crate::sources::calendar::WorkCalendar::weekdays_only();
    Deps::offline(&config, sources, store, calendar).expect("deps")
}

fn ctx(lang: Lang) -> ToolCtx {
    ToolCtx {
        conversation: Conversation::group("Cfamily"),
        user_id: Some("Umom".into()),
        display_name: None,
        tz: TimeZone::UTC,
        lang,
        clock: Arc::new(SystemClock),
        surface: crate::contract::Surface::Button,
    }
}

fn tap(action: &str, id: &str) -> Postback {
    Postback { action: action.into(), id: id.into() }
}

#[tokio::test]
async fn a_tap_runs_its_action_with_the_decoded_data() {
    let registry =
        ActionRegistry::builder().action::<Poke>().action::<Pair>().build().expect("registry");
    let deps = deps().await;
    let answer = registry.dispatch(&deps, &ctx(Lang::En), &tap("poke", "42")).await;
    assert_eq!(answer.text, "poked 42 in Cfamily");
    let answer = registry.dispatch(&deps, &ctx(Lang::En), &tap("pair", "7-3")).await;
    assert_eq!(answer.text, "7 and 3");
}

#[tokio::test]
async fn unknown_actions_and_undecodable_data_get_the_polite_answer() {
    let registry = ActionRegistry::builder().action::<Poke>().build().expect("registry");
    let deps = deps().await;
    let ctx = ctx(Lang::ZhTw);
    assert!(matches!(
        registry.prepare(&deps, &ctx, &tap("gone", "1")),
        Err(TapError::Unknown(name)) if name == "gone"
    ));
    assert!(matches!(
        registry.prepare(&deps, &ctx, &tap("poke", "x")),
        Err(TapError::Data(DataError::Undecodable { .. }))
    ));
    for postback in [tap("gone", "1"), tap("poke", "x")] {
        let answer = registry.dispatch(&deps, &ctx, &postback).await;
        assert_eq!(answer.text, "這個按鈕已經失效了。");
    }
}
