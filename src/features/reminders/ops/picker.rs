//! 📅 change time: LINE's date-time picker on reminder cards, signed and bound to the chat like
//! every button. On a delivered reminder it moves *that occurrence* (a one-off copy at the chosen
//! time, like ⏰ but to any time; a snoozed copy is moved instead of doubled); on the
//! confirmation card it moves *the reminder*: the series starts again at the chosen date and
//! time (a weekly reminder on one day moves to the chosen weekday, a monthly one to the chosen
//! day). The choice is a local time in the reminder's zone (the picker has none); a time in the
//! past, or more than a year ahead, is refused kindly and changes nothing.

use jiff::civil::DateTime;
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use crate::contract::Answer;
use crate::contract::{CardButton, ToolCtx};
use crate::features::button::{Action, text};
use crate::features::deps::Deps;
use crate::features::reminders::actions::Occurrence;
use crate::features::reminders::describe::local_time;
use crate::features::reminders::recurrence::Schedule;
use crate::line::webhook::Picked;
use crate::platform::i18n::Lang;
use crate::store::{MovedRule, ReminderStatus};

/// How far ahead a reminder can be moved.
pub const HORIZON: SignedDuration = SignedDuration::from_hours(366 * 24);
/// The picker's local date-time format.
const FORMAT: &str = "%Y-%m-%dT%H:%M";

/// Where a picker opens and what it allows, local `YYYY-MM-DDTHH:MM` in one zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounds {
    /// Where it opens.
    pub initial: String,
    /// The earliest choice.
    pub min: String,
    /// The latest choice.
    pub max: String,
}

/// The picker for a reminder in `tz`: from `now` to [`HORIZON`] ahead, opening at `initial`
/// (kept inside that range, as LINE requires).
pub fn bounds(now: Timestamp, initial: Timestamp, tz: &TimeZone) -> Bounds {
    let local = |t: Timestamp| t.to_zoned_datetime(tz.clone()).datetime();
    let min = local(now);
    let max = local(now.saturating_add(HORIZON).unwrap_or(now));
    let initial = local(initial).clamp(min, max);
    let show = |t: DateTime| t.strftime(FORMAT).to_string();
    Bounds { initial: show(initial), min: show(min), max: show(max) }
}

/// Why a picked time was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PickError {
    /// Not a date and time (another picker mode, or garbage).
    #[error("not a local date and time")]
    NotADateTime,
    /// At or before now.
    #[error("in the past")]
    Past,
    /// Beyond [`HORIZON`].
    #[error("more than a year ahead")]
    TooFar,
}

impl PickError {
    /// What the family is told.
    pub fn message(self, lang: Lang) -> &'static str {
        match self {
            PickError::NotADateTime => {
                lang.pick("請選一個日期和時間喔 📅", "Please pick a date and a time 📅")
            }
            PickError::Past => lang.pick(
                "這個時間已經過了，請選一個之後的時間 🙏",
                "That time has already passed; please pick a later one 🙏",
            ),
            PickError::TooFar => {
                lang.pick("最多只能改到一年內的時間喔 🙏", "Please pick a time within a year 🙏")
            }
        }
    }
}

/// The picked local time in `tz` and its instant, if it is after `now` and within [`HORIZON`].
pub fn chosen(
    picked: &Picked,
    tz: &TimeZone,
    now: Timestamp,
) -> Result<(DateTime, Timestamp), PickError> {
    let Picked::DateTime(value) = picked else { return Err(PickError::NotADateTime) };
    let local: DateTime =
        value.trim().replace('t', "T").parse().map_err(|_| PickError::NotADateTime)?;
    let at = local.to_zoned_datetime(tz.clone()).map_err(|_| PickError::NotADateTime)?.timestamp();
    if at <= now {
        return Err(PickError::Past);
    }
    if now.saturating_add(HORIZON).is_ok_and(|limit| at > limit) {
        return Err(PickError::TooFar);
    }
    Ok((local, at))
}

/// `schedule` moved to start at `to`, after `fired` of its occurrences went out: a weekly rule
/// on one day moves to `to`'s weekday, a monthly one to `to`'s day (the last day stays the
/// last), a limited series keeps the occurrences it has left. The new schedule and its first
/// occurrence; `None` when nothing of it is left after `now`.
pub fn moved(
    schedule: &Schedule,
    fired: u32,
    to: DateTime,
    now: Timestamp,
) -> Option<(Schedule, Timestamp)> {
    let mut moved = schedule.clone();
    moved.anchor = to;
    if moved.rule.weekdays.count_ones() <= 1 {
        moved.rule.weekdays = 0;
    }
    if moved.rule.month_day != Some(-1) {
        moved.rule.month_day = None;
    }
    moved.rule.count = match schedule.rule.count {
        Some(c) => Some(c.checked_sub(fired).filter(|left| *left > 0)?),
        None => None,
    };
    let (_, first) = moved.occurrences().next()?;
    (first > now).then_some((moved, first))
}

