//! End-to-end turns: a signed webhook in, the fake LLM calling real tools against the fake data
//! sources, and the reply LINE receives — in 1:1 chats and in groups.

use crate::common::harness::tool_results;

use std::time::Duration;

use crate::common::harness::{DAD, FAMILY, Harness, MOM, chip_texts, messages_of, texts_of};
use crate::common::{FakeLlm, Route};
use serde_json::json;

#[tokio::test]
async fn dm_weather_question_is_answered_with_a_card_and_chips() {
    let h = Harness::start().await;
    h.line.set_profile(MOM, "媽媽");
    h.llm.reply_tool_calls(&[("weather", json!({"location": "台北", "days": 2}))]);
    h.llm.reply_text("明天台北有八成機率下雨，記得帶傘 ☔");

    assert_eq!(h.send(vec![h.dm(MOM, "台北明天會下雨嗎？")]).await, 200);

    let requests = h.llm.requests();
    assert_eq!(requests.len(), 2, "one round with the tool, one for the answer");
    let names: Vec<&str> = requests[0]["tools"]
        .as_array()
        .expect("tools sent")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(names.starts_with(&["weather", "fx", "get_quote"]), "{names:?}");
    let system = &crate::common::harness::instructions(&requests[0]);
    assert!(
        system.contains("2026-11-30") && system.contains("20:00"),
        "local date and time: {system}"
    );
    assert!(
        system.contains("Asia/Taipei") && system.contains("媽媽"),
        "zone and speaker: {system}"
    );
    let results = tool_results(&requests[1]);
    assert_eq!(results[0]["days"][1]["rain_probability_pct"], 80.0);
    assert_eq!(results[0]["days"].as_array().map(Vec::len), Some(2));

    let replies = h.line.replies();
    assert_eq!(replies.len(), 1);
    let body = &replies[0].body;
    assert_eq!(texts_of(body), "明天台北有八成機率下雨，記得帶傘 ☔");
    let messages = messages_of(body);
    assert_eq!(messages[1]["type"], "flex");
    let card = messages[1]["contents"].to_string();
    assert!(
        card.contains("18–22°C") && card.contains("☔80%"),
        "temperature range and rain: {card}"
    );
    assert!(chip_texts(body).iter().any(|c| c.contains("後天")), "a 後天呢？ chip");
    assert!(messages[0].get("quickReply").is_none(), "chips on the last message only");

    let loading = h.line.loadings();
    assert_eq!(loading.len(), 1);
    assert_eq!(loading[0].body["chatId"], MOM);
}

#[tokio::test]
async fn fx_question_gets_an_fx_card() {
    let h = Harness::start().await;
    h.llm.reply_tool_calls(&[("fx", json!({"amount": 100, "from": "USD", "to": "TWD"}))]);
    h.llm.reply_text("100 美金約 3,190 台幣");
    h.send(vec![h.dm(MOM, "100 美金多少台幣")]).await;

    let results = tool_results(&h.llm.requests()[1]);
    assert_eq!(results[0]["result"], 3190.0);
    let body = &h.line.replies()[0].body;
    let card = messages_of(body)[1]["contents"].to_string();
    assert!(card.contains("100 USD = 3,190 TWD"), "{card}");
}

#[tokio::test]
async fn quote_card_shows_up_in_red_and_offers_a_twd_conversion_chip_that_routes_to_fx() {
    let h = Harness::start().await;
    h.llm.reply_tool_calls(&[("get_quote", json!({"symbol": "AAPL"}))]);
    h.llm.reply_text("Apple is at 230.5 USD.");
    h.send(vec![h.dm(MOM, "AAPL price")]).await;

    let body = h.line.replies()[0].body.clone();
    let card = &messages_of(&body)[1]["contents"];
    // 230.5 vs previous close 233.1: down, which is green in Taiwan.
    assert_eq!(card["body"]["contents"][2]["color"], "#2E7D32", "{card}");
    let chips = chip_texts(&body);
    assert_eq!(chips, vec!["Convert 230.5 USD to TWD".to_string()]);

    // Tapping the chip is an ordinary message; the model routes it into fx.
    h.llm.reply_tool_calls(&[("fx", json!({"amount": 230.5, "from": "USD", "to": "TWD"}))]);
    h.llm.reply_text("About 7,353 TWD.");
    h.send(vec![h.dm(MOM, &chips[0])]).await;
    let results = tool_results(&h.llm.requests()[3]);
    assert!((results[0]["result"].as_f64().unwrap_or(0.0) - 7352.95).abs() < 0.01);
}

