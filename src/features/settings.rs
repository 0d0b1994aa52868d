//! THE list of a chat's settings, and the operations every one of them goes through. A setting
//! is a type here: its stored name, and how the feed of changes says it was set. The family
//! sets one for the whole chat or, in a group, for the one member asking (「只有我」); reading it
//! for a member gives their own before the chat's. All live in one table, so a new setting is a
//! type in this list, the adapter that sets it (a tool, usually) and the place that reads it:
//! no migration, no repository, nothing to add to forgetting, export or copying.
//!
//! Beside them, who was welcomed to a group. (Quiet hours and the daily digest have their own
//! tables and operations: [`crate::push::quiet::setting`], [`crate::features::digest::ops::setting`].)

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::contract::{ToolCtx, ToolError};
use crate::features::deps::Deps;
use crate::features::verbs;
use crate::platform::i18n::Lang;
use crate::store::{Store, StoreError};

/// A chat's setting: a value kept under its name.
pub trait ChatSetting: Serialize + DeserializeOwned + PartialEq + Send + Sync {
    /// Its stored name (never renamed: the rows carry it).
    const NAME: &'static str;

    /// How the feed of changes says it was set to `value` (`None`: taken away): 「語音回答：開」.
    fn said(value: Option<&Self>, lang: Lang) -> String;
}

/// Spoken answers (「用講的回答我」): answers also come as a voice message
/// ([`crate::features::speech`]). Off is no setting at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct SpokenAnswers(pub bool);

impl ChatSetting for SpokenAnswers {
    const NAME: &'static str = "spoken_answers";

    fn said(value: Option<&Self>, lang: Lang) -> String {
        let on = value.is_some_and(|v| v.0);
        let state = if on { lang.pick("開", "on") } else { lang.pick("關", "off") };
        format!("{}{state}", lang.pick("語音回答：", "spoken answers: "))
    }
}

/// The place the chat last asked the weather for: 「要帶傘嗎」 with no place is about it. Kept
/// by hearth as it answers, not set by a member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LastPlace(pub String);

impl ChatSetting for LastPlace {
    const NAME: &'static str = "last_place";

    fn said(value: Option<&Self>, lang: Lang) -> String {
        let place = value.map(|v| v.0.as_str()).unwrap_or("-");
        format!("{}{place}", lang.pick("地點：", "place: "))
    }
}

/// The chats' settings, over the store.
#[derive(Clone)]
pub struct ChatSettings {
    store: Store,
}

impl ChatSettings {
    /// The settings kept in `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// The settings kept in `deps`' store.
    pub fn from_deps(deps: &Deps) -> Self {
        Self::new(deps.store.clone())
    }

    /// `S` in `chat` for `member`: their own when they set one, else the whole chat's. A value
    /// this build cannot read counts as none (logged).
    pub async fn get<S: ChatSetting>(
        &self,
        chat: &str,
        member: Option<&str>,
    ) -> Result<Option<S>, StoreError> {
        let Some(json) = self.store.chats().setting(chat, member, S::NAME).await? else {
            return Ok(None);
        };
        Ok(read(S::NAME, &json))
    }

    /// Who set `S` in `chat`, with their values: `None` for the whole chat, else a member.
    pub async fn holders<S: ChatSetting>(
        &self,
        chat: &str,
    ) -> Result<Vec<(Option<String>, S)>, StoreError> {
        let rows = self.store.chats().setting_holders(chat, S::NAME).await?;
        Ok(rows
            .into_iter()
            .filter_map(|(member, json)| {
                let value = read(S::NAME, &json)?;
                Some(((!member.is_empty()).then_some(member), value))
            })
            .collect())
    }

    /// `ctx`'s member sets `S` to `value` (`None`: takes it away) in their chat: for `member`
    /// alone, or for the whole chat (none). Recorded in the feed of changes, in the language
    /// asked in, when it changed something; false when it did not.
    pub async fn set<S: ChatSetting>(
        &self,
        ctx: &ToolCtx,
        member: Option<&str>,
        value: Option<&S>,
    ) -> Result<bool, StoreError> {
        let changed = self.put(ctx, member, value).await?;
        if changed {
            self.record::<S>(ctx, member, value).await;
        }
        Ok(changed)
    }

    /// Records in the feed that `ctx`'s member set `S` to `value`, for `member` or the chat.
    async fn record<S: ChatSetting>(&self, ctx: &ToolCtx, member: Option<&str>, value: Option<&S>) {
        let mut what = S::said(value, ctx.lang);
        if member.is_some() {
            what.push_str(ctx.lang.pick("（只有自己）", " (for themselves)"));
        }
        crate::features::changes::record(&self.store, ctx, &verbs::SETTING_SET, &what).await;
    }

