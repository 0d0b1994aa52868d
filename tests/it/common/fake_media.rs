//! A fake of LINE's content endpoint (`GET /v2/bot/message/{id}/content` on api-data), of an
//! external content provider (`GET /cdn/{name}`, the `originalContentUrl` of a message) and of an
//! OpenAI-compatible transcription endpoint (`POST /audio/transcriptions`, multipart) and speech
//! endpoint (`POST /audio/speech`: real AAC in ADTS frames, `tests/fixtures/speech.aac` made by
//! `scripts/speech_fixture.sh`, or an error status), on `127.0.0.1`. Tests put content under a message id or a file name (bytes and content type, or a
//! status); unknown ones get a 404. Every fetch (`cdn/NAME` for the provider) and every
//! transcription body is recorded.

use std::collections::HashMap;
use std::io::Cursor;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;
use tokio::net::TcpListener;

/// Handle to the running fake; clones share it.
#[derive(Clone)]
pub struct FakeMedia {
    port: u16,
    state: Arc<Mutex<MediaState>>,
}

#[derive(Default)]
struct MediaState {
    content: HashMap<String, (u16, String, Vec<u8>)>,
    fetches: Vec<String>,
    transcript: String,
    transcriptions: Vec<Vec<u8>>,
    transcription_auth: Vec<Option<String>>,
    speech_requests: Vec<serde_json::Value>,
    speech_status: u16,
    transcribe_delay: std::time::Duration,
    speech_audio: Option<Vec<u8>>,
    transcribing: usize,
    most_transcribing: usize,
}

/// What the fake speech endpoint answers: 1.5 s of AAC LC, mono, 24 kHz, in ADTS frames.
pub const SPEECH_AAC: &[u8] = include_bytes!("../../fixtures/speech.aac");

impl FakeMedia {
    /// Binds `127.0.0.1:0` and serves the fake on a background task.
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind fake media");
        let port = listener.local_addr().expect("fake media address").port();
        let media = Self { port, state: Arc::default() };
        let router = Router::new()
            .route("/v2/bot/message/{id}/content", get(content))
            .route("/cdn/{name}", get(external))
            .route("/audio/transcriptions", post(transcribe))
            .route("/v1/audio/transcriptions", post(transcribe))
            .route("/audio/speech", post(speak))
            .route("/v1/audio/speech", post(speak))
            // A voice message of several MB is posted whole (axum's default limit is 2 MB).
            .layer(axum::extract::DefaultBodyLimit::max(64 << 20))
            .with_state(media.clone());
        tokio::spawn(async move {
            axum::serve(listener, router).await.expect("fake media server");
        });
        media
    }

    /// Base URL (serves both LINE_DATA_API_BASE and HEARTH_TRANSCRIBE_URL).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Serves `bytes` as `content_type` for message `id`.
    pub fn put(&self, id: &str, content_type: &str, bytes: Vec<u8>) {
        self.lock().content.insert(id.into(), (200, content_type.into(), bytes));
    }

    /// Serves `bytes` as `content_type` at [`Self::external_url`]`(name)`.
    pub fn put_external(&self, name: &str, content_type: &str, bytes: Vec<u8>) {
        self.put(&format!("cdn/{name}"), content_type, bytes);
    }

    /// The URL of `name` on the fake external content provider.
    pub fn external_url(&self, name: &str) -> String {
        format!("{}/cdn/{name}", self.url())
    }

    /// Answers `status` (with LINE's JSON error body) for message `id`.
    pub fn put_status(&self, id: &str, status: u16) {
        self.lock().content.insert(id.into(), (status, "application/json".into(), Vec::new()));
    }

    /// What the transcription endpoint answers from now on.
    pub fn set_transcript(&self, text: &str) {
        self.lock().transcript = text.into();
    }

    /// The transcription endpoint takes `delay` to answer from now on.
    pub fn set_transcribe_delay(&self, delay: std::time::Duration) {
        self.lock().transcribe_delay = delay;
    }

    /// The speech endpoint answers `aac` (ADTS frames) instead of [`SPEECH_AAC`] from now on.
    pub fn set_speech_audio(&self, aac: Vec<u8>) {
        self.lock().speech_audio = Some(aac);
    }

    /// The most transcription requests the endpoint was answering at one moment.
    pub fn most_transcribing_at_once(&self) -> usize {
        self.lock().most_transcribing
    }

    /// The message ids whose content was fetched, in order.
    pub fn fetches(&self) -> Vec<String> {
        self.lock().fetches.clone()
    }

    /// The raw multipart bodies the transcription endpoint received.
    pub fn transcriptions(&self) -> Vec<Vec<u8>> {
        self.lock().transcriptions.clone()
    }

    /// The `authorization` header of each transcription request (`None` when absent).
    pub fn transcription_auth(&self) -> Vec<Option<String>> {
        self.lock().transcription_auth.clone()
    }

    /// The JSON bodies the speech endpoint received.
    pub fn speech_requests(&self) -> Vec<serde_json::Value> {
        self.lock().speech_requests.clone()
    }

    /// The speech endpoint answers `status` (with an OpenAI-style error) from now on; 200 (the
    /// default) answers the AAC fixture, 302 sends the request to `cdn/speech.aac`, 504 accepts
    /// and answers nothing for two minutes.
    pub fn set_speech_status(&self, status: u16) {
        self.lock().speech_status = status;
    }

    fn lock(&self) -> MutexGuard<'_, MediaState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