/// 📅 on a delivered reminder: that occurrence again at the chosen time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RescheduleOccurrence(pub Occurrence);

/// 📅 on a reminder's confirmation card: the reminder itself at the chosen time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MoveReminder {
    /// The reminder.
    pub id: i64,
}

/// The label of the 📅 button.
pub fn label(lang: Lang) -> &'static str {
    lang.pick("📅 改時間", "📅 Change time")
}

/// The 📅 button for occurrence `this` (delivered at `at`) of a reminder in `tz`: it opens an
/// hour after `at`.
pub fn occurrence_button(this: Occurrence, at: Timestamp, tz: &TimeZone, lang: Lang) -> CardButton {
    let initial = at.saturating_add(SignedDuration::from_hours(1)).unwrap_or(at);
    let b = bounds(at, initial, tz);
    RescheduleOccurrence(this).picker(label(lang), b.initial, b.min, b.max)
}

/// The 📅 button of a confirmation: it opens at the reminder's first time.
pub fn reminder_button(
    id: i64,
    now: Timestamp,
    first: Timestamp,
    tz: &TimeZone,
    lang: Lang,
) -> CardButton {
    let b = bounds(now, first, tz);
    MoveReminder { id }.picker(label(lang), b.initial, b.min, b.max)
}

fn not_found(lang: Lang) -> Answer {
    text(lang.pick("找不到這個提醒。", "No such reminder."))
}

fn failed(lang: Lang, e: &crate::store::StoreError) -> Answer {
    tracing::error!(error = %e, "reminder not moved");
    text(lang.pick(
        "抱歉，現在沒辦法改時間，請再試一次。",
        "Sorry, I couldn't change the time; please try again.",
    ))
}

impl Action for RescheduleOccurrence {
    const NAME: &'static str = "reminder_reschedule";

    async fn run(self, _deps: &Deps, ctx: &ToolCtx) -> Answer {
        text(PickError::NotADateTime.message(ctx.lang))
    }

    async fn run_picked(self, deps: &Deps, ctx: &ToolCtx, picked: &Picked) -> Answer {
        let lang = ctx.lang;
        let Occurrence { reminder, occurrence } = self.0;
        let conversation = &ctx.conversation.id;
        let Ok(Some(row)) = deps.store.reminders().get(conversation, reminder).await else {
            return not_found(lang);
        };
        let tz = row.time_zone().unwrap_or_else(|| ctx.tz.clone());
        let now = ctx.now();
        let (local, at) = match chosen(picked, &tz, now) {
            Ok(chosen) => chosen,
            Err(e) => return text(e.message(lang)),
        };
        let anchor = local.strftime(FORMAT).to_string();
        let moved = deps
            .store
            .reminders()
            .reschedule_occurrence(
                conversation,
                reminder,
                occurrence,
                &anchor,
                at.as_millisecond(),
                now.as_millisecond(),
            )
            .await;
        deps.reminder_nudge.notify_one();
        match moved {
            Ok(Some(_)) => text(format!(
                "{}{}：{}",
                lang.pick("📅 好的，改到 ", "📅 OK, I'll remind you again on "),
                local_time(at, &tz, lang),
                row.text
            )),
            Ok(None) => not_found(lang),
            Err(e) => failed(lang, &e),
        }
    }
}

impl Action for MoveReminder {
    const NAME: &'static str = "reminder_move";

    async fn run(self, _deps: &Deps, ctx: &ToolCtx) -> Answer {
        text(PickError::NotADateTime.message(ctx.lang))
    }

