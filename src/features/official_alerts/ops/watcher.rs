//! The watcher of the official alerts. Each tick, the one process holding the feed's lease
//! reads the feed (conditionally: an unchanged feed costs a `304`; as a stream, whatever its
//! size), fetches the new documents of the kinds the family is told about — urgent kinds and the
//! newest first, each failing one on its own backoff ([`retry`]) so it never holds back the
//! others — and keeps each by its CAP identifier: an unreadable one too, one leading away from
//! the feed's host, and one failing past its budget, so none is fetched again. Then every kept
//! alert not yet dispatched is looked at for each chat that follows the alerts: what it says for
//! the chat's place ([`reading`]), and whether the chat is told ([`tell`]). A told alert is
//! pushed through the per-chat outbox with the retry key `public-alert:{chat}:{identifier}`, so
//! a chat is told of an alert once, whichever process pushes it and however often it is looked
//! at again; urgent ones (an earthquake, a suspension) go through quiet hours unless the chat
//! asked otherwise.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, PoisonError};

use jiff::{SignedDuration, Timestamp};

use crate::features::official_alerts::reading::{self, Kind};
use crate::features::official_alerts::render;
use crate::features::official_alerts::retry::{self, AfterFailure, Failing};
use crate::features::official_alerts::tell::{self, Tell, Told};
use crate::platform::metrics;
use crate::push::delivery::{self, Item, Outcome, Pusher};
use crate::push::quiet::PushKind;
use crate::sources::UpstreamError;
use crate::sources::cap::areas::Place;
use crate::sources::cap::{self, CapAlert, CapFeed, DocumentError, FeedEntry, FeedPoll, Wanted};
use crate::store::{FollowRow, NewOfficialAlert, OfficialAlertRow, Store, StoreError, ToldRow};

/// How long the lease on reading the feed lasts (renewed every tick).
const LEASE: SignedDuration = SignedDuration::from_mins(2);
/// Documents fetched per tick at most (the rest on the next ones).
const FETCH_PER_TICK: usize = 10;
/// A document the feed lists but its host does not have yet (`404`) is asked again for this
/// long before it is given up.
const NOT_THERE_YET: SignedDuration = SignedDuration::from_mins(10);
/// Entries older than this are not fetched (the feed reaches back days).
const NEWER_THAN: SignedDuration = SignedDuration::from_hours(48);
/// How long a kept alert is remembered (and not fetched again).
pub const KEPT_FOR: SignedDuration = SignedDuration::from_hours(30 * 24);
/// The same sentence is not told twice to a chat within this long.
const SAID_LATELY: SignedDuration = SignedDuration::from_hours(24);
/// Alerts dispatched per tick at most.
const DISPATCH_PER_TICK: i64 = 100;
/// The feed titles of the kinds the family is told about.
const TITLES: &[&str] = &["停班停課", "颱風", "降雨", "地震"];

/// What a tick did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WatchReport {
    /// This process held the feed's lease.
    pub held: bool,
    /// The feed could not be read (down, refused, garbage).
    pub feed_failed: bool,
    /// Documents fetched and kept.
    pub kept: usize,
    /// Documents refused (kept as unreadable).
    pub unreadable: usize,
    /// Documents refused because they, or a redirect on the way, lead away from the feed's host.
    pub off_host: usize,
    /// Documents that failed and are asked again later.
    pub failed: usize,
    /// Documents given up after failing too long.
    pub given_up: usize,
    /// Alerts told to chats.
    pub told: usize,
}

/// The watcher of one process.
pub struct AlertWatcher {
    pusher: Pusher,
    /// What it reads and records, its capability's rows.
    store: Store,
    feed: Option<CapFeed>,
    home: Option<String>,
    gap: std::time::Duration,
    /// The documents that failed and are asked again later, by entry (see [`retry`]).
    failing: Mutex<HashMap<String, Failing>>,
}

