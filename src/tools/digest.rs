//! `digest`: sets this conversation's morning digest ("每天早上七點給我今日摘要"), changes the one
//! it has (a new time, another place, "only when there is something"), or stops it (`off`). One
//! push a day: the weather for the family's place, today's reminders and birthdays, open list
//! items, watched prices that moved, today's lunar date and festival or holiday. With no place
//! named it keeps the one set, else takes the family's home (`HEARTH_HOME_LOCATION`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Tool, ToolCtx, ToolError};
use crate::features::digest::schedule::{format_local_time, next_at, parse_local_time};
use crate::features::reminders::describe::local_time;
use crate::sources::weather::WeatherSource;
use crate::store::{NewDigest, Store};

/// The longest place name kept.
const MAX_PLACE_CHARS: usize = 40;

/// Arguments of `digest`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {
    /// HH:MM (早上七點 → 07:00); null keeps it.
    pub time: Option<String>,
    /// The weather's city; null keeps it.
    pub place: Option<String>,
    /// true: only days with more than the weather (有事才通知).
    pub only_when_something: Option<bool>,
    /// true: stop (不要每日摘要了).
    pub off: Option<bool>,
}

/// The digest as set.
#[derive(Debug, Clone, Serialize)]
pub struct Set {
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

/// The result of `digest`.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Output {
    /// Set or changed.
    Set(Set),
    /// Stopped.
    Stopped {
        /// Always true.
        off: bool,
    },
}

/// The digest tool.
pub struct Digest {
    store: Store,
    weather: WeatherSource,
    home: Option<String>,
}

impl Digest {
    /// The tool over the store, checking places with the weather service; `home` is the place
    /// of a digest set without one.
    pub fn new(store: Store, weather: WeatherSource, home: Option<String>) -> Self {
        Self { store, weather, home }
    }
}

impl Tool for Digest {
    const NAME: &'static str = "digest";
    const DESCRIPTION: &'static str = "This chat's daily digest (每日摘要, 早安摘要): weather, today's reminders and birthdays, list items, moved prices, lunar date, official alerts. Set, change, or off.";
    type Args = Args;
    type Output = Output;
    const CHANGES_STATE: bool = true;

    fn check(&self, _ctx: &ToolCtx, args: &Args) -> Result<(), ToolError> {
        if let Some(place) = args.place.as_deref()
            && place.trim().chars().count() > MAX_PLACE_CHARS
        {
            return Err(ToolError::InvalidArgs("the place name is too long".into()));
        }
        match (&args.off, &args.time) {
            (Some(true), _) | (_, None) => Ok(()),
            (_, Some(t)) => {
                parse_local_time(t).map(|_| ()).map_err(|e| ToolError::InvalidArgs(e.to_string()))
            }
        }
    }

    async fn run(&self, ctx: &ToolCtx, args: Args) -> Result<Output, ToolError> {
        self.check(ctx, &args)?;
        let conversation = &ctx.conversation.id;
        if args.off == Some(true) {
            if self.store.cancel_digest(conversation).await? {
                return Ok(Output::Stopped { off: true });
            }
            return Err(ToolError::NotFound("this chat has no daily digest".into()));
        }
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
            None => existing
                .as_ref()
                .and_then(|r| r.place.clone())
                .or_else(|| self.home.clone())
                .ok_or_else(|| {
                    ToolError::InvalidArgs(
                        "no place is set and the family's home is not known: ask which city, then call again with place".into(),
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
        Ok(Output::Set(Set {
            changed: existing.is_some(),
            time: local,
            place,
            only_when_something,
            first: local_time(first, &ctx.tz, ctx.lang),
        }))
    }
}
