//! A file cannot take hearth down. Against the real server, with the files a hostile family
//! member could send (made by the tests): a PDF whose form draws itself, a PDF with a zlib bomb in
//! an object stream, a PDF whose page is its own parent, a PNG whose pixels need gigabytes and a
//! page that makes the HTML parser rebuild tags. Each is parsed in a child process under the
//! operating system's limits: the family gets a short, friendly answer, the server's memory does
//! not grow, no child is left running, and the next message is answered as usual.

use std::io::Read;
use std::time::{Duration, Instant};

use crate::common::FakeMedia;
use crate::common::harness::{Harness, MOM, in_dm, texts_of};
use crate::common::hostile_files::{
    black_png, own_parent_pdf, self_drawing_form_pdf, zlib_bomb_pdf, zlib_zeros,
};
use hearth::sources::sandbox::SandboxError;
use serde_json::{Value, json};

/// Growth of the server's peak memory that no hostile file may cause (the server is this test
/// process: the fakes and the harness share it, so the bound leaves them room).
const MAX_GROWTH_KB: u64 = 150 * 1024;

/// The peak resident memory of this process, in kB (`VmHWM`).
fn peak_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

/// `hearth` under a name of the test's own (a link), so its children can be told apart from
/// those of the tests running beside it.
fn program_named(tag: &str) -> std::path::PathBuf {
    let link = std::env::temp_dir().join(format!("hearth-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(crate::common::hearth_exe(), &link).expect("link");
    link
}

/// Children started as `program` still running (zombies not counted).
fn children_left(program: &std::path::Path) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    let program = program.to_string_lossy();
    entries
        .flatten()
        .filter(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let argv0 = cmdline.split(|b| *b == 0).next().unwrap_or_default();
            let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next());
            argv0 == program.as_bytes() && state != Some("Z")
        })
        .count()
}

async fn harness(
    media: &FakeMedia,
    tweak: impl FnOnce(&mut hearth::platform::config::Config),
) -> Harness {
    let url = media.url();
    let h = Harness::start_with(
        move |c| {
            c.line.line_data_api_base = url.clone();
            c.speech.transcribe_url = url;
            c.media.parser_secs = 3;
            tweak(c);
        },
        None,
    )
    .await;
    h.line.set_profile(MOM, "媽媽");
    h
}

fn file(id: &str, name: &str, size: usize) -> Value {
    json!({"id": id, "type": "file", "fileName": name, "fileSize": size})
}

fn reply_text(h: &Harness, n: usize) -> String {
    texts_of(&h.line.replies()[n].body)
}

/// A harness whose parsing children run as [`program_named`] `tag`.
async fn tagged_harness(media: &FakeMedia, tag: &str) -> (Harness, std::path::PathBuf) {
    let program = program_named(tag);
    let link = program.clone();
    (harness(media, move |c| c.media.parser_program = Some(link)).await, program)
}