impl AlertWatcher {
    /// A watcher reading `feed` (none: alerts are neither read nor told), keeping what it read
    /// in `store` and pushing through `pusher`; `home` is the place of a chat that named none (`HEARTH_HOME_LOCATION`).
    pub fn new(pusher: Pusher, store: Store, feed: Option<CapFeed>, home: Option<String>) -> Self {
        Self {
            pusher,
            store,
            feed,
            home,
            gap: std::time::Duration::from_secs(3),
            failing: Mutex::default(),
        }
    }

    /// The same watcher leaving `gap` between two requests to the feed's host (NCDR answers
    /// `429` to requests less than 3 s apart; `HEARTH_OFFICIAL_ALERTS_REQUEST_GAP_MS`).
    pub fn with_request_gap(mut self, gap: std::time::Duration) -> Self {
        self.gap = gap;
        self
    }

    /// Reads the feed and tells the chats, when this process holds the feed's lease.
    pub async fn tick(&self) -> Result<WatchReport, StoreError> {
        let mut report = WatchReport::default();
        let Some(feed) = &self.feed else { return Ok(report) };
        let now = self.pusher.now();
        let until = now.saturating_add(LEASE).unwrap_or(now).as_millisecond();
        let store = &self.store;
        let Some((etag, last_modified)) = store
            .official_alerts()
            .claim_feed(self.pusher.owner(), now.as_millisecond(), until)
            .await?
        else {
            return Ok(report);
        };
        report.held = true;
        let cutoff = now.saturating_sub(NEWER_THAN).unwrap_or(now);
        // Chosen from the feed's own metadata before any document is fetched: a kind the chats
        // are told of, recent enough; those that cannot wait kept first, however many newer
        // (or undated) entries the feed lists.
        let wanted = |entry: &FeedEntry| {
            let kind = entry.title.as_deref().is_none_or(|t| TITLES.contains(&t));
            let recent = entry.updated.is_none_or(|u| u >= cutoff);
            match (kind && recent, retry::urgent(entry)) {
                (false, _) => Wanted::No,
                (true, true) => Wanted::First,
                (true, false) => Wanted::Yes,
            }
        };
        match feed.poll(etag.as_deref(), last_modified.as_deref(), &wanted).await {
            Ok(FeedPoll::NotModified) => {
                let (etag, last_modified) = (etag.as_deref(), last_modified.as_deref());
                let now_ms = now.as_millisecond();
                store
                    .official_alerts()
                    .save_feed(self.pusher.owner(), etag, last_modified, now_ms)
                    .await?;
            }
            Ok(FeedPoll::Entries { entries, etag, last_modified }) => {
                let all_read = self.read_entries(feed, &entries, now, &mut report).await?;
                // With documents left for later, the next read is a full one (no validators).
                let (etag, last_modified) = match all_read {
                    true => (etag.as_deref(), last_modified.as_deref()),
                    false => (None, None),
                };
                let now_ms = now.as_millisecond();
                store
                    .official_alerts()
                    .save_feed(self.pusher.owner(), etag, last_modified, now_ms)
                    .await?;
            }
            Err(e) => {
                report.feed_failed = true;
                tracing::warn!(error = %e, "the official alerts feed could not be read");
            }
        }
        report.told = self.dispatch(now).await?;
        Ok(report)
    }