    async fn run_picked(self, deps: &Deps, ctx: &ToolCtx, picked: &Picked) -> Answer {
        let lang = ctx.lang;
        let conversation = &ctx.conversation.id;
        let Ok(Some(row)) = deps.store.reminders().get(conversation, self.id).await else {
            return not_found(lang);
        };
        if !matches!(row.status, ReminderStatus::Active | ReminderStatus::Paused) {
            return text(format!(
                "{}{}",
                lang.pick("這個提醒已經結束或取消了：", "Already finished or cancelled: "),
                row.text
            ));
        }
        let Some(schedule) = row.schedule(&deps.work_calendar) else {
            return not_found(lang);
        };
        let now = ctx.now();
        let (local, _) = match chosen(picked, &schedule.tz, now) {
            Ok(chosen) => chosen,
            Err(e) => return text(e.message(lang)),
        };
        let fired = u32::try_from(row.next_occurrence).unwrap_or(0);
        let Some((moved, first)) = moved(&schedule, fired, local, now) else {
            return text(lang.pick(
                "這樣改之後就沒有下一次提醒了，請選別的時間 🙏",
                "Moved there, the reminder would never come again; please pick another time 🙏",
            ));
        };
        let anchor = moved.anchor.strftime(FORMAT).to_string();
        let rule = MovedRule {
            anchor_local: &anchor,
            rule: moved.rule,
            next_fire_at: first.as_millisecond(),
        };
        let result = deps.store.reminders().move_rule(conversation, self.id, &rule).await;
        deps.reminder_nudge.notify_one();
        match result {
            Ok(true) => {
                let when = local_time(first, &moved.tz, lang);
                let repeats = crate::features::reminders::describe::repetition(&moved, lang)
                    .map(|r| format!("（{r}）"))
                    .unwrap_or_default();
                text(format!(
                    "{}{when}{repeats}：{}",
                    lang.pick("📅 好的，提醒改到 ", "📅 OK, the reminder is now on "),
                    row.text
                ))
            }
            Ok(false) => not_found(lang),
            Err(e) => failed(lang, &e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::reminders::recurrence::Freq;

    fn taipei() -> TimeZone {
        TimeZone::get("Asia/Taipei").expect("zone")
    }

    fn at(s: &str) -> Timestamp {
        s.parse().expect("instant")
    }

    #[test]
    fn the_picker_opens_inside_its_range_in_the_chats_zone() {
        let now = at("2026-11-30T12:00:30Z");
        let b = bounds(now, at("2026-12-01T00:00:00Z"), &taipei());
        assert_eq!(b.min, "2026-11-30T20:00");
        assert_eq!(b.initial, "2026-12-01T08:00");
        assert_eq!(b.max, "2027-12-01T20:00");
        let far = bounds(now, at("2030-01-01T00:00:00Z"), &taipei());
        assert_eq!(far.initial, far.max, "kept inside the range LINE allows");
        let past = bounds(now, at("2020-01-01T00:00:00Z"), &taipei());
        assert_eq!(past.initial, past.min);
    }

    #[test]
    fn a_picked_time_is_read_in_the_chats_zone_and_must_lie_ahead_within_a_year() {
        let now = at("2026-11-30T12:00:00Z");
        let pick = |s: &str| chosen(&Picked::DateTime(s.into()), &taipei(), now);
        let (local, instant) = pick("2026-12-01T08:00").expect("ahead");
        assert_eq!(local.to_string(), "2026-12-01T08:00:00");
        assert_eq!(instant, at("2026-12-01T00:00:00Z"));
        assert!(pick("2026-12-01t08:00").is_ok(), "LINE allows a lowercase t");
        assert_eq!(pick("2026-11-30T19:59"), Err(PickError::Past));
        assert_eq!(pick("2026-11-30T20:00"), Err(PickError::Past));
        assert_eq!(pick("2028-01-01T08:00"), Err(PickError::TooFar));
        assert_eq!(pick("tomorrow"), Err(PickError::NotADateTime));
        assert_eq!(
            chosen(&Picked::Date("2026-12-01".into()), &taipei(), now),
            Err(PickError::NotADateTime)
        );
    }

    fn weekly_wednesday() -> Schedule {
        let mut s = Schedule::once(taipei(), "2026-12-02T19:00".parse().expect("anchor"));
        s.rule.freq = Freq::Weekly;
        s.rule.weekdays = 1 << 2;
        s
    }

    #[test]
    fn a_weekly_reminder_on_one_day_moves_to_the_picked_weekday_and_time() {
        let now = at("2026-11-30T12:00:00Z");
        let (moved, first) =
            moved(&weekly_wednesday(), 0, "2026-12-03T07:30".parse().expect("dt"), now)
                .expect("moved");
        assert_eq!(moved.rule.weekdays, 0, "the picked date's weekday (Thursday)");
        assert_eq!(first, at("2026-12-02T23:30:00Z"));
        let next = moved.next_after(first).expect("repeats").1;
        assert_eq!(next, at("2026-12-09T23:30:00Z"), "a week later, still Thursday 07:30");
    }

    #[test]
    fn several_weekdays_and_the_last_day_of_the_month_are_kept() {
        let now = at("2026-11-30T12:00:00Z");
        let mut two_days = weekly_wednesday();
        two_days.rule.weekdays = (1 << 0) | (1 << 2);
        let (kept, _) =
            moved(&two_days, 0, "2026-12-07T08:00".parse().expect("dt"), now).expect("moved");
        assert_eq!(kept.rule.weekdays, two_days.rule.weekdays);
        let mut last_day = weekly_wednesday();
        last_day.rule.freq = Freq::Monthly;
        last_day.rule.weekdays = 0;
        last_day.rule.month_day = Some(-1);
        let (kept, first) =
            moved(&last_day, 0, "2026-12-10T09:00".parse().expect("dt"), now).expect("moved");
        assert_eq!(kept.rule.month_day, Some(-1));
        assert_eq!(first, at("2026-12-31T01:00:00Z"));
    }

    #[test]
    fn a_limited_series_keeps_what_it_has_left() {
        let now = at("2026-11-30T12:00:00Z");
        let mut three = weekly_wednesday();
        three.rule.count = Some(3);
        let to = "2026-12-03T07:30".parse().expect("dt");
        let (left, _) = moved(&three, 1, to, now).expect("two left");
        assert_eq!(left.rule.count, Some(2));
        assert_eq!(left.occurrences().count(), 2);
        assert!(moved(&three, 3, to, now).is_none(), "nothing left to move");
    }
}
