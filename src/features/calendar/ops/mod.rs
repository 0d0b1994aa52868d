//! What can be done to a chat's calendar, each a typed request run for the member and chat of
//! its context: add an event (told of a clash), move it, cancel it, read the agenda of some
//! days, and give a member the private link of the chat's feed for their phone ([`feed`]). The
//! `calendar` tool calls these, and whatever is done is recorded once in the feed of changes.

pub mod caldav;
pub mod feed;
pub mod one_time;
pub mod remind;

use jiff::ToSpan;
use jiff::civil::Date;
use serde::Serialize;

use super::{Event, Moment, Occurrence, clashes};
use crate::contract::{Surface, ToolCtx, ToolError};
use crate::features::deps::Deps;
use crate::features::reminders::calendar_rule::{is_calendar_rule, start_not_before};
use crate::features::reminders::ops::create::ReminderCreation;
use crate::features::reminders::recurrence::Schedule;
use crate::features::reminders::request::{RepetitionRequest, WhenRequest, schedule_of};
use crate::features::verbs::Verb;
use crate::features::{changes, verbs};
use crate::line::message::Message;
use crate::push::delivery::{Item, Pusher, occurrence_key};
use crate::push::quiet::PushKind;
use crate::sources::calendar::WorkCalendar;
use crate::store::{EventRow, MAX_EVENTS, NewEvent, Store};

/// The longest title, place, people or notes kept (characters).
pub const MAX_TEXT: usize = 200;
/// The longest an event lasts.
const MAX_DAYS: i32 = 62;
/// The most days an agenda covers.
pub const MAX_AGENDA_DAYS: i32 = 92;
/// The most lines an agenda gives.
pub const MAX_AGENDA: usize = 60;

/// The calendars of every chat, over the store; an event's ⏰ reminders are the reminders' own
/// ([`remind`]).
#[derive(Clone)]
pub struct CalendarOps {
    store: Store,
    work_calendar: WorkCalendar,
    creation: ReminderCreation,
    pusher: Pusher,
}

/// An event as asked for: what, when (and how it repeats), where, who.
#[derive(Debug, Clone, Default)]
pub struct EventRequest {
    /// What it is.
    pub title: String,
    /// "YYYY-MM-DD" (all day) or "YYYY-MM-DDTHH:MM".
    pub start: String,
    /// The same form, or nothing.
    pub end: Option<String>,
    /// Where.
    pub place: Option<String>,
    /// Who is going.
    pub people: Option<String>,
    /// Anything else.
    pub notes: Option<String>,
    /// How it repeats (`None`: once; for a move, as it was).
    pub repetition: Option<RepetitionRequest>,
    /// What calendars know it by, when it comes from one (the family's calendar server);
    /// `None`: hearth names it.
    pub uid: Option<String>,
}

/// An event as the model and the card read it.
#[derive(Debug, Clone, Serialize)]
pub struct EventView {
    /// Its number (to move or cancel it).
    pub id: i64,
    /// What.
    pub title: String,
    /// When it starts: "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM".
    pub start: String,
    /// When it ends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    /// Where.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub place: String,
    /// Who.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub people: String,
    /// How it repeats, named for the model as `repeats` ("weekly", "lunar_yearly"…; left out
    /// for a one-off event).
    #[serde(rename = "repeats", serialize_with = "freq_name", skip_serializing_if = "once")]
    pub freq: crate::store::Freq,
    /// Its `SEQUENCE` as saved (what the calendar server's sync agrees on).
    #[serde(skip)]
    pub sequence: i64,
}

/// The name of `freq`, for the model.
fn freq_name<S: serde::Serializer>(freq: &crate::store::Freq, to: S) -> Result<S::Ok, S::Error> {
    to.serialize_str(freq.name())
}

/// Whether `freq` is once (then `repeats` is left out).
fn once(freq: &crate::store::Freq) -> bool {
    *freq == crate::store::Freq::Once
}

