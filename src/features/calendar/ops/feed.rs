//! A member's private feed of a chat's calendar, for their phone's calendar to subscribe to
//! (`webcal://…/calendar/<token>.ics`). The token is derived from the postback key, the chat,
//! the member and a random salt kept with the feed, so asking again gives the same link, a feed
//! made again after it ended gives another, and the store keeps only the token's SHA-256. A feed is the member's own: the server asks the door
//! ([`crate::door`]) at every read whether they are still in the chat, and 登出網頁, leaving or
//! forgetting the chat ends it. A link asked for in a group is never posted there: it is sent
//! to the member's 1:1 chat with hearth, as the family page's link is
//! ([`crate::features::family_page::link_route`]).

use jiff::Timestamp;
use serde::Serialize;

use crate::contract::{ToolCtx, ToolError};
use crate::features::calendar::{Event, ics};
use crate::features::deps::Deps;
use crate::features::family_page::token_hash;
use crate::line::message::Message;
use crate::line::postback::PostbackKey;
use crate::platform::i18n::Lang;
use crate::push::delivery::Pusher;
use crate::push::quota::QuotaTracker;
use crate::sources::calendar::WorkCalendar;
use crate::store::{Store, StoreError};

/// How long a cancelled event stays in the feed, so phones hear of it.
pub const CANCELLED_KEPT_DAYS: i64 = 30;
/// The path feeds are served under: `/calendar/{token}.ics`.
pub const PATH_PREFIX: &str = "/calendar/";

/// The feeds of every chat's calendar.
#[derive(Clone)]
pub struct Feeds {
    store: Store,
    key: PostbackKey,
    public_url: Option<String>,
    work_calendar: WorkCalendar,
    pusher: Pusher,
    quota: QuotaTracker,
}

/// Where the asker's link went.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Given {
    /// Here: a 1:1 chat is the asker's own.
    Here(FeedLink),
    /// Sent to the asker's 1:1 chat with hearth (asked in a group); not to be posted here.
    SentPrivately,
    /// Not sent: the asker has not added hearth as a friend, so nothing can reach them alone.
    AddFriendFirst,
    /// Not sent: their 1:1 chat is off, the month's messages are spent, or LINE failed.
    NotSent,
}

/// The link a member subscribes their phone to.
#[derive(Debug, Clone, Serialize)]
pub struct FeedLink {
    /// For a phone's calendar app (iPhone, most Android calendars).
    pub webcal: String,
    /// The same over https (Google Calendar's "From URL").
    pub https: String,
}

/// A feed as read: whose it is and what it holds.
#[derive(Debug, Clone)]
pub struct Feed {
    /// Its iCalendar text.
    pub ics: String,
    /// Its strong validator: the SHA-256 of the text.
    pub etag: String,
}

impl Feeds {
    /// Over `deps`' store, postback key and public address.
    pub fn from_deps(deps: &Deps) -> Self {
        Self {
            store: deps.store.clone(),
            key: deps.feed_key.clone(),
            public_url: deps.public_url.clone(),
            work_calendar: deps.work_calendar.clone(),
            pusher: deps.pusher.clone(),
            quota: deps.quota.clone(),
        }
    }

    /// The token of `user`'s feed of `chat` with `salt`.
    fn token(&self, chat: &str, user: &str, salt: &str) -> String {
        token_hash(&self.key.sign(chat, "calendar_feed", &format!("{user}.{salt}")))
    }

    /// The link of `ctx`'s member's feed of their chat, if they have one (the family page
    /// shows it to them).
    pub async fn existing(&self, ctx: &ToolCtx) -> Result<Option<FeedLink>, ToolError> {
        let (chat, user) = (&ctx.conversation.id, ctx.user_id.as_deref().unwrap_or_default());
        match self.store.calendar().feed_of(chat, user).await? {
            Some(_) => self.link(ctx).await.map(Some),
            None => Ok(None),
        }
    }

