//! 📅 change time: LINE's date-time picker on reminder cards, signed and bound to the chat like
//! every button; what a choice does is in [`super::actions`]. On a delivered reminder it moves *that occurrence* (a one-off copy at the chosen
//! time, like ⏰ but to any time; a snoozed copy is moved instead of doubled); on the
//! confirmation card it moves *the reminder*: the series starts again at the chosen date and
//! time (a weekly reminder on one day moves to the chosen weekday, a monthly one to the chosen
//! day). The choice is a local time in the reminder's zone (the picker has none); a time in the
//! past, or more than a year ahead, is refused kindly and changes nothing.

use jiff::civil::DateTime;
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use crate::contract::CardButton;
use crate::features::button::Action;
use crate::features::reminders::recurrence::Schedule;
use crate::features::reminders::taps::Occurrence;
use crate::line::webhook::Picked;
use crate::platform::i18n::Lang;

/// How far ahead a reminder can be moved.
pub const HORIZON: SignedDuration = SignedDuration::from_hours(366 * 24);
/// The picker's local date-time format.
pub const FORMAT: &str = "%Y-%m-%dT%H:%M";

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