impl EventView {
    /// Whether it repeats.
    pub fn repeats(&self) -> bool {
        !once(&self.freq)
    }

    /// When it happens, short: 「12/19 12:00」, a day alone 「12/24」.
    pub fn when(&self) -> String {
        let day = self.start.get(5..10).unwrap_or(&self.start).replace('-', "/");
        match self.start.get(11..16) {
            Some(time) => format!("{day} {time}"),
            None => day,
        }
    }
}

/// What adding or moving did.
#[derive(Debug, Clone, Serialize)]
pub struct Saved {
    /// The event, at its next occurrence.
    pub event: EventView,
    /// Events the same day or time (the family should hear of them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub clashes_with: Vec<EventView>,
}

/// The agenda of some days.
#[derive(Debug, Clone, Serialize)]
pub struct Agenda {
    /// The first day.
    pub from: String,
    /// The last day.
    pub to: String,
    /// What happens, in order.
    pub events: Vec<EventView>,
}

fn invalid(message: impl Into<String>) -> ToolError {
    ToolError::InvalidArgs(message.into())
}

/// `text` trimmed, within [`MAX_TEXT`] characters.
fn bounded(what: &str, text: Option<&str>) -> Result<String, ToolError> {
    let text = text.unwrap_or_default().trim();
    if text.chars().count() > MAX_TEXT {
        return Err(invalid(format!("{what} is longer than {MAX_TEXT} characters")));
    }
    Ok(text.to_string())
}

impl CalendarOps {
    /// Over `deps`' store, working calendar and reminders.
    pub fn from_deps(deps: &Deps) -> Self {
        Self {
            store: deps.store.clone(),
            work_calendar: deps.work_calendar.clone(),
            creation: ReminderCreation::new(
                deps.store.clone(),
                deps.reminder_nudge.clone(),
                deps.quota.clone(),
                deps.work_calendar.clone(),
            ),
            pusher: deps.pusher.clone(),
        }
    }

    /// The event `request` describes for `ctx`'s chat, checked: its moments and its rule. For a
    /// move, what the request leaves out is `kept`'s (its end moved with its start).
    fn checked(
        &self,
        ctx: &ToolCtx,
        request: &EventRequest,
        kept: Option<&Event>,
    ) -> Result<Checked, ToolError> {
        let title = match request.title.trim() {
            "" => kept.map(|e| e.title.clone()).unwrap_or_default(),
            said => said.to_string(),
        };
        let title = bounded("the title", Some(&title))?;
        if title.is_empty() {
            return Err(invalid("say what the event is (title)"));
        }
        let form = "use YYYY-MM-DD for a day, YYYY-MM-DDTHH:MM for a time";
        let start = match (request.start.trim(), kept) {
            ("", Some(event)) => event.start,
            (text, _) => {
                Moment::parse(text).ok_or_else(|| invalid(format!("start {text:?}: {form}")))?
            }
        };
        let end = match request.end.as_deref().map(str::trim).filter(|e| !e.is_empty()) {
            Some(text) => {
                Some(Moment::parse(text).ok_or_else(|| invalid(format!("end {text:?}: {form}")))?)
            }
            None => kept.and_then(|event| moved_end(event, start)),
        };
        if let Some(end) = end {
            match (start, end) {
                (Moment::Day(a), Moment::Day(b)) if b < a => {
                    return Err(invalid("the end is before the start"));
                }
                (Moment::At(a), Moment::At(b)) if b <= a => {
                    return Err(invalid("the end is before the start"));
                }
                (Moment::Day(_), Moment::At(_)) | (Moment::At(_), Moment::Day(_)) => {
                    return Err(invalid("start and end are both days or both times"));
                }
                _ if (end.date() - start.date()).get_days() > MAX_DAYS => {
                    return Err(invalid(format!("an event lasts at most {MAX_DAYS} days")));
                }
                _ => {}
            }
        }
        let schedule = self.schedule(ctx, start, request.repetition.as_ref(), kept)?;
        // A lunar or workday rule looks for its dates from its start on: kept from today at the
        // earliest, so no reading of the event walks the years before.
        let start = match start {
            _ if !is_calendar_rule(schedule.rule.freq) => start,
            Moment::Day(_) => Moment::Day(schedule.anchor.date()),
            Moment::At(_) => Moment::At(schedule.anchor),
        };
        let text = |what, said: Option<&str>, kept: Option<&str>| bounded(what, said.or(kept));
        Ok(Checked {
            title,
            start: start.stored(),
            end: end.map(Moment::stored),
            place: text("the place", request.place.as_deref(), kept.map(|e| e.place.as_str()))?,
            people: text("who", request.people.as_deref(), kept.map(|e| e.people.as_str()))?,
            notes: text("the notes", request.notes.as_deref(), kept.map(|e| e.notes.as_str()))?,
            rule: schedule.rule,
        })
    }

