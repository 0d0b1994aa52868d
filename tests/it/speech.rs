//! Answers she can hear, end to end: the real server with the fake LINE API, the fake LLM and a
//! fake speech server answering real AAC (`tests/fixtures/speech.aac`). A voice question gets
//! the text and an audio message of it in one reply, the audio fetchable from hearth as an M4A
//! that a real parser (ffprobe) reads as AAC of the right length, gone after a day; a chat turns
//! spoken answers on and off by asking; a failed speech request still delivers the text; what
//! is spoken is read the way a person says it and counts against the day's tokens; a care
//! prompt to someone who asked for spoken answers is spoken, its buttons still there.

use hearth::contract::schema::Audience;
use hearth::features::speech::reading::speakable;
use hearth::platform::i18n::Lang;
use serde_json::{Value, json};

use crate::care::{EIGHT, GRANDMA, at, last_push, plan};
use crate::common::FakeMedia;
use crate::common::fake_media::m4a;
use crate::common::harness::{
    FAMILY, Harness, MOM, in_dm, in_group, messages_of, postback_data, text_message,
};

const PUBLIC: &str = "https://hearth.example";

/// hearth speaking through `media`'s speech endpoint and transcribing there, served at
/// [`PUBLIC`].
pub(crate) async fn speaking(
    media: &FakeMedia,
    tweak: impl FnOnce(&mut hearth::platform::config::Config),
) -> Harness {
    let url = media.url();
    let h = Harness::start_with(
        move |c| {
            c.server.public_url = Some(PUBLIC.into());
            c.line.line_data_api_base = url.clone();
            c.speech.transcribe_url = url.clone();
            c.speech.transcribe_model = "whisper-test".into();
            c.speech.tts_url = url;
            c.speech.tts_model = "tts-test".into();
            c.speech.tts_voice = "nova".into();
            tweak(c);
        },
        None,
    )
    .await;
    h.line.set_profile(MOM, "媽媽");
    h
}

/// 媽媽 asks by voice message `id` (heard as `heard`); the model answers `answer`.
async fn ask_by_voice(
    h: &Harness,
    media: &FakeMedia,
    id: &str,
    heard: &str,
    answer: &str,
) -> Value {
    media.put(id, "audio/x-m4a", m4a());
    media.set_transcript(heard);
    h.llm.reply_text(answer);
    let voice = json!({"id": id, "type": "audio", "duration": 3000,
        "contentProvider": {"type": "line"}});
    h.send(vec![h.event(in_dm(MOM), voice)]).await;
    h.line.replies().last().expect("a reply").body.clone()
}

/// The audio message of `body`, if any.
fn audio_of(body: &Value) -> Option<Value> {
    messages_of(body).into_iter().find(|m| m["type"] == "audio")
}

/// The path of `url` on hearth.
fn path_of(url: &str) -> &str {
    url.strip_prefix(PUBLIC).expect("served at HEARTH_PUBLIC_URL")
}

