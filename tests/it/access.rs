//! Strangers are not served by default. Against the real server with approval on (the default;
//! the other suites run with `HEARTH_OPEN`): a stranger's text, photo, PDF and voice message
//! cost nothing — no model call, no download — and get one short message naming the chat; a
//! pairing code approves the chat it is sent in, once, until it expires; a group is approved
//! when a member whose own chat is approved speaks in it; `hearth pair`, `hearth approve`,
//! `hearth chats` and `hearth revoke` do what they say on the database a server uses.

use std::process::Command;

use crate::common::FakeMedia;
use crate::common::harness::{DAD, FAMILY, Harness, MOM, in_dm, in_group, text_message, texts_of};
use hearth::turn::limits::access::{PAIRING_VALID, code_hash, new_pairing_code, pairing_code_in};
use serde_json::json;

const STRANGER: &str = "U5555555555555555555555555555555a";
const WAITING: &str = "還沒開通";

async fn approval_harness(media: Option<&FakeMedia>) -> Harness {
    let url = media.map(FakeMedia::url);
    Harness::start_with(
        move |c| {
            c.access.open = false;
            if let Some(url) = url {
                c.line.line_data_api_base = url.clone();
                c.speech.transcribe_url = url;
            }
        },
        None,
    )
    .await
}

/// Every text hearth sent, in order.
fn sent(h: &Harness) -> Vec<String> {
    h.line.sends().iter().map(|r| texts_of(&r.body)).collect()
}

/// A fresh pairing code, kept as `hearth pair` keeps it, valid from the harness's clock on.
async fn pairing_code(h: &Harness) -> String {
    let code = new_pairing_code();
    let now = h.now_ms();
    let expires = now + PAIRING_VALID.as_millis() as i64;
    let hash = code_hash(&pairing_code_in(&code).expect("a code"));
    h.app.store.access().add_pairing_code(&hash, now, expires).await.expect("kept");
    code
}

#[tokio::test]
async fn a_strangers_text_photo_pdf_and_voice_cost_nothing_and_get_one_message() {
    let media = FakeMedia::start().await;
    media.put("9501", "image/jpeg", crate::common::fake_media::jpeg(600, 400));
    media.put("9502", "application/pdf", crate::common::fake_media::pdf("家長會", 1));
    media.put("9503", "audio/x-m4a", crate::common::fake_media::m4a());
    media.set_transcript("你好");
    let h = approval_harness(Some(&media)).await;
    let chat = in_dm(STRANGER);
    h.send(vec![h.dm(STRANGER, "幫我查台積電")]).await;
    let photo = json!({"id": "9501", "type": "image", "quoteToken": "q",
        "contentProvider": {"type": "line"}});
    h.send(vec![h.event(chat.clone(), photo)]).await;
    let pdf = json!({"id": "9502", "type": "file", "fileName": "a.pdf", "fileSize": 400});
    h.send(vec![h.event(chat.clone(), pdf)]).await;
    let voice = json!({"id": "9503", "type": "audio", "duration": 2000,
        "contentProvider": {"type": "line"}});
    h.send(vec![h.event(chat, voice)]).await;

    assert!(h.llm.requests().is_empty(), "no model call");
    assert!(media.fetches().is_empty(), "nothing downloaded");
    assert!(media.transcriptions().is_empty(), "nothing transcribed");
    let said = sent(&h);
    assert_eq!(said.len(), 1, "told once: {said:?}");
    assert!(said[0].contains(WAITING) && said[0].contains(STRANGER), "{}", said[0]);
    let logged =
        h.app.store.chat_log().history(STRANGER, i64::MAX, 100, 100_000).await.expect("history");
    assert!(logged.iter().all(|m| m.from_bot), "nothing the stranger said is kept: {logged:?}");
}

#[tokio::test]
async fn a_pairing_code_approves_the_chat_it_is_sent_in_once() {
    let h = approval_harness(None).await;
    let code = pairing_code(&h).await;
    h.send(vec![h.dm(MOM, &code.to_lowercase())]).await;
    assert!(sent(&h).last().expect("answered").contains("配對成功"));
    assert!(h.llm.requests().is_empty(), "pairing needs no model");
    h.llm.reply_text("你好！");
    h.send(vec![h.dm(MOM, "你好")]).await;
    assert_eq!(h.llm.requests().len(), 1, "the paired chat is served");

    h.send(vec![h.dm(DAD, &code)]).await;
    assert!(sent(&h).last().expect("answered").contains("配對碼不對"), "used once");
    h.send(vec![h.dm(DAD, "你好")]).await;
    assert_eq!(h.llm.requests().len(), 1, "the second chat is still waiting");
}