    /// The schedule of an event starting at `start`: by the rule asked for, else `kept`'s, else
    /// once; refused when it never comes again.
    fn schedule(
        &self,
        ctx: &ToolCtx,
        start: Moment,
        repetition: Option<&RepetitionRequest>,
        kept: Option<&Event>,
    ) -> Result<Schedule, ToolError> {
        // A day is still ahead until its end.
        let at = match start {
            Moment::Day(day) => day.to_datetime(jiff::civil::Time::constant(23, 59, 0, 0)),
            Moment::At(at) => at,
        };
        let asked = WhenRequest {
            at: Some(at.strftime("%Y-%m-%dT%H:%M").to_string()),
            repetition: repetition.cloned(),
            ..WhenRequest::default()
        };
        let Some(rule) = kept.map(|e| e.rule).filter(|_| repetition.is_none()) else {
            return schedule_of(&asked, ctx.now(), &ctx.tz, &self.work_calendar);
        };
        // The kept rule, checked the way the reminders check theirs: from today at the earliest
        // for a lunar or workday rule, and with an occurrence still to come.
        let anchor =
            if is_calendar_rule(rule.freq) { start_not_before(at, ctx.now(), &ctx.tz) } else { at };
        let schedule = Schedule {
            tz: ctx.tz.clone(),
            anchor,
            rule,
            work_calendar: self.work_calendar.clone(),
        };
        let first = schedule.occurrences().next().map(|(_, first)| first);
        match first {
            Some(first) if first > ctx.now() => Ok(schedule),
            _ => Err(invalid("that time has already passed; say a new start")),
        }
    }

    /// Adds the event `request` describes to `ctx`'s chat, and says what it clashes with.
    pub async fn add(&self, ctx: &ToolCtx, request: &EventRequest) -> Result<Saved, ToolError> {
        let row = self.insert(ctx, &self.checked(ctx, request, None)?, request).await?;
        changes::record(&self.store, ctx, &verbs::EVENT_ADD, &row.title).await;
        self.saved(ctx, &row).await
    }

    /// Keeps `checked` (of `request`) in `ctx`'s chat, under the request's UID or a new one.
    async fn insert(
        &self,
        ctx: &ToolCtx,
        checked: &Checked,
        request: &EventRequest,
    ) -> Result<EventRow, ToolError> {
        let uid = match request.uid.as_deref().map(str::trim).filter(|u| !u.is_empty()) {
            Some(theirs) => bounded("the uid", Some(theirs))?,
            None => format!("{}@hearth", uuid::Uuid::new_v4().simple()),
        };
        let full = crate::store::StoreError::Full { what: "calendar events", cap: MAX_EVENTS };
        Ok(self.store.calendar().add(&checked.row(ctx, &uid)).await?.ok_or(full)?)
    }