    /// Fetches and keeps the new entries: the [`FETCH_PER_TICK`] first in [`retry::order`]
    /// (urgent kinds, then the newest) of those not waiting out a backoff, fetched oldest first
    /// among themselves (an update after the alert it updates), one request per
    /// [`Self::with_request_gap`], renewing the feed's lease as it goes. A failure that may pass
    /// puts that entry on its backoff and the read goes on; one failing past its budget is
    /// given up. False when some are left for a later tick.
    async fn read_entries(
        &self,
        feed: &CapFeed,
        entries: &[FeedEntry],
        now: Timestamp,
        report: &mut WatchReport,
    ) -> Result<bool, StoreError> {
        let store = &self.store;
        let since = now.saturating_sub(KEPT_FOR).unwrap_or(now).as_millisecond();
        let mut known = store.official_alerts().known(since).await?;
        let mut seen = HashSet::new();
        let new: Vec<&FeedEntry> =
            entries.iter().filter(|e| !known.contains(&e.id) && seen.insert(&e.id)).collect();
        let mut batch: Vec<&FeedEntry> = {
            let mut failing = self.failing.lock().unwrap_or_else(PoisonError::into_inner);
            // Only entries still waiting are remembered.
            failing.retain(|id, _| seen.contains(id));
            retry::order(new.iter().copied())
                .into_iter()
                .filter(|e| retry::may_ask(failing.get(&e.id), now))
                .take(FETCH_PER_TICK)
                .collect()
        };
        let mut left = new.len() - batch.len();
        batch.sort_by_key(|e| (e.updated.is_none(), e.updated));
        for entry in batch {
            tokio::time::sleep(self.gap).await;
            self.renew_lease().await?;
            match feed.document(&entry.link).await {
                Ok(bytes) => {
                    let late = self.failing_entry(&entry.id, None).is_some();
                    let kept = self.keep(entry, &bytes, now, late, report).await?;
                    known.extend(kept);
                }
                Err(DocumentError::OffHost(to)) => {
                    tracing::warn!(
                        entry = entry.id,
                        to,
                        "an alert document leads away from the feed's host: refused"
                    );
                    self.keep_unreadable(entry, now).await?;
                    metrics::official_alert_document("refused");
                    report.off_host += 1;
                }
                Err(DocumentError::Upstream(e)) if refused_for_good(&e, entry, now) => {
                    tracing::warn!(entry = entry.id, error = %e, "an alert document was refused");
                    self.keep_unreadable(entry, now).await?;
                    metrics::official_alert_document("unreadable");
                    report.unreadable += 1;
                }
                Err(DocumentError::Upstream(e)) => {
                    let at = self.pusher.now();
                    let before = self.failing_entry(&entry.id, None);
                    match retry::after_failure(before, at) {
                        AfterFailure::Retry(failing) => {
                            let wait = failing.next.duration_since(at).as_secs();
                            tracing::warn!(entry = entry.id, error = %e, failures = failing.failures, retry_in_secs = wait, "an alert document could not be fetched; asked again later");
                            self.failing_entry(&entry.id, Some(failing));
                            metrics::official_alert_document("failed");
                            report.failed += 1;
                            left += 1;
                        }
                        AfterFailure::GiveUp => {
                            tracing::warn!(entry = entry.id, error = %e, "an alert document kept failing: given up");
                            self.keep_unreadable(entry, now).await?;
                            metrics::official_alert_document("given_up");
                            report.given_up += 1;
                        }
                    }
                }
            }
        }
        Ok(left == 0)
    }

    /// The backoff of a failing entry, removed — and replaced by `then`, when given.
    fn failing_entry(&self, id: &str, then: Option<Failing>) -> Option<Failing> {
        let mut failing = self.failing.lock().unwrap_or_else(PoisonError::into_inner);
        let before = failing.remove(id);
        if let Some(then) = then {
            failing.insert(id.to_string(), then);
        }
        before
    }

    /// Renews this process's lease on the feed (a long read must not let another take it).
    async fn renew_lease(&self) -> Result<(), StoreError> {
        let now = self.pusher.now();
        let until = now.saturating_add(LEASE).unwrap_or(now).as_millisecond();
        let owner = self.pusher.owner();
        self.store.official_alerts().claim_feed(owner, now.as_millisecond(), until).await?;
        Ok(())
    }

