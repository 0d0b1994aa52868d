//! `official_alerts`: Taiwan's official word for the family's place. `check` answers
//! 「明天要上班上課嗎？」/「有放颱風假嗎」 for a day: the working calendar (holiday, make-up
//! workday) with the latest work/school suspension announced for each area of the place and the
//! typhoon and heavy-rain warnings standing there, each with its source and time, and the latest
//! earthquake felt in its county (「剛剛是不是有地震」) — and says nothing was announced when that
//! is so; no date means 明天 as the prompt's small-hours rule reads it. `follow` has the alerts
//! pushed to this chat as they come (「颱風假、地震有消息就通知我們」), `stop` ends that. The
//! place is the one named, else the one this chat follows the alerts for, else its digest's,
//! else the family's home.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Tool, ToolCtx, ToolError};
use crate::features::official_alerts::day::{self, CalendarDay, DayAnswer};
use crate::features::official_alerts::ops::{Follow, OfficialAlertOps};
use crate::features::official_alerts::reading;
use crate::features::reminders::describe::local_time;
use crate::sources::calendar::WorkCalendar;
use crate::sources::cap::CapAlert;
use crate::sources::cap::areas::Place;

/// How far back announcements are looked at (a suspension is announced the evening before).
const LOOK_BACK: jiff::SignedDuration = jiff::SignedDuration::from_hours(72);

/// What to do.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Answer for `date`.
    Check,
    /// Push alerts here.
    Follow,
    /// Stop pushing.
    Stop,
}

/// Arguments of `official_alerts`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// What to do.
    pub action: Action,
    /// check: YYYY-MM-DD; null: 明天.
    pub date: Option<String>,
    /// A place named in Taiwan.
    pub place: Option<String>,
    /// follow: earthquakes from intensity 1–7; null: 4.
    pub min_intensity: Option<u8>,
    /// follow: true if quiet hours hold urgent ones too.
    pub quiet_holds_all: Option<bool>,
}

/// What `follow` set.
#[derive(Debug, Clone, Serialize)]
pub struct Following {
    /// Always true.
    pub following: bool,
    /// The place the alerts are for.
    pub place: String,
    /// Earthquakes felt there from this intensity are told.
    pub earthquakes_from: u8,
    /// Quiet hours hold even suspensions and earthquakes.
    pub quiet_holds_all: bool,
    /// What the family should know.
    pub note: &'static str,
}

/// The result of `official_alerts`.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Output {
    /// Of `check`.
    Day(Box<Checked>),
    /// Of `follow`.
    Following(Following),
    /// Of `stop`.
    Stopped {
        /// Always true.
        stopped: bool,
    },
}

/// The answer of `check`, with how fresh the alerts are.
#[derive(Debug, Clone, Serialize)]
pub struct Checked {
    /// The answer.
    #[serde(flatten)]
    pub day: DayAnswer,
    /// When the alerts were last read, local time; null when they are not being read (then
    /// say so rather than that nothing was announced).
    pub alerts_read_at: Option<String>,
}

/// The official_alerts tool.
pub struct OfficialAlerts {
    ops: OfficialAlertOps,
    calendar: WorkCalendar,
    home: Option<String>,
}

impl OfficialAlerts {
    /// The tool over the alerts' operations (the watcher keeps the alerts), the working
    /// calendar and the family's home.
    pub fn new(ops: OfficialAlertOps, calendar: WorkCalendar, home: Option<String>) -> Self {
        Self { ops, calendar, home }
    }

    /// The place: the one named, else the followed one, else the digest's, else home.
    async fn place(&self, ctx: &ToolCtx, named: Option<&str>) -> Result<Place, ToolError> {
        let written = match named.map(str::trim).filter(|n| !n.is_empty()) {
            Some(n) => Some(n.to_string()),
            None => self.ops.known_place(ctx).await?,
        };
        let written = written.or(self.home.clone()).ok_or_else(|| {
            ToolError::InvalidArgs(
                "no place is known for this chat: ask which city or county".into(),
            )
        })?;
        Place::resolve(&written).ok_or_else(|| {
            ToolError::NotFound(format!(
                "{written:?} names no county or city in Taiwan: the official alerts cover Taiwan only; ask for the county or city (新北市板橋區, not 板橋)"
            ))
        })
    }