#[tokio::test]
async fn rising_taiwan_stock_is_red_and_price_colours_are_configurable() {
    let h = Harness::start().await;
    h.llm.reply_tool_calls(&[("get_quote", json!({"symbol": "台積電"}))]);
    h.llm.reply_text("台積電 1450 元");
    h.send(vec![h.dm(MOM, "台積電現在多少")]).await;
    let body = h.line.replies()[0].body.clone();
    let card = &messages_of(&body)[1]["contents"];
    assert_eq!(card["body"]["contents"][2]["color"], "#D32F2F", "up is red: {card}");
    assert!(chip_texts(&body).is_empty(), "no TWD conversion for a TWD price");

    let us = Harness::start_with(
        |c| c.family.price_colors = hearth::platform::config::PriceColors::Us,
        None,
    )
    .await;
    us.llm.reply_tool_calls(&[("get_quote", json!({"symbol": "2330.TW"}))]);
    us.llm.reply_text("1450");
    us.send(vec![us.dm(MOM, "2330")]).await;
    let card = &messages_of(&us.line.replies()[0].body)[1]["contents"];
    assert_eq!(card["body"]["contents"][2]["color"], "#2E7D32", "up is green in US colours");
}

#[tokio::test]
async fn group_message_without_a_call_is_logged_but_not_answered() {
    let h = Harness::start().await;
    h.line.set_profile(DAD, "爸爸");
    h.line.set_profile(MOM, "媽媽");
    h.send(vec![h.group_text(FAMILY, DAD, "今晚吃火鍋")]).await;
    assert!(h.line.replies().is_empty() && h.line.pushes().is_empty());
    assert!(h.llm.requests().is_empty());
    assert!(h.line.loadings().is_empty());

    h.llm.reply_text("好的！");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 今晚吃什麼？")]).await;
    let messages = h.llm.requests()[0]["messages"].clone();
    let history: Vec<&str> =
        messages.as_array().into_iter().flatten().filter_map(|m| m["content"].as_str()).collect();
    assert!(history.contains(&"[爸爸] 今晚吃火鍋"), "untriggered message in history: {history:?}");
    assert!(history.contains(&"[媽媽] 今晚吃什麼？"), "keyword stripped: {history:?}");
    assert_eq!(h.line.replies().len(), 1);
    assert!(h.line.loadings().is_empty(), "no loading animation in groups");
}

#[tokio::test]
async fn group_mention_wakes_the_bot_and_chips_carry_the_trigger_keyword() {
    let h = Harness::start().await;
    h.llm.reply_tool_calls(&[("weather", json!({"location": "台北"}))]);
    h.llm.reply_text("明天會下雨");
    let mut message = crate::common::harness::text_message("@hearth 明天台北會下雨嗎");
    message["mention"] = json!({"mentionees": [{"index": 0, "length": 7, "type": "user",
        "userId": crate::common::harness::BOT_ID, "isSelf": true}]});
    let event = h.event(json!({"type": "group", "groupId": FAMILY, "userId": MOM}), message);
    h.send(vec![event]).await;

    let user_turn = h.llm.requests()[0]["messages"]
        .as_array()
        .and_then(|m| m.last().cloned())
        .expect("user message");
    assert_eq!(user_turn["content"], "[someone] 明天台北會下雨嗎", "mention stripped");
    let chips = chip_texts(&h.line.replies()[0].body);
    assert!(!chips.is_empty() && chips.iter().all(|c| c.starts_with("小幫手 ")), "{chips:?}");
}

