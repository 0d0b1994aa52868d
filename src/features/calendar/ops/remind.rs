//! An event's ⏰: a reminder the evening before (20:00 the day before, for a day event too) or
//! two hours before, set as the reminders' own (it is pushed, snoozed and cancelled like any),
//! and kept with the event: set again when the event moves, cancelled when it is cancelled. A
//! repeating event's ⏰ repeats with it, before each time it comes ([`repetition`]): the day
//! before a weekly event on the days before its weekdays, a lunar birthday's the lunar day
//! before; a workday event (the day before a workday is no rule) and one on lunar days each
//! month are reminded two hours before only.

use jiff::ToSpan;
use jiff::civil::{DateTime, Time, Weekday};
use serde::Serialize;

use super::CalendarOps;
use crate::contract::{ToolCtx, ToolError};
use crate::features::calendar::{Event, Moment};
use crate::features::reminders::request::{
    LunarRequest, ReminderRequest, RepetitionRequest, WhenRequest,
};
use crate::store::Freq;

/// ⏰ the evening before (20:00 the day before).
pub const DAY_BEFORE: i64 = 24 * 60;
/// ⏰ two hours before.
pub const TWO_HOURS: i64 = 120;

/// What a ⏰ set.
#[derive(Debug, Clone, Serialize)]
pub struct Reminded {
    /// The reminder's number.
    pub reminder: i64,
    /// When it comes, local "YYYY-MM-DDTHH:MM".
    pub at: String,
    /// What it says.
    pub text: String,
}

/// When the reminder `minutes` before `start` comes (local), if it can: the evening before at
/// 20:00 for [`DAY_BEFORE`], else that many minutes before a time (a day event has no time).
pub fn reminder_time(start: Moment, minutes: i64) -> Option<DateTime> {
    match (start, minutes) {
        (_, DAY_BEFORE) => {
            start.date().yesterday().ok().map(|d| d.to_datetime(Time::constant(20, 0, 0, 0)))
        }
        (Moment::At(at), TWO_HOURS) => at.checked_sub(minutes.minutes()).ok(),
        _ => None,
    }
}

/// Whether a ⏰ the evening before can follow an event repeating by `freq`.
pub fn day_before_offered(freq: Freq) -> bool {
    !matches!(freq, Freq::Workdays | Freq::LunarMonthly)
}

/// How the ⏰ `minutes` before `event` repeats (`None`: the event is once); refused when no rule
/// of the reminders says it. Its interval follows the event's; an end (`until`, `count`) is not
/// carried over (hearth's events have none).
pub fn repetition(event: &Event, minutes: i64) -> Result<Option<RepetitionRequest>, ToolError> {
    let (rule, day_before) = (&event.rule, minutes == DAY_BEFORE);
    let refused = |why: &str| Err(ToolError::InvalidArgs(why.into()));
    if rule.freq == Freq::Once {
        return Ok(None);
    }
    if day_before && !day_before_offered(rule.freq) {
        return refused("this repeating event is reminded two hours before");
    }
    // Two hours before a time before 02:00 is the day before: no rule of the same days says it.
    if !day_before && event.start.time().is_some_and(|t| t < Time::constant(2, 0, 0, 0)) {
        return refused("this repeating event is reminded the evening before");
    }
    // Every other week: the evening before a Monday is in the week before, off the rule's weeks.
    if day_before && rule.freq == Freq::Weekly && rule.interval > 1 {
        let monday = rule.weekdays & 1 != 0
            || (rule.weekdays == 0 && event.start.date().weekday() == Weekday::Monday);
        if monday {
            return refused("this every-other-week event is reminded two hours before");
        }
    }
    let mut request = RepetitionRequest {
        freq: rule.freq,
        interval: (rule.interval > 1).then_some(rule.interval),
        ..RepetitionRequest::default()
    };
    match rule.freq {
        Freq::Weekly if rule.weekdays != 0 => {
            // Bit 0 is Monday: the day before each is the bit below, Sunday's is Saturday's.
            let mask = if day_before {
                rule.weekdays.rotate_right(1) & 0x7f | (rule.weekdays & 1) << 6
            } else {
                rule.weekdays
            };
            let days = (0..7).filter(|bit| mask & (1 << bit) != 0);
            request.weekdays = Some(
                days.map(|bit| Weekday::from_monday_zero_offset(bit).unwrap_or(Weekday::Monday))
                    .collect(),
            );
        }
        Freq::Monthly => {
            // The event's own day when the rule does not say (its start's), not the day
            // before's: the 1st's evening before is the month's last day.
            let day = rule.month_day.unwrap_or(event.start.date().day());
            request.day_of_month = match (day, day_before) {
                (day, false) => Some(i32::from(day)),
                (1, true) => Some(-1),
                (day, true) if day > 1 => Some(i32::from(day) - 1),
                _ => return refused("an event on a month's last day is reminded two hours before"),
            };
        }
        Freq::LunarYearly | Freq::LunarMonthly => {
            let days = (0..30u8).filter(|bit| rule.lunar_days & (1 << bit) != 0).map(|b| b + 1);
            request.lunar = Some(LunarRequest {
                days: days.collect(),
                month: rule.lunar_month.map(|m| m.number),
                leap: rule.lunar_month.is_some_and(|m| m.leap),
                days_before: Some(rule.days_before + u8::from(day_before)).filter(|d| *d > 0),
            });
        }
        _ => {}
    }
    Ok(Some(request))
}

