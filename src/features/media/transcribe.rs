//! Voice messages into text through an OpenAI-compatible `POST /audio/transcriptions`
//! (multipart: `file`, `model`; the answer `{"text": …}`) — OpenAI itself, or a local Whisper
//! server that speaks the same API.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde::Deserialize;

use crate::llm::endpoint::Endpoint;
use crate::platform::config::Secret;

/// Why a voice message could not be transcribed.
#[derive(Debug, thiserror::Error)]
pub enum TranscribeError {
    /// Could not reach the server, or no answer in time.
    #[error("the transcription server could not be reached: {0}")]
    Connect(String),
    /// The server answered an error.
    #[error("the transcription server answered HTTP {status}: {detail}")]
    Status {
        /// The status.
        status: StatusCode,
        /// The body, shortened, for the log.
        detail: String,
    },
    /// The answer had no text.
    #[error("the transcription server answered without text")]
    Garbage,
}

/// The transcription client.
#[derive(Clone)]
pub struct Transcriber {
    endpoint: Endpoint,
    model: String,
}

#[derive(Deserialize)]
struct Transcript {
    #[serde(default)]
    text: Option<String>,
}

impl Transcriber {
    /// A client for `base_url` (with the version, e.g. `…/v1`) and `model`; fails when the HTTP
    /// client cannot be built.
    pub fn new(
        base_url: &str,
        api_key: Secret,
        model: &str,
        timeout: Duration,
    ) -> Result<Self, reqwest::Error> {
        Ok(Self {
            endpoint: Endpoint::new(base_url, "audio/transcriptions", api_key, timeout)?,
            model: model.to_string(),
        })
    }

    /// The words spoken in `audio` (a file of type `mime`, named `file_name`), trimmed.
    pub async fn transcribe(
        &self,
        audio: Vec<u8>,
        file_name: &str,
        mime: &str,
    ) -> Result<String, TranscribeError> {
        let connect = |e: reqwest::Error| TranscribeError::Connect(e.to_string());
        let part =
            Part::bytes(audio).file_name(file_name.to_string()).mime_str(mime).map_err(connect)?;
        let form = Form::new()
            .text("model", self.model.clone())
            .text("response_format", "json")
            .part("file", part);
        let (status, bytes) =
            self.endpoint.post(|request| request.multipart(form)).await.map_err(connect)?;
        if !status.is_success() {
            let detail = String::from_utf8_lossy(&bytes).chars().take(200).collect();
            return Err(TranscribeError::Status { status, detail });
        }
        let transcript: Transcript =
            serde_json::from_slice(&bytes).map_err(|_| TranscribeError::Garbage)?;
        let text = transcript.text.unwrap_or_default().trim().to_string();
        if text.is_empty() { Err(TranscribeError::Garbage) } else { Ok(text) }
    }
}
