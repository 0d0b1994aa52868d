//! `quota`: how much of this month's LINE message quota is used and left, what each chat's
//! pushes cost so far, and what the scheduled reminders will spend for the rest of the month,
//! as a card ("這個月訊息額度還剩多少？").

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::contract::{Card, CardRow, Tone, Tool, ToolCtx, ToolError};
use crate::features::reminders::ops::month_ahead::{ChatCost, month_ahead};
use crate::platform::conversation::{ChatKind, Conversation};
use crate::platform::i18n::Lang;
use crate::push::quota::QuotaTracker;
use crate::sources::calendar::WorkCalendar;

/// The most chats listed.
const MAX_CHATS: usize = 8;

/// Arguments of `quota` (none).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Args {}

/// What one chat spends.
#[derive(Debug, Clone, Serialize)]
pub struct ChatLine {
    /// Which chat, in words ("this chat", "a 1:1 chat", "another group").
    pub chat: String,
    /// Push requests.
    pub pushes: i64,
    /// Messages of the quota.
    pub messages: i64,
}

/// The result of `quota`.
#[derive(Debug, Clone, Serialize)]
pub struct Output {
    /// The month (YYYY-MM).
    pub month: String,
    /// The month's limit (`null`: no limit known).
    pub limit: Option<i64>,
    /// Messages used this month.
    pub used: i64,
    /// Messages left this month (`null`: no limit known).
    pub left: Option<i64>,
    /// Used plus what the scheduled reminders will spend for the rest of the month.
    pub projected: i64,
    /// What each chat's pushes cost this month so far.
    pub spent: Vec<ChatLine>,
    /// What the scheduled reminders will spend for the rest of the month, by chat.
    pub scheduled: Vec<ChatLine>,
}

/// The quota tool.
pub struct Quota {
    quota: QuotaTracker,
    work_calendar: WorkCalendar,
}

impl Quota {
    /// The tool over the quota's bookkeeping; workday reminders follow `work_calendar`.
    pub fn new(quota: QuotaTracker, work_calendar: WorkCalendar) -> Self {
        Self { quota, work_calendar }
    }
}

/// The first [`MAX_CHATS`] of `rows` (chat, push requests, messages) as lines of the result.
fn chat_lines<'a>(
    rows: impl Iterator<Item = (&'a str, i64, i64)>,
    here: &str,
    lang: Lang,
) -> Vec<ChatLine> {
    rows.take(MAX_CHATS)
        .map(|(chat, pushes, messages)| ChatLine {
            chat: chat_label(chat, here, lang),
            pushes,
            messages,
        })
        .collect()
}

/// A chat in words, from the asking chat's point of view (never an id).
fn chat_label(chat: &str, here: &str, lang: Lang) -> String {
    if chat == here {
        return lang.pick("這個聊天", "this chat").to_string();
    }
    match Conversation::from_id(chat).kind {
        ChatKind::User => lang.pick("一對一私訊", "a 1:1 chat"),
        ChatKind::Group => lang.pick("另一個群組", "another group"),
        ChatKind::Room => lang.pick("另一個聊天室", "another room"),
    }
    .to_string()
}

impl Tool for Quota {
    const NAME: &'static str = "quota";
    const DESCRIPTION: &'static str = "This month's LINE message quota (額度還剩多少): used, left, what scheduled pushes will spend. Replies are free; a push costs one per person in the chat.";
    type Args = Args;
    type Output = Output;

    async fn run(&self, ctx: &ToolCtx, _args: Args) -> Result<Output, ToolError> {
        let here = &ctx.conversation.id;
        let month = month_ahead(&self.quota, &self.work_calendar, ctx.now()).await?;
        let lines = |rows: &[ChatCost]| {
            chat_lines(rows.iter().map(|c| (c.chat.as_str(), c.pushes, c.messages)), here, ctx.lang)
        };
        Ok(Output {
            spent: lines(&month.spent),
            scheduled: lines(&month.scheduled),
            month: month.month,
            limit: month.limit,
            used: month.used,
            left: month.left,
            projected: month.projected,
        })
    }

    fn card(&self, ctx: &ToolCtx, out: &Output) -> Option<Card> {
        let lang = ctx.lang;
        let mut card = Card::new(lang.pick("📨 本月 LINE 訊息額度", "📨 LINE messages this month"));
        let used = match out.limit {
            Some(limit) => format!("{} / {limit}", out.used),
            None => out.used.to_string(),
        };
        card.rows.push(CardRow::new(lang.pick("已用", "Used"), used));
        if let Some(left) = out.left {
            let tone = out.limit.filter(|l| out.projected > *l).map(|_| Tone::Warning);
            card.rows.push(CardRow::new(lang.pick("剩下", "Left"), left.to_string()).toned(tone));
        }
        card.rows.push(CardRow::new(lang.pick("本月預計", "Projected"), out.projected.to_string()));
        for line in &out.scheduled {
            card.rows.push(CardRow::new(
                format!("{}{}", lang.pick("排定・", "Scheduled · "), line.chat),
                match lang {
                    Lang::ZhTw => format!("{} 則（推播 {} 次）", line.messages, line.pushes),
                    Lang::En => format!("{} ({} pushes)", line.messages, line.pushes),
                },
            ));
        }
        Some(crate::features::family_page::with_open_button(card, lang))
    }
}
