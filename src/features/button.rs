//! The contract of a button that changes state, and the machinery every such button shares.
//!
//! An action is a type: its value is the button's data, [`Action::NAME`] its wire name and
//! [`Action::run`] what a tap does. A card gets the button from the value
//! (`CancelReminder { id }.button(label, display_text)`), so the name is written once, on the
//! type. The data travels as the `i` token of the signed postback ([`crate::line::postback`]): it
//! serialises (serde) to a number or a short identifier, and is decoded back into the type when
//! the tap arrives. [`ActionRegistry`] erases the types; `crate::buttons` holds THE list. The
//! postback codec and the dispatcher know no particular action: a tap on an unknown action, or
//! with data its type cannot read, gets a polite "this button no longer works" and a log line.

use std::collections::HashMap;
use std::future::Future;

use futures::future::BoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::contract::Answer;
use crate::contract::{CardButton, ToolCtx};
use crate::features::deps::Deps;
use crate::line::postback::{Postback, is_token};
use crate::line::webhook::Picked;
use crate::platform::i18n::Lang;

/// A button action: its value is the button's data; [`Action::run`] is what a tap does.
///
/// The data must serialise to a number or a short identifier (`[A-Za-z0-9_-]{1,64}`): a
/// `#[serde(transparent)]` struct around an id, or a type with `#[serde(into/try_from =
/// "String")]`.
pub trait Action: Serialize + DeserializeOwned + Send + 'static {
    /// The wire name (`cancel_reminder`), `[A-Za-z0-9_-]{1,64}`; unique in the list.
    const NAME: &'static str;

    /// Carries out a tap verified for `ctx`'s conversation; acts on that conversation only.
    fn run(self, deps: &Deps, ctx: &ToolCtx) -> impl Future<Output = Answer> + Send;

    /// Carries out a tap on this action's date-time picker ([`Action::picker`]) with the local
    /// date-time the member picked (LINE's picker has no zone: it is the chat's). By default
    /// the value is ignored and the tap is an ordinary [`Action::run`].
    fn run_picked(
        self,
        deps: &Deps,
        ctx: &ToolCtx,
        picked: &Picked,
    ) -> impl Future<Output = Answer> + Send {
        let _ = picked;
        self.run(deps, ctx)
    }

    /// A date-time picker button (`mode: datetime`) carrying this data, opening at `initial`
    /// and limited to `min`…`max` (local `YYYY-MM-DDTHH:MM`); signed like [`Action::button`].
    fn picker(
        &self,
        label: impl Into<String>,
        initial: String,
        min: String,
        max: String,
    ) -> CardButton {
        let id = encode(self).unwrap_or_else(|e| {
            tracing::error!(action = Self::NAME, error = %e, "button data cannot be encoded");
            String::new()
        });
        CardButton::Picker {
            label: label.into(),
            action: Self::NAME.to_string(),
            id,
            initial,
            min,
            max,
        }
    }

    /// A button carrying this data; it is signed for the conversation the card goes to when the
    /// card is rendered. Data that cannot be encoded is logged, and the button is dropped then.
    fn button(&self, label: impl Into<String>, display_text: impl Into<String>) -> CardButton {
        let id = encode(self).unwrap_or_else(|e| {
            tracing::error!(action = Self::NAME, error = %e, "button data cannot be encoded");
            String::new()
        });
        CardButton::Postback {
            label: label.into(),
            action: Self::NAME.to_string(),
            id,
            display_text: display_text.into(),
        }
    }
}

/// Why action data could not become a button's token, or a token its data.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// The data did not serialise to a number or a short identifier.
    #[error("action data must be a number or a short identifier, not {0}")]
    NotAToken(String),
    /// Serialisation failed.
    #[error("action data does not serialise")]
    Serialize(#[source] serde_json::Error),
    /// The token does not decode into the action's data.
    #[error("{token:?} is not data of the {action} action")]
    Undecodable {
        /// The action.
        action: &'static str,
        /// The token from the postback.
        token: String,
    },
}

/// The token carrying `data` on a button.
pub fn encode<A: Action>(data: &A) -> Result<String, DataError> {
    let token = match serde_json::to_value(data).map_err(DataError::Serialize)? {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s,
        other => return Err(DataError::NotAToken(other.to_string())),
    };
    if is_token(&token) { Ok(token) } else { Err(DataError::NotAToken(token)) }
}

/// The data a button's token carries: read as a number when it is one, else as a string.
pub fn decode<A: Action>(token: &str) -> Result<A, DataError> {
    let number = token
        .parse::<i64>()
        .map(Value::from)
        .or_else(|_| token.parse::<u64>().map(Value::from))
        .ok();
    number
        .into_iter()
        .chain([Value::String(token.to_string())])
        .find_map(|value| serde_json::from_value(value).ok())
        .ok_or_else(|| DataError::Undecodable { action: A::NAME, token: token.to_string() })
}

