//! The family calendar kept in step with the family's own calendar server
//! (`HEARTH_CALDAV_URL`): one calendar there per chat with events (`hearth-<hash of the chat>`,
//! called 家庭行事曆). Each round, for each chat whose calendar this replica claims (one lease per
//! chat, so two replicas never sync one chat at once):
//!
//! 1. **From the server**, when the calendar's version (`getctag`) moved: every object whose
//!    `ETag` changed is read ([`crate::features::calendar::ics_read`]). An event added on a
//!    phone is added to hearth (with its `UID`, so writing it back is the same object); one
//!    changed there is changed here; one deleted there is cancelled here. A change made on both
//!    sides since they last agreed goes to the later one (the server's `LAST-MODIFIED` against
//!    hearth's last change), and the chat is told which.
//! 2. **To the server**: each event added or changed in hearth since is written (`PUT` with
//!    `If-Match`, so nothing changed meanwhile is overwritten: it waits for the next round), and
//!    each cancelled one deleted.
//!
//! A chat the door does not serve ([`crate::door`]: revoked, or never approved) is not synced.
//! Every change is the calendar's own operation ([`CalendarOps`]) with the loop's context, so it
//! is recorded in the feed of changes and follows the same checks (a start already past is not
//! taken). What the server changed is told to the chat once, silently, as the page's changes are.

use std::collections::{HashMap, HashSet};

use reqwest::StatusCode;

use jiff::tz::TimeZone;

use super::one_time::days_open;
use super::{CalendarOps, EventRequest, EventView};
use crate::contract::{Surface, ToolCtx};
use crate::features::calendar::ics_read::{self, Remote};
use crate::features::calendar::{Event, ics};
use crate::platform::clock::Clock;
use crate::platform::conversation::Conversation;
use crate::platform::i18n::Lang;
use crate::sources::UpstreamError;
use crate::sources::caldav::{CalDav, CalDavError, Listed, Written, normal};
use crate::sources::calendar::WorkCalendar;
use crate::store::lease::CALDAV_CALENDARS;
use crate::store::{EventRow, Store, StoreError, SyncedObject};

/// How long a replica holds a chat's calendar while syncing it (a round reads at most
/// [`READS_PER_ROUND`] objects of each of [`CHATS_PER_ROUND`] chats, 20 s each at worst).
const LEASE_MS: i64 = 30 * 60_000;
/// Chats synced per round.
const CHATS_PER_ROUND: i64 = 10;
/// Objects read from the server per chat and round; the rest the next round.
const READS_PER_ROUND: usize = 100;
/// The calendar's name on the server, as the family sees it.
const TITLE: &str = "家庭行事曆 · hearth";

/// What a round did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SyncReport {
    /// Chats synced.
    pub chats: usize,
    /// Events taken from the server (added, changed or cancelled here).
    pub taken: usize,
    /// Events written to the server (put or deleted).
    pub written: usize,
    /// Changes made on both sides, settled for the later.
    pub conflicts: usize,
    /// Chats whose sync failed (the server unreachable, say): tried again next round.
    pub failed: usize,
}