    async fn check(&self, ctx: &ToolCtx, args: &Args) -> Result<Checked, ToolError> {
        let place = self.place(ctx, args.place.as_deref()).await?;
        let now = ctx.now();
        // Suspensions are announced for days in Taiwan's time.
        let today = now.to_zoned_datetime(reading::taiwan()).date();
        let date = match args.date.as_deref() {
            Some(d) => d
                .parse::<jiff::civil::Date>()
                .map_err(|_| ToolError::InvalidArgs(format!("date {d:?} is not YYYY-MM-DD")))?,
            // 明天 as the prompt defines it: after midnight, the coming day.
            None => crate::platform::clock::coming_day(&now.to_zoned_datetime(reading::taiwan())),
        };
        if (date - today).get_days().abs() > 366 {
            return Err(ToolError::InvalidArgs("ask about a day within a year".into()));
        }
        let since = now.saturating_sub(LOOK_BACK).unwrap_or(now).as_millisecond();
        let alerts: Vec<CapAlert> = self.ops.since(since).await?;
        let weekend =
            matches!(date.weekday(), jiff::civil::Weekday::Saturday | jiff::civil::Weekday::Sunday);
        let calendar = CalendarDay {
            workday: self.calendar.is_workday(date),
            holiday: self.calendar.day_off(date).map(str::to_string),
            make_up_workday: weekend && self.calendar.is_workday(date),
        };
        let day = day::answer(date, &place, calendar, &alerts, now, ctx.lang);
        let read_at = self.ops.feed_read_at().await?;
        let tz = reading::taiwan();
        Ok(Checked {
            day,
            alerts_read_at: read_at
                .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
                .map(|t| local_time(t, &tz, ctx.lang)),
        })
    }
}

impl Tool for OfficialAlerts {
    const NAME: &'static str = "official_alerts";
    const DESCRIPTION: &'static str = "Taiwan's official 停班停課, typhoon, heavy-rain and earthquake alerts for the chat's place. check: a day's, with the latest quake (明天要上班上課嗎, 剛剛有地震嗎); follow: push them here (有消息通知我們); stop.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    fn changes_state(&self, args: &Args) -> bool {
        args.action != Action::Check
    }

    fn check(&self, _ctx: &ToolCtx, args: &Args) -> Result<(), ToolError> {
        match args.min_intensity {
            Some(level) if !(1..=7).contains(&level) => {
                Err(ToolError::InvalidArgs("min_intensity must be between 1 and 7".into()))
            }
            _ => Ok(()),
        }
    }

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        Tool::check(self, ctx, &args)?;
        match args.action {
            Action::Check => Ok(Output::Day(Box::new(self.check(ctx, &args).await?))),
            Action::Follow => {
                let place = self.place(ctx, args.place.as_deref()).await?;
                let asked = Follow {
                    place: args.place.as_ref().map(|_| place.label()),
                    min_intensity: args.min_intensity.map(i64::from),
                    quiet_holds_all: args.quiet_holds_all,
                };
                let follow = self.ops.follow(ctx, asked).await?;
                let level = u8::try_from(follow.min_intensity).unwrap_or(4);
                Ok(Output::Following(Following {
                    following: true,
                    place: place.label(),
                    earthquakes_from: level,
                    quiet_holds_all: follow.quiet_holds_all,
                    note: if follow.quiet_holds_all {
                        "Every alert waits for this chat's quiet hours to end. Each comes once; an update or cancellation is told as such."
                    } else {
                        "Suspensions and earthquakes come at once, even in quiet hours; typhoon and rain warnings wait for them to end. Each alert comes once; an update or cancellation is told as such."
                    },
                }))
            }
            Action::Stop => {
                if self.ops.stop(ctx).await? {
                    Ok(Output::Stopped { stopped: true })
                } else {
                    Err(ToolError::NotFound("this chat does not follow the official alerts".into()))
                }
            }
        }
    }
}
