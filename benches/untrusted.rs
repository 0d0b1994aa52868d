//! Benchmark of the real `hearth serve` binary against a stream of hostile files: does the
//! server's own memory stay flat whatever a family member sends? Each round sends, from its own
//! 1:1 chat, a PDF whose form draws itself, a PDF with a two-level zlib bomb (1 GiB), a PDF whose
//! page is its own parent, a 12000×11600 PNG and an ordinary phone photo, all at once; it waits
//! until every one is answered, then reads the server's resident memory (`VmRSS`) and its peak
//! (`VmHWM`). The children do the parsing; their memory is not the server's.
//!
//! Run with `cargo bench --bench untrusted` (a release build). `BENCH_ROUNDS` sets the rounds
//! (default 10), `BENCH_HEARTH_BIN` another server binary to run. `BENCH_PHOTOS=40` runs one
//! round of a different flood instead: that many chats each sending a 9.8 MB photo at once;
//! `BENCH_VOICES=40` the same with a 9.5 MB voice message each (transcribed by the fake in
//! half a second); with `BENCH_SPOKEN=1` too, each is answered aloud with 1.9 MB of AAC (as much
//! as hearth takes), and every answer's audio is fetched back from hearth once all are in.

#[path = "../tests/it/common/mod.rs"]
mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::hostile_files::{black_png, own_parent_pdf, self_drawing_form_pdf, zlib_bomb_pdf};
use common::{FakeLine, FakeLlm, FakeMedia};
use hearth::line::signature;
use serde_json::{Value, json};

