//! The buttons of reminder cards: ✅ done, ⏰ snooze 10 minutes, ❌ cancel. The postback was
//! verified against this conversation; every store call is also scoped to it.

use jiff::{SignedDuration, Timestamp};

use super::describe::local_time;
use crate::app::Hearth;
use crate::store::ReminderStatus;
use crate::tool::ToolCtx;

/// How long a snooze lasts.
pub const SNOOZE: SignedDuration = SignedDuration::from_mins(10);

fn parse_occurrence(id: &str) -> Option<(i64, i64)> {
    let (rid, occ) = id.split_once('-')?;
    Some((rid.parse().ok()?, occ.parse().ok()?))
}

/// ❌: cancels the reminder.
pub async fn cancel(app: &Hearth, ctx: &ToolCtx, id: &str) -> String {
    let lang = ctx.lang;
    let conversation = &ctx.conversation.id;
    let Ok(id) = id.parse::<i64>() else {
        return lang.pick("找不到這個提醒。", "No such reminder.").into();
    };
    let text = match app.store.reminder(conversation, id).await {
        Ok(Some(r)) => r.text,
        _ => return lang.pick("找不到這個提醒。", "No such reminder.").into(),
    };
    match app.store.cancel_reminder(conversation, id).await {
        Ok(true) => format!("{}{text}", lang.pick("❌ 已取消提醒：", "❌ Cancelled: ")),
        Ok(false) => format!(
            "{}{text}",
            lang.pick("這個提醒已經結束或取消了：", "Already finished or cancelled: ")
        ),
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
pub async fn done(app: &Hearth, ctx: &ToolCtx, id: &str) -> String {
    let lang = ctx.lang;
    let Some((rid, _)) = parse_occurrence(id) else {
        return lang.pick("找不到這個提醒。", "No such reminder.").into();
    };
    match app.store.reminder(&ctx.conversation.id, rid).await {
        Ok(Some(r)) => {
            let next = r
                .next_fire_at
                .filter(|_| r.status == ReminderStatus::Active)
                .and_then(|ms| Timestamp::from_millisecond(ms).ok())
                .zip(r.schedule())
                .map(|(t, s)| local_time(t, &s.tz, lang));
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
pub async fn snooze(app: &Hearth, ctx: &ToolCtx, id: &str) -> String {
    let lang = ctx.lang;
    let Some((rid, occurrence)) = parse_occurrence(id) else {
        return lang.pick("找不到這個提醒。", "No such reminder.").into();
    };
    let Ok(Some(row)) = app.store.reminder(&ctx.conversation.id, rid).await else {
        return lang.pick("找不到這個提醒。", "No such reminder.").into();
    };
    let now = ctx.now();
    let at = now.saturating_add(SNOOZE).unwrap_or(now);
    let tz = row.schedule().map(|s| s.tz).unwrap_or_else(|| ctx.tz.clone());
    let local = at.to_zoned_datetime(tz.clone()).strftime("%Y-%m-%dT%H:%M").to_string();
    let created = app
        .store
        .snooze_reminder(
            &ctx.conversation.id,
            rid,
            occurrence,
            &local,
            at.as_millisecond(),
            now.as_millisecond(),
        )
        .await;
    app.reminder_nudge.notify_one();
    let time = at.to_zoned_datetime(tz).strftime("%H:%M").to_string();
    match created {
        Ok(Some(_)) => format!(
            "{}{time}{}",
            lang.pick("⏰ 好的，", "⏰ OK, I'll remind you again at "),
            lang.pick(" 再提醒一次", "")
        ),
        Ok(None) => lang.pick("這個提醒已經延後過了。", "That reminder is already snoozed.").into(),
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
