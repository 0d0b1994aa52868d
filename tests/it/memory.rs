//! Conversation memory end to end: remember, forget and list through the fake LLM, delete
//! buttons tapped in the right and the wrong chat, recap windows, and the chat log's privacy
//! rules (unsend, retention on the injected clock, leave and unfollow).

use crate::common::harness::tool_results;

use crate::common::harness::{DAD, FAMILY, Harness, MOM, OTHER_GROUP, messages_of, texts_of};
use hearth::store::NewMemory;
use jiff::SignedDuration;
use serde_json::{Value, json};

fn group(id: &str, user: &str) -> Value {
    json!({"type": "group", "groupId": id, "userId": user})
}

/// A postback event with `data`, tapped by `user` in `group_id` (or in a 1:1 chat when `None`).
fn tap(h: &Harness, group_id: Option<&str>, user: &str, data: &str) -> Value {
    let source = match group_id {
        Some(g) => group(g, user),
        None => json!({"type": "user", "userId": user}),
    };
    let mut event = h.event(source, json!({}));
    event["type"] = json!("postback");
    event["postback"] = json!({"data": data});
    event.as_object_mut().map(|o| o.remove("message"));
    event
}

fn system_prompt(request: &Value) -> String {
    crate::common::harness::instructions(request)
}

/// The (label, data) of the postback buttons of the last reply's card.
/// The postback buttons of the last reply's card, each with the texts beside it (its row, or
/// just its label in the footer) and its data.
fn buttons(h: &Harness) -> Vec<(String, String)> {
    let replies = h.line.replies();
    let body = &replies.last().expect("a reply").body;
    let flex = messages_of(body).into_iter().find(|m| m["type"] == "flex").expect("a card");
    let mut found = Vec::new();
    collect_buttons(&flex["contents"], &mut found);
    found
}

fn collect_buttons(node: &Value, found: &mut Vec<(String, String)>) {
    let Some(contents) = node.get("contents").and_then(Value::as_array) else {
        if let Some(items) = node.as_object().map(|o| o.values()) {
            items.for_each(|v| collect_buttons(v, found));
        }
        return;
    };
    let beside: Vec<&str> = contents.iter().filter_map(|c| c["text"].as_str()).collect();
    for c in contents {
        if c["type"] == "button" && c["action"]["type"] == "postback" {
            let label =
                format!("{} {}", beside.join(" "), c["action"]["label"].as_str().unwrap_or(""));
            found.push((
                label.trim().to_string(),
                c["action"]["data"].as_str().unwrap_or("").to_string(),
            ));
        } else {
            collect_buttons(c, found);
        }
    }
    for key in ["body", "footer"] {
        if let Some(part) = node.get(key) {
            collect_buttons(part, found);
        }
    }
}

async fn start() -> Harness {
    let h = Harness::start().await;
    h.line.set_profile(MOM, "媽媽");
    h.line.set_profile(DAD, "爸爸");
    h
}

/// Asks hearth in `group_id` to remember `fact` (one scripted tool call and answer).
async fn remember(h: &Harness, group_id: &str, fact: &str) {
    h.llm.reply_tool_calls(&[("memory", json!({"action": "remember", "fact": fact}))]);
    h.llm.reply_text("好，我記住了。");
    h.send(vec![h.group_text(group_id, MOM, &format!("小幫手 記得{fact}"))]).await;
}

/// One plain turn; returns the system prompt the LLM saw.
async fn prompt_after(h: &Harness, event: Value) -> String {
    h.llm.reply_text("好的");
    h.send(vec![event]).await;
    system_prompt(h.llm.requests().last().expect("a request"))
}

async fn memory_texts(h: &Harness, conversation: &str) -> Vec<String> {
    let all = h.app.store.memory().memories(conversation).await.expect("memories");
    all.into_iter().map(|m| m.text).collect()
}

#[tokio::test]
async fn a_fact_remembered_in_a_group_is_in_that_groups_prompts_only() {
    let h = start().await;
    remember(&h, FAMILY, "奶奶對花生過敏").await;
    let card = messages_of(&h.line.replies()[0].body)[1]["contents"].to_string();
    assert!(card.contains("記住了") && card.contains("奶奶對花生過敏"), "{card}");

    let family = prompt_after(&h, h.group_text(FAMILY, DAD, "小幫手 晚餐煮什麼好")).await;
    assert!(family.contains("奶奶對花生過敏 (媽媽, 2026-11-30)"), "who and when: {family}");
    let other = prompt_after(&h, h.group_text(OTHER_GROUP, DAD, "小幫手 晚餐煮什麼好")).await;
    assert!(!other.contains("花生"), "another group: {other}");
    let dm = prompt_after(&h, h.dm(MOM, "晚餐煮什麼好")).await;
    assert!(!dm.contains("花生"), "a 1:1 chat: {dm}");
}

