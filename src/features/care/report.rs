//! The weekly report of a plan: per day, doses confirmed and not, and the readings' daily means
//! — the chart's data — with the week's totals. A report covers the seven days up to its time,
//! and the next one starts where it ended, so every dose is in exactly one report; a dose still
//! open when the report is made is counted as waiting. [`week`] is a pure function over the
//! stored doses and readings; [`super::ops::CareOps::week`] reads them.

use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};

use crate::contract::chart::CareDay;
use crate::features::care::steps::State;
use crate::store::{DoseRow, ReadingRow};

/// The stretch a report covers.
pub const SPAN: SignedDuration = SignedDuration::from_hours(7 * 24);

/// A week's summary.
#[derive(Debug, Clone, PartialEq)]
pub struct Week {
    /// Each day, oldest first.
    pub days: Vec<CareDay>,
    /// Doses confirmed.
    pub taken: u32,
    /// Doses not confirmed (the family was told, or nobody could be asked).
    pub missed: u32,
    /// Doses still waiting for a confirmation.
    pub waiting: u32,
    /// Readings kept.
    pub readings: usize,
    /// Readings outside the plan's limits.
    pub outside: usize,
}

/// The summary of `doses` and `readings` from `from` until `to` (excluded), by local day in
/// `tz`; a first day with nothing on it (the report before ended that evening) is left out.
pub fn week(
    from: Timestamp,
    to: Timestamp,
    tz: &TimeZone,
    doses: &[DoseRow],
    readings: &[ReadingRow],
) -> Week {
    let within = |ms: i64| (from.as_millisecond()..to.as_millisecond()).contains(&ms);
    let date_of = |ms: i64| {
        Timestamp::from_millisecond(ms).ok().map(|t| t.to_zoned_datetime(tz.clone()).date())
    };
    let doses: Vec<&DoseRow> = doses.iter().filter(|d| within(d.due_at)).collect();
    let readings: Vec<&ReadingRow> = readings.iter().filter(|r| within(r.taken_at)).collect();
    let first = from.to_zoned_datetime(tz.clone()).date();
    let last = to
        .saturating_sub(SignedDuration::from_millis(1))
        .unwrap_or(to)
        .to_zoned_datetime(tz.clone())
        .date();
    let mut week = Week {
        days: Vec::new(),
        taken: 0,
        missed: 0,
        waiting: 0,
        readings: readings.len(),
        outside: readings.iter().filter(|r| r.outside.is_some()).count(),
    };
    let mut date = first;
    while date <= last {
        let mut day = CareDay {
            label: format!("{:02}/{:02}", date.month(), date.day()),
            taken: 0,
            missed: 0,
            systolic: None,
            diastolic: None,
            glucose: None,
        };
        let mut any = false;
        for dose in doses.iter().filter(|d| date_of(d.due_at) == Some(date)) {
            any = true;
            match State::parse(&dose.state) {
                Some(State::Taken) => day.taken += 1,
                Some(State::Told | State::GroupTold | State::Handled | State::Missed) => {
                    day.missed += 1
                }
                _ => week.waiting += 1,
            }
        }
        let of_day: Vec<&&ReadingRow> =
            readings.iter().filter(|r| date_of(r.taken_at) == Some(date)).collect();
        any |= !of_day.is_empty();
        let mean = |pick: fn(&ReadingRow) -> Option<i64>| {
            let values: Vec<f64> =
                of_day.iter().filter_map(|r| pick(r)).map(|v| v as f64).collect();
            (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
        };
        day.systolic = mean(|r| r.systolic);
        day.diastolic = mean(|r| r.diastolic);
        day.glucose = mean(|r| r.glucose);
        week.taken += day.taken;
        week.missed += day.missed;
        if any || date != first {
            week.days.push(day);
        }
        let Ok(next) = date.tomorrow() else { break };
        date = next;
    }
    week
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().expect("instant")
    }

    fn dose(due: &str, state: &str) -> DoseRow {
        DoseRow {
            id: 1,
            plan_id: 1,
            conversation_id: "C".into(),
            due_at: due.parse::<Timestamp>().expect("instant").as_millisecond(),
            state: state.into(),
            step_at: None,
            prompts: 1,
            settled_at: None,
            settled_by: None,
        }
    }

    fn reading(at: &str, systolic: i64, outside: bool) -> ReadingRow {
        ReadingRow {
            id: 1,
            plan_id: 1,
            conversation_id: "C".into(),
            taken_at: at.parse::<Timestamp>().expect("instant").as_millisecond(),
            systolic: Some(systolic),
            diastolic: Some(80),
            pulse: None,
            glucose: None,
            reported_by: None,
            reporter_name: None,
            outside: outside.then(|| "收縮壓".into()),
            told_at: None,
        }
    }

    #[test]
    fn each_day_counts_its_doses_and_averages_its_readings() {
        let tz = TimeZone::get("Asia/Taipei").expect("zone");
        // From Sunday 29 November 20:00 until Sunday 6 December 20:00, Taipei.
        let (from, to) = (ts("2026-11-29T12:00:00Z"), ts("2026-12-06T12:00:00Z"));
        let doses = [
            dose("2026-12-06T00:00:00Z", "taken"),
            dose("2026-12-06T11:00:00Z", "group_told"),
            dose("2026-12-05T00:00:00Z", "handled"),
            dose("2026-12-05T12:00:00Z", "asked"),
            dose("2026-11-20T00:00:00Z", "taken"),
        ];
        let readings = [
            reading("2026-12-06T01:00:00Z", 130, false),
            reading("2026-12-06T10:00:00Z", 170, true),
        ];
        let w = week(from, to, &tz, &doses, &readings);
        assert_eq!(w.days.len(), 7, "the empty Sunday evening before is left out");
        assert_eq!(w.days[0].label, "11/30");
        assert_eq!(w.days[6].label, "12/06");
        assert_eq!((w.days[6].taken, w.days[6].missed, w.days[6].systolic), (1, 1, Some(150.0)));
        assert_eq!((w.days[5].taken, w.days[5].missed), (0, 1));
        assert_eq!((w.taken, w.missed, w.waiting, w.readings, w.outside), (1, 2, 1, 2, 1));
        // The next week starts where this one ended: the 20:00 dose of the 6th is in it.
        let next = week(
            to,
            ts("2026-12-13T12:00:00Z"),
            &tz,
            &[dose("2026-12-06T12:00:00Z", "taken")],
            &[],
        );
        assert_eq!((next.days[0].label.as_str(), next.taken), ("12/06", 1));
    }
}