const SECRET: &str = "8c570fa6dd201bb328f1c1eac23a96d8";
/// Where hearth says its spoken answers are (they are fetched back from its local address).
const PUBLIC: &str = "https://hearth.bench";

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `VmRSS` and `VmHWM` of `pid`, in MiB.
fn memory(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn file(id: &str, name: &str, size: usize) -> Value {
    json!({"id": id, "type": "file", "fileName": name, "fileSize": size})
}

fn event(n: u64, user: &str, message: Value) -> Value {
    json!({
        "type": "message", "mode": "active",
        "timestamp": jiff::Timestamp::now().as_millisecond(),
        "webhookEventId": format!("01UNTRUSTED{n:015}"),
        "deliveryContext": {"isRedelivery": false},
        "replyToken": format!("untrusted-token-{n}"),
        "source": {"type": "user", "userId": user},
        "message": message,
    })
}

#[tokio::main]
async fn main() {
    let count = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<usize>().ok());
    let (photos, voices) = (count("BENCH_PHOTOS"), count("BENCH_VOICES"));
    let spoken = std::env::var("BENCH_SPOKEN").is_ok_and(|v| v == "1");
    let rounds: u64 = match photos.or(voices) {
        Some(_) => 1,
        None => std::env::var("BENCH_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(10),
    };
    let line = FakeLine::start().await;
    let llm = FakeLlm::start().await;
    let media = FakeMedia::start().await;
    line.set_dump(false);
    llm.respond_with(|_| FakeLlm::text("好的"));
    media.set_transcript("明天會下雨嗎？");
    media.set_transcribe_delay(Duration::from_millis(500));
    if spoken {
        let frames = common::fake_media::SPEECH_AAC;
        // 400 copies of the fixture: 14,800 frames, 1.9 MB (hearth takes at most 16,384).
        media.set_speech_audio(frames.repeat(400));
    }
    let kinds: Vec<(&str, &str, &str, Vec<u8>)> = match (photos, voices) {
        // As many chats at once, each with a voice message of 9.5 MB (LINE's m4a, padded).
        (None, Some(n)) => {
            let mut long = common::fake_media::m4a();
            long.resize(9_500_000, 0);
            vec![("voice", "", "audio/x-m4a", long); n]
        }
        // As many chats at once, each with a phone photo of 9.8 MB (the picture, then what a
        // camera appends after it, which a decoder skips).
        (Some(n), _) => {
            let mut big = common::fake_media::jpeg(4032, 3024);
            big.resize(9_800_000, 0x5A);
            vec![("big", "", "image/jpeg", big); n]
        }
        (None, None) => vec![
            ("form", "form.pdf", "application/pdf", self_drawing_form_pdf()),
            ("bomb", "bomb.pdf", "application/pdf", zlib_bomb_pdf(1 << 30)),
            ("loop", "loop.pdf", "application/pdf", own_parent_pdf()),
            ("huge", "", "image/png", black_png(12_000, 11_600)),
            ("photo", "", "image/jpeg", common::fake_media::jpeg(4032, 3024)),
        ],
    };
    for (kind, _, content_type, bytes) in &kinds {
        media.put(kind, content_type, bytes.clone());
    }

    let dir = std::env::temp_dir().join(format!("hearth-untrusted-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("port");
    let binary =
        std::env::var("BENCH_HEARTH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_hearth").into());
    let server = Server(
        Command::new(&binary)
            .arg("serve")
            .env("LINE_CHANNEL_SECRET", SECRET)
            .env("LINE_CHANNEL_ACCESS_TOKEN", "bench-token")
            .env("LINE_API_BASE", line.url())
            .env("LINE_DATA_API_BASE", media.url())
            .env("OPENAI_BASE_URL", llm.url())
            .env("OPENAI_API_KEY", "sk-bench")
            .env("DATABASE_URL", format!("sqlite://{}", dir.join("hearth.db").display()))
            .env("HEARTH_LISTEN", format!("127.0.0.1:{port}"))
            .env("HEARTH_OPEN", "true")
            .env("HEARTH_USER_TURNS_PER_MINUTE", "0")
            .env("HEARTH_CHAT_TURNS_PER_MINUTE", "0")
            .env("HEARTH_TRANSCRIBE_MODEL", "whisper-bench")
            .env("HEARTH_TRANSCRIBE_URL", media.url())
            .env("HEARTH_TTS_MODEL", if spoken { "tts-bench" } else { "" })
            .env("HEARTH_TTS_URL", media.url())
            .env("HEARTH_PUBLIC_URL", PUBLIC)
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn hearth serve"),
    );
    let pid = server.0.id();
    let url = format!("http://127.0.0.1:{port}");
    let http = hearth::platform::tls::client_builder().build().expect("HTTP client");
    let ready = Instant::now() + Duration::from_secs(20);
    while http.get(format!("{url}/readyz")).send().await.map(|r| r.status() != 200).unwrap_or(true)
    {
        assert!(Instant::now() < ready, "hearth did not become ready");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (idle, _) = memory(pid);
    println!("server idle: VmRSS {idle:.1} MiB");
    println!("round | files | answered | took (s) | VmRSS (MiB) | VmHWM (MiB)");
    let mut n = 0u64;
    let mut answered = 0usize;
    for round in 1..=rounds {
        let started = Instant::now();
        let mut events = Vec::new();
        for (i, (kind, name, _, bytes)) in kinds.iter().enumerate() {
            n += 1;
            let user = format!("U{:032x}", u128::from(round) * 100 + i as u128);
            let message = if *kind == "voice" {
                json!({"id": kind, "type": "audio", "duration": 3000,
                    "contentProvider": {"type": "line"}})
            } else if name.is_empty() {
                json!({"id": kind, "type": "image", "quoteToken": format!("q{n}"),
                    "contentProvider": {"type": "line"}})
            } else {
                file(kind, name, bytes.len())
            };
            events.push(event(n, &user, message));
        }
        let body = json!({"destination": "Ubench", "events": events}).to_string();
        let status = http
            .post(format!("{url}/callback"))
            .header("x-line-signature", signature::sign(SECRET, body.as_bytes()))
            .body(body)
            .send()
            .await
            .expect("post")
            .status();
        assert_eq!(status, 200);
        answered += kinds.len();
        line.wait_for_answers(answered, Duration::from_secs(120)).await;
        let (rss, hwm) = memory(pid);
        println!(
            "{round:>5} | {:>5} | {:>8} | {:>8.1} | {rss:>11.1} | {hwm:>11.1}",
            kinds.len(),
            line.replies().len() + line.accepted_pushes().len(),
            started.elapsed().as_secs_f64()
        );
    }
    if let Some(first) = line.replies().first() {
        println!("first answer: {}", first.body["messages"][0]["text"]);
    }
    if spoken {
        let urls: Vec<String> = line
            .replies()
            .iter()
            .flat_map(|r| r.body["messages"].as_array().cloned().unwrap_or_default())
            .filter_map(|m| m["originalContentUrl"].as_str().map(|u| u.replace(PUBLIC, &url)))
            .filter(|u| u.ends_with(".m4a"))
            .collect();
        let mut served = 0;
        for audio in &urls {
            let ok = http.get(audio).send().await.is_ok_and(|r| r.status() == 200);
            served += usize::from(ok);
        }
        let (rss, hwm) = memory(pid);
        println!(
            "spoken answers: {} sent, {served} served back; VmRSS {rss:.1} MiB, VmHWM {hwm:.1} MiB",
            urls.len()
        );
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