#[tokio::test]
async fn a_fact_remembered_in_a_one_to_one_chat_never_reaches_a_group() {
    let h = start().await;
    h.llm.reply_tool_calls(&[(
        "memory",
        json!({"action": "remember", "fact": "my PIN hint is the dog's name"}),
    )]);
    h.llm.reply_text("Got it.");
    h.send(vec![h.dm(MOM, "remember my PIN hint is the dog's name")]).await;
    let card = messages_of(&h.line.replies()[0].body)[1]["contents"].to_string();
    assert!(card.contains("Remembered"), "English card: {card}");
    assert!(prompt_after(&h, h.dm(MOM, "hi")).await.contains("PIN hint"));
    assert!(!prompt_after(&h, h.group_text(FAMILY, MOM, "hearth hi")).await.contains("PIN"));
}

#[tokio::test]
async fn forget_by_description_removes_it_and_bad_requests_change_nothing() {
    let h = start().await;
    remember(&h, FAMILY, "奶奶對花生過敏").await;
    remember(&h, FAMILY, "爸爸週三要加班").await;
    h.llm.reply_tool_calls(&[
        ("memory", json!({"action": "forget", "words": "花生"})),
        ("memory", json!({"action": "forget", "description": "生日"})),
        ("memory", json!({"action": "forget", "id": 999})),
        ("memory", json!({"action": "forget"})),
        ("memory", json!({"action": "remember", "fact": "  "})),
        ("memory", json!({"action": "remember", "fact": "字".repeat(501)})),
    ]);
    h.llm.reply_text("好，已經忘記花生那件事了。");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 忘記花生那件事")]).await;
    let results = tool_results(h.llm.requests().last().expect("request"));
    assert_eq!(results[0]["status"], "forgotten");
    assert_eq!(results[0]["memory"]["text"], "奶奶對花生過敏");
    assert_eq!(results[1]["error"]["kind"], "not_found", "{}", results[1]);
    assert_eq!(results[2]["error"]["kind"], "not_found");
    assert_eq!(results[3]["error"]["kind"], "invalid_arguments");
    assert_eq!(results[4]["error"]["kind"], "invalid_arguments");
    assert!(results[5]["error"]["message"].as_str().is_some_and(|m| m.contains("501")));
    assert_eq!(memory_texts(&h, FAMILY).await, ["爸爸週三要加班"]);
    let prompt = prompt_after(&h, h.group_text(FAMILY, DAD, "小幫手 點心買什麼")).await;
    assert!(!prompt.contains("花生") && prompt.contains("爸爸週三要加班"), "{prompt}");
}

#[tokio::test]
async fn delete_buttons_work_in_their_chat_and_are_refused_elsewhere() {
    let h = start().await;
    remember(&h, FAMILY, "奶奶對花生過敏").await;
    remember(&h, FAMILY, "爸爸週三要加班").await;
    h.llm.reply_tool_calls(&[("memory", json!({"action": "show"}))]);
    h.llm.reply_text("我記得兩件事。");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 你記得什麼？")]).await;
    let list = buttons(&h);
    assert_eq!(list.len(), 2, "a delete button per memory: {list:?}");
    let (label, data) = list.iter().find(|(l, _)| l.contains("花生")).cloned().expect("button");
    assert!(label.contains("🗑"), "{label}");

    h.send(vec![tap(&h, Some(OTHER_GROUP), MOM, &data)]).await;
    h.send(vec![tap(&h, None, MOM, &data)]).await;
    let replies = h.line.replies();
    for refused in &replies[replies.len() - 2..] {
        assert!(texts_of(&refused.body).contains("不屬於這個聊天室"), "{}", refused.body);
    }
    assert_eq!(memory_texts(&h, FAMILY).await.len(), 2, "nothing deleted from elsewhere");

    h.send(vec![tap(&h, Some(FAMILY), DAD, &data)]).await;
    let done = texts_of(&h.line.replies().last().expect("reply").body);
    assert!(done.contains("已經忘記") && done.contains("奶奶對花生過敏"), "{done}");
    assert_eq!(memory_texts(&h, FAMILY).await, ["爸爸週三要加班"]);
    h.send(vec![tap(&h, Some(FAMILY), DAD, &data)]).await;
    let again = texts_of(&h.line.replies().last().expect("reply").body);
    assert!(again.contains("已經不在"), "a second tap: {again}");
}

