//! The buttons of reminder cards: ✅ done, ⏰ snooze 10 minutes, ❌ cancel. The postback was
//! verified against this conversation; each calls the reminders' operations, scoped to it.

use jiff::{SignedDuration, Timestamp};

use super::describe::local_time;
use super::ops::{Cancel, Reminders, Snoozed, Which};
use super::picker::{FORMAT, MoveReminder, PickError, RescheduleOccurrence, chosen, moved};
pub use super::taps::{CancelReminder, Occurrence, ReminderDone, SnoozeReminder};
use crate::contract::Answer;
use crate::contract::ToolCtx;
use crate::features::button::{Action, text};
use crate::features::deps::Deps;
use crate::line::webhook::Picked;
use crate::platform::i18n::Lang;
use crate::store::MovedRule;
use crate::store::ReminderStatus;

/// How long a snooze lasts.
pub const SNOOZE: SignedDuration = SignedDuration::from_mins(10);

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

// 📅: the date-time picker's choice ([`super::picker`]).

fn picked_not_found(lang: Lang) -> Answer {
    text(lang.pick("找不到這個提醒。", "No such reminder."))
}

fn not_moved(lang: Lang, e: &crate::store::StoreError) -> Answer {
    tracing::error!(error = %e, "reminder not moved");
    text(lang.pick(
        "抱歉，現在沒辦法改時間，請再試一次。",
        "Sorry, I couldn't change the time; please try again.",
    ))
}

impl Action for RescheduleOccurrence {
    const NAME: &'static str = "reminder_reschedule";

    async fn run(self, _deps: &Deps, ctx: &ToolCtx) -> Answer {
        text(PickError::NotADateTime.message(ctx.lang))
    }

    async fn run_picked(self, deps: &Deps, ctx: &ToolCtx, picked: &Picked) -> Answer {
        let lang = ctx.lang;
        let Occurrence { reminder, occurrence } = self.0;
        let reminders = Reminders::from_deps(deps);
        let Ok(Some(row)) = reminders.one(ctx, reminder).await else {
            return picked_not_found(lang);
        };
        let tz = row.time_zone().unwrap_or_else(|| ctx.tz.clone());
        let now = ctx.now();
        let (local, at) = match chosen(picked, &tz, now) {
            Ok(chosen) => chosen,
            Err(e) => return text(e.message(lang)),
        };
        let anchor = local.strftime(FORMAT).to_string();
        match reminders.reschedule_occurrence(ctx, reminder, occurrence, &anchor, at).await {
            Ok(true) => text(format!(
                "{}{}：{}",
                lang.pick("📅 好的，改到 ", "📅 OK, I'll remind you again on "),
                local_time(at, &tz, lang),
                row.text
            )),
            Ok(false) => picked_not_found(lang),
            Err(e) => not_moved(lang, &e),
        }
    }
}

impl Action for MoveReminder {
    const NAME: &'static str = "reminder_move";

    async fn run(self, _deps: &Deps, ctx: &ToolCtx) -> Answer {
        text(PickError::NotADateTime.message(ctx.lang))
    }

    async fn run_picked(self, deps: &Deps, ctx: &ToolCtx, picked: &Picked) -> Answer {
        let lang = ctx.lang;
        let reminders = Reminders::from_deps(deps);
        let Ok(Some(row)) = reminders.one(ctx, self.id).await else {
            return picked_not_found(lang);
        };
        if !matches!(row.status, ReminderStatus::Active | ReminderStatus::Paused) {
            return text(format!(
                "{}{}",
                lang.pick("這個提醒已經結束或取消了：", "Already finished or cancelled: "),
                row.text
            ));
        }
        let Some(schedule) = row.schedule(&deps.work_calendar) else {
            return picked_not_found(lang);
        };
        let now = ctx.now();
        let (local, _) = match chosen(picked, &schedule.tz, now) {
            Ok(chosen) => chosen,
            Err(e) => return text(e.message(lang)),
        };
        let fired = u32::try_from(row.next_occurrence).unwrap_or(0);
        let Some((moved, first)) = moved(&schedule, fired, local, now) else {
            return text(lang.pick(
                "這樣改之後就沒有下一次提醒了，請選別的時間 🙏",
                "Moved there, the reminder would never come again; please pick another time 🙏",
            ));
        };
        let anchor = moved.anchor.strftime(FORMAT).to_string();
        let rule = MovedRule {
            anchor_local: &anchor,
            rule: moved.rule,
            next_fire_at: first.as_millisecond(),
        };
        match reminders.move_rule(ctx, self.id, &rule).await {
            Ok(true) => {
                let when = local_time(first, &moved.tz, lang);
                let repeats = crate::features::reminders::describe::repetition(&moved, lang)
                    .map(|r| format!("（{r}）"))
                    .unwrap_or_default();
                text(format!(
                    "{}{when}{repeats}：{}",
                    lang.pick("📅 好的，提醒改到 ", "📅 OK, the reminder is now on "),
                    row.text
                ))
            }
            Ok(false) => picked_not_found(lang),
            Err(e) => not_moved(lang, &e),
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
