//! Schedules against their expected local dates: DST, month ends, intervals, count and until,
//! lunar rules through leap months, workdays through holidays and make-up Saturdays.

use super::*;
use crate::store::LunarMonth;
use jiff::civil::datetime;

fn tz(name: &str) -> TimeZone {
    TimeZone::get(name).expect("zone")
}

/// A schedule in Taipei from `anchor`, following `rule`.
fn schedule_with(rule: Recurrence, anchor: DateTime) -> Schedule {
    Schedule { rule, ..Schedule::once(tz("Asia/Taipei"), anchor) }
}

fn schedule(freq: Freq, anchor: DateTime) -> Schedule {
    schedule_with(Recurrence { freq, ..Recurrence::once() }, anchor)
}

fn local(s: &Schedule, n: usize) -> Vec<String> {
    s.occurrences()
        .take(n)
        .map(|(_, t)| t.to_zoned_datetime(s.tz.clone()).strftime("%Y-%m-%d %H:%M %a").to_string())
        .collect()
}

#[test]
fn daily_reminder_keeps_its_local_time_across_new_york_dst() {
    let s = Schedule {
        tz: tz("America/New_York"),
        ..schedule(Freq::Daily, datetime(2026, 3, 7, 8, 0, 0, 0))
    };
    let utc: Vec<String> = s.occurrences().take(3).map(|(_, t)| t.to_string()).collect();
    assert_eq!(utc, ["2026-03-07T13:00:00Z", "2026-03-08T12:00:00Z", "2026-03-09T12:00:00Z"]);
}

#[test]
fn a_time_inside_the_dst_gap_moves_forward() {
    let s = Schedule {
        tz: tz("America/New_York"),
        ..schedule(Freq::Once, datetime(2026, 3, 8, 2, 30, 0, 0))
    };
    let (_, t) = s.occurrences().next().expect("one");
    assert_eq!(t.to_zoned_datetime(s.tz.clone()).strftime("%H:%M %z").to_string(), "03:30 -0400");
}

#[test]
fn monthly_on_the_31st_clamps_without_drifting() {
    let s = schedule(Freq::Monthly, datetime(2026, 1, 31, 9, 0, 0, 0));
    assert_eq!(
        local(&s, 4),
        [
            "2026-01-31 09:00 Sat",
            "2026-02-28 09:00 Sat",
            "2026-03-31 09:00 Tue",
            "2026-04-30 09:00 Thu"
        ]
    );
}

#[test]
fn monthly_last_day_and_fifth_of_month() {
    let monthly_on =
        |month_day| Recurrence { freq: Freq::Monthly, month_day, ..Recurrence::once() };
    let last = schedule_with(monthly_on(Some(-1)), datetime(2026, 2, 1, 9, 0, 0, 0));
    assert_eq!(local(&last, 2), ["2026-02-28 09:00 Sat", "2026-03-31 09:00 Tue"]);
    let fifth = schedule_with(monthly_on(Some(5)), datetime(2026, 12, 1, 9, 0, 0, 0));
    assert_eq!(local(&fifth, 2), ["2026-12-05 09:00 Sat", "2027-01-05 09:00 Tue"]);
}

#[test]
fn weekly_on_several_days_every_other_week() {
    let s = schedule_with(
        Recurrence {
            freq: Freq::Weekly,
            weekdays: 0b0000_0101, // Monday and Wednesday
            interval: 2,
            ..Recurrence::once()
        },
        datetime(2026, 12, 2, 19, 0, 0, 0), // a Wednesday
    );
    assert_eq!(
        local(&s, 4),
        [
            "2026-12-02 19:00 Wed",
            "2026-12-14 19:00 Mon",
            "2026-12-16 19:00 Wed",
            "2026-12-28 19:00 Mon"
        ]
    );
}

#[test]
fn yearly_on_february_29th_falls_back_to_the_28th() {
    let s = schedule(Freq::Yearly, datetime(2028, 2, 29, 7, 0, 0, 0));
    assert_eq!(
        local(&s, 3),
        ["2028-02-29 07:00 Tue", "2029-02-28 07:00 Wed", "2030-02-28 07:00 Thu"]
    );
}