    /// Reads and keeps one document (`late`: after failing, so later ones may have replaced
    /// it); the identifiers now known.
    async fn keep(
        &self,
        entry: &FeedEntry,
        bytes: &[u8],
        now: Timestamp,
        late: bool,
        report: &mut WatchReport,
    ) -> Result<Vec<String>, StoreError> {
        let alert = match cap::parse_alert(bytes) {
            Ok(alert) => alert,
            Err(e) => {
                tracing::warn!(entry = entry.id, error = %e, "an alert document was refused");
                self.keep_unreadable(entry, now).await?;
                metrics::official_alert_document("unreadable");
                report.unreadable += 1;
                return Ok(vec![entry.id.clone()]);
            }
        };
        // One that arrives after an update or cancellation of it is kept, but not told.
        let replaced = late && self.replaced(&alert).await?;
        let store = &self.store;
        let thread = match alert.references.first() {
            None => alert.identifier.clone(),
            Some(first) => store
                .official_alerts()
                .thread(&alert.references)
                .await?
                .unwrap_or_else(|| first.clone()),
        };
        let kind = Kind::of(&alert);
        let json = serde_json::to_string(&alert).ok();
        let msg_type = format!("{:?}", alert.msg_type);
        store
            .official_alerts()
            .keep(&NewOfficialAlert {
                identifier: &alert.identifier,
                thread: &thread,
                kind: kind.map_or("other", Kind::name),
                msg_type: &msg_type,
                sent_at: alert.sent.as_millisecond(),
                expires_at: alert.expires.map(|e| e.as_millisecond()),
                alert: json.as_deref(),
                now_ms: now.as_millisecond(),
                settled: kind.is_none() || replaced,
            })
            .await?;
        metrics::official_alert_document("kept");
        report.kept += 1;
        let mut known = vec![alert.identifier.clone()];
        // The feed named it otherwise: remember that name too, so it is not fetched again.
        if entry.id != alert.identifier {
            self.keep_unreadable(entry, now).await?;
            known.push(entry.id.clone());
        }
        Ok(known)
    }

    /// True when a kept alert updates or cancels `alert`.
    async fn replaced(&self, alert: &CapAlert) -> Result<bool, StoreError> {
        let since = alert.sent.as_millisecond();
        let rows = self.store.official_alerts().since(since).await?;
        Ok(rows
            .iter()
            .filter_map(|r| serde_json::from_str::<CapAlert>(r.alert.as_deref()?).ok())
            .any(|later| later.references.contains(&alert.identifier)))
    }

    async fn keep_unreadable(&self, entry: &FeedEntry, now: Timestamp) -> Result<bool, StoreError> {
        self.store
            .official_alerts()
            .keep(&NewOfficialAlert {
                identifier: &entry.id,
                thread: &entry.id,
                kind: "unreadable",
                msg_type: "",
                sent_at: entry.updated.unwrap_or(now).as_millisecond(),
                expires_at: None,
                alert: None,
                now_ms: now.as_millisecond(),
                settled: true,
            })
            .await
    }

    /// Tells the chats of the alerts not yet dispatched; how many were told.
    async fn dispatch(&self, now: Timestamp) -> Result<usize, StoreError> {
        let store = &self.store;
        let rows = store.official_alerts().to_dispatch(DISPATCH_PER_TICK).await?;
        if rows.is_empty() {
            return Ok(0);
        }
        let followers = store.official_alerts().followers().await?;
        let mut told = 0;
        for row in rows {
            let alert = row.alert.as_deref().and_then(|a| serde_json::from_str::<CapAlert>(a).ok());
            let mut settled = true;
            if let Some((alert, kind)) = alert.and_then(|a| Kind::of(&a).map(|k| (a, k))) {
                for follower in &followers {
                    match self.tell(follower, &row, &alert, kind, now).await? {
                        Some(true) => told += 1,
                        Some(false) => {}
                        None => settled = false,
                    }
                }
            }
            if settled {
                store.official_alerts().dispatched(&row.identifier, now.as_millisecond()).await?;
            }
        }
        Ok(told)
    }