/// Why a chat's sync stopped.
#[derive(Debug, thiserror::Error)]
enum SyncError {
    #[error(transparent)]
    Server(#[from] CalDavError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The sync with the family's calendar server.
#[derive(Clone)]
pub struct CalendarSync {
    server: CalDav,
    store: Store,
    ops: CalendarOps,
    work_calendar: WorkCalendar,
    clock: std::sync::Arc<dyn Clock>,
    tz: TimeZone,
    owner: String,
    door: std::sync::Arc<crate::door::Door>,
}

/// A chat's sync in progress: its calendar's name, its context and what both sides agreed on.
struct Chat {
    name: String,
    ctx: ToolCtx,
    objects: HashMap<i64, SyncedObject>,
}

impl CalendarSync {
    /// The sync with `server` for `deps`' calendars, this process named `owner`.
    pub fn new(server: CalDav, deps: &crate::features::deps::Deps) -> Self {
        Self {
            server,
            store: deps.store.clone(),
            ops: CalendarOps::from_deps(deps),
            work_calendar: deps.work_calendar.clone(),
            clock: deps.pusher.clock(),
            tz: deps.pusher.tz().clone(),
            owner: deps.pusher.owner().to_string(),
            door: deps.door.clone(),
        }
    }

    /// One round: the chats this replica claims, each synced both ways.
    pub async fn tick(&self) -> Result<SyncReport, StoreError> {
        let now = self.clock.now().as_millisecond();
        let calendar = self.store.calendar();
        let claimed =
            calendar.claim_sync(&self.owner, now, now + LEASE_MS, CHATS_PER_ROUND).await?;
        let round = self.round(claimed, now).await;
        if round.is_err() {
            // The chats claimed and not synced are given back at once, not at the lease's end.
            let released = self.store.release_leases(&CALDAV_CALENDARS, &self.owner).await;
            if let Err(e) = released {
                tracing::warn!(error = %e, "calendar server: claimed chats were not given back");
            }
        }
        round
    }

    /// Syncs each chat `claimed` at `now`, and lets it go.
    async fn round(
        &self,
        claimed: Vec<(String, Option<String>)>,
        now: i64,
    ) -> Result<SyncReport, StoreError> {
        let calendar = self.store.calendar();
        let mut report = SyncReport::default();
        for (chat, ctag) in claimed {
            // A chat the door no longer serves is not synced (its calendar there stays as it
            // was); it is again once the chat is approved.
            if let Err(closed) = self.door.chat(&chat).await? {
                tracing::debug!(?closed, "calendar server: a closed chat is not synced");
                calendar.synced(&chat, &self.owner, ctag.as_deref(), now).await?;
                continue;
            }
            let ctag = match self.sync(&chat, ctag.clone(), &mut report).await {
                Ok(ctag) => {
                    report.chats += 1;
                    ctag
                }
                Err(e) => {
                    tracing::warn!(error = %e, "calendar server: a chat's calendar was not synced");
                    report.failed += 1;
                    ctag
                }
            };
            calendar.synced(&chat, &self.owner, ctag.as_deref(), now).await?;
        }
        Ok(report)
    }

    /// The loop's context in `chat`: hearth itself, on the family's calendar.
    fn ctx(&self, chat: &str) -> ToolCtx {
        ToolCtx {
            conversation: Conversation::from_id(chat),
            user_id: None,
            display_name: Some("行事曆上".into()),
            tz: self.tz.clone(),
            lang: Lang::ZhTw,
            clock: self.clock.clone(),
            surface: Surface::Loop,
        }
    }

    /// Syncs `chat` both ways; the calendar's version to compare with next round (`None`: look
    /// at every object again).
    async fn sync(
        &self,
        chat: &str,
        ctag: Option<String>,
        report: &mut SyncReport,
    ) -> Result<Option<String>, SyncError> {
        let name = calendar_name(chat);
        if ctag.is_none() {
            self.server.make(&name, TITLE).await?;
        }
        let objects = self.store.calendar().synced_objects(chat).await?;
        let mut c = Chat {
            name,
            ctx: self.ctx(chat),
            objects: objects.into_iter().map(|o| (o.event_id, o)).collect(),
        };
        let version = match self.server.version(&c.name).await {
            Err(CalDavError::Upstream(UpstreamError::Status(StatusCode::NOT_FOUND))) => {
                // The calendar is gone from the server (deleted there): it is made again and
                // hearth's events written to it anew, never taken as each deleted.
                tracing::warn!("calendar server: a chat's calendar was gone; made again");
                self.server.make(&c.name, TITLE).await?;
                self.store.calendar().forget_objects(chat).await?;
                c.objects.clear();
                self.server.version(&c.name).await?
            }
            other => other?,
        };
        let mut settled = true;
        if version.is_none() || version != ctag {
            let listed = self.server.list(&c.name).await?;
            settled = self.take(&mut c, &listed, report).await?;
        }
        settled &= self.write(&mut c, report).await?;
        // The version read before hearth wrote: its own writes are found agreed next round (their
        // ETags are kept), and a phone's change made meanwhile is not missed.
        Ok(version.filter(|_| settled))
    }

    /// Takes what changed on the server into hearth; false when some of it is left for the next
    /// round (more to read than a round reads).
    async fn take(
        &self,
        c: &mut Chat,
        listed: &[Listed],
        report: &mut SyncReport,
    ) -> Result<bool, SyncError> {
        let events = self.events(&c.ctx).await?;
        let listed_hrefs: HashSet<&str> = listed.iter().map(|l| l.href.as_str()).collect();
        let by_href: HashMap<String, SyncedObject> =
            c.objects.values().map(|o| (normal(&o.href), o.clone())).collect();
        let mut changes: Vec<(Option<SyncedObject>, &Listed)> = Vec::new();
        for item in listed {
            match by_href.get(&item.href) {
                Some(known) if known.etag == item.etag => {}
                known => changes.push((known.cloned(), item)),
            }
        }
        let gone: Vec<i64> = c
            .objects
            .values()
            .filter(|o| !listed_hrefs.contains(normal(&o.href).as_str()))
            .map(|o| o.event_id)
            .collect();
        // Every object hearth wrote vanished at once: the calendar was emptied or replaced, not
        // each event deleted by hand. hearth's are written again rather than cancelled.
        let replaced = gone.len() >= 3 && gone.len() == c.objects.len();
        let complete = changes.len() <= READS_PER_ROUND;
        let mut relinked = HashSet::new();
        for (known, item) in changes.into_iter().take(READS_PER_ROUND) {
            let text = match self.server.get(&item.href).await {
                Ok(Some((text, _))) => text,
                Ok(None) => continue,
                // One object that cannot be read does not stop the others.
                Err(e) => {
                    tracing::warn!(error = %e, href = item.href, "calendar server: an object was not read");
                    continue;
                }
            };
            let Some(remote) = ics_read::read(&text, &c.ctx.tz) else {
                tracing::info!(href = item.href, "calendar server: an object was not an event");
                continue;
            };
            let taken = match known {
                None => match self.added_there(c, item, &remote, &events).await? {
                    Added::Taken => true,
                    Added::Linked(id) => {
                        relinked.insert(id);
                        false
                    }
                    Added::Not => false,
                },
                Some(known) => {
                    let event = events.iter().find(|e| e.id == known.event_id);
                    self.changed_there(c, known, item, &remote, event, report).await?
                }
            };
            report.taken += usize::from(taken);
        }
        for id in gone.into_iter().filter(|id| !relinked.contains(id)) {
            let event = events.iter().find(|e| e.id == id);
            let changed_here = event.is_some_and(|e| self.changed_here(c, e));
            match event {
                Some(event) if event.cancelled.is_none() && !changed_here && !replaced => {
                    self.cancel_here(c, event).await?;
                    report.taken += 1;
                }
                // Changed here since, or the calendar replaced: hearth's is written again.
                _ => {}
            }
            c.objects.remove(&id);
            self.store.calendar().drop_object(&c.ctx.conversation.id, id).await?;
        }
        Ok(complete)
    }

    /// An event added on the server: added to hearth, under its own `UID`. One hearth already
    /// has (its object was lost) is linked again.
    async fn added_there(
        &self,
        c: &mut Chat,
        item: &Listed,
        remote: &Remote,
        events: &[Event],
    ) -> Result<Added, SyncError> {
        if remote.cancelled {
            return Ok(Added::Not);
        }
        let chat = c.ctx.conversation.id.clone();
        if let Some(event) = events.iter().find(|e| e.uid == remote.uid && e.cancelled.is_none()) {
            let o = object(event.id, item, event.sequence);
            self.store.calendar().keep_object(&chat, &o).await?;
            c.objects.insert(event.id, o);
            return Ok(Added::Linked(event.id));
        }
        // An event cancelled here under that UID gives it up: this is another.
        self.store.calendar().retire_uid(&chat, &remote.uid).await?;
        match self.ops.add(&c.ctx, &request(remote, None)).await {
            Ok(saved) => {
                // A repeating one's days called off there are called off here (the add is what
                // the chat is told), and what hearth then writes says the same. One that came in
                // once (a rule hearth cannot keep) is not cancelled by its own EXDATE.
                if saved.event.repeats() {
                    self.skip_here(c, saved.event.id, &[], remote, false).await;
                    self.times_changed_here(c, saved.event.id, &[], remote, false).await;
                }
                // The sequence the add saved, not read again: a change made meanwhile is written.
                let sequence = saved.event.sequence;
                let o = object(saved.event.id, item, sequence);
                self.store.calendar().keep_object(&chat, &o).await?;
                c.objects.insert(saved.event.id, o);
                Ok(Added::Taken)
            }
            Err(e) => {
                tracing::info!(error = %e, "calendar server: an event was not taken");
                Ok(Added::Not)
            }
        }
    }

    /// An event changed on the server since both sides agreed: taken here, unless hearth
    /// changed it later (then hearth's is written back over it).
    async fn changed_there(
        &self,
        c: &mut Chat,
        known: SyncedObject,
        item: &Listed,
        remote: &Remote,
        event: Option<&Event>,
        report: &mut SyncReport,
    ) -> Result<bool, SyncError> {
        let chat = c.ctx.conversation.id.clone();
        let agreed =
            |sequence: i64| SyncedObject { etag: item.etag.clone(), sequence, ..known.clone() };
        let Some(event) = event.filter(|e| e.cancelled.is_none()) else {
            // Cancelled here: the delete goes over the newer version.
            let o = agreed(known.sequence);
            self.store.calendar().keep_object(&chat, &o).await?;
            c.objects.insert(o.event_id, o);
            return Ok(false);
        };
        let changed_here = self.changed_here(c, event);
        // A time deleted, moved or cancelled alone on a phone is taken here whatever else
        // changed on either side; hearth's next write then says so to the server (without that
        // date, and the moved time as an event of its own).
        let skipped = match event.rule.freq {
            _ if remote.cancelled => false,
            crate::store::Freq::Once => false,
            _ => {
                let skipped = self.skip_here(c, event.id, &event.skipped, remote, true).await;
                skipped | self.times_changed_here(c, event.id, &event.skipped, remote, true).await
            }
        };
        if !remote.cancelled && same(event, remote) {
            // Written anew with nothing else hearth keeps changed (a server that re-serialises,
            // or a time deleted).
            let o = agreed(if changed_here || skipped { known.sequence } else { event.sequence });
            self.store.calendar().keep_object(&chat, &o).await?;
            c.objects.insert(o.event_id, o);
            return Ok(skipped);
        }
        let (title, lang) = (&event.title, c.ctx.lang);
        let what = format!("{}:{}", event.id, item.etag);
        if changed_here {
            report.conflicts += 1;
            let theirs_later = remote.modified.is_some_and(|at| at > event.updated);
            let taken = match theirs_later {
                true => self.change_here(c, event, item, remote, skipped).await?,
                false => None,
            };
            let Some(view) = taken else {
                // hearth's is the later (or the server's could not be taken): written over it.
                let o = agreed(known.sequence);
                self.store.calendar().keep_object(&chat, &o).await?;
                c.objects.insert(o.event_id, o);
                let text = lang.pick(
                    "📅 「{title}」在聊天室和行事曆上都改了：以比較晚的聊天室裡的修改為準。",
                    "📅 「{title}」 was changed in the chat and on the calendar: the chat's later change stands.",
                );
                self.ops.tell_chat(&c.ctx, &what, text.replace("{title}", title)).await;
                return Ok(false);
            };
            let text = lang
                .pick(
                    "📅 「{title}」在聊天室和行事曆上都改了：以比較晚的行事曆上的修改為準（{when}）。",
                    "📅 「{title}」 was changed in the chat and on the calendar: the calendar's later change stands ({when}).",
                )
                .replace("{title}", title)
                .replace("{when}", &view.when());
            self.ops.tell_chat(&c.ctx, &what, text).await;
            return Ok(true);
        }
        if remote.cancelled {
            self.cancel_here(c, event).await?;
            return Ok(true);
        }
        let taken = self.change_here(c, event, item, remote, skipped).await?;
        if let Some(view) = &taken {
            let text = format!("📅 行事曆上改了行程：{}（{}）", view.title, view.when());
            self.ops.tell_chat(&c.ctx, &what, text).await;
        }
        Ok(taken.is_some())
    }

    /// Calls off event `id`'s days `remote` has called off (`EXDATE`s, a time deleted on a
    /// phone) that are not among `already`, from today to as far as the feed shows; the chat
    /// told once of them all when `tell`. Whether any was.
    async fn skip_here(
        &self,
        c: &Chat,
        id: i64,
        already: &[jiff::civil::Date],
        remote: &Remote,
        tell: bool,
    ) -> bool {
        let open = days_open(&c.ctx);
        let new = remote.skipped.iter().filter(|day| open.contains(*day) && !already.contains(day));
        let mut called_off: Vec<EventView> = Vec::new();
        for day in new.take(super::one_time::MAX_SKIPPED) {
            match self.ops.skip(&c.ctx, id, *day).await {
                Ok(view) => called_off.push(view),
                Err(e) => {
                    tracing::info!(error = %e, "calendar server: a time deleted there was not called off")
                }
            }
        }
        if tell {
            self.tell_times(c, id, &called_off, CALLED_OFF_THERE).await;
        }
        !called_off.is_empty()
    }

    /// Tells `c`'s chat once of `times` of event `id` changed on the server, in `words`
    /// (zh-TW, English, and the kind of change) with the event's title and when they are.
    async fn tell_times(&self, c: &Chat, id: i64, times: &[EventView], words: Told) {
        let Some(first) = times.first() else { return };
        let when: Vec<String> = times.iter().map(EventView::when).collect();
        let (zh, en, kind) = words;
        let text = c.ctx.lang.pick(zh, en);
        let text = text.replace("{title}", &first.title).replace("{when}", &when.join("、"));
        let what = format!("{id}:{kind}:{}", when.join(","));
        self.ops.tell_chat(&c.ctx, &what, text).await;
    }

    /// Takes event `id`'s times changed alone on a phone (exceptions with a `RECURRENCE-ID`),
    /// from today to as far as the feed shows: one moved is moved here as the page moves one
    /// time (that day called off, a one-off copy where it went), one cancelled is called off;
    /// the chat told once of each kind when `tell`. A day among `already` (called off, or taken
    /// before) is not taken again, nor is one hearth refuses (a time moved into the past).
    /// Whether the server's version holds any such time: hearth's version, written back, then
    /// replaces it, so both sides say the same.
    async fn times_changed_here(
        &self,
        c: &Chat,
        id: i64,
        already: &[jiff::civil::Date],
        remote: &Remote,
        tell: bool,
    ) -> bool {
        let open = days_open(&c.ctx);
        let ahead: Vec<&ics_read::ChangedTime> =
            remote.changed_times.iter().filter(|t| open.contains(&t.day)).collect();
        let (mut moved, mut called_off) = (Vec::new(), Vec::new());
        for time in ahead.iter().filter(|t| !already.contains(&t.day)) {
            let taken = match time.cancelled {
                true => self.ops.skip(&c.ctx, id, time.day).await.map(|v| called_off.push(v)),
                false => {
                    let request = EventRequest {
                        start: time.start.stored(),
                        end: time.end.map(|end| end.stored()),
                        ..EventRequest::default()
                    };
                    let saved = self.ops.move_one(&c.ctx, id, time.day, &request).await;
                    saved.map(|saved| moved.push(saved.event))
                }
            };
            if let Err(e) = taken {
                tracing::info!(error = %e, "calendar server: a time changed there was not taken");
            }
        }
        if tell {
            self.tell_times(c, id, &moved, MOVED_THERE).await;
            self.tell_times(c, id, &called_off, CALLED_OFF_THERE).await;
        }
        !ahead.is_empty()
    }

    /// Changes `event` to the server's version; what it became, or `None` when hearth could
    /// not take it (a start already past, say): hearth's version is then written back.
    async fn change_here(
        &self,
        c: &mut Chat,
        event: &Event,
        item: &Listed,
        remote: &Remote,
        rewrite: bool,
    ) -> Result<Option<EventView>, SyncError> {
        let chat = c.ctx.conversation.id.clone();
        let outcome = self.ops.change(&c.ctx, event.id, &request(remote, Some(event))).await;
        let sequence = match &outcome {
            // Taken, and the server's version still holds times hearth keeps otherwise: one
            // behind, so the next write puts hearth's over it.
            Ok(saved) if rewrite => saved.event.sequence - 1,
            Ok(saved) => saved.event.sequence,
            // Behind hearth's own: the next write puts hearth's back.
            Err(_) => event.sequence - 1,
        };
        let o = object(event.id, item, sequence);
        self.store.calendar().keep_object(&chat, &o).await?;
        c.objects.insert(event.id, o);
        match outcome {
            Ok(saved) => Ok(Some(saved.event)),
            Err(e) => {
                tracing::info!(error = %e, "calendar server: a change was not taken");
                Ok(None)
            }
        }
    }

    /// Cancels `event` here, deleted on the server; the chat is told.
    async fn cancel_here(&self, c: &mut Chat, event: &Event) -> Result<(), SyncError> {
        let chat = c.ctx.conversation.id.clone();
        match self.ops.cancel(&c.ctx, event.id).await {
            Ok(cancelled) => {
                let text =
                    format!("📅 行事曆上取消了：{}（{}）", cancelled.title, cancelled.when());
                self.ops.tell_chat(&c.ctx, &format!("{}:cancelled", event.id), text).await;
            }
            Err(e) => tracing::info!(error = %e, "calendar server: a cancel was not taken"),
        }
        c.objects.remove(&event.id);
        self.store.calendar().drop_object(&chat, event.id).await?;
        Ok(())
    }

    /// Writes what changed in hearth to the server; false when a write is left for the next
    /// round (changed there meanwhile, or refused).
    async fn write(&self, c: &mut Chat, report: &mut SyncReport) -> Result<bool, SyncError> {
        let chat = c.ctx.conversation.id.clone();
        let calendar = self.store.calendar();
        let mut settled = true;
        let mut without_etag: Vec<(i64, String, i64)> = Vec::new();
        for event in self.events(&c.ctx).await? {
            let known = c.objects.get(&event.id).cloned();
            if event.cancelled.is_some() {
                let Some(known) = known else { continue };
                match self.server.delete(&known.href, &known.etag).await {
                    Ok(Written::Done(_)) => {
                        calendar.drop_object(&chat, event.id).await?;
                        c.objects.remove(&event.id);
                        report.written += 1;
                    }
                    Ok(Written::Changed) => settled = false,
                    Err(e) => {
                        tracing::warn!(error = %e, "calendar server: a cancelled event was not deleted");
                        settled = false;
                    }
                }
                continue;
            }
            if known.as_ref().is_some_and(|k| k.sequence >= event.sequence) {
                continue;
            }
            let href = known.as_ref().map_or_else(
                || normal(&self.server.href(&c.name, &format!("{}.ics", file_name(&event.uid)))),
                |k| k.href.clone(),
            );
            let text = ics::object(&event, self.clock.now(), &self.work_calendar);
            let etag = known.as_ref().map(|k| k.etag.as_str());
            match self.server.put(&href, &text, etag).await {
                Ok(Written::Done(Some(etag))) => {
                    let o =
                        SyncedObject { event_id: event.id, href, etag, sequence: event.sequence };
                    calendar.keep_object(&chat, &o).await?;
                    c.objects.insert(event.id, o);
                    report.written += 1;
                }
                Ok(Written::Done(None)) => {
                    without_etag.push((event.id, href, event.sequence));
                    report.written += 1;
                }
                // Changed on the server meanwhile: read next round.
                Ok(Written::Changed) => settled = false,
                // One event the server refuses does not stop the others.
                Err(e) => {
                    tracing::warn!(error = %e, "calendar server: an event was not written");
                    settled = false;
                }
            }
        }
        if !without_etag.is_empty() {
            let listed = self.server.list(&c.name).await?;
            for (event_id, href, sequence) in without_etag {
                if let Some(item) = listed.iter().find(|l| l.href == href) {
                    let o = object(event_id, item, sequence);
                    calendar.keep_object(&chat, &o).await?;
                    c.objects.insert(event_id, o);
                }
            }
        }
        Ok(settled)
    }

    /// Whether `event` changed in hearth since both sides last agreed.
    fn changed_here(&self, c: &Chat, event: &Event) -> bool {
        c.objects.get(&event.id).is_none_or(|o| event.sequence > o.sequence)
    }

    /// The chat's events a sync looks at.
    async fn events(&self, ctx: &ToolCtx) -> Result<Vec<Event>, StoreError> {
        let rows: Vec<EventRow> = self.store.calendar().to_sync(&ctx.conversation.id).await?;
        Ok(rows.iter().filter_map(Event::of).collect())
    }
}

/// The calendar of `chat` on the server: `hearth-` and the start of the chat's SHA-256 (its
/// LINE id is not shown to the server).
pub fn calendar_name(chat: &str) -> String {
    let hash = crate::features::family_page::token_hash(chat);
    format!("hearth-{}", &hash[..16])
}

/// A `UID` as a file name a server lists as written (`@` becomes `_`; anything else a path
/// would escape is hashed).
fn file_name(uid: &str) -> String {
    let name = uid.replace('@', "_");
    let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    match plain && name.len() <= 100 {
        true => name,
        false => crate::features::family_page::token_hash(uid)[..32].to_string(),
    }
}

/// Both sides agree on `item` as event `event_id` at `sequence`.
fn object(event_id: i64, item: &Listed, sequence: i64) -> SyncedObject {
    SyncedObject { event_id, href: item.href.clone(), etag: item.etag.clone(), sequence }
}

/// Whether the server's version says what hearth keeps of `event` (a repeating event's times
/// are hearth's: only its title and place are compared).
fn same(event: &Event, remote: &Remote) -> bool {
    let kept = event.title == remote.title && event.place == remote.place;
    match event.rule.freq {
        crate::store::Freq::Once => kept && event.start == remote.start && event.end == remote.end,
        _ => kept,
    }
}

/// The calendar's request for the server's version of an event: a new one (`kept` none) under
/// its `UID`, or a change of `kept`. A repeating event's times and rule stay hearth's (they are
/// written as dates, which a phone's edit does not say again), as do its notes, which hearth
/// writes with who is going.
fn request(remote: &Remote, kept: Option<&Event>) -> EventRequest {
    let repeating = kept.is_some_and(|e| e.rule.freq != crate::store::Freq::Once);
    let (start, end) = match repeating {
        true => (String::new(), None),
        false => (remote.start.stored(), remote.end.map(|e| e.stored())),
    };
    EventRequest {
        title: remote.title.clone(),
        start,
        end,
        place: Some(remote.place.clone()),
        people: None,
        notes: kept.is_none().then(|| remote.notes.clone()),
        repetition: remote.rule.clone().filter(|_| kept.is_none()),
        uid: kept.is_none().then(|| remote.uid.clone()),
    }
}

/// How the chat is told of times changed on the server: zh-TW, English, the kind of change.
type Told = (&'static str, &'static str, &'static str);
/// Times called off on the server.
const CALLED_OFF_THERE: Told = (
    "📅 行事曆上取消了一次：{title}（{when}）",
    "📅 One time was cancelled on the calendar: {title} ({when})",
    "skipped",
);
/// Times moved on the server.
const MOVED_THERE: Told = (
    "📅 行事曆上改了一次：{title}（{when}）",
    "📅 One time was moved on the calendar: {title} ({when})",
    "moved",
);

/// What became of an event added on the server.
enum Added {
    /// Added to hearth.
    Taken,
    /// hearth had it (its object was lost): linked again.
    Linked(i64),
    /// Not taken (cancelled there, or refused here).
    Not,
}