#[test]
fn count_and_until_end_the_series() {
    let daily = Recurrence { freq: Freq::Daily, ..Recurrence::once() };
    let first = datetime(2026, 12, 1, 8, 0, 0, 0);
    let counted = schedule_with(Recurrence { count: Some(3), ..daily }, first);
    assert_eq!(counted.occurrences().count(), 3);
    let until: Timestamp = "2026-12-03T00:00:00Z".parse().expect("instant"); // 08:00 Taipei on the 3rd
    let bounded = schedule_with(Recurrence { until: Some(until), ..daily }, first);
    assert_eq!(
        local(&bounded, 10),
        ["2026-12-01 08:00 Tue", "2026-12-02 08:00 Wed", "2026-12-03 08:00 Thu"]
    );
}

#[test]
fn next_after_and_last_before() {
    let s = schedule(Freq::Daily, datetime(2026, 12, 1, 8, 0, 0, 0));
    let now: Timestamp = "2026-12-03T01:00:00Z".parse().expect("instant"); // 09:00 Taipei on the 3rd
    let (i, next) = s.next_after(now).expect("next");
    assert_eq!((i, next.to_string()), (3, "2026-12-04T00:00:00Z".to_string()));
    let (i, last) = s.last_at_or_before(now).expect("last");
    assert_eq!((i, last.to_string()), (2, "2026-12-03T00:00:00Z".to_string()));
    assert!(
        Schedule::once(tz("Asia/Taipei"), datetime(2026, 12, 1, 8, 0, 0, 0))
            .next_after(now)
            .is_none()
    );
}

fn dates(s: &Schedule, n: usize) -> Vec<String> {
    local(s, n).into_iter().map(|d| d[..10].to_string()).collect()
}

#[test]
fn every_lunar_first_and_fifteenth_walks_through_the_leap_month() {
    // From 2025-07-01 (六月初七): 六月十五, 閏六月初一, 閏六月十五, 七月初一.
    let s = schedule_with(
        Recurrence { freq: Freq::LunarMonthly, lunar_days: 1 | 1 << 14, ..Recurrence::once() },
        datetime(2025, 7, 1, 7, 0, 0, 0),
    );
    assert_eq!(dates(&s, 4), ["2025-07-09", "2025-07-25", "2025-08-08", "2025-08-23"]);
}

#[test]
fn lunar_new_year_every_year_matches_the_published_dates() {
    let s = schedule_with(
        Recurrence {
            freq: Freq::LunarYearly,
            lunar_days: 1,
            lunar_month: Some(LunarMonth { number: 1, leap: false }),
            ..Recurrence::once()
        },
        datetime(2026, 12, 1, 8, 0, 0, 0),
    );
    assert_eq!(dates(&s, 3), ["2027-02-06", "2028-01-26", "2029-02-13"]);
    let mid_autumn = Schedule {
        rule: Recurrence {
            lunar_days: 1 << 14,
            lunar_month: Some(LunarMonth { number: 8, leap: false }),
            ..s.rule
        },
        ..s.clone()
    };
    assert_eq!(dates(&mid_autumn, 2), ["2027-09-15", "2028-10-03"]);
}

#[test]
fn a_leap_month_birthday_falls_on_the_regular_month_in_years_without_it() {
    // 閏六月初八: 2025-08-01 in 2025 (which has 閏六月), 六月初八 in the years after.
    let s = schedule_with(
        Recurrence {
            freq: Freq::LunarYearly,
            lunar_days: 1 << 7,
            lunar_month: Some(LunarMonth { number: 6, leap: true }),
            ..Recurrence::once()
        },
        datetime(2025, 1, 1, 9, 0, 0, 0),
    );
    let expected: Vec<String> = [
        (2025, LunarMonth { number: 6, leap: true }),
        (2026, LunarMonth { number: 6, leap: false }),
    ]
    .into_iter()
    .map(|(y, m)| lunar::gregorian(y, m, 8).expect("date").to_string())
    .collect();
    assert_eq!(dates(&s, 2), expected);
    assert_eq!(expected[0], "2025-08-01");
}

