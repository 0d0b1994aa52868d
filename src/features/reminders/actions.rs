//! The buttons of reminder cards: ✅ done, ⏰ snooze 10 minutes, ❌ cancel. The postback was
//! verified against this conversation; each calls the reminders' operations, scoped to it.

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use super::describe::local_time;
use super::ops::{Cancel, Reminders, Snoozed, Which};
use crate::contract::Answer;
use crate::contract::ToolCtx;
use crate::features::button::{Action, text};
use crate::features::deps::Deps;
use crate::store::ReminderStatus;

/// How long a snooze lasts.
pub const SNOOZE: SignedDuration = SignedDuration::from_mins(10);

/// ❌: cancel reminder `id` (reminder cards, the list, the confirmation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CancelReminder {
    /// The reminder.
    pub id: i64,
}

/// One delivered occurrence of a reminder, `42-3` on a button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Occurrence {
    /// The reminder.
    pub reminder: i64,
    /// Which of its deliveries.
    pub occurrence: i64,
}

impl From<Occurrence> for String {
    fn from(o: Occurrence) -> String {
        format!("{}-{}", o.reminder, o.occurrence)
    }
}

impl TryFrom<String> for Occurrence {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        let parsed = s.split_once('-').and_then(|(rid, occ)| {
            Some(Occurrence { reminder: rid.parse().ok()?, occurrence: occ.parse().ok()? })
        });
        parsed.ok_or_else(|| format!("{s:?} is not a reminder occurrence"))
    }
}

/// ✅ on a delivered reminder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ReminderDone(pub Occurrence);

/// ⏰ on a delivered reminder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SnoozeReminder(pub Occurrence);

impl Action for CancelReminder {
    const NAME: &'static str = "cancel_reminder";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        text(cancel(deps, ctx, self.id).await)
    }
}

impl Action for ReminderDone {
    const NAME: &'static str = "reminder_done";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        text(done(&Reminders::from_deps(deps), ctx, self.0).await)
    }
}

impl Action for SnoozeReminder {
    const NAME: &'static str = "reminder_snooze";

    async fn run(self, deps: &Deps, ctx: &ToolCtx) -> Answer {
        text(snooze(&Reminders::from_deps(deps), ctx, self.0).await)
    }
}

/// ❌: cancels the reminder, through the reminders' one cancel.
async fn cancel(deps: &Deps, ctx: &ToolCtx, id: i64) -> String {
    let lang = ctx.lang;
    match Reminders::from_deps(deps).cancel(ctx, Which::Id(id)).await {
        Ok(Cancel::Cancelled { text, .. }) => {
            format!("{}{text}", lang.pick("❌ 已取消提醒：", "❌ Cancelled: "))
        }
        Ok(Cancel::Ended { text }) => format!(
            "{}{text}",
            lang.pick("這個提醒已經結束或取消了：", "Already finished or cancelled: ")
        ),
        Ok(Cancel::NotFound | Cancel::Several(_)) => {
            lang.pick("找不到這個提醒。", "No such reminder.").into()
        }
        Err(e) => {
            tracing::error!(error = %e, "cancel failed");
            lang.pick(
                "抱歉，現在沒辦法取消，請再試一次。",
                "Sorry, I couldn't cancel it; please try again.",
            )
            .into()
        }
    }
}

/// ✅: acknowledges the occurrence; a repeating reminder keeps its next time.
async fn done(reminders: &Reminders, ctx: &ToolCtx, this: Occurrence) -> String {
    let lang = ctx.lang;
    match reminders.one(ctx, this.reminder).await {
        Ok(Some(r)) => {
            let next = r
                .next_fire_at
                .filter(|_| r.status == ReminderStatus::Active)
                .and_then(|ms| Timestamp::from_millisecond(ms).ok())
                .zip(r.time_zone())
                .map(|(t, tz)| local_time(t, &tz, lang));
            match next {
                Some(n) => format!(
                    "{}{}（{}{n}）",
                    lang.pick("✅ 完成：", "✅ Done: "),
                    r.text,
                    lang.pick("下次：", "next: ")
                ),
                None => format!("{}{}", lang.pick("✅ 完成：", "✅ Done: "), r.text),
            }
        }
        _ => lang.pick("找不到這個提醒。", "No such reminder.").into(),
    }
}

/// ⏰: the same reminder again in ten minutes, once per occurrence.
async fn snooze(reminders: &Reminders, ctx: &ToolCtx, this: Occurrence) -> String {
    let lang = ctx.lang;
    match reminders.snooze(ctx, this.reminder, this.occurrence, SNOOZE).await {
        Ok(Snoozed::At(time)) => format!(
            "{}{time}{}",
            lang.pick("⏰ 好的，", "⏰ OK, I'll remind you again at "),
            lang.pick(" 再提醒一次", "")
        ),
        Ok(Snoozed::Already) => {
            lang.pick("這個提醒已經延後過了。", "That reminder is already snoozed.").into()
        }
        Ok(Snoozed::NotFound) => lang.pick("找不到這個提醒。", "No such reminder.").into(),
        Err(e) => {
            tracing::error!(error = %e, "snooze failed");
            lang.pick(
                "抱歉，現在沒辦法延後，請再試一次。",
                "Sorry, I couldn't snooze it; please try again.",
            )
            .into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::button::{decode, encode};

    #[test]
    fn occurrence_buttons_keep_the_reminder_dash_occurrence_data() {
        let this = Occurrence { reminder: 42, occurrence: 3 };
        assert_eq!(encode(&ReminderDone(this)).expect("encode"), "42-3");
        assert_eq!(decode::<SnoozeReminder>("42-3").expect("decode"), SnoozeReminder(this));
        assert!(decode::<ReminderDone>("42").is_err());
        assert_eq!(encode(&CancelReminder { id: 42 }).expect("encode"), "42");
    }
}
