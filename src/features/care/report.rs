//! The weekly report of a plan: per day of the last seven, doses confirmed and not, and the
//! readings' daily means — the chart's data — with the week's totals. Pure functions over the
//! stored doses and readings.

use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;

use super::steps::State;
use crate::contract::chart::CareDay;
use crate::store::{DoseRow, ReadingRow};

/// The days a report covers.
pub const DAYS: i32 = 7;

/// A week's summary.
#[derive(Debug, Clone, PartialEq)]
pub struct Week {
    /// Each day, oldest first.
    pub days: Vec<CareDay>,
    /// Doses confirmed.
    pub taken: u32,
    /// Doses not confirmed (asked and never confirmed, or missed).
    pub missed: u32,
    /// Readings kept.
    pub readings: usize,
    /// Readings outside the plan's limits.
    pub outside: usize,
}

/// The seven days ending with `last` (in `tz`), from what was kept of them. A dose still open
/// (asked a moment ago) counts as neither.
pub fn week(last: Date, tz: &TimeZone, doses: &[DoseRow], readings: &[ReadingRow]) -> Week {
    let date_of = |ms: i64| {
        Timestamp::from_millisecond(ms).ok().map(|t| t.to_zoned_datetime(tz.clone()).date())
    };
    let mut days = Vec::new();
    let (mut taken, mut missed) = (0u32, 0u32);
    for back in (0..DAYS).rev() {
        let Ok(date) = last.checked_sub(jiff::Span::new().days(back)) else { continue };
        let mut day = CareDay {
            label: format!("{:02}/{:02}", date.month(), date.day()),
            taken: 0,
            missed: 0,
            systolic: None,
            diastolic: None,
            glucose: None,
        };
        for dose in doses.iter().filter(|d| date_of(d.due_at) == Some(date)) {
            match State::parse(&dose.state) {
                Some(State::Taken) => day.taken += 1,
                Some(State::Told | State::GroupTold | State::Handled | State::Missed) => {
                    day.missed += 1
                }
                _ => {}
            }
        }
        let of_day: Vec<&ReadingRow> =
            readings.iter().filter(|r| date_of(r.taken_at) == Some(date)).collect();
        let mean = |pick: fn(&ReadingRow) -> Option<i64>| {
            let values: Vec<f64> =
                of_day.iter().filter_map(|r| pick(r)).map(|v| v as f64).collect();
            (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
        };
        day.systolic = mean(|r| r.systolic);
        day.diastolic = mean(|r| r.diastolic);
        day.glucose = mean(|r| r.glucose);
        taken += day.taken;
        missed += day.missed;
        days.push(day);
    }
    let in_week = |r: &&ReadingRow| {
        date_of(r.taken_at).is_some_and(|d| d <= last && (last - d).get_days() < DAYS)
    };
    Week {
        days,
        taken,
        missed,
        readings: readings.iter().filter(in_week).count(),
        outside: readings.iter().filter(in_week).filter(|r| r.outside.is_some()).count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let last = jiff::civil::date(2026, 12, 6);
        let doses = [
            dose("2026-12-06T00:00:00Z", "taken"),
            dose("2026-12-06T12:00:00Z", "group_told"),
            dose("2026-12-05T00:00:00Z", "handled"),
            dose("2026-12-05T12:00:00Z", "asked"),
            dose("2026-11-20T00:00:00Z", "taken"),
        ];
        let readings = [
            reading("2026-12-06T01:00:00Z", 130, false),
            reading("2026-12-06T13:00:00Z", 170, true),
        ];
        let w = week(last, &tz, &doses, &readings);
        assert_eq!(w.days.len(), 7);
        assert_eq!(w.days[6].label, "12/06");
        assert_eq!((w.days[6].taken, w.days[6].missed, w.days[6].systolic), (1, 1, Some(150.0)));
        assert_eq!((w.days[5].taken, w.days[5].missed), (0, 1), "open doses count as neither");
        assert_eq!((w.taken, w.missed, w.readings, w.outside), (1, 2, 2, 1));
    }
}