#[test]
fn workdays_skip_holidays_and_include_make_up_saturdays() {
    let cal = WorkCalendar::builtin().expect("calendar");
    let s = Schedule {
        work_calendar: cal.clone(),
        ..schedule(Freq::Workdays, datetime(2025, 1, 24, 7, 0, 0, 0)) // a Friday
    };
    // 01-27 bridge day off, 01-28..01-31 除夕 and 春節, 02-08 Saturday 補班.
    assert_eq!(dates(&s, 4), ["2025-01-24", "2025-02-03", "2025-02-04", "2025-02-05"]);
    let around_make_up = Schedule {
        work_calendar: cal.clone(),
        ..schedule(Freq::Workdays, datetime(2025, 2, 7, 7, 0, 0, 0))
    };
    assert_eq!(dates(&around_make_up, 3), ["2025-02-07", "2025-02-08", "2025-02-10"]);
    // 中秋 2026 (Friday 09-25), then 孔子誕辰 (Monday 09-28).
    let mid_autumn = Schedule {
        work_calendar: cal,
        ..schedule(Freq::Workdays, datetime(2026, 9, 24, 7, 0, 0, 0))
    };
    assert_eq!(dates(&mid_autumn, 2), ["2026-09-24", "2026-09-29"]);
}

#[test]
fn past_the_known_years_workdays_are_monday_to_friday() {
    let s = Schedule {
        work_calendar: WorkCalendar::builtin().expect("calendar"),
        ..schedule(Freq::Workdays, datetime(2028, 10, 2, 7, 0, 0, 0))
    };
    // 2028-10-03 is 中秋 but 2028 is not in the calendar yet.
    assert_eq!(dates(&s, 3), ["2028-10-02", "2028-10-03", "2028-10-04"]);
}

use proptest::prelude::*;

proptest! {
    #[test]
    fn occurrences_strictly_increase_and_keep_the_wall_clock(
        freq in prop::sample::select(vec![Freq::Daily, Freq::Weekly, Freq::Monthly, Freq::Yearly]),
        interval in 1u32..4, day in 1i8..29, month in 1i8..13, hour in 0i8..24, weekdays in 0u8..128,
        zone in prop::sample::select(vec!["Asia/Taipei", "America/New_York", "Europe/London"]),
    ) {
        let s = Schedule {
            tz: tz(zone),
            ..schedule_with(
                Recurrence { freq, interval, weekdays, ..Recurrence::once() },
                datetime(2026, month, day, hour, 15, 0, 0),
            )
        };
        let all: Vec<(u32, Timestamp)> = s.occurrences().take(40).collect();
        prop_assert!(all.len() == 40);
        for pair in all.windows(2) {
            prop_assert!(pair[0].1 < pair[1].1, "not increasing");
            prop_assert_eq!(pair[0].0 + 1, pair[1].0);
        }
        for (_, t) in &all {
            let z = t.to_zoned_datetime(s.tz.clone());
            // Same minute always; same hour except when the hour fell into a DST gap.
            prop_assert_eq!(z.minute(), 15);
            let shifted = (z.hour() - hour).rem_euclid(24);
            prop_assert!(shifted == 0 || shifted == 1, "{} at {}", z, hour);
        }
    }
}

#[test]
fn lunar_and_workday_reminders_keep_their_local_time_across_new_york_dst() {
    // 2027-03-14: New York moves to EDT. 二月初一 2027-03-08 (EST), 二月十五 2027-03-22 (EDT).
    let s = Schedule {
        tz: tz("America/New_York"),
        ..schedule_with(
            Recurrence { freq: Freq::LunarMonthly, lunar_days: 1 | 1 << 14, ..Recurrence::once() },
            datetime(2027, 3, 1, 7, 0, 0, 0),
        )
    };
    let utc: Vec<String> = s.occurrences().take(2).map(|(_, t)| t.to_string()).collect();
    assert_eq!(utc, ["2027-03-08T12:00:00Z", "2027-03-22T11:00:00Z"]);
    let workdays = Schedule {
        tz: tz("America/New_York"),
        work_calendar: WorkCalendar::builtin().expect("calendar"),
        ..schedule(Freq::Workdays, datetime(2027, 3, 12, 7, 0, 0, 0)) // a Friday
    };
    let utc: Vec<String> = workdays.occurrences().take(2).map(|(_, t)| t.to_string()).collect();
    assert_eq!(utc, ["2027-03-12T12:00:00Z", "2027-03-15T11:00:00Z"]);
}
