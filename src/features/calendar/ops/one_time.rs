//! One time of a repeating event: called off (「這週三鋼琴課停一次」) or moved (「這次改到週四」),
//! the rest of the series as it was. A day called off is kept with the event
//! ([`Event::skipped`]), so the agenda, the digest, the clash check, the phones' feed and the
//! calendar server pass over it, and so do the event's ⏰ reminders (the time before that day).
//! A time moved is that day called off and a one-off copy of the event where it moved to, with
//! the ⏰ the series has. A one-off event has one time: calling it off cancels it, moving it
//! moves it.

use jiff::ToSpan;
use jiff::civil::Date;

use super::remind::reminder_time;
use super::{CalendarOps, EventRequest, EventView, Saved, invalid, moved_end, view};
use crate::contract::{ToolCtx, ToolError};
use crate::features::calendar::ics::AHEAD_DAYS;
use crate::features::calendar::{Event, Moment, Occurrence, skipped_days};
use crate::features::{changes, verbs};
use crate::store::{Freq, Recurrence};

/// The most days one event keeps called off.
pub const MAX_SKIPPED: usize = 100;
/// Days called off this long ago are forgotten (the feed shows a month back).
const FORGOTTEN_AFTER_DAYS: i64 = 62;
/// Tries at keeping a day called off while others change the same event.
const TRIES: usize = 3;

/// The days a time of an event can be called off or moved on in `ctx`'s chat: from today to as
/// far ahead as the feed shows.
pub(super) fn days_open(ctx: &ToolCtx) -> std::ops::RangeInclusive<Date> {
    let today = ctx.local_now().date();
    today..=today.checked_add(AHEAD_DAYS.days()).unwrap_or(today)
}

/// `event`'s time on `day` as its rule has it, called off or not: its start's time of day, and
/// its length.
fn on_day(event: &Event, day: Date) -> Occurrence {
    let start = match event.start {
        Moment::Day(_) => Moment::Day(day),
        Moment::At(at) => Moment::At(day.to_datetime(at.time())),
    };
    Occurrence { start, end: moved_end(event, start), id: event.id }
}

impl CalendarOps {
    /// Calls off the time of event `id` of `ctx`'s chat on `day`, the rest of the series as it
    /// was; a one-off event on that day is cancelled.
    pub async fn skip(&self, ctx: &ToolCtx, id: i64, day: Date) -> Result<EventView, ToolError> {
        let event = self.live_event(ctx, id).await?;
        if event.rule.freq == Freq::Once {
            if event.start.date() != day {
                return Err(invalid(format!("event {id} is on {}, not {day}", event.start.date())));
            }
            return self.cancel(ctx, id).await;
        }
        let time = self.time_on(ctx, &event, day)?;
        let called_off = view(&event, &time);
        if !self.call_off(ctx, &event, day).await? {
            // Called off meanwhile (a second tap): recorded and told once.
            return Ok(called_off);
        }
        let what = format!("{} {}", event.title, called_off.when());
        changes::record(&self.store, ctx, &verbs::EVENT_CANCEL, &what).await;
        self.tell(ctx, &verbs::EVENT_CANCEL, &called_off).await;
        Ok(called_off)
    }

