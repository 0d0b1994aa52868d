//! `set_digest`: sets this conversation's morning digest ("每天早上七點給我今日摘要"), or changes
//! the one it has (a new time, another place, "only when there is something"). One push a day:
//! the weather for the family's place, today's reminders and birthdays, open list items, watched
//! prices that moved, today's lunar date and festival or holiday.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Tool, ToolCtx, ToolError};
use crate::features::digest::schedule::{format_local_time, next_at, parse_local_time};
use crate::features::reminders::describe::local_time;
use crate::sources::weather::WeatherSource;
use crate::store::{NewDigest, Store};

/// The longest place name kept.
const MAX_PLACE_CHARS: usize = 40;

/// Arguments of `set_digest`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// The local time of the daily digest, HH:MM on a 24-hour clock ("早上七點" → "07:00"). Null to keep the current time when changing something else.
    pub time: Option<String>,
    /// The city whose weather the digest shows ("台北", "Kaohsiung"). Null to keep the one already set; if none is set yet, ask the family once.
    pub place: Option<String>,
    /// True to skip days with nothing beyond the weather ("有事才通知", "only when there is something"); false to send every day. Null to keep the current choice (every day for a new digest).
    pub only_when_something: Option<bool>,
}

/// The result of `set_digest`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// True when the chat had a digest that was changed.
    pub changed: bool,
    /// The daily time, HH:MM.
    pub time: String,
    /// The weather's place.
    pub place: String,
    /// Days with nothing to say are skipped.
    pub only_when_something: bool,
    /// The first digest, local.
    pub first: String,
}

/// The set_digest tool.
pub struct SetDigest {
    store: Store,
    weather: WeatherSource,
}

impl SetDigest {
    /// The tool over the store, checking places with the weather service.
    pub fn new(store: Store, weather: WeatherSource) -> Self {
        Self { store, weather }
    }
}

impl Tool for SetDigest {
    const NAME: &'static str = "set_digest";
    const DESCRIPTION: &'static str = "Set or change this chat's daily digest (每日摘要/今日摘要/早安摘要, 'morning summary'): one message a day at a chosen time with the weather for the family's city, today's reminders and birthdays, open shopping-list items, watched prices that moved, and today's lunar date with its festival or holiday. Also use it to change the time, the city, or to send it only on days with something to say. For a single reminder use reminder; to stop the digest use cancel_digest.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        let conversation = &ctx.conversation.id;
        let existing = self.store.digest(conversation).await?;
        let time = match (&args.time, &existing) {
            (Some(t), _) => {
                parse_local_time(t).map_err(|e| ToolError::InvalidArgs(e.to_string()))?
            }
            (None, Some(row)) => parse_local_time(&row.local_time)
                .map_err(|e| ToolError::InvalidArgs(e.to_string()))?,
            (None, None) => {
                return Err(ToolError::InvalidArgs(
                    "ask at what time of day the digest should come, then pass it as HH:MM".into(),
                ));
            }
        };
        let place = match args.place.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
            Some(p) if p.chars().count() > MAX_PLACE_CHARS => {
                return Err(ToolError::InvalidArgs("the place name is too long".into()));
            }
            Some(p) => {
                let found = self
                    .weather
                    .geocode(p)
                    .await
                    .map_err(|e| ToolError::upstream("the weather service", e))?;
                if found.is_none() {
                    return Err(ToolError::NotFound(format!(
                        "no place called {p:?} was found; ask for a nearby city"
                    )));
                }
                p.to_string()
            }
            None => existing.as_ref().and_then(|r| r.place.clone()).ok_or_else(|| {
                ToolError::InvalidArgs(
                    "no place is set for the weather yet: ask the family once which city, then call again with place".into(),
                )
            })?,
        };
        let only_when_something = args
            .only_when_something
            .or(existing.as_ref().map(|r| r.only_when_something))
            .unwrap_or(false);
        let now = ctx.now();
        let first = next_at(time, &ctx.tz, now).ok_or_else(|| {
            ToolError::InvalidArgs("that time cannot be placed in this chat's time zone".into())
        })?;
        let local = format_local_time(time);
        self.store
            .save_digest(&NewDigest {
                conversation_id: conversation,
                local_time: &local,
                tz: ctx.tz.iana_name().unwrap_or("UTC"),
                place: Some(&place),
                lang: ctx.lang,
                only_when_something,
                next_at: first.as_millisecond(),
                created_by: ctx.user_id.as_deref(),
                now_ms: now.as_millisecond(),
            })
            .await?;
        Ok(Output {
            changed: existing.is_some(),
            time: local,
            place,
            only_when_something,
            first: local_time(first, &ctx.tz, ctx.lang),
        })
    }
}
