//! Setting a chat's daily digest, changing it or stopping it, as typed operations run for the
//! chat and member of their context. The `digest` tool and the family page's settings both call
//! these: a time not given keeps the one set, a place is checked with the weather service (none:
//! the one set, else the family's home).

use serde::Serialize;

use crate::contract::{ToolCtx, ToolError};
use crate::features::digest::schedule::{format_local_time, next_at, parse_local_time};
use crate::features::reminders::describe::local_time;
use crate::sources::weather::WeatherSource;
use crate::store::{DigestRow, NewDigest, Store, StoreError};

/// The longest place name kept.
pub const MAX_PLACE_CHARS: usize = 40;

/// A digest to set, or a change to the one set; what is `None` is kept (or defaulted).
#[derive(Debug, Default)]
pub struct DigestRequest {
    /// HH:MM.
    pub time: Option<String>,
    /// The weather's city.
    pub place: Option<String>,
    /// Only days with more than the weather.
    pub only_when_something: Option<bool>,
}

impl DigestRequest {
    /// The request's own faults, found before anything is looked up.
    pub fn check(&self) -> Result<(), ToolError> {
        if let Some(place) = self.place.as_deref()
            && place.trim().chars().count() > MAX_PLACE_CHARS
        {
            return Err(ToolError::InvalidArgs("the place name is too long".into()));
        }
        match &self.time {
            None => Ok(()),
            Some(t) => {
                parse_local_time(t).map(|_| ()).map_err(|e| ToolError::InvalidArgs(e.to_string()))
            }
        }
    }
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

/// The daily digests of every chat, over the store, checking places with the weather service.
#[derive(Clone)]
pub struct DigestSetting {
    store: Store,
    weather: WeatherSource,
    home: Option<String>,
}

impl DigestSetting {
    /// The digests kept in `store`; `home` is the place of a digest set without one.
    pub fn new(store: Store, weather: WeatherSource, home: Option<String>) -> Self {
        Self { store, weather, home }
    }

    /// The digest of `chat`, if it has one.
    pub async fn of_chat(&self, chat: &str) -> Result<Option<DigestRow>, StoreError> {
        self.store.digests().get(chat).await
    }

    /// Sets `ctx`'s chat's digest, or changes the one it has.
    pub async fn set(&self, ctx: &ToolCtx, request: DigestRequest) -> Result<Set, ToolError> {
        request.check()?;
        let conversation = &ctx.conversation.id;
        let existing = self.store.digests().get(conversation).await?;
        let said = request.time.as_deref().or(existing.as_ref().map(|r| r.local_time.as_str()));
        let Some(said) = said else {
            return Err(ToolError::InvalidArgs(
                "ask at what time of day the digest should come, then pass it as HH:MM".into(),
            ));
        };
        let time = parse_local_time(said).map_err(|e| ToolError::InvalidArgs(e.to_string()))?;
        let place = match request.place.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
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
        let only_when_something = request
            .only_when_something
            .or(existing.as_ref().map(|r| r.only_when_something))
            .unwrap_or(false);
        let now = ctx.now();
        let first = next_at(time, &ctx.tz, now).ok_or_else(|| {
            ToolError::InvalidArgs("that time cannot be placed in this chat's time zone".into())
        })?;
        let local = format_local_time(time);
        self.store
            .digests()
            .save(&NewDigest {
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
        Ok(Set {
            changed: existing.is_some(),
            time: local,
            place,
            only_when_something,
            first: local_time(first, &ctx.tz, ctx.lang),
        })
    }

    /// Stops `ctx`'s chat's digest; not found when it has none.
    pub async fn stop(&self, ctx: &ToolCtx) -> Result<(), ToolError> {
        if self.store.digests().cancel(&ctx.conversation.id).await? {
            return Ok(());
        }
        Err(ToolError::NotFound("this chat has no daily digest".into()))
    }
}