    /// Moves (or changes) event `id` of `ctx`'s chat to what `request` describes.
    pub async fn change(
        &self,
        ctx: &ToolCtx,
        id: i64,
        request: &EventRequest,
    ) -> Result<Saved, ToolError> {
        let kept = self.live_event(ctx, id).await?;
        let checked = self.checked(ctx, request, Some(&kept))?;
        let Some(row) = self.store.calendar().change(id, &checked.row(ctx, "")).await? else {
            return Err(ToolError::NotFound(format!("no event {id} in this chat's calendar")));
        };
        changes::record(&self.store, ctx, &verbs::EVENT_MOVE, &row.title).await;
        if let Some(event) = Event::of(&row) {
            self.follow(ctx, &event).await?;
        }
        let saved = self.saved(ctx, &row).await?;
        self.tell(ctx, &verbs::EVENT_MOVE, &saved.event).await;
        Ok(saved)
    }

    /// Cancels event `id` of `ctx`'s chat.
    pub async fn cancel(&self, ctx: &ToolCtx, id: i64) -> Result<EventView, ToolError> {
        let at = ctx.now().as_millisecond();
        let Some(row) = self.store.calendar().cancel(&ctx.conversation.id, id, at).await? else {
            return Err(ToolError::NotFound(format!("no event {id} in this chat's calendar")));
        };
        changes::record(&self.store, ctx, &verbs::EVENT_CANCEL, &row.title).await;
        self.drop_reminders(ctx, id).await?;
        let event = Event::of(&row).ok_or_else(|| ToolError::NotFound(format!("event {id}")))?;
        let cancelled = view(&event, &Occurrence { start: event.start, end: event.end, id });
        self.tell(ctx, &verbs::EVENT_CANCEL, &cancelled).await;
        Ok(cancelled)
    }

    /// Tells `ctx`'s chat, once, of `verb` done to `event` where the chat did not see it (on the
    /// page). Done in the chat or by a tap there, the answer tells it; the sync with the
    /// family's calendar server tells in its own words ([`caldav`]).
    async fn tell(&self, ctx: &ToolCtx, verb: &Verb, event: &EventView) {
        if !matches!(ctx.surface, Surface::Page | Surface::Cli) {
            return;
        }
        let lang = ctx.lang;
        let who = ctx.display_name.as_deref().unwrap_or(lang.pick("有人", "Someone"));
        let (said, done) = (ctx.surface.said(lang), verb.said(lang));
        let text = match lang {
            crate::platform::i18n::Lang::ZhTw => {
                format!("📅 {who}{said}{done}：{}（{}）", event.title, event.when())
            }
            crate::platform::i18n::Lang::En => {
                format!("📅 {who} {done} {said}: {} ({})", event.title, event.when())
            }
        };
        self.tell_chat(ctx, &format!("{}:{}", event.id, verb.name), text).await;
    }

    /// Pushes `text` to `ctx`'s chat once (`what` names the change), silently, through the
    /// outbox, after the chat's quiet hours.
    pub(crate) async fn tell_chat(&self, ctx: &ToolCtx, what: &str, text: String) {
        let chat = &ctx.conversation.id;
        let at = ctx.now().as_millisecond();
        let name = format!("calendar:{chat}:{what}:{at}");
        let payload = serde_json::to_string(&[Message::text(text)]).unwrap_or_default();
        let occurrence = occurrence_key(&name).to_string();
        let item = Item {
            payload: &payload,
            occurrence: &occurrence,
            home: chat,
            what: format!("calendar {what}"),
            kind: PushKind::Alert,
            silent: true,
        };
        self.pusher.push(chat, &[item]).await;
    }

    /// What happens in `ctx`'s chat from `from` to `to` (local dates, both included).
    pub async fn agenda(&self, ctx: &ToolCtx, from: Date, to: Date) -> Result<Agenda, ToolError> {
        if to < from {
            return Err(invalid("the agenda's end is before its start"));
        }
        if (to - from).get_days() > MAX_AGENDA_DAYS {
            return Err(invalid(format!("an agenda covers at most {MAX_AGENDA_DAYS} days")));
        }
        let events = self.events(&ctx.conversation.id).await?;
        let mut found: Vec<(Occurrence, &Event)> = events
            .iter()
            .flat_map(|event| {
                let occurrences = event.occurrences(from, to, &self.work_calendar, MAX_AGENDA);
                occurrences.into_iter().map(move |o| (o, event))
            })
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        found.truncate(MAX_AGENDA);
        Ok(Agenda {
            from: from.to_string(),
            to: to.to_string(),
            events: found.iter().map(|(o, event)| view(event, o)).collect(),
        })
    }

