//! Where extraction runs: on a dedicated thread with a generous stack of its own, at most
//! [`MAX_CONCURRENT`] at once, each waited for no longer than the caller's deadline (the rest of
//! the fetch time limit). A page that still takes too long yields [`ExtractError::Timeout`],
//! data for the LLM like any tool error; the thread finishes in the background and only then
//! gives its slot back, so runaway pages cannot pile up threads.

use std::sync::Arc;

use tokio::sync::{Semaphore, oneshot};
use tokio::time::Instant;

use super::{Extracted, extract_blocking};
use crate::sources::fetch::Page;

/// Extractions running at once, at most.
pub const MAX_CONCURRENT: usize = 2;
/// Stack of an extraction thread: far more than [`super::shape::MAX_DEPTH`] levels need.
pub const STACK_BYTES: usize = 64 * 1024 * 1024;

/// Why a page's text could not be extracted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    /// The deadline passed before the extraction finished.
    #[error("the page is too large or complex to read in time")]
    Timeout,
    /// Every extraction slot stayed busy until the deadline.
    #[error("too many pages are being read right now")]
    Busy,
    /// The extraction thread could not start or failed.
    #[error("the page could not be read")]
    Failed,
}

/// Runs extractions on bounded threads. Cheap to clone; clones share the slots.
#[derive(Debug, Clone)]
pub struct Extractor {
    slots: Arc<Semaphore>,
}

impl Default for Extractor {
    fn default() -> Self {
        Self::new()
    }
}

impl Extractor {
    /// An extractor with [`MAX_CONCURRENT`] slots.
    pub fn new() -> Self {
        Self { slots: Arc::new(Semaphore::new(MAX_CONCURRENT)) }
    }

    /// Extracts the main text of `page`, at most `budget_chars` characters, finished by
    /// `deadline` or given up.
    pub async fn extract(
        &self,
        page: &Page,
        budget_chars: usize,
        deadline: Instant,
    ) -> Result<Extracted, ExtractError> {
        let slot = match tokio::time::timeout_at(deadline, self.slots.clone().acquire_owned()).await
        {
            Ok(Ok(slot)) => slot,
            Ok(Err(_)) => return Err(ExtractError::Failed),
            Err(_) => return Err(ExtractError::Busy),
        };
        let (kind, body, url) = (page.kind, page.body.clone(), page.url.to_string());
        let (tx, rx) = oneshot::channel();
        let spawned = std::thread::Builder::new()
            .name("hearth-extract".into())
            .stack_size(STACK_BYTES)
            .spawn(move || {
                let extracted = extract_blocking(kind, &body, &url, budget_chars);
                // The waiter may have given up; the slot is given back only now.
                let _ = tx.send(extracted);
                drop(slot);
            });
        if let Err(e) = spawned {
            tracing::error!(error = %e, "page extraction thread could not start");
            return Err(ExtractError::Failed);
        }
        match tokio::time::timeout_at(deadline, rx).await {
            Ok(Ok(extracted)) => Ok(extracted),
            Ok(Err(_)) => {
                tracing::error!(url = %page.url, "page extraction failed");
                Err(ExtractError::Failed)
            }
            Err(_) => {
                tracing::warn!(url = %page.url, "page extraction timed out");
                Err(ExtractError::Timeout)
            }
        }
    }
}