    /// The link of `ctx`'s member's feed of their chat, made now if they had none.
    pub async fn link(&self, ctx: &ToolCtx) -> Result<FeedLink, ToolError> {
        let Some(base) = self.public_url.as_deref() else {
            return Err(ToolError::InvalidArgs(
                "this hearth has no public address (HEARTH_PUBLIC_URL), so phones cannot reach its calendar".into(),
            ));
        };
        let Some(user) = ctx.user_id.as_deref() else {
            return Err(ToolError::InvalidArgs(
                "LINE did not say who asked, so the link cannot be theirs".into(),
            ));
        };
        let chat = &ctx.conversation.id;
        let calendar = self.store.calendar();
        let (hash, salt) = match calendar.feed_of(chat, user).await? {
            Some(kept) => kept,
            None => {
                let salt = uuid::Uuid::new_v4().simple().to_string();
                let hash = token_hash(&self.token(chat, user, &salt));
                calendar.keep_feed(chat, user, &hash, &salt, ctx.now().as_millisecond()).await?;
                // Another request may have made one first: its salt is the one kept.
                calendar.feed_of(chat, user).await?.unwrap_or((hash, salt))
            }
        };
        let token = self.token(chat, user, &salt);
        // Derived from the postback key: after the key changed (a new channel secret), the
        // link given now is the one that works, and the old one no longer does.
        if token_hash(&token) != hash {
            calendar.rehash_feed(chat, user, &token_hash(&token)).await?;
        }
        let https = format!("{}{PATH_PREFIX}{token}.ics", base.trim_end_matches('/'));
        let webcal = format!("webcal://{}", https.trim_start_matches("https://"));
        Ok(FeedLink { webcal, https })
    }

    /// The asker's link, given where only they see it: here in a 1:1 chat, else pushed to their
    /// 1:1 chat with hearth.
    pub async fn give(&self, ctx: &ToolCtx) -> Result<Given, ToolError> {
        let link = self.link(ctx).await?;
        if !ctx.conversation.is_multi_person() {
            return Ok(Given::Here(link));
        }
        let user = ctx.user_id.clone().unwrap_or_default();
        if !self.quota.is_friend(&user).await {
            return Ok(Given::AddFriendFirst);
        }
        let text = match ctx.lang {
            Lang::ZhTw => format!(
                "📅 把家庭行事曆加到你的手機：\n\niPhone、大多數的行事曆 App：點這裡\n{}\n\nGoogle 日曆（其他日曆 →「透過網址新增」）：\n{}\n\n這個連結只給你，請不要轉傳。在群組按「登出網頁」會停用它。",
                link.webcal, link.https
            ),
            Lang::En => format!(
                "📅 Put the family calendar on your phone:\n\niPhone and most calendar apps: tap\n{}\n\nGoogle Calendar (Other calendars → From URL):\n{}\n\nThis link is yours alone: do not forward it. 「Sign out of the page」 in the group turns it off.",
                link.webcal, link.https
            ),
        };
        let message = [Message::text(text)];
        let chat = &ctx.conversation.id;
        match self.pusher.push_now(chat, &user, &message, uuid::Uuid::new_v4()).await {
            Ok(()) => Ok(Given::SentPrivately),
            Err(e) => {
                tracing::info!(error = %e, "the calendar's link was not sent privately");
                Ok(Given::NotSent)
            }
        }
    }

    /// The chat and member of the feed `token` names, if it is one.
    pub async fn whose(&self, token: &str) -> Result<Option<(String, String)>, StoreError> {
        self.store.calendar().feed(&token_hash(token)).await
    }

    /// The feed of `chat` (in `zone`) as of `now`.
    pub async fn read(
        &self,
        chat: &str,
        zone: &jiff::tz::TimeZone,
        now: Timestamp,
    ) -> Result<Feed, StoreError> {
        let since = now.as_millisecond() - CANCELLED_KEPT_DAYS * 24 * 3_600_000;
        let rows = self.store.calendar().in_feed(chat, since).await?;
        let events: Vec<Event> = rows.iter().filter_map(Event::of).collect();
        // The text depends on the day (the window moves), not on the second: a phone asking
        // twice the same day gets the same text and its 304.
        let day = jiff::tz::TimeZone::UTC.to_datetime(now).date();
        let midnight = day.to_datetime(jiff::civil::Time::midnight());
        let at = jiff::tz::TimeZone::UTC.to_timestamp(midnight).unwrap_or(now);
        let ics = ics::feed("家庭行事曆 · hearth", zone, &events, at, &self.work_calendar);
        let etag = format!("\"{}\"", &token_hash(&ics)[..32]);
        Ok(Feed { ics, etag })
    }

    /// Forgets the events cancelled longer ago than a feed shows them ([`CANCELLED_KEPT_DAYS`])
    /// as of `now`: how many (the prune loop).
    pub async fn forget_cancelled(&self, now: Timestamp) -> Result<u64, StoreError> {
        let before = now.as_millisecond() - CANCELLED_KEPT_DAYS * 24 * 3_600_000;
        self.store.calendar().forget_cancelled(before).await
    }

    /// Ends `user`'s feed of `chat` (登出網頁); whether there was one.
    pub async fn end(&self, chat: &str, user: &str) -> Result<bool, StoreError> {
        self.store.calendar().end_feed(chat, user).await
    }
}
