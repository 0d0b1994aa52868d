//! A request begins the same way every time: the fixed instructions, then the tool definitions
//! (those a 1:1 chat and a group share first), then the chat's part, the history, and only then
//! what changes every turn, beside the latest message — so a provider's prompt cache reuses
//! the prefix across chats, members, languages and minutes.

use crate::common::harness::in_dm;
use crate::common::harness::{DAD, FAMILY, Harness, MOM};
use crate::common::prompt_cache::{encode, rendered, rendered_gathering_system};
use serde_json::Value;

/// The request the model got for one turn (answered "好").
async fn request_for(h: &Harness, event: Value) -> Value {
    let before = h.llm.requests().len();
    h.llm.reply_text("好");
    h.send(vec![event]).await;
    h.llm.requests()[before].clone()
}

/// The characters two texts begin with in common.
fn common_prefix<'a>(a: &'a str, b: &str) -> &'a str {
    let end = a
        .char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i);
    &a[..end]
}

#[tokio::test]
async fn two_chats_speakers_and_languages_minutes_apart_send_the_same_prefix_up_to_the_chats_part()
{
    let h = Harness::start().await;
    h.line.set_profile(MOM, "小玉");
    h.line.set_profile(DAD, "Zelda");
    h.set_clock("2026-12-17T09:41:00Z");
    let first = request_for(&h, h.dm(MOM, "明天台北會下雨嗎")).await;
    h.set_clock("2026-12-17T09:48:00Z");
    let second = request_for(&h, h.dm(DAD, "Will it rain in Taipei tomorrow?")).await;
    let (a, b) = (rendered(&first), rendered(&second));
    let shared = common_prefix(&a.concat(), &b.concat()).to_string();
    let stable = a[..2].concat();
    println!(
        "shared prefix: {} of {} tokens; instructions and tools: {} tokens",
        encode(&shared).len(),
        encode(&a.concat()).len(),
        encode(&stable).len()
    );
    assert!(a[..2] == b[..2], "the instructions and the tools are the same bytes");
    assert!(shared.len() > stable.len(), "the chat's part begins the same way too");
}

#[tokio::test]
async fn no_time_name_or_id_comes_before_the_chats_part() {
    let h = Harness::start().await;
    h.line.set_profile(MOM, "小玉");
    h.set_clock("2026-12-17T09:41:00Z");
    for event in [h.dm(MOM, "明天台北會下雨嗎"), h.group_text(FAMILY, MOM, "小幫手 明天會下雨嗎")]
    {
        let request = request_for(&h, event).await;
        let before_chat = rendered(&request)[..2].concat();
        for volatile in ["17:41", "2026-12-17", "12-17", "週四", "小玉", MOM, FAMILY, "Asia/Taipei"]
        {
            assert!(!before_chat.contains(volatile), "{volatile:?} comes before the chat's part");
        }
        let messages = request["messages"].as_array().cloned().unwrap_or_default();
        let note = &messages[messages.len() - 2];
        assert_eq!(note["role"], "user", "the turn's note is just before the latest message");
        let note = note["content"].as_str().unwrap_or_default();
        assert!(note.contains("17:41") && note.contains("小玉"), "{note}");
    }
}

#[tokio::test]
async fn a_group_and_a_1to1_chat_share_the_instructions_and_the_tools_they_have_in_common() {
    let h = Harness::start().await;
    let one = request_for(&h, h.dm(MOM, "明天台北會下雨嗎")).await;
    let group = request_for(&h, h.group_text(FAMILY, DAD, "小幫手 明天會下雨嗎")).await;
    assert_eq!(one["messages"][0], group["messages"][0], "the same instructions");
    let (one, group) = (one["tools"].as_array().cloned(), group["tools"].as_array().cloned());
    let (one, group) = (one.unwrap_or_default(), group.unwrap_or_default());
    let shared = one.iter().zip(&group).take_while(|(a, b)| a == b).count();
    let differing = one.iter().filter(|t| !group.contains(t)).count();
    assert!(differing > 0, "some tools have group-only arguments");
    assert_eq!(shared + differing, one.len(), "the shared tools come first, the others after");
    println!(
        "1:1 and group share {shared} of {} tools ({} tokens)",
        one.len(),
        encode(&serde_json::to_string(&one[..shared]).unwrap_or_default()).len()
    );
}

#[tokio::test]
async fn the_injection_guard_names_every_tool_that_changes_state() {
    let h = Harness::start().await;
    let request = request_for(&h, h.group_text(FAMILY, MOM, "小幫手 你好")).await;
    let instructions = request["messages"][0]["content"].as_str().unwrap_or_default().to_string();
    let registry = h.app.turns.agent.registry();
    let tools = request["tools"].as_array().cloned().unwrap_or_default();
    let names = tools.iter().filter_map(|t| t["function"]["name"].as_str());
    for name in names.filter(|n| registry.changes_state(n)) {
        assert!(
            instructions.contains(&format!(" {name},"))
                || instructions.contains(&format!(" {name} ")),
            "{name} is not named: {instructions}"
        );
    }
}

#[tokio::test]
async fn a_remembered_fact_keeps_the_prefix_every_chat_shares_even_where_a_template_gathers_system_messages_first()
 {
    let h = Harness::start().await;
    let fact = serde_json::json!({"action": "remember", "fact": "媽媽對花生過敏"});
    h.call_tool(in_dm(MOM), "記得我對花生過敏", "memory", fact).await;
    let with_fact = request_for(&h, h.dm(MOM, "明天台北會下雨嗎")).await;
    let without = request_for(&h, h.dm(DAD, "Will it rain in Taipei tomorrow?")).await;
    assert!(rendered(&with_fact).concat().contains("花生過敏"), "the fact is sent");
    let system = |r: &Value| {
        let messages = r["messages"].as_array().cloned().unwrap_or_default();
        messages.iter().filter(|m| m["role"] == "system").count()
    };
    for render in [rendered, rendered_gathering_system] {
        let (a, b) = (render(&with_fact), render(&without));
        let shared = common_prefix(&a.concat(), &b.concat()).to_string();
        let stable = a[..2].concat();
        println!("shared: {} tokens of {}", encode(&shared).len(), encode(&a.concat()).len());
        assert!(a[..2] == b[..2], "the instructions and the tools are the same bytes");
        assert!(shared.len() >= stable.len(), "nothing of the chat comes before the tools");
    }
    assert_eq!((system(&with_fact), system(&without)), (1, 1), "the instructions alone");
}