async fn external(State(media): State<FakeMedia>, Path(name): Path<String>) -> Response {
    content(State(media), Path(format!("cdn/{name}"))).await
}

async fn content(State(media): State<FakeMedia>, Path(id): Path<String>) -> Response {
    let found = {
        let mut state = media.lock();
        state.fetches.push(id.clone());
        state.content.get(&id).cloned()
    };
    match found {
        Some((200, content_type, bytes)) => {
            (StatusCode::OK, [(CONTENT_TYPE, content_type)], bytes).into_response()
        }
        Some((status, _, _)) => {
            let status = StatusCode::from_u16(status).expect("status");
            (status, axum::Json(json!({"message": "error"}))).into_response()
        }
        None => {
            (StatusCode::NOT_FOUND, axum::Json(json!({"message": "Not found"}))).into_response()
        }
    }
}

async fn transcribe(
    State(media): State<FakeMedia>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Response {
    let auth =
        headers.get("authorization").map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let (text, delay) = {
        let mut state = media.lock();
        state.transcriptions.push(body.to_vec());
        state.transcription_auth.push(auth);
        state.transcribing += 1;
        state.most_transcribing = state.most_transcribing.max(state.transcribing);
        (state.transcript.clone(), state.transcribe_delay)
    };
    tokio::time::sleep(delay).await;
    media.lock().transcribing -= 1;
    axum::Json(json!({"text": text})).into_response()
}

async fn speak(State(media): State<FakeMedia>, body: Bytes) -> Response {
    let (status, audio) = {
        let mut state = media.lock();
        state.speech_requests.push(serde_json::from_slice(&body).unwrap_or_default());
        (state.speech_status, state.speech_audio.clone())
    };
    match status {
        0 | 200 => {
            let audio = audio.unwrap_or_else(|| SPEECH_AAC.to_vec());
            ([(CONTENT_TYPE, "audio/aac")], audio).into_response()
        }
        // A speech server that accepts and never answers (well past any deadline).
        504 => {
            tokio::time::sleep(std::time::Duration::from_secs(120)).await;
            StatusCode::GATEWAY_TIMEOUT.into_response()
        }
        // Sent elsewhere: to this fake's external content, `cdn/speech.aac`.
        302 => {
            (StatusCode::FOUND, [(axum::http::header::LOCATION, "/cdn/speech.aac")]).into_response()
        }
        status => {
            let status = StatusCode::from_u16(status).expect("status");
            let error = json!({"error": {"message": "speech failed", "type": "server_error"}});
            (status, axum::Json(error)).into_response()
        }
    }
}

/// A phone-camera-like photo (`width`×`height`, a gradient with some texture) as JPEG.
pub fn jpeg(width: u32, height: u32) -> Vec<u8> {
    encode(width, height, image::ImageFormat::Jpeg)
}

/// The same as PNG.
pub fn png(width: u32, height: u32) -> Vec<u8> {
    encode(width, height, image::ImageFormat::Png)
}

fn encode(width: u32, height: u32, format: image::ImageFormat) -> Vec<u8> {
    let picture = image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x / 8 % 256) as u8, (y / 8 % 256) as u8, ((x ^ y) % 256) as u8])
    });
    let mut bytes = Vec::new();
    picture.write_to(&mut Cursor::new(&mut bytes), format).expect("encode picture");
    bytes
}

/// The start of an m4a file (an `ftyp` box of brand `M4A `) followed by some bytes: what LINE
/// serves for a voice message, as far as hearth looks at it.
pub fn m4a() -> Vec<u8> {
    let mut bytes = vec![0, 0, 0, 0x20];
    bytes.extend_from_slice(b"ftypM4A \0\0\0\0M4A mp42isom\0\0\0\0");
    bytes.extend_from_slice(&[0u8; 512]);
    bytes
}

/// A PDF of `pages` pages, each showing `text` (Helvetica; empty: pages without text, like a
/// scan), with a correct cross-reference table.
pub fn pdf(text: &str, pages: usize) -> Vec<u8> {
    let mut objects: Vec<String> = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".into(),
        String::new(), // the page tree, filled in below
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".into(),
    ];
    let mut kids = Vec::new();
    for _ in 0..pages {
        let stream = if text.is_empty() {
            String::new()
        } else {
            format!("BT /F1 12 Tf 72 720 Td ({text}) Tj ET")
        };
        objects.push(format!("<< /Length {} >>\nstream\n{stream}\nendstream", stream.len()));
        let contents = objects.len();
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {contents} 0 R \
             /Resources << /Font << /F1 3 0 R >> >> >>"
        ));
        kids.push(format!("{} 0 R", objects.len()));
    }
    objects[1] = format!("<< /Type /Pages /Kids [{}] /Count {pages} >>", kids.join(" "));
    let objects: Vec<Vec<u8>> = objects.into_iter().map(String::into_bytes).collect();
    super::hostile_files::pdf_of(&objects)
}