#[tokio::test]
async fn a_pairing_code_expires_and_a_guess_approves_nothing() {
    let h = approval_harness(None).await;
    let code = pairing_code(&h).await;
    h.send(vec![h.dm(DAD, "K7QX-3M9P")]).await;
    assert!(sent(&h).last().expect("answered").contains("配對碼不對"));
    h.clock.advance(jiff::SignedDuration::from_mins(11));
    h.send(vec![h.dm(MOM, &code)]).await;
    assert!(sent(&h).last().expect("answered").contains("配對碼不對"), "expired");
    h.send(vec![h.dm(MOM, "你好"), h.dm(DAD, "你好")]).await;
    assert!(h.llm.requests().is_empty());
    for chat in [MOM, DAD] {
        let standing = h.app.store.access().chat_standing(chat).await.expect("read");
        assert_ne!(standing.as_deref(), Some("approved"), "{chat}");
    }
}

#[tokio::test]
async fn a_group_is_approved_when_a_member_whose_chat_is_approved_speaks_in_it() {
    let h = approval_harness(None).await;
    h.line.set_profile(MOM, "媽媽");
    h.line.set_profile(DAD, "爸爸");
    h.app.store.access().approve_chat(MOM, "cli", h.now_ms()).await.expect("mom approved");
    let join = json!({"type": "join", "mode": "active", "timestamp": h.now_ms(),
        "webhookEventId": "01JOINFAMILY00000000000000", "deliveryContext": {"isRedelivery": false},
        "replyToken": "join-token", "source": {"type": "group", "groupId": FAMILY}});
    h.send(vec![join]).await;
    assert!(sent(&h).last().expect("told").contains("群組還沒開通"));
    h.send(vec![h.group_text(FAMILY, DAD, "小幫手 在嗎")]).await;
    assert!(h.llm.requests().is_empty(), "a member not approved does not approve the group");
    assert_eq!(sent(&h).len(), 1, "the group was told once");

    h.llm.reply_text("在喔");
    h.send(vec![h.group_text(FAMILY, MOM, "小幫手 在嗎")]).await;
    assert_eq!(h.llm.requests().len(), 1, "mom's message approves the group and is answered");
    h.llm.reply_text("晚安");
    h.send(vec![h.group_text(FAMILY, DAD, "小幫手 晚安")]).await;
    assert_eq!(h.llm.requests().len(), 2, "everyone in the approved group is served");
    let standing = h.app.store.access().chat_standing(FAMILY).await.expect("read");
    assert_eq!(standing.as_deref(), Some("approved"));
    let _ = in_group(FAMILY, MOM);
}