/// What ffprobe reads of `m4a` (which ffmpeg decodes without an error): the codec, the
/// container and the duration in seconds. `None`
/// where ffprobe is not installed (CI installs it, and there its absence fails).
fn probe(m4a: &[u8]) -> Option<(String, String, f64)> {
    let dir = std::env::temp_dir().join(format!("hearth-speech-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("answer.m4a");
    std::fs::write(&file, m4a).expect("write");
    let out = std::process::Command::new("ffprobe")
        .args(["-v", "error", "-show_entries", "stream=codec_name:format=format_name,duration"])
        .args(["-of", "json"])
        .arg(&file)
        .output();
    // Every frame decodes, too.
    let decoded = std::process::Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(&file)
        .args(["-f", "null", "-"])
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    if let Ok(decoded) = decoded {
        assert!(
            decoded.status.success() && decoded.stderr.is_empty(),
            "ffmpeg could not decode it: {}",
            String::from_utf8_lossy(&decoded.stderr)
        );
    }
    let out = match out {
        Ok(out) => out,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("ffprobe not run ({e}): install ffmpeg to check the M4A with a real parser");
            return None;
        }
        Err(e) => panic!("ffprobe is needed in CI: {e}"),
    };
    assert!(
        out.status.success(),
        "ffprobe refused the file: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).expect("ffprobe JSON");
    let duration =
        json["format"]["duration"].as_str().and_then(|d| d.parse().ok()).expect("duration");
    Some((
        json["streams"][0]["codec_name"].as_str().unwrap_or_default().to_string(),
        json["format"]["format_name"].as_str().unwrap_or_default().to_string(),
        duration,
    ))
}

#[tokio::test]
async fn a_voice_question_gets_the_text_and_its_audio_in_one_reply() {
    let media = FakeMedia::start().await;
    let h = speaking(&media, |_| {}).await;
    let body =
        ask_by_voice(&h, &media, "9001", "明天幾點開會", "明天 15:00 開會，氣溫 23°C ☀️").await;
    let messages = messages_of(&body);
    assert_eq!(messages.len(), 2, "{body}");
    assert_eq!(messages[0]["type"], "text");
    assert!(messages[0]["text"].as_str().unwrap_or_default().contains("🎤 我聽到"));
    let audio = &messages[1];
    assert_eq!(audio["type"], "audio");
    assert_eq!(audio["duration"], 1579, "counted from the frames");
    let url = audio["originalContentUrl"].as_str().expect("url");
    assert!(url.starts_with("https://hearth.example/speech/") && url.ends_with(".m4a"), "{url}");
    let token = path_of(url).trim_start_matches("/speech/").trim_end_matches(".m4a");
    assert_eq!(token.len(), 32, "an unguessable token: {token}");

    let said = media.speech_requests();
    assert_eq!(said.len(), 1);
    assert_eq!(said[0]["model"], "tts-test");
    assert_eq!(said[0]["voice"], "nova");
    assert_eq!(said[0]["response_format"], "aac");
    assert_eq!(
        said[0]["input"], "明天 下午三點 開會，氣溫 攝氏二十三度",
        "the answer, said as a person says it"
    );

    let response = crate::common::get(format!("{}{}", h.url, path_of(url))).await.expect("fetch");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "audio/mp4");
    let bytes = response.bytes().await.expect("bytes");
    assert_eq!(&bytes[4..12], b"ftypM4A ");
    if let Some((codec, container, seconds)) = probe(&bytes) {
        assert_eq!(codec, "aac");
        assert!(container.contains("m4a") && container.contains("mp4"), "{container}");
        assert!((seconds - 1.579).abs() < 0.01, "{seconds}");
    }
}

#[tokio::test]
async fn the_audio_expires_after_a_day_and_other_paths_are_not_found() {
    let media = FakeMedia::start().await;
    let h = speaking(&media, |_| {}).await;
    let body = ask_by_voice(&h, &media, "9002", "今天天氣", "晴天").await;
    let audio = audio_of(&body).expect("spoken");
    let path = path_of(audio["originalContentUrl"].as_str().expect("url")).to_string();
    for other in ["/speech/0123456789abcdef0123456789abcdef.m4a", "/speech/", "/speech/x.png"] {
        let response = crate::common::get(format!("{}{other}", h.url)).await.expect("request");
        assert_eq!(response.status(), 404, "{other}");
    }
    h.clock.advance(jiff::SignedDuration::from_hours(23));
    assert_eq!(crate::common::get(format!("{}{path}", h.url)).await.expect("fetch").status(), 200);
    h.clock.advance(jiff::SignedDuration::from_hours(1));
    assert_eq!(crate::common::get(format!("{}{path}", h.url)).await.expect("fetch").status(), 404);
}

#[tokio::test]
async fn a_spoken_answer_is_kept_in_the_store_and_served_by_another_server_on_it() {
    let media = FakeMedia::start().await;
    let on_file = std::env::var("HEARTH_TEST_BACKEND").as_deref() != Ok("postgres");
    let file = crate::common::harness::temp_db("spoken-audio");
    let h = speaking(&media, |c| {
        if on_file {
            c.store.database_url = file.clone();
        }
    })
    .await;
    let body = ask_by_voice(&h, &media, "9003", "今天天氣", "晴天").await;
    let audio = audio_of(&body).expect("spoken");
    let path = path_of(audio["originalContentUrl"].as_str().expect("url")).to_string();

    // A replica on the same database, or this one restarted: the audio is not in one server's
    // memory.
    let database = h.config.store.database_url.clone();
    let other = speaking(&media, |c| c.store.database_url = database).await;
    let response = crate::common::get(format!("{}{path}", other.url)).await.expect("fetch");
    assert_eq!(response.status(), 200);
    assert_eq!(&response.bytes().await.expect("bytes")[4..12], b"ftypM4A ");
}

#[tokio::test]
async fn a_failed_speech_request_still_delivers_the_text() {
    let media = FakeMedia::start().await;
    let h = speaking(&media, |_| {}).await;
    media.set_speech_status(500);
    let body = ask_by_voice(&h, &media, "9003", "今天天氣", "今天晴天").await;
    let messages = messages_of(&body);
    assert_eq!(messages.len(), 1, "{body}");
    assert!(messages[0]["text"].as_str().unwrap_or_default().contains("今天晴天"));
    assert_eq!(media.speech_requests().len(), 1, "it was tried");
}

#[tokio::test]
async fn a_speech_server_that_redirects_is_not_followed_and_the_text_goes_alone() {
    let media = FakeMedia::start().await;
    let h = speaking(&media, |_| {}).await;
    media.put_external("speech.aac", "audio/aac", crate::common::fake_media::SPEECH_AAC.to_vec());
    media.set_speech_status(302);
    let body = ask_by_voice(&h, &media, "9004", "今天天氣", "今天晴天").await;
    let messages = messages_of(&body);
    assert_eq!(messages.len(), 1, "the text alone: {body}");
    assert!(!media.fetches().contains(&"cdn/speech.aac".to_string()), "the redirect was followed");
}

#[tokio::test]
async fn spoken_answers_are_turned_on_and_off_by_asking() {
    let media = FakeMedia::start().await;
    let h = speaking(&media, |_| {}).await;
    let on = h.call_tool(in_dm(MOM), "用講的回答我", "spoken_answers", json!({"on": true})).await;
    assert_eq!(on, json!({"spoken": true, "for_whom": "chat"}));
    let said_on = h.line.replies().last().expect("reply").body.clone();
    assert!(audio_of(&said_on).is_some(), "the answer saying so is spoken: {said_on}");

    h.llm.reply_text("現在 20:00");
    h.send(vec![h.event(in_dm(MOM), text_message("現在幾點"))]).await;
    let typed = h.line.replies().last().expect("reply").body.clone();
    assert!(audio_of(&typed).is_some(), "a typed question is answered aloud too: {typed}");
    assert_eq!(media.speech_requests().last().expect("spoken")["input"], "現在 晚上八點");

    let off = h.call_tool(in_dm(MOM), "不用語音了", "spoken_answers", json!({"on": false})).await;
    assert_eq!(off["spoken"], false);
    h.llm.reply_text("好的");
    h.send(vec![h.event(in_dm(MOM), text_message("謝謝"))]).await;
    let after = h.line.replies().last().expect("reply").body.clone();
    assert!(audio_of(&after).is_none(), "{after}");
}

#[tokio::test]
async fn in_a_group_one_member_can_ask_for_spoken_answers_for_herself() {
    let media = FakeMedia::start().await;
    let h = speaking(&media, |_| {}).await;
    let mine = h
        .call_tool(
            in_group(FAMILY, MOM),
            "小幫手 我聽不清楚字，用語音",
            "spoken_answers",
            json!({"on": true, "just_me": true}),
        )
        .await;
    assert_eq!(mine["for_whom"], "asker");
    h.llm.reply_text("好");
    h.send(vec![h.event(in_group(FAMILY, MOM), text_message("小幫手 明天天氣"))]).await;
    assert!(audio_of(&h.line.replies().last().expect("reply").body).is_some());
    h.llm.reply_text("好");
    h.send(vec![
        h.event(in_group(FAMILY, crate::common::harness::DAD), text_message("小幫手 明天天氣")),
    ])
    .await;
    assert!(audio_of(&h.line.replies().last().expect("reply").body).is_none(), "not for 爸爸");
}

#[tokio::test]
async fn speech_counts_against_the_days_token_budget() {
    let media = FakeMedia::start().await;
    let h = speaking(&media, |_| {}).await;
    let before = h.app.store.usage().tokens_used("2026-11-30", MOM).await.expect("read").chat;
    ask_by_voice(&h, &media, "9004", "你好", "你好呀").await;
    let after = h.app.store.usage().tokens_used("2026-11-30", MOM).await.expect("read").chat;
    // The model's one call (the fake counts 49 tokens), and the three characters spoken.
    assert_eq!(after - before, 49 + 3);
}

#[tokio::test]
async fn without_a_speech_model_nothing_is_spoken_and_the_tool_is_not_offered() {
    let media = FakeMedia::start().await;
    let h = speaking(&media, |c| c.speech.tts_model = String::new()).await;
    let body = ask_by_voice(&h, &media, "9005", "你好", "你好").await;
    assert!(audio_of(&body).is_none(), "{body}");
    assert!(media.speech_requests().is_empty());
    let offered = h.llm.requests()[0]["tools"].to_string();
    assert!(!offered.contains("spoken_answers"));
}

#[tokio::test]
async fn spoken_answers_cost_the_definitions_at_most_seventy_tokens_and_stay_within_the_budget() {
    let media = FakeMedia::start().await;
    let h = speaking(&media, |_| {}).await;
    let registry = h.app.turns.agent.registry();
    for (audience, budget) in [(Audience::OneToOne, 3_800), (Audience::Group, 4_300)] {
        let definitions = registry.definitions(audience);
        let (each, total) = hearth::llm::tokens::of_tools(&definitions, true);
        let spoken = each.iter().find(|(name, _)| name == "spoken_answers").map(|(_, n)| *n);
        let most = if audience == Audience::OneToOne { 70 } else { 95 };
        assert!(spoken.is_some_and(|n| n <= most), "{audience:?}: {spoken:?}");
        assert!(total <= budget, "{audience:?}: {total} tokens > {budget}: {each:?}");
    }
}

#[tokio::test]
async fn a_care_prompt_to_someone_who_asked_for_spoken_answers_is_spoken_with_its_buttons() {
    let media = FakeMedia::start().await;
    let h = speaking(&media, |_| {}).await;
    plan(&h, json!({})).await;
    h.call_tool(in_dm(GRANDMA), "用講的回答我", "spoken_answers", json!({"on": true})).await;
    let spoken_before = media.speech_requests().len();
    assert_eq!(at(&h, EIGHT).await.prompts, 1);
    let push = last_push(&h, GRANDMA);
    let messages = messages_of(&push);
    assert_eq!(messages.len(), 2, "one push, the card and its audio: {push}");
    assert_eq!(messages[0]["type"], "flex");
    assert!(postback_data(&push, "care_taken").is_some(), "the buttons are still there");
    assert_eq!(messages[1]["type"], "audio");
    let said = media.speech_requests();
    assert_eq!(said.len(), spoken_before + 1);
    assert_eq!(said.last().expect("spoken")["input"], "阿嬤，早上八點了，該吃血壓藥了");
}

#[tokio::test]
async fn a_speech_server_that_never_answers_leaves_the_text_to_the_reply_within_the_deadline() {
    let media = FakeMedia::start().await;
    let h = speaking(&media, |c| c.speech.tts_timeout_secs = 1).await;
    media.set_speech_status(504);
    let started = std::time::Instant::now();
    let body = ask_by_voice(&h, &media, "9005", "今天天氣", "今天晴天").await;
    let messages = messages_of(&body);
    assert_eq!(messages.len(), 1, "the text alone, in the reply: {body}");
    assert!(messages[0]["text"].as_str().unwrap_or_default().contains("今天晴天"));
    assert!(h.line.pushes().is_empty(), "nothing pushed (and charged) for waiting on speech");
    assert_eq!(media.speech_requests().len(), 1, "it was tried");
    // Not a timing test: the turn gave up on the speech server, which answers in two minutes.
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
}

#[tokio::test]
async fn care_prompts_go_without_their_audio_when_the_speech_server_never_answers() {
    let media = FakeMedia::start().await;
    let h = speaking(&media, |c| c.speech.tts_timeout_secs = 1).await;
    plan(&h, json!({})).await;
    plan(&h, json!({"what": "維他命"})).await;
    h.call_tool(in_dm(GRANDMA), "用講的回答我", "spoken_answers", json!({"on": true})).await;
    media.set_speech_status(504);
    let round = at(&h, EIGHT).await;
    assert_eq!(round.prompts, 2, "both doses asked in the round: {round:?}");
    let messages: Vec<Value> =
        crate::care::pushes_to(&h, GRANDMA).iter().flat_map(messages_of).collect();
    assert_eq!(messages.iter().filter(|m| m["type"] == "flex").count(), 2, "{messages:?}");
    assert!(messages.iter().all(|m| m["type"] != "audio"), "no audio: {messages:?}");
}

#[test]
fn the_care_prompts_words_and_the_examples_of_the_issue_read_as_said() {
    assert_eq!(speakable("台積電 1,050元", Lang::ZhTw), "台積電 一千零五十元");
    assert_eq!(speakable("15:00", Lang::ZhTw), "下午三點");
    assert_eq!(speakable("23°C", Lang::ZhTw), "攝氏二十三度");
}

#[tokio::test]
async fn a_care_prompt_is_not_spoken_once_her_chat_spent_the_days_tokens_but_still_goes() {
    let media = FakeMedia::start().await;
    let h = speaking(&media, |c| c.limits.daily_tokens_per_chat = 1_000).await;
    plan(&h, json!({})).await;
    h.call_tool(in_dm(GRANDMA), "用講的回答我", "spoken_answers", json!({"on": true})).await;
    h.app.store.usage().add_tokens("2026-12-01", GRANDMA, 1_000).await.expect("spent");
    let spoken_before = media.speech_requests().len();
    assert_eq!(at(&h, EIGHT).await.prompts, 1);
    let push = last_push(&h, GRANDMA);
    assert_eq!(messages_of(&push).len(), 1, "the card alone: {push}");
    assert!(postback_data(&push, "care_taken").is_some());
    assert_eq!(media.speech_requests().len(), spoken_before, "the speech server was not asked");
}

/// What 阿嬤 hears back after tapping ✅ on her 08:00 prompt: the reply's body.
async fn tap_taken(h: &Harness) -> Value {
    let data = postback_data(&last_push(h, GRANDMA), "care_taken").expect("✅ on the prompt");
    h.send(vec![h.postback(in_dm(GRANDMA), &data)]).await;
    h.line.replies().last().expect("a reply").body.clone()
}

#[tokio::test]
async fn a_tapped_button_s_answer_is_spoken_once_she_asked_for_spoken_answers() {
    let media = FakeMedia::start().await;
    let h = speaking(&media, |_| {}).await;
    plan(&h, json!({})).await;
    assert_eq!(at(&h, EIGHT).await.prompts, 1);
    let unspoken = tap_taken(&h).await;
    assert!(audio_of(&unspoken).is_none(), "she has not asked: {unspoken}");
    assert!(media.speech_requests().is_empty());
    h.call_tool(in_dm(GRANDMA), "用講的回答我", "spoken_answers", json!({"on": true})).await;
    let before = h.app.store.usage().tokens_used("2026-12-01", GRANDMA).await.expect("read").chat;
    let spoken_before = media.speech_requests().len();
    let body = tap_taken(&h).await;
    let messages = messages_of(&body);
    assert_eq!(messages.len(), 2, "the text and its audio in one reply: {body}");
    assert_eq!(messages[0]["type"], "text");
    assert!(audio_of(&body).is_some(), "{body}");
    let said = media.speech_requests();
    assert_eq!(said.len(), spoken_before + 1);
    let spoken = said.last().expect("spoken")["input"].as_str().unwrap_or_default().to_string();
    assert!(!spoken.is_empty());
    let after = h.app.store.usage().tokens_used("2026-12-01", GRANDMA).await.expect("read").chat;
    assert_eq!(after - before, spoken.chars().count() as u64, "the speech is counted");
}

#[tokio::test]
async fn a_tapped_button_s_answer_is_not_spoken_once_her_chat_spent_the_days_tokens() {
    let media = FakeMedia::start().await;
    let h = speaking(&media, |c| c.limits.daily_tokens_per_chat = 1_000).await;
    plan(&h, json!({})).await;
    h.call_tool(in_dm(GRANDMA), "用講的回答我", "spoken_answers", json!({"on": true})).await;
    assert_eq!(at(&h, EIGHT).await.prompts, 1);
    h.app.store.usage().add_tokens("2026-12-01", GRANDMA, 1_000).await.expect("spent");
    let spoken_before = media.speech_requests().len();
    let body = tap_taken(&h).await;
    assert_eq!(messages_of(&body).len(), 1, "the text alone: {body}");
    assert_eq!(media.speech_requests().len(), spoken_before, "the speech server was not asked");
}