/// An action with its type erased: decodes the token, then runs.
type Handler = for<'a> fn(
    &'a Deps,
    &'a ToolCtx,
    &'a str,
    Option<&'a Picked>,
) -> Result<BoxFuture<'a, Answer>, DataError>;

fn handler<A: Action>() -> Handler {
    |deps, ctx, token, picked| {
        let data = decode::<A>(token)?;
        Ok(match picked {
            Some(picked) => Box::pin(data.run_picked(deps, ctx, picked)),
            None => Box::pin(data.run(deps, ctx)),
        })
    }
}

/// Why an action registry could not be built.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ActionRegistryError {
    /// Two actions share a name.
    #[error("duplicate action name {0:?}")]
    Duplicate(&'static str),
    /// A name outside `[A-Za-z0-9_-]{{1,64}}`.
    #[error("bad action name {0:?}: use 1-64 of a-z A-Z 0-9 _ -")]
    BadName(&'static str),
}

/// Collects actions; [`ActionRegistryBuilder::build`] checks them.
#[derive(Default)]
pub struct ActionRegistryBuilder {
    entries: Vec<(&'static str, Handler)>,
}

impl ActionRegistryBuilder {
    /// Adds action `A`.
    pub fn action<A: Action>(mut self) -> Self {
        self.entries.push((A::NAME, handler::<A>()));
        self
    }

    /// The registry; refuses a duplicate or malformed name.
    pub fn build(self) -> Result<ActionRegistry, ActionRegistryError> {
        let mut handlers = HashMap::new();
        for (name, handler) in self.entries {
            if !is_token(name) {
                return Err(ActionRegistryError::BadName(name));
            }
            if handlers.insert(name, handler).is_some() {
                return Err(ActionRegistryError::Duplicate(name));
            }
        }
        Ok(ActionRegistry { handlers })
    }
}

/// The button actions by name, and the dispatch of verified taps.
pub struct ActionRegistry {
    handlers: HashMap<&'static str, Handler>,
}

impl std::fmt::Debug for ActionRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActionRegistry").field("actions", &self.names()).finish()
    }
}

/// Why a verified tap could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum TapError {
    /// No action has this name (a button of an older or newer hearth).
    #[error("unknown action {0:?}")]
    Unknown(String),
    /// The action's data did not decode.
    #[error(transparent)]
    Data(#[from] DataError),
}

impl ActionRegistry {
    /// An empty builder.
    pub fn builder() -> ActionRegistryBuilder {
        ActionRegistryBuilder::default()
    }

    /// The action names, sorted.
    pub fn names(&self) -> Vec<&'static str> {
        let mut names: Vec<_> = self.handlers.keys().copied().collect();
        names.sort_unstable();
        names
    }

    /// The work a verified tap asks for, not yet started; an error when no action takes it.
    pub fn prepare<'a>(
        &self,
        deps: &'a Deps,
        ctx: &'a ToolCtx,
        postback: &'a Postback,
    ) -> Result<BoxFuture<'a, Answer>, TapError> {
        self.prepare_picked(deps, ctx, postback, None)
    }

    /// [`ActionRegistry::prepare`] for a tap that carries what a date-time picker sent.
    pub fn prepare_picked<'a>(
        &self,
        deps: &'a Deps,
        ctx: &'a ToolCtx,
        postback: &'a Postback,
        picked: Option<&'a Picked>,
    ) -> Result<BoxFuture<'a, Answer>, TapError> {
        let handler = self
            .handlers
            .get(postback.action.as_str())
            .ok_or_else(|| TapError::Unknown(postback.action.clone()))?;
        Ok(handler(deps, ctx, &postback.id, picked)?)
    }

    /// Carries out a verified postback and says what happened; a tap no action takes gets a
    /// polite answer and a log line.
    pub async fn dispatch(&self, deps: &Deps, ctx: &ToolCtx, postback: &Postback) -> Answer {
        self.dispatch_picked(deps, ctx, postback, None).await
    }

    /// [`ActionRegistry::dispatch`] for a tap that may carry what a date-time picker sent.
    pub async fn dispatch_picked(
        &self,
        deps: &Deps,
        ctx: &ToolCtx,
        postback: &Postback,
        picked: Option<&Picked>,
    ) -> Answer {
        tracing::info!(action = postback.action, conversation = %ctx.conversation, "button tapped");
        match self.prepare_picked(deps, ctx, postback, picked) {
            Ok(work) => work.await,
            Err(e) => {
                tracing::warn!(error = %e, conversation = %ctx.conversation, "button not carried out");
                Answer { text: no_longer_works(ctx.lang).to_string(), ..Answer::default() }
            }
        }
    }
}

/// The answer to a button hearth no longer understands.
pub fn no_longer_works(lang: Lang) -> &'static str {
    lang.pick("這個按鈕已經失效了。", "This button no longer works.")
}

/// A plain-text answer, for handlers.
pub fn text(text: impl Into<String>) -> Answer {
    Answer { text: text.into(), ..Answer::default() }
}

#[cfg(test)]
#[path = "button_tests.rs"]
mod tests;