#[tokio::test]
async fn quoting_the_bots_message_in_a_group_wakes_it() {
    let h = Harness::start().await;
    h.llm.reply_text("台北明天下雨");
    h.send(vec![h.group_text(FAMILY, MOM, "hearth 台北天氣")]).await;
    let replies = h.line.replies();
    assert_eq!(replies.len(), 1);
    let bot_message_id =
        replies[0].response["sentMessages"][0]["id"].as_str().expect("LINE gave an id").to_string();

    let mut not_bot = crate::common::harness::text_message("那後天呢？");
    not_bot["quotedMessageId"] = json!("12345");
    h.send(vec![h.event(json!({"type": "group", "groupId": FAMILY, "userId": DAD}), not_bot)])
        .await;
    assert_eq!(h.line.replies().len(), 1, "quoting someone else does not wake the bot");

    h.llm.reply_text("後天多雲");
    let mut quote = crate::common::harness::text_message("那後天呢？");
    quote["quotedMessageId"] = json!(bot_message_id);
    h.send(vec![h.event(json!({"type": "group", "groupId": FAMILY, "userId": DAD}), quote)]).await;
    assert_eq!(h.line.replies().len(), 2, "quoting the bot wakes it");
}

#[tokio::test]
async fn expired_reply_token_falls_back_to_a_push_with_a_retry_key() {
    let h = Harness::start().await;
    h.line.set_expire_all_reply_tokens(true);
    h.llm.reply_text("你好！");
    h.send(vec![h.dm(MOM, "你好")]).await;
    let replies = h.line.replies();
    assert_eq!(replies.len(), 1);
    assert_eq!(replies[0].status, 400);
    let pushes = h.line.accepted_pushes();
    assert_eq!(pushes.len(), 1);
    assert_eq!(pushes[0].body["to"], MOM);
    assert_eq!(texts_of(&pushes[0].body), "你好！");
    let key = pushes[0].header("x-line-retry-key").expect("retry key");
    assert_eq!(key.len(), 36, "a UUID: {key}");
}

#[tokio::test]
async fn stale_event_is_answered_by_push_without_trying_its_token() {
    let h = Harness::start().await;
    h.llm.reply_text("晚安");
    let event = h.dm(MOM, "晚安");
    h.clock.advance(jiff::SignedDuration::from_mins(30));
    h.send(vec![event]).await;
    assert!(h.line.replies().is_empty(), "a 30-minute-old token is not tried");
    assert_eq!(h.line.accepted_pushes().len(), 1);
}

#[tokio::test]
async fn several_tools_in_one_round_all_contribute() {
    let h = Harness::start().await;
    h.llm.reply_tool_calls(&[
        ("get_quote", json!({"symbol": "2330.TW"})),
        ("get_quote", json!({"symbol": "AAPL"})),
        ("fx", json!({"amount": 230.5, "from": "USD", "to": "TWD"})),
    ]);
    h.llm.reply_text("台積電 1450 元，Apple 約 7,353 台幣。");
    h.send(vec![h.dm(MOM, "Compare TSMC and Apple, then convert to TWD")]).await;
    let results = tool_results(&h.llm.requests()[1]);
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(|r| r.get("error").is_none()), "{results:?}");
    let body = &h.line.replies()[0].body;
    let flex = &messages_of(body)[1];
    assert_eq!(flex["contents"]["type"], "carousel");
    assert_eq!(flex["contents"]["contents"].as_array().map(Vec::len), Some(3));
    assert_eq!(h.upstreams.hits(Route::Yahoo), 2);
}

#[tokio::test]
async fn follow_event_gets_a_greeting() {
    let h = Harness::start().await;
    let mut follow = h.dm(MOM, "x");
    follow["type"] = json!("follow");
    follow["follow"] = json!({"isUnblocked": false});
    follow.as_object_mut().map(|o| o.remove("message"));
    h.send(vec![follow]).await;
    h.line.wait_for(|r| r.iter().any(|r| r.path.ends_with("/reply")), Duration::from_secs(2)).await;
    assert!(texts_of(&h.line.replies()[0].body).contains("hearth"));
    assert!(h.llm.requests().is_empty());
}

#[tokio::test]
async fn english_question_gets_english_cards() {
    let h = Harness::start().await;
    h.llm.reply_tool_calls(&[("weather", json!({"location": "Tokyo", "days": 1}))]);
    h.llm.reply_text("Cloudy in Tokyo today.");
    h.send(vec![h.dm(MOM, "weather in Tokyo today?")]).await;
    let system = crate::common::harness::instructions(&h.llm.requests()[0]);
    assert!(system.contains("Answer in English."), "{system}");
    let card = messages_of(&h.line.replies()[0].body)[1]["contents"].to_string();
    assert!(card.contains("weather") && card.contains("Today"), "{card}");
    let _ = FakeLlm::text("unused");
}