    /// The chat's events that are not cancelled.
    async fn events(&self, chat: &str) -> Result<Vec<Event>, ToolError> {
        let rows = self.store.calendar().live(chat).await?;
        Ok(rows.iter().filter_map(Event::of).collect())
    }

    /// `row` at its next occurrence, with what it clashes with there.
    async fn saved(&self, ctx: &ToolCtx, row: &EventRow) -> Result<Saved, ToolError> {
        let event = Event::of(row).ok_or_else(|| invalid("the event's times cannot be read"))?;
        let today = ctx.local_now().date();
        let horizon = today.checked_add(400.days()).unwrap_or(today);
        let next = event
            .occurrences(today, horizon, &self.work_calendar, 1)
            .into_iter()
            .next()
            .unwrap_or(Occurrence { start: event.start, end: event.end, id: event.id });
        let (day, last) = (next.start.date(), next.end.map_or(next.start.date(), Moment::date));
        let others: Vec<(Event, Vec<Occurrence>)> = self
            .events(&ctx.conversation.id)
            .await?
            .into_iter()
            .map(|other| {
                let occurrences = other.occurrences(day, last, &self.work_calendar, 8);
                (other, occurrences)
            })
            .collect();
        let clashes_with = clashes(&next, &others)
            .into_iter()
            .map(|other| {
                let at = others
                    .iter()
                    .find(|(e, _)| e.id == other.id)
                    .and_then(|(_, o)| o.first().cloned())
                    .unwrap_or(Occurrence { start: other.start, end: other.end, id: other.id });
                view(other, &at)
            })
            .collect();
        Ok(Saved { event: view(&event, &next), clashes_with })
    }
}

/// A request checked into what the store keeps.
struct Checked {
    title: String,
    start: String,
    end: Option<String>,
    place: String,
    people: String,
    notes: String,
    rule: crate::store::Recurrence,
}

impl Checked {
    /// The row of `ctx`'s chat this event is, under `uid`.
    fn row<'a>(&'a self, ctx: &'a ToolCtx, uid: &'a str) -> NewEvent<'a> {
        NewEvent {
            conversation_id: &ctx.conversation.id,
            uid,
            title: &self.title,
            tz: ctx.tz.iana_name().unwrap_or("UTC"),
            starts_local: &self.start,
            ends_local: self.end.as_deref(),
            place: &self.place,
            people: &self.people,
            notes: &self.notes,
            rule: self.rule,
            by: ctx.user_id.as_deref().unwrap_or_default(),
            at_ms: ctx.now().as_millisecond(),
        }
    }
}

/// `event`'s end moved with its start to `start`: the same length, of the same kind.
fn moved_end(event: &Event, start: Moment) -> Option<Moment> {
    match (event.start, event.end?, start) {
        (Moment::Day(a), Moment::Day(b), Moment::Day(new)) => {
            new.checked_add((b - a).get_days().days()).ok().map(Moment::Day)
        }
        (Moment::At(a), Moment::At(b), Moment::At(new)) => {
            new.checked_add(a.duration_until(b)).ok().map(Moment::At)
        }
        _ => None,
    }
}

/// `event` at `occurrence`, as the model and the card read it.
pub fn view(event: &Event, occurrence: &Occurrence) -> EventView {
    EventView {
        id: event.id,
        title: event.title.clone(),
        start: occurrence.start.stored(),
        end: occurrence.end.map(Moment::stored),
        place: event.place.clone(),
        people: event.people.clone(),
        freq: event.rule.freq,
        sequence: event.sequence,
    }
}