    /// Keeps `value` as `S` for `ctx`'s chat, as hearth's own note (the last place asked
    /// about): not a member's change, so not in the feed.
    pub async fn keep<S: ChatSetting>(&self, ctx: &ToolCtx, value: &S) -> Result<(), StoreError> {
        self.put(ctx, None, Some(value)).await.map(|_| ())
    }

    async fn put<S: ChatSetting>(
        &self,
        ctx: &ToolCtx,
        member: Option<&str>,
        value: Option<&S>,
    ) -> Result<bool, StoreError> {
        let json = value.map(|v| serde_json::to_string(v).unwrap_or_default());
        let now = ctx.now().as_millisecond();
        let chat = &ctx.conversation.id;
        self.store.chats().put_setting(chat, member, S::NAME, json.as_deref(), now).await
    }

    /// Whether `chat`, or its `member`, asked for spoken answers.
    pub async fn spoken(&self, chat: &str, member: Option<&str>) -> Result<bool, StoreError> {
        Ok(self.get::<SpokenAnswers>(chat, member).await?.is_some_and(|s| s.0))
    }

    /// Spoken answers on or off in `ctx`'s chat: for `member` alone, or for the whole chat
    /// (none). Off for the whole chat of a group ends the asker's own too (「不用語音了」 ends it
    /// for whoever asks, whoever turned it on).
    pub async fn set_spoken(
        &self,
        ctx: &ToolCtx,
        member: Option<&str>,
        on: bool,
    ) -> Result<(), StoreError> {
        let value = on.then_some(SpokenAnswers(true));
        let mut changed = self.put(ctx, member, value.as_ref()).await?;
        if !on && member.is_none() && ctx.conversation.is_multi_person() {
            changed |= self.put::<SpokenAnswers>(ctx, ctx.user_id.as_deref(), None).await?;
        }
        if changed {
            self.record(ctx, member, value.as_ref()).await;
        }
        Ok(())
    }

    /// Of `users` who joined group `chat`, those never welcomed there, now marked welcomed (so
    /// a member is welcomed once, across replicas).
    pub async fn newcomers(
        &self,
        chat: &str,
        users: &[String],
        now_ms: i64,
    ) -> Result<Vec<String>, StoreError> {
        self.store.chats().mark_welcomed(chat, users, now_ms).await
    }
}

/// Whom a setting asked for in `ctx` is for: the asker alone when they said so in a group
/// (「只有我」), else the whole chat (`None`). An asker LINE does not name cannot have their own.
pub fn for_whom(ctx: &ToolCtx, just_me: Option<bool>) -> Result<Option<&str>, ToolError> {
    match (just_me, ctx.conversation.is_multi_person()) {
        (Some(true), true) => Ok(Some(ctx.user_id.as_deref().ok_or_else(|| {
            ToolError::InvalidArgs("the asker is unknown: set it for the chat".into())
        })?)),
        _ => Ok(None),
    }
}

/// How a tool's answer names whom a setting is for: `asker` or `chat`.
pub fn whom_named(member: Option<&str>) -> &'static str {
    if member.is_some() { "asker" } else { "chat" }
}

/// A stored value of setting `name`; none when this build cannot read it.
fn read<S: ChatSetting>(name: &str, json: &str) -> Option<S> {
    serde_json::from_str(json)
        .inspect_err(|e| tracing::warn!(setting = name, error = %e, "a setting cannot be read"))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(value: &impl Serialize) -> String {
        serde_json::to_string(value).expect("json")
    }

    #[test]
    fn the_settings_are_kept_as_plain_json() {
        assert_eq!(json(&SpokenAnswers(true)), "true");
        assert_eq!(json(&LastPlace("台南".into())), "\"台南\"");
        assert_eq!(read::<SpokenAnswers>("spoken_answers", "true"), Some(SpokenAnswers(true)));
        assert_eq!(read::<SpokenAnswers>("spoken_answers", "\"loud\""), None);
    }

    #[test]
    fn the_feed_says_what_was_set_in_the_language_asked_in() {
        assert_eq!(SpokenAnswers::said(Some(&SpokenAnswers(true)), Lang::En), "spoken answers: on");
        assert_eq!(SpokenAnswers::said(None, Lang::ZhTw), "語音回答：關");
    }
}