    /// Moves the time of event `id` of `ctx`'s chat on `day` to what `request` says (its start;
    /// its end, title, place and who, or the series'): that day is called off and a one-off copy
    /// kept, with the series' ⏰. A one-off event is moved.
    pub async fn move_one(
        &self,
        ctx: &ToolCtx,
        id: i64,
        day: Date,
        request: &EventRequest,
    ) -> Result<Saved, ToolError> {
        let event = self.live_event(ctx, id).await?;
        if event.rule.freq == Freq::Once {
            return self.change(ctx, id, request).await;
        }
        let time = self.time_on(ctx, &event, day)?;
        let that_time =
            Event { start: time.start, end: time.end, rule: Recurrence::once(), ..event.clone() };
        let copy = EventRequest { repetition: None, uid: None, ..request.clone() };
        let checked = self.checked(ctx, &copy, Some(&that_time))?;
        if (checked.start.as_str(), checked.end.as_deref())
            == (time.start.stored().as_str(), time.end.map(Moment::stored).as_deref())
        {
            return Err(invalid(format!("the time on {day} is already then")));
        }
        let row = self.insert(ctx, &checked, &copy).await?;
        let called_off = match self.call_off(ctx, &event, day).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(invalid(format!("the time on {day} was already moved or called off"))),
            Err(e) => Err(e),
        };
        if let Err(e) = called_off {
            // Moved or called off meanwhile (a second tap), or the series changed: the copy
            // goes, and nothing more moved.
            let at = ctx.now().as_millisecond();
            self.store.calendar().cancel(&ctx.conversation.id, row.id, at).await?;
            return Err(e);
        }
        if let Some(moved) = Event::of(&row) {
            let chat = &ctx.conversation.id;
            for (_, minutes) in self.store.calendar().linked_reminders(chat, id).await? {
                if let Err(e) = self.set_reminder(ctx, &moved, minutes).await {
                    tracing::info!(error = %e, event = moved.id, "a moved time's ⏰ was not set");
                }
            }
        }
        changes::record(&self.store, ctx, &verbs::EVENT_MOVE, &row.title).await;
        let saved = self.saved(ctx, &row).await?;
        self.tell(ctx, &verbs::EVENT_MOVE, &saved.event).await;
        Ok(saved)
    }

    /// The time of `event` on `day`: refused when the day has passed, is further ahead than
    /// the feed shows, or the event does not happen on it.
    fn time_on(&self, ctx: &ToolCtx, event: &Event, day: Date) -> Result<Occurrence, ToolError> {
        let open = days_open(ctx);
        if day < *open.start() {
            return Err(invalid(format!("{day} has passed")));
        }
        if day > *open.end() {
            return Err(invalid(format!("{day} is more than {AHEAD_DAYS} days ahead")));
        }
        let times = event.occurrences(day, day, &self.work_calendar, 4);
        let time = times.into_iter().find(|o| o.start.date() == day);
        time.ok_or_else(|| invalid(format!("event {} does not happen on {day}", event.id)))
    }

    /// Keeps `day` among `event`'s days called off (its sequence bumped, so phones and the
    /// calendar server hear of it; days long past forgotten), and has its ⏰ pass over the time
    /// before it: false when it already was (called off meanwhile).
    async fn call_off(&self, ctx: &ToolCtx, event: &Event, day: Date) -> Result<bool, ToolError> {
        let chat = &ctx.conversation.id;
        let today = ctx.local_now().date();
        let oldest = today.checked_sub(FORGOTTEN_AFTER_DAYS.days()).unwrap_or(today);
        let gone = || ToolError::NotFound(format!("no event {} in this chat's calendar", event.id));
        for _ in 0..TRIES {
            let row = self.store.calendar().get(chat, event.id).await?;
            let row = row.filter(|r| r.cancelled_at.is_none()).ok_or_else(gone)?;
            let mut days = skipped_days(&row.skipped);
            days.retain(|d| *d >= oldest);
            if days.contains(&day) {
                return Ok(false);
            }
            if days.len() >= MAX_SKIPPED {
                return Err(invalid(format!(
                    "{MAX_SKIPPED} days of this event are called off already: move it or cancel it"
                )));
            }
            days.push(day);
            days.sort();
            let text: Vec<String> = days.iter().map(Date::to_string).collect();
            let (at, text) = (ctx.now().as_millisecond(), text.join(" "));
            let kept = (row.skipped.as_str(), text.as_str());
            if self.store.calendar().skip(chat, event.id, kept, at).await?.is_some() {
                self.pass_over(ctx, event, day).await;
                return Ok(true);
            }
        }
        Err(invalid("the event is being changed right now; try again"))
    }

    /// Has `event`'s ⏰ reminders pass over the time before its `day`, each in its own zone;
    /// one that cannot (the store failing, too many passed over) is logged: the day is called
    /// off all the same.
    pub(super) async fn pass_over(&self, ctx: &ToolCtx, event: &Event, day: Date) {
        let chat = &ctx.conversation.id;
        let start = on_day(event, day).start;
        let linked = match self.store.calendar().linked_reminders(chat, event.id).await {
            Ok(linked) => linked,
            Err(e) => {
                tracing::warn!(error = %e, event = event.id, "an event's ⏰ were not read");
                return;
            }
        };
        for (reminder, minutes) in linked {
            let Some(local) = reminder_time(start, minutes) else { continue };
            if let Err(e) = self.pass_over_one(ctx, reminder, local).await {
                tracing::warn!(error = %e, reminder, "an event's ⏰ still comes before a time called off");
            }
        }
    }

    /// Has reminder `reminder` of `ctx`'s chat pass over its time at `local`, in its zone.
    async fn pass_over_one(
        &self,
        ctx: &ToolCtx,
        reminder: i64,
        local: jiff::civil::DateTime,
    ) -> Result<(), ToolError> {
        let chat = &ctx.conversation.id;
        let now = ctx.now().as_millisecond();
        for _ in 0..TRIES {
            let Some(row) = self.store.reminders().get(chat, reminder).await? else {
                return Ok(());
            };
            let tz = row.time_zone().unwrap_or_else(|| ctx.tz.clone());
            let Ok(at) = tz.to_timestamp(local) else { return Ok(()) };
            let at = at.as_millisecond();
            if row.passes_over(at) {
                return Ok(());
            }
            let Some(skipped) = row.passing_over(at, now) else {
                return Err(invalid("it passes over too many times already"));
            };
            let kept = (row.skipped.as_str(), skipped.as_str());
            if self.store.reminders().pass_over(chat, reminder, kept).await? {
                return Ok(());
            }
        }
        Err(invalid("it is being changed right now"))
    }
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;
    use jiff::tz::TimeZone;

    use super::*;

    #[test]
    fn a_time_of_a_series_keeps_the_series_time_of_day_and_length() {
        let lesson = Event {
            id: 1,
            uid: "1@hearth".into(),
            title: "鋼琴課".into(),
            tz: TimeZone::get("Asia/Taipei").expect("zone"),
            start: Moment::parse("2026-12-09T16:00").expect("start"),
            end: Moment::parse("2026-12-09T17:30"),
            place: String::new(),
            people: String::new(),
            notes: String::new(),
            rule: Recurrence { freq: Freq::Weekly, ..Recurrence::once() },
            sequence: 0,
            updated: Timestamp::UNIX_EPOCH,
            cancelled: None,
            skipped: Vec::new(),
        };
        let time = on_day(&lesson, jiff::civil::date(2026, 12, 23));
        assert_eq!(time.start.stored(), "2026-12-23T16:00");
        assert_eq!(time.end.map(Moment::stored).as_deref(), Some("2026-12-23T17:30"));
        let trip = Event {
            start: Moment::parse("2026-12-24").expect("start"),
            end: Moment::parse("2026-12-26"),
            ..lesson
        };
        let time = on_day(&trip, jiff::civil::date(2027, 12, 24));
        assert_eq!(time.end.map(Moment::stored).as_deref(), Some("2027-12-26"));
    }
}
