//! `hearth export --chat ID`: everything kept for one chat, as one JSON document a person can
//! read — and nothing of another chat.

use std::process::Command;

use crate::common::harness::{FAMILY, Harness, MOM, in_dm, in_group};
use hearth::platform::i18n::Lang;
use serde_json::{Value, json};

#[tokio::test]
async fn an_export_holds_every_kind_of_thing_kept_for_the_chat_and_nothing_of_another() {
    let h = Harness::start().await;
    h.line.set_profile(MOM, "媽媽");
    crate::common::family::keep_one_of_each(&h).await;
    let lunar = json!({"text": "阿嬤生日", "at": "2026-11-30T09:00", "repeat": {"every": "lunar_yearly",
        "lunar": {"days": [5], "month": 3, "leap": null, "days_before": 1}}});
    h.call_tool(in_dm(MOM), "阿嬤農曆三月初五生日前一天提醒我", "reminder", lunar).await;
    let other = json!({"action": "remember", "fact": "家裡的秘密"});
    h.call_tool(in_group(FAMILY, MOM), "小幫手 記得家裡的秘密", "memory", other).await;

    let tz = jiff::tz::TimeZone::get("Asia/Taipei").expect("zone");
    let calendar = hearth::sources::calendar::WorkCalendar::builtin().expect("calendar");
    let document = hearth::features::export::ops::export(
        &h.app.store,
        MOM,
        &tz,
        Lang::ZhTw,
        &calendar,
        hearth::platform::clock::Clock::now(&*h.clock),
    )
    .await
    .expect("export");
    let v: Value = serde_json::to_value(&document).expect("json");
    assert_eq!((v["format"].as_str(), v["version"].as_u64()), (Some("hearth-export"), Some(1)));
    assert_eq!(v["time_zone"], "Asia/Taipei");
    let reminders = v["reminders"].as_array().expect("reminders");
    assert_eq!(reminders.len(), 2, "{v}");
    assert!(reminders.iter().any(|r| r["text"] == "吃藥" && r["next"] == "2026-12-01T08:00+08:00"));
    assert!(reminders.iter().any(|r| r["repeats"].as_str().is_some_and(|t| t.contains("前1天"))));
    assert_eq!(v["lists"][0]["name"], "購物清單", "the shopping list as the family sees it");
    assert_eq!(v["lists"][0]["items"][0]["name"], "牛奶");
    assert_eq!(v["lists"][0]["items"][0]["quantity"], 2);
    assert_eq!(v["memories"][0]["text"], "奶奶對花生過敏");
    assert_eq!(v["price_alerts"][0]["symbol"], "BTC-USD");
    assert_eq!(v["price_alerts"][0]["direction"], "rises_to");
    assert_eq!(v["digest"]["time"], "07:00");
    assert_eq!(
        (v["quiet_hours"]["start"].as_str(), v["quiet_hours"]["end"].as_str()),
        (Some("22:00"), Some("07:00"))
    );
    assert!(v["messages"].as_array().expect("messages").iter().any(|m| m["text"] == "今天好冷"));
    assert!(!v.to_string().contains("家裡的秘密"), "another chat's memory is not exported");
}

#[test]
fn the_command_refuses_a_malformed_chat_id() {
    let out = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .args(["export", "--chat", "../../etc/passwd"])
        .env("DATABASE_URL", "sqlite::memory:")
        .output()
        .expect("run hearth");
    assert!(!out.status.success());
}

/// Runs `hearth export` with `args` on the database `db`: whether it succeeded, what it said.
fn export_cli(db: &str, args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hearth"))
        .arg("export")
        .args(args)
        .env("DATABASE_URL", db)
        .output()
        .expect("run hearth");
    let said =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), said)
}