    /// The place a chat follows the alerts for: the one it named, else its digest's, else home.
    async fn place_of(&self, follower: &FollowRow) -> Result<Option<Place>, StoreError> {
        let digest = match &follower.place {
            Some(_) => None,
            None => self.store.digests().get(&follower.conversation_id).await?,
        };
        let named = follower.place.clone().or(digest.and_then(|d| d.place)).or(self.home.clone());
        Ok(named.as_deref().and_then(Place::resolve))
    }

    /// Tells one chat of one alert when it should be; `Some(told)`, or `None` when the push
    /// could not be recorded (the alert is looked at again next tick).
    async fn tell(
        &self,
        follower: &FollowRow,
        row: &OfficialAlertRow,
        alert: &CapAlert,
        kind: Kind,
        now: Timestamp,
    ) -> Result<Option<bool>, StoreError> {
        let Some(place) = self.place_of(follower).await? else { return Ok(Some(false)) };
        let store = &self.store;
        let chat = follower.conversation_id.as_str();
        let min_rank = reading::threshold_rank(u8::try_from(follower.min_intensity).unwrap_or(4));
        let said = reading::statement(alert, kind, &place, min_rank);
        let lately = now.saturating_sub(SAID_LATELY).unwrap_or(now).as_millisecond();
        let (in_thread, same_lately) = store
            .official_alerts()
            .told_before(chat, &row.thread, said.as_ref().map(|s| s.key.as_str()), lately)
            .await?;
        let expired = render::holds_until(alert, kind) <= now;
        let told = Told { in_thread: in_thread.as_deref(), same_lately };
        let what = tell::decide(alert.msg_type, expired, said.as_ref(), told);
        if what == Tell::Skip {
            return Ok(Some(false));
        }
        let tz = self.pusher.tz().clone();
        let card = render::card(alert, kind, what, said.as_ref(), &place, follower.lang, &tz);
        let messages = render::messages(&card, self.pusher.palette());
        let payload = serde_json::to_string(&messages).unwrap_or_else(|_| "[]".into());
        let key = delivery::occurrence_key(&format!("public-alert:{chat}:{}", alert.identifier))
            .to_string();
        let push_kind = if kind.urgent() && !follower.quiet_holds_urgent {
            PushKind::Urgent
        } else {
            PushKind::Alert
        };
        let item = Item {
            payload: &payload,
            occurrence: &key,
            home: chat,
            what: format!("official alert {}", alert.identifier),
            kind: push_kind,
            silent: false,
        };
        let outcome = self.pusher.push(chat, &[item]).await;
        if outcome.first() == Some(&Outcome::RetryLater)
            && store.outbox().item(&key).await?.is_none()
        {
            return Ok(None);
        }
        // A lifted alert leaves nothing standing in its thread: recorded as an empty sentence.
        let statement = match (what, &said) {
            (Tell::New | Tell::Updated, Some(s)) => s.key.as_str(),
            _ => "",
        };
        store
            .official_alerts()
            .record_told(
                &ToldRow {
                    conversation_id: chat,
                    identifier: &alert.identifier,
                    thread: &row.thread,
                    statement,
                    told: what.name(),
                },
                now.as_millisecond(),
            )
            .await?;
        Ok(Some(true))
    }
}

/// True when a failed fetch will not pass: a body refused (too large, not text), a client
/// error other than `404` and `429`, or a `404` for an entry listed longer than
/// [`NOT_THERE_YET`] ago. Anything else (a `429`, a `5xx`, a timeout) may pass: retried.
fn refused_for_good(e: &UpstreamError, entry: &FeedEntry, now: Timestamp) -> bool {
    match e {
        UpstreamError::Garbage(_) => true,
        UpstreamError::Status(s) if *s == reqwest::StatusCode::NOT_FOUND => {
            let since = now.saturating_sub(NOT_THERE_YET).unwrap_or(now);
            entry.updated.is_none_or(|listed| listed < since)
        }
        UpstreamError::Status(s) => s.is_client_error(),
        _ => false,
    }
}