/// Sends `event`, expects the friendly refusal `expected` as the answer, and then a text
/// message answered as usual; the server's memory stays flat and no child of `program` is left.
async fn refused_then_still_answering(
    h: &Harness,
    program: &std::path::Path,
    event: Value,
    expected: &str,
) {
    let before = peak_kb();
    let started = Instant::now();
    h.send(vec![event]).await;
    let took = started.elapsed();
    let answered = h.line.replies().len();
    assert!(answered >= 1, "the family was answered");
    let said = reply_text(h, answered - 1);
    assert!(said.contains(expected), "{said}");
    assert!(took < Duration::from_secs(10), "answered in {took:?}");
    let growth = peak_kb().saturating_sub(before);
    assert!(growth < MAX_GROWTH_KB, "the server's peak memory grew by {growth} kB");
    // A killed child may take a moment to be reaped.
    let deadline = Instant::now() + Duration::from_secs(3);
    while children_left(program) > 0 {
        assert!(Instant::now() < deadline, "a parsing child is still running");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    h.llm.reply_text("在喔");
    h.send(vec![h.dm(MOM, "你還在嗎")]).await;
    let replies = h.line.replies();
    assert!(texts_of(&replies[replies.len() - 1].body).contains("在喔"), "still answering");
}

#[test]
fn the_test_bombs_inflate_to_what_they_claim() {
    let mut zeros = Vec::new();
    flate2::read::ZlibDecoder::new(&zlib_zeros(100_003)[..])
        .read_to_end(&mut zeros)
        .expect("a valid zlib stream");
    assert_eq!(zeros.len(), 100_003);
    assert!(zeros.iter().all(|b| *b == 0));
    assert!(zlib_bomb_pdf(1 << 30).len() < 64 * 1024, "a gigabyte in a small file");
    assert!(self_drawing_form_pdf().len() < 1024);
}

#[tokio::test]
async fn a_pdf_whose_form_draws_itself_is_refused_and_hearth_keeps_answering() {
    let media = FakeMedia::start().await;
    let bytes = self_drawing_form_pdf();
    let size = bytes.len();
    media.put("9101", "application/pdf", bytes);
    let (h, program) = tagged_harness(&media, "form").await;
    let event = h.event(in_dm(MOM), file("9101", "通知.pdf", size));
    refused_then_still_answering(&h, &program, event, "讀不出來").await;
    assert_eq!(h.llm.requests().len(), 1, "only the text message reached the model");
}

#[tokio::test]
async fn a_pdf_with_a_zlib_bomb_in_an_object_stream_costs_the_server_no_memory() {
    let media = FakeMedia::start().await;
    let bytes = zlib_bomb_pdf(2 << 30);
    let size = bytes.len();
    media.put("9102", "application/pdf", bytes);
    let (h, program) = tagged_harness(&media, "bomb").await;
    let event = h.event(in_dm(MOM), file("9102", "bomb.pdf", size));
    // The child either dies at its address-space limit (「讀不出來」) or its decoder is refused
    // the memory and the object stream reads as empty (「沒有文字」): which one depends on where
    // the allocation that crosses the limit falls. Either way a refusal, and flat memory here.
    refused_then_still_answering(&h, &program, event, "").await;
    let said = reply_text(&h, 0);
    assert!(said.contains("讀不出來") || said.contains("沒有文字"), "{said}");
}

#[tokio::test]
async fn a_pdf_whose_page_is_its_own_parent_is_given_up_and_its_child_killed() {
    let media = FakeMedia::start().await;
    let bytes = own_parent_pdf();
    let size = bytes.len();
    media.put("9103", "application/pdf", bytes);
    let (h, program) = tagged_harness(&media, "loop").await;
    let event = h.event(in_dm(MOM), file("9103", "loop.pdf", size));
    refused_then_still_answering(&h, &program, event, "讀不").await;
}

#[tokio::test]
async fn a_photo_of_140_megapixels_is_refused_without_growing_the_server() {
    let media = FakeMedia::start().await;
    let bytes = black_png(12_000, 11_600);
    media.put("9104", "image/png", bytes);
    let (h, program) = tagged_harness(&media, "photo").await;
    let photo = json!({"id": "9104", "type": "image", "quoteToken": "q-9104",
        "contentProvider": {"type": "line"}});
    refused_then_still_answering(&h, &program, h.event(in_dm(MOM), photo), "這張圖我讀不出來")
        .await;
}

#[tokio::test]
async fn six_huge_photos_at_once_are_all_refused_without_growing_the_server() {
    let sandbox = crate::common::sandbox();
    let png = black_png(12_000, 11_600);
    let before = peak_kb();
    let jobs = (0..6).map(|n| {
        let (sandbox, png) = (sandbox.clone(), png.clone());
        async move {
            let place = sandbox.place(&format!("Uchat{n}")).await?;
            sandbox.picture(place, png).await
        }
    });
    let results = futures::future::join_all(jobs).await;
    for result in results {
        assert!(
            matches!(result, Err(SandboxError::Refused(_) | SandboxError::Died(_))),
            "{result:?}"
        );
    }
    let growth = peak_kb().saturating_sub(before);
    assert!(growth < MAX_GROWTH_KB, "peak memory grew by {growth} kB");
}

#[tokio::test]
async fn a_phone_photo_still_reaches_the_model_scaled_down() {
    let sandbox = crate::common::sandbox();
    let place = sandbox.place("Umom").await.expect("a place");
    let prepared = sandbox.picture(place, black_png(4032, 3024)).await.expect("a photo");
    assert_eq!((prepared.width, prepared.height), (1536, 1152));
    assert_eq!(&prepared.jpeg[..2], &[0xFF, 0xD8]);
}

#[tokio::test]
async fn a_page_that_makes_the_parser_rebuild_tags_is_read_without_growing_the_server() {
    let sandbox = crate::common::sandbox();
    let body = crate::common::fake_web::hostile::page("rebuilt-formatting").expect("page");
    let page = hearth::sources::fetch::Page {
        url: "https://example.com/rebuilt".parse().expect("url"),
        kind: hearth::sources::fetch::PageKind::Html,
        body,
        truncated: false,
    };
    let before = peak_kb();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let read = sandbox.page("Cfamily", &page, 6000, deadline).await.expect("read, tags stripped");
    assert!(read.text.contains(crate::common::fake_web::hostile::DEEP_TEXT), "{}", read.text);
    let growth = peak_kb().saturating_sub(before);
    assert!(growth < MAX_GROWTH_KB, "peak memory grew by {growth} kB");
}

#[tokio::test]
async fn twenty_voice_messages_in_a_minute_are_transcribed_only_as_often_as_turns_are_allowed() {
    let media = FakeMedia::start().await;
    media.set_transcript("明天幾點出門？");
    let h = harness(&media, |c| c.limits.user_turns_per_minute = 10).await;
    for n in 0..20 {
        let id = format!("92{n:02}");
        media.put(&id, "audio/x-m4a", crate::common::fake_media::m4a());
        h.llm.reply_text("八點。");
        let voice = json!({"id": id, "type": "audio", "duration": 3000,
            "contentProvider": {"type": "line"}});
        h.send(vec![h.event(in_dm(MOM), voice)]).await;
    }
    assert_eq!(media.transcriptions().len(), 10, "a voice message over the rate costs nothing");
    assert_eq!(media.fetches().len(), 10, "nor is it downloaded");
    assert_eq!(h.llm.requests().len(), 10);
}

#[tokio::test]
async fn a_file_over_the_turn_rate_is_not_even_downloaded() {
    let media = FakeMedia::start().await;
    media.put("9301", "text/plain", "運動會 10/18".as_bytes().to_vec());
    media.put("9302", "text/plain", "家長會 12/5".as_bytes().to_vec());
    let h = harness(&media, |c| c.limits.user_turns_per_minute = 1).await;
    h.llm.reply_text("運動會在 10/18。");
    h.send(vec![h.event(in_dm(MOM), file("9301", "a.txt", 16))]).await;
    h.send(vec![h.event(in_dm(MOM), file("9302", "b.txt", 16))]).await;
    assert_eq!(media.fetches(), vec!["9301"]);
    assert_eq!(h.llm.requests().len(), 1);
}