/// What the reminder says: 「明天：阿公生日聚餐」 (no time in it, so it is still right after a move).
fn text(event: &Event, minutes: i64, lang: crate::platform::i18n::Lang) -> String {
    let when = match minutes {
        DAY_BEFORE => lang.pick("明天", "Tomorrow"),
        _ => lang.pick("兩小時後", "In two hours"),
    };
    let place = if event.place.is_empty() { String::new() } else { format!(" @ {}", event.place) };
    format!("{when}：{}{place}", event.title)
}

impl CalendarOps {
    /// Sets the ⏰ `minutes` before event `id` of `ctx`'s chat (again: the earlier one goes,
    /// once the new one is set).
    pub async fn remind_before(
        &self,
        ctx: &ToolCtx,
        id: i64,
        minutes: i64,
    ) -> Result<Reminded, ToolError> {
        let event = self.live_event(ctx, id).await?;
        let earlier = self.store.calendar().linked_reminders(&ctx.conversation.id, id).await?;
        let set = self.set_reminder(ctx, &event, minutes).await?;
        for (old, _) in earlier.into_iter().filter(|(_, before)| *before == minutes) {
            self.store.reminders().cancel(&ctx.conversation.id, old).await?;
        }
        Ok(set)
    }

    /// Sets the reminder `minutes` before `event` and links it to the event.
    pub(super) async fn set_reminder(
        &self,
        ctx: &ToolCtx,
        event: &Event,
        minutes: i64,
    ) -> Result<Reminded, ToolError> {
        let repetition = repetition(event, minutes)?;
        let at = self.first_reminder(ctx, event, minutes)?;
        let at = at.strftime("%Y-%m-%dT%H:%M").to_string();
        let request = ReminderRequest {
            text: text(event, minutes, ctx.lang),
            when: WhenRequest { at: Some(at.clone()), repetition, ..WhenRequest::default() },
            for_member: None,
            for_everyone: ctx.conversation.is_multi_person(),
            accept_cost: false,
        };
        let created = self.creation.create(ctx, &request).await?;
        let reminder = created.id.ok_or_else(|| {
            ToolError::InvalidArgs("this month's LINE messages would not cover it".into())
        })?;
        let chat = &ctx.conversation.id;
        self.store.calendar().link_reminder(chat, event.id, reminder, minutes).await?;
        Ok(Reminded { reminder, at, text: created.text })
    }

    /// When the ⏰ `minutes` before `event` first comes: before its next time still ahead of
    /// that reminder (a repeating event's first may be long past).
    fn first_reminder(
        &self,
        ctx: &ToolCtx,
        event: &Event,
        minutes: i64,
    ) -> Result<DateTime, ToolError> {
        let day_event =
            || ToolError::InvalidArgs("a day event is reminded the evening before".into());
        if event.rule.freq == Freq::Once {
            return reminder_time(event.start, minutes).ok_or_else(day_event);
        }
        let now = ctx.local_now().datetime();
        let today = now.date();
        let horizon = today.checked_add(400.days()).unwrap_or(today);
        let next = event.occurrences(today, horizon, &self.work_calendar, 3);
        let times = next.iter().filter_map(|o| reminder_time(o.start, minutes));
        let ahead = times.into_iter().find(|at| *at > now);
        match (ahead, reminder_time(event.start, minutes)) {
            (Some(at), _) => Ok(at),
            (None, None) => Err(day_event()),
            (None, Some(_)) => Err(ToolError::InvalidArgs("that event does not come again".into())),
        }
    }