fn hearth(db: &str, args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .env("DATABASE_URL", db)
        .args(args)
        .output()
        .expect("run hearth");
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

#[tokio::test]
async fn the_commands_pair_approve_list_and_revoke_chats_on_the_servers_database() {
    let dir = crate::common::scratch_dir("hearth-access");
    let db = format!("sqlite://{}", dir.join("hearth.db").display());

    let (ok, printed) = hearth(&db, &["pair"]);
    assert!(ok, "{printed}");
    let code = printed.lines().next().expect("the code").trim().to_string();
    assert!(pairing_code_in(&code).is_some(), "{printed}");
    let store = hearth::store::Store::connect(&db).await.expect("store");
    let hash = code_hash(&pairing_code_in(&code).expect("code"));
    assert!(
        store
            .access()
            .pair_chat(&hash, FAMILY, jiff::Timestamp::now().as_millisecond())
            .await
            .expect("pair")
    );

    assert!(hearth(&db, &["approve", MOM]).0);
    let (ok, refused) = hearth(&db, &["approve", "not-a-chat"]);
    assert!(!ok && refused.contains("not a LINE chat id"), "{refused}");
    let (_, chats) = hearth(&db, &["chats"]);
    assert!(chats.contains(&format!("approved  1:1    {MOM} (by cli)")), "{chats}");
    assert!(chats.contains(&format!("approved  group  {FAMILY} (by pairing)")), "{chats}");
    assert!(hearth(&db, &["revoke", MOM]).0);
    let (_, chats) = hearth(&db, &["chats"]);
    assert!(chats.contains(&format!("revoked   1:1    {MOM}")), "{chats}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a chat is told when its code was not checked because too many were tried.
const WAIT: &str = "請等一分鐘後再傳一次";

/// Whether `chat` is approved in the store.
async fn approved(h: &Harness, chat: &str) -> bool {
    h.app.store.access().chat_standing(chat).await.expect("read").as_deref() == Some("approved")
}

#[tokio::test]
async fn the_right_code_over_the_chat_s_guess_rate_is_not_checked_but_told_to_wait_then_approves() {
    let h = Harness::start_with(
        |c| {
            c.access.open = false;
            c.limits.chat_turns_per_minute = 1;
        },
        None,
    )
    .await;
    let code = pairing_code(&h).await;
    h.send(vec![h.dm(MOM, "K7QX-3M9P")]).await;
    assert!(sent(&h).last().expect("answered").contains("配對碼不對"), "a wrong guess");
    h.send(vec![h.dm(MOM, &code)]).await;
    let said = sent(&h).last().cloned().expect("answered, not ignored");
    assert!(said.contains(WAIT) && said.contains("wait a minute"), "{said}");
    assert!(!said.contains("配對碼不對"), "right or wrong is not told: {said}");
    assert!(!approved(&h, MOM).await, "over the rate nothing is approved");

    h.clock.advance(jiff::SignedDuration::from_secs(61));
    h.send(vec![h.dm(MOM, &code)]).await;
    assert!(sent(&h).last().expect("answered").contains("配對成功"), "the code still works");
    assert!(approved(&h, MOM).await);
}

#[tokio::test]
async fn strangers_guessing_codes_every_minute_never_keep_the_family_s_right_code_from_approving() {
    let h = approval_harness(None).await;
    assert_eq!(h.config.access.pairing_guesses_per_source, 5, "the default budget a source");
    let code = pairing_code(&h).await;
    // Three strangers, each sending ten wrong codes at every minute's start (within their own
    // turn rate), for three minutes; the family sends its right code in the second minute.
    for minute in 0..3 {
        for stranger in 0..3 {
            let who = format!("U{:032x}", 0xbad0 + stranger);
            let guesses: Vec<_> = (0..10)
                .map(|n| {
                    h.dm(&who, &format!("K7QX-{:04}", 3000 + 100 * minute + 10 * stranger + n))
                })
                .collect();
            h.send(guesses).await;
        }
        let told = sent(&h);
        let checked = told.iter().filter(|s| s.contains("配對碼不對")).count();
        assert_eq!(checked, 15 * (minute as usize + 1), "five codes a stranger a minute checked");
        if minute == 1 {
            h.send(vec![h.dm(MOM, &code)]).await;
            let said = sent(&h).last().cloned().expect("answered");
            assert!(said.contains("配對成功"), "approved at once, not told to wait: {said}");
            assert!(approved(&h, MOM).await);
        }
        h.clock.advance(jiff::SignedDuration::from_secs(60));
    }
    for stranger in 0..3 {
        assert!(!approved(&h, &format!("U{:032x}", 0xbad0 + stranger)).await);
    }
}

#[tokio::test]
async fn a_stranger_whom_line_does_not_name_is_held_to_each_group_s_budget_and_the_family_s_code_goes_through()
 {
    let h = approval_harness(None).await;
    let code = pairing_code(&h).await;
    // LINE for PC/Mac: no user id. Twenty codes in each of two waiting groups, at once.
    for group in ["C0123456789abcdef0123456789abcd01", "C0123456789abcdef0123456789abcd02"] {
        let nameless = json!({"type": "group", "groupId": group});
        let guesses: Vec<_> = (0..20)
            .map(|n| {
                h.event(nameless.clone(), text_message(&format!("小幫手 K7QX-{:04}", 4000 + n)))
            })
            .collect();
        h.send(guesses).await;
    }
    let checked = sent(&h).iter().filter(|s| s.contains("配對碼不對")).count();
    assert_eq!(checked, 10, "five in each group, the rest told to wait");
    // The family's group, the same minute: its right code is checked.
    h.send(vec![h.event(in_group(FAMILY, MOM), text_message(&format!("小幫手 {code}")))]).await;
    let said = sent(&h).last().cloned().expect("answered");
    assert!(said.contains("配對成功"), "{said}");
    assert!(approved(&h, FAMILY).await);
}
