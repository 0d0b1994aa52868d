//! The verbs of spoken answers over the store: keep an answer's audio for its day, and read it
//! back for LINE.

use jiff::Timestamp;

use super::{AUDIO_LIFETIME, MAX_AUDIO_FILES, SpeechError};
use crate::store::Store;

/// Keeps `m4a`, spoken in `chat` at `now`, for [`AUDIO_LIFETIME`] under a new random token,
/// which it returns; refused while [`MAX_AUDIO_FILES`] are served, or when the store fails
/// (logged).
pub async fn keep(
    store: &Store,
    chat: &str,
    m4a: &[u8],
    now: Timestamp,
) -> Result<String, SpeechError> {
    let token = uuid::Uuid::new_v4().simple().to_string();
    let expires = now.saturating_add(AUDIO_LIFETIME).unwrap_or(now);
    let kept = store.spoken_audio().keep(
        &token,
        chat,
        m4a,
        expires.as_millisecond(),
        now.as_millisecond(),
        MAX_AUDIO_FILES,
    );
    match kept.await {
        Ok(true) => Ok(token),
        Ok(false) => {
            tracing::warn!(
                max = MAX_AUDIO_FILES,
                "as many spoken answers as may be kept are served"
            );
            Err(SpeechError::NotKept)
        }
        Err(e) => {
            tracing::warn!(error = %e, "spoken answer not kept");
            Err(SpeechError::NotKept)
        }
    }
}

/// Deletes the audio that expired by `now` (the prune loop; new audio sweeps too): how much.
pub async fn forget_expired(
    store: &Store,
    now: Timestamp,
) -> Result<u64, crate::store::StoreError> {
    store.spoken_audio().sweep(now.as_millisecond()).await
}

/// The audio under `token`, while it is served at `now` (a store failure is logged: not found).
pub async fn audio(store: &Store, token: &str, now: Timestamp) -> Option<Vec<u8>> {
    store.spoken_audio().get(token, now.as_millisecond()).await.unwrap_or_else(|e| {
        tracing::warn!(error = %e, "spoken answer unavailable");
        None
    })
}