#[tokio::test]
async fn a_chat_hearth_never_heard_of_is_an_error_not_an_empty_family() {
    let db = crate::common::harness::temp_db("export-unknown");
    let store = hearth::store::Store::connect(&db).await.expect("store");
    store.access().approve_chat(FAMILY, "cli", 1).await.expect("known");
    let (ok, said) = export_cli(&db, &["--chat", MOM]);
    assert!(!ok && said.contains("never heard from"), "{said}");
    let (ok, said) = export_cli(&db, &["--chat", FAMILY]);
    assert!(ok && said.contains("hearth-export"), "a chat hearth knows, with nothing kept: {said}");
}

#[tokio::test]
async fn the_out_file_must_be_new_unless_forced_and_a_symbolic_link_is_never_written_through() {
    let db = crate::common::harness::temp_db("export-out");
    let store = hearth::store::Store::connect(&db).await.expect("store");
    store.access().approve_chat(FAMILY, "cli", 1).await.expect("known");
    let dir = crate::common::scratch_dir("hearth-export-files");
    let existing = dir.join("existing.json");
    std::fs::write(&existing, "mine").expect("write");
    let target = dir.join("target.txt");
    std::fs::write(&target, "precious").expect("write");
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    let path = |p: &std::path::Path| p.display().to_string();

    let (ok, said) = export_cli(&db, &["--chat", FAMILY, "--out", &path(&existing)]);
    assert!(!ok && said.contains("--force"), "{said}");
    assert_eq!(std::fs::read_to_string(&existing).expect("read"), "mine", "left as it was");
    let (ok, said) = export_cli(&db, &["--chat", FAMILY, "--out", &path(&link)]);
    assert!(!ok && said.contains("symbolic link"), "{said}");
    assert_eq!(std::fs::read_to_string(&target).expect("read"), "precious", "not written through");

    let (ok, said) = export_cli(&db, &["--chat", FAMILY, "--out", &path(&existing), "--force"]);
    assert!(ok, "{said}");
    assert!(std::fs::read_to_string(&existing).expect("read").contains("hearth-export"));
    let (ok, said) = export_cli(&db, &["--chat", FAMILY, "--out", &path(&link), "--force"]);
    assert!(ok, "{said}");
    assert_eq!(std::fs::read_to_string(&target).expect("read"), "precious", "the link replaced");
    assert!(!std::fs::symlink_metadata(&link).expect("meta").file_type().is_symlink());
    let fresh = dir.join("fresh.json");
    assert!(export_cli(&db, &["--chat", FAMILY, "--out", &path(&fresh)]).0, "a new file");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `chat`'s export as JSON.
async fn exported(h: &Harness, chat: &str) -> Value {
    let tz = jiff::tz::TimeZone::get("Asia/Taipei").expect("zone");
    let calendar = hearth::sources::calendar::WorkCalendar::builtin().expect("calendar");
    let now = hearth::platform::clock::Clock::now(&*h.clock);
    let document =
        hearth::features::export::ops::export(&h.app.store, chat, &tz, Lang::ZhTw, &calendar, now)
            .await
            .expect("export");
    serde_json::to_value(&document).expect("json")
}

#[tokio::test]
async fn an_export_says_who_asked_for_spoken_answers() {
    let h = Harness::start().await;
    let store = &h.app.store;
    assert!(exported(&h, MOM).await["spoken_answers"].is_null(), "nobody asked");
    store.chats().put_setting(MOM, None, "spoken_answers", Some("true"), 1).await.expect("on");
    store.chat_log().save_member(FAMILY, MOM, "媽媽", 1).await.expect("name");
    let on = Some("true");
    store.chats().put_setting(FAMILY, Some(MOM), "spoken_answers", on, 1).await.expect("for her");
    let dm = exported(&h, MOM).await;
    assert_eq!(dm["spoken_answers"], json!({"whole_chat": true, "members": []}), "{dm}");
    let group = exported(&h, FAMILY).await;
    assert_eq!(group["spoken_answers"], json!({"whole_chat": false, "members": ["媽媽"]}));
}