    /// Sets `event`'s ⏰ reminders again for where it moved (their text too), passing over its
    /// days called off: one whose time has passed is not set again. Quietly: the move is the
    /// change recorded.
    pub(super) async fn follow(&self, ctx: &ToolCtx, event: &Event) -> Result<(), ToolError> {
        let chat = &ctx.conversation.id;
        let linked = self.store.calendar().linked_reminders(chat, event.id).await?;
        self.store.calendar().unlink_reminders(chat, event.id).await?;
        for (reminder, minutes) in linked {
            self.store.reminders().cancel(chat, reminder).await?;
            if let Err(e) = self.set_reminder(ctx, event, minutes).await {
                tracing::info!(error = %e, event = event.id, "an event's ⏰ was not set again");
            }
        }
        // The days called off still are: read again, for one called off meanwhile.
        let skipped = match self.live_event(ctx, event.id).await {
            Ok(now) => now.skipped,
            Err(_) => event.skipped.clone(),
        };
        let today = ctx.local_now().date();
        for day in skipped.into_iter().filter(|day| *day >= today) {
            self.pass_over(ctx, event, day).await;
        }
        Ok(())
    }

    /// Cancels event `id`'s ⏰ reminders (it was cancelled): quietly, the cancel is the change
    /// recorded.
    pub(super) async fn drop_reminders(&self, ctx: &ToolCtx, id: i64) -> Result<(), ToolError> {
        let chat = &ctx.conversation.id;
        for (reminder, _) in self.store.calendar().linked_reminders(chat, id).await? {
            self.store.reminders().cancel(chat, reminder).await?;
        }
        self.store.calendar().unlink_reminders(chat, id).await?;
        Ok(())
    }

    /// Event `id` of `ctx`'s chat, not cancelled.
    pub(super) async fn live_event(&self, ctx: &ToolCtx, id: i64) -> Result<Event, ToolError> {
        let row = self.store.calendar().get(&ctx.conversation.id, id).await?;
        row.filter(|r| r.cancelled_at.is_none())
            .as_ref()
            .and_then(Event::of)
            .ok_or_else(|| ToolError::NotFound(format!("no event {id} in this chat's calendar")))
    }
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;
    use jiff::tz::TimeZone;

    use super::*;
    use crate::store::Recurrence;

    fn repeating(start: &str, freq: Freq, weekdays: u8, interval: u32) -> Event {
        Event {
            id: 1,
            uid: "1@hearth".into(),
            title: "鋼琴課".into(),
            tz: TimeZone::get("Asia/Taipei").expect("zone"),
            start: Moment::parse(start).expect("start"),
            end: None,
            place: String::new(),
            people: String::new(),
            notes: String::new(),
            rule: Recurrence { freq, weekdays, interval, ..Recurrence::once() },
            sequence: 0,
            updated: Timestamp::UNIX_EPOCH,
            cancelled: None,
            skipped: Vec::new(),
        }
    }

    fn weekdays(event: &Event, minutes: i64) -> Vec<Weekday> {
        let asked = repetition(event, minutes).expect("a rule").expect("repeating");
        asked.weekdays.expect("weekdays")
    }

    #[test]
    fn the_evening_before_each_weekday_is_the_day_before_it_sunday_before_monday() {
        use Weekday::*;
        // Monday and Wednesday (bits 0 and 2) at 16:00.
        let lesson = repeating("2026-12-07T16:00", Freq::Weekly, 0b101, 1);
        assert_eq!(weekdays(&lesson, DAY_BEFORE), [Tuesday, Sunday]);
        assert_eq!(weekdays(&lesson, TWO_HOURS), [Monday, Wednesday]);
        let weekend = repeating("2026-12-05T10:00", Freq::Weekly, 0b110_0000, 1);
        assert_eq!(weekdays(&weekend, DAY_BEFORE), [Friday, Saturday]);
    }

    #[test]
    fn what_no_rule_of_the_reminders_says_is_refused() {
        let fortnightly = repeating("2026-12-07T16:00", Freq::Weekly, 0b1, 2);
        assert!(repetition(&fortnightly, DAY_BEFORE).is_err(), "Sunday is in the week before");
        assert!(repetition(&fortnightly, TWO_HOURS).is_ok());
        let school = repeating("2026-12-07T07:30", Freq::Workdays, 0, 1);
        assert!(repetition(&school, DAY_BEFORE).is_err());
        let late = repeating("2026-12-07T01:00", Freq::Weekly, 0, 1);
        assert!(repetition(&late, TWO_HOURS).is_err(), "two hours before is the day before");
    }

    #[test]
    fn a_monthly_events_evening_before_is_the_day_before_its_own_the_firsts_the_months_last() {
        let day = |start: &str| {
            let asked = repetition(&repeating(start, Freq::Monthly, 0, 1), DAY_BEFORE);
            asked.expect("a rule").expect("repeating").day_of_month
        };
        assert_eq!(day("2026-12-01T19:00"), Some(-1));
        assert_eq!(day("2026-12-31T19:00"), Some(30));
        assert_eq!(day("2026-12-15"), Some(14));
    }
}