#[tokio::test]
async fn forgetting_everything_waits_for_a_confirmation_tap_in_the_same_chat() {
    let h = start().await;
    for fact in ["奶奶對花生過敏", "爸爸週三要加班", "妹妹十二月生日"] {
        remember(&h, FAMILY, fact).await;
    }
    remember(&h, OTHER_GROUP, "別的群組的事").await;
    h.llm.reply_tool_calls(&[("memory", json!({"action": "forget", "all": true}))]);
    h.llm.reply_text("確定要全部忘記嗎？請按下確認。");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 忘記所有事")]).await;
    let results = tool_results(h.llm.requests().last().expect("request"));
    assert_eq!(results[0]["status"], "confirmation_needed");
    assert_eq!(results[0]["count"], 3);
    assert_eq!(memory_texts(&h, FAMILY).await.len(), 3, "nothing deleted before the tap");
    let confirm = buttons(&h);
    assert_eq!(confirm.len(), 1);

    h.send(vec![tap(&h, Some(OTHER_GROUP), MOM, &confirm[0].1)]).await;
    assert_eq!(memory_texts(&h, FAMILY).await.len(), 3, "refused in another group");
    assert_eq!(memory_texts(&h, OTHER_GROUP).await.len(), 1);

    remember(&h, FAMILY, "冰箱裡有蛋糕").await;
    h.send(vec![tap(&h, Some(FAMILY), DAD, &confirm[0].1)]).await;
    let done = texts_of(&h.line.replies().last().expect("reply").body);
    assert!(done.contains("3 件事"), "{done}");
    assert_eq!(memory_texts(&h, FAMILY).await, ["冰箱裡有蛋糕"], "added after the card: kept");
    assert_eq!(memory_texts(&h, OTHER_GROUP).await, ["別的群組的事"]);
}

#[tokio::test]
async fn recap_reads_only_this_conversation_within_the_window() {
    let h = start().await;
    h.send(vec![h.group_text(FAMILY, DAD, "兩小時前說的話")]).await;
    h.clock.advance(SignedDuration::from_hours(2));
    h.send(vec![
        h.group_text(FAMILY, MOM, "晚上吃火鍋"),
        h.group_text(FAMILY, DAD, "我去買牛奶"),
        h.group_text(OTHER_GROUP, MOM, "別的群組的祕密"),
        h.dm(MOM, "私訊內容"),
    ])
    .await;
    let dm_log = h.app.store.memory().log_window(MOM, 0, 10).await.expect("log");
    assert!(dm_log.iter().any(|m| m.text == "私訊內容"), "logged once its webhook is handled");
    h.llm.reply_text("今天天氣很好喔");
    h.send(vec![h.group_text(FAMILY, DAD, "小幫手 天氣好嗎")]).await;
    h.llm.reply_tool_calls(&[("recap", json!({"since_minutes": 60}))]);
    h.llm.reply_text("媽媽說晚上吃火鍋，爸爸去買牛奶。");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 幫我整理一下剛剛大家講了什麼")]).await;
    let recap = &tool_results(h.llm.requests().last().expect("request"))[0];
    let said: Vec<(String, String)> = recap["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            (m["speaker"].as_str().unwrap_or("").into(), m["text"].as_str().unwrap_or("").into())
        })
        .collect();
    assert_eq!(said[0], ("媽媽".to_string(), "晚上吃火鍋".to_string()), "{recap}");
    assert_eq!(said[1], ("爸爸".to_string(), "我去買牛奶".to_string()));
    let all = recap.to_string();
    assert_eq!(said[2].1, "小幫手 天氣好嗎");
    for absent in ["兩小時前", "別的群組", "私訊", "天氣很好"] {
        assert!(!all.contains(absent), "{absent} must not be in {all}");
    }

    h.llm.reply_tool_calls(&[("recap", json!({"last_messages": 50}))]);
    h.llm.reply_text("你剛剛說了私訊內容。");
    h.send(vec![h.dm(MOM, "整理一下我們的對話")]).await;
    let dm = tool_results(h.llm.requests().last().expect("request"))[0].to_string();
    assert!(dm.contains("私訊內容") && !dm.contains("火鍋") && !dm.contains("祕密"), "{dm}");

    h.clock.advance(SignedDuration::from_hours(3));
    h.llm.reply_tool_calls(&[("recap", json!({"since_minutes": 1}))]);
    h.llm.reply_text("最近沒有人說話。");
    let before = h.now_ms();
    h.send(vec![{
        let mut e = h.group_text(OTHER_GROUP, MOM, "hearth recap");
        e["timestamp"] = json!(before - 120_000);
        e
    }])
    .await;
    let empty = &tool_results(h.llm.requests().last().expect("request"))[0];
    assert_eq!(empty["error"]["kind"], "not_found", "{empty}");
}

