//! The official alerts' operations run for the chat of their context: what is known of its
//! place (the place it follows the alerts for, else its digest's), the alerts read lately, and
//! the verbs — follow the alerts here (「有消息通知我們」, keeping what is not said from before)
//! and stop. The `official_alerts` tool calls these, never the store around them; following
//! and stopping are recorded in the feed of changes.

pub mod watcher;

use crate::contract::ToolCtx;
use crate::features::deps::Deps;
use crate::features::{changes, verbs};
use crate::sources::cap::CapAlert;
use crate::store::{FollowRow, Store, StoreError};

/// A chat asking to be told the alerts: what it said (none: keep what it chose before).
#[derive(Debug, Clone, Default)]
pub struct Follow {
    /// The place's label, when one was named.
    pub place: Option<String>,
    /// Earthquakes from this intensity.
    pub min_intensity: Option<i64>,
    /// Quiet hours hold the urgent ones too.
    pub quiet_holds_all: Option<bool>,
}

/// What a chat follows, once followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Followed {
    /// Earthquakes from this intensity (1–7).
    pub min_intensity: i64,
    /// Quiet hours hold the urgent ones too.
    pub quiet_holds_all: bool,
}

/// The official alerts, over the store (where the watcher keeps them).
#[derive(Clone)]
pub struct OfficialAlertOps {
    store: Store,
}

impl OfficialAlertOps {
    /// The operations over `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// The operations over `deps`' store.
    pub fn from_deps(deps: &Deps) -> Self {
        Self::new(deps.store.clone())
    }

    /// The place `ctx`'s chat is known by, as written: the one it follows the alerts for, else
    /// its digest's.
    pub async fn known_place(&self, ctx: &ToolCtx) -> Result<Option<String>, StoreError> {
        let chat = &ctx.conversation.id;
        if let Some(place) =
            self.store.official_alerts().following(chat).await?.and_then(|f| f.place)
        {
            return Ok(Some(place));
        }
        Ok(self.store.digests().get(chat).await?.and_then(|d| d.place))
    }

    /// The alerts announced since `since_ms` (Unix ms) that read back whole.
    pub async fn since(&self, since_ms: i64) -> Result<Vec<CapAlert>, StoreError> {
        let rows = self.store.official_alerts().since(since_ms).await?;
        Ok(rows
            .into_iter()
            .filter_map(|row| serde_json::from_str(row.alert.as_deref()?).ok())
            .collect())
    }

    /// Forgets the alerts fetched, and what was told, before `before_ms`.
    pub async fn forget_before(&self, before_ms: i64) -> Result<u64, StoreError> {
        self.store.official_alerts().prune(before_ms).await
    }

    /// When the feed was last read (Unix ms), if ever.
    pub async fn feed_read_at(&self) -> Result<Option<i64>, StoreError> {
        self.store.official_alerts().feed_read_at().await
    }

    /// Has the alerts pushed to `ctx`'s chat, in its language; what is not said keeps what
    /// the chat chose before (「地震五級以上才通知」), else intensity 4 and urgent ones at once.
    pub async fn follow(&self, ctx: &ToolCtx, asked: Follow) -> Result<Followed, StoreError> {
        let chat = &ctx.conversation.id;
        let before = self.store.official_alerts().following(chat).await?;
        let row = FollowRow {
            conversation_id: chat.clone(),
            place: asked.place.clone().or_else(|| before.as_ref().and_then(|b| b.place.clone())),
            lang: ctx.lang,
            min_intensity: asked
                .min_intensity
                .unwrap_or_else(|| before.as_ref().map_or(4, |b| b.min_intensity)),
            quiet_holds_urgent: asked
                .quiet_holds_all
                .unwrap_or_else(|| before.as_ref().is_some_and(|b| b.quiet_holds_urgent)),
        };
        self.store.official_alerts().follow(&row, ctx.now().as_millisecond()).await?;
        let what = row.place.clone().unwrap_or_default();
        changes::record(&self.store, ctx, &verbs::OFFICIAL_ALERTS_FOLLOW, &what).await;
        Ok(Followed { min_intensity: row.min_intensity, quiet_holds_all: row.quiet_holds_urgent })
    }

    /// Stops pushing the alerts to `ctx`'s chat; false when it did not follow them.
    pub async fn stop(&self, ctx: &ToolCtx) -> Result<bool, StoreError> {
        let stopped = self.store.official_alerts().unfollow(&ctx.conversation.id).await?;
        if stopped {
            changes::record(&self.store, ctx, &verbs::OFFICIAL_ALERTS_STOP, "").await;
        }
        Ok(stopped)
    }
}
