//! What a chat recently sent, by reference only (LINE's message id, never the content): the
//! photos and files a later question may be about ([`pick`](super::pick) decides which). The
//! turn notes each as it arrives and reads them back here, never from the store itself.

use crate::features::deps::Deps;
pub use crate::store::{RecentMedia, SentMedia};
use crate::store::{Store, StoreError};

/// The chats' recent photos and files, over the store.
#[derive(Clone)]
pub struct RecentSent {
    store: Store,
}

impl RecentSent {
    /// Over `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Over `deps`' store.
    pub fn from_deps(deps: &Deps) -> Self {
        Self::new(deps.store.clone())
    }

    /// Notes `sent` in `chat`, forgetting what was sent there before `forget_before_ms`.
    pub async fn note(
        &self,
        chat: &str,
        sent: SentMedia<'_>,
        forget_before_ms: i64,
    ) -> Result<(), StoreError> {
        self.store.media().note(chat, sent, forget_before_ms).await
    }

    /// What `chat` sent since `since_ms`.
    pub async fn since(&self, chat: &str, since_ms: i64) -> Result<RecentMedia, StoreError> {
        self.store.media().recent(chat, since_ms).await
    }
}