#[tokio::test]
async fn an_unsent_message_leaves_the_log_and_the_history() {
    let h = start().await;
    let secret = crate::common::harness::text_message("密碼是 1234");
    let secret_id = secret["id"].clone();
    h.send(vec![h.event(group(FAMILY, DAD), secret), h.group_text(FAMILY, DAD, "晚上見")]).await;
    let mut unsend = h.bare("unsend", group(FAMILY, DAD));
    unsend["unsend"] = json!({"messageId": secret_id});
    h.send(vec![unsend]).await;
    assert!(h.line.replies().is_empty() && h.line.pushes().is_empty());

    h.llm.reply_text("好的");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 爸爸剛剛說什麼")]).await;
    let request = h.llm.requests()[0].to_string();
    assert!(request.contains("晚上見") && !request.contains("1234"), "{request}");
}

#[tokio::test]
async fn the_log_is_pruned_after_the_retention_period_on_the_injected_clock() {
    let h = start().await;
    h.send(vec![h.group_text(FAMILY, DAD, "很久以前的話")]).await;
    h.clock.advance(SignedDuration::from_hours(13 * 24));
    h.send(vec![h.group_text(FAMILY, DAD, "最近的話")]).await;
    assert_eq!(h.app.prune_chat_log().await.expect("prune"), 0, "13 days: kept");
    h.clock.advance(SignedDuration::from_hours(2 * 24));
    assert_eq!(h.app.prune_chat_log().await.expect("prune"), 1, "15 days: pruned");
    let log = h.app.store.memory().log_window(FAMILY, 0, 100).await.expect("log");
    let texts: Vec<&str> = log.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["最近的話"]);
}

#[tokio::test]
async fn leave_and_unfollow_delete_that_conversations_log_and_memories_only() {
    let h = start().await;
    remember(&h, FAMILY, "奶奶對花生過敏").await;
    remember(&h, OTHER_GROUP, "別的群組的事").await;
    h.send(vec![h.dm(MOM, "私訊")]).await;
    h.app
        .store
        .memory()
        .add(&NewMemory {
            conversation_id: MOM,
            text: "私人的事",
            user_id: Some(MOM),
            speaker: None,
            at_ms: h.now_ms(),
        })
        .await
        .expect("memory");
    let sent = h.line.sends().len();

    h.send(vec![h.bare("leave", json!({"type": "group", "groupId": FAMILY}))]).await;
    assert!(h.app.store.memory().log_window(FAMILY, 0, 100).await.expect("log").is_empty());
    assert!(memory_texts(&h, FAMILY).await.is_empty());
    assert_eq!(memory_texts(&h, OTHER_GROUP).await, ["別的群組的事"]);
    assert!(!h.app.store.memory().log_window(OTHER_GROUP, 0, 100).await.expect("log").is_empty());
    assert_eq!(memory_texts(&h, MOM).await, ["私人的事"]);

    h.send(vec![h.bare("unfollow", json!({"type": "user", "userId": MOM}))]).await;
    assert!(h.app.store.memory().log_window(MOM, 0, 100).await.expect("log").is_empty());
    assert!(memory_texts(&h, MOM).await.is_empty());
    assert_eq!(memory_texts(&h, OTHER_GROUP).await, ["別的群組的事"]);
    assert_eq!(h.line.sends().len(), sent, "nothing is sent to a chat that removed hearth");
}

#[tokio::test]
async fn with_hundreds_of_memories_the_prompt_stays_within_its_budget() {
    let h = start().await;
    for i in 0..300 {
        let text = format!("第{i}件事：家裡的日常安排，細節很多很多很多");
        let m = NewMemory {
            conversation_id: FAMILY,
            text: &text,
            user_id: None,
            speaker: Some("媽媽"),
            at_ms: h.now_ms(),
        };
        h.app.store.memory().add(&m).await.expect("memory");
        if i == 10 {
            let old = NewMemory { text: "奶奶對花生過敏", ..m.clone() };
            h.app.store.memory().add(&old).await.expect("memory");
        }
    }
    let question = "小幫手 奶奶可以吃花生醬嗎";
    let with = prompt_after(&h, h.group_text(FAMILY, MOM, question)).await;
    let without = prompt_after(&h, h.group_text(OTHER_GROUP, MOM, question)).await;
    let added = with.chars().count() - without.chars().count();
    assert!(added <= hearth::features::memory::PROMPT_BUDGET_CHARS + 2, "{added} characters added");
    assert!(with.contains("奶奶對花生過敏"), "the relevant memory is kept");
    assert!(with.contains("第299件事"), "the newest is kept");
    assert!(with.contains("more not shown"), "{with}");
}

#[tokio::test]
async fn listing_when_nothing_is_remembered_says_so_without_a_card() {
    let h = start().await;
    h.llm.reply_tool_calls(&[("memory", json!({"action": "show"}))]);
    h.llm.reply_text("我還沒有記住任何事。");
    h.send(vec![h.dm(MOM, "你記得什麼？")]).await;
    let result = &tool_results(&h.llm.requests()[1])[0];
    assert_eq!(result["count"], 0);
    assert_eq!(messages_of(&h.line.replies()[0].body).len(), 1, "no card");
}
