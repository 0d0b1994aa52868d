//! The push a reminder becomes: in a group, a text that @mentions the member it is for, then a
//! card with ✅ done, ⏰ snooze and (for repeating ones) ❌ stop buttons.

use jiff::Timestamp;

use super::describe::{local_time, repetition};
use super::recurrence::{Freq, Schedule};
use super::taps::{CancelReminder, Occurrence, ReminderDone, SnoozeReminder};
use crate::contract::{Card, CardRow, Styled, Tone};
use crate::features::button::Action;
use crate::line::flex::Palette;
use crate::line::message::Message;
use crate::line::postback::{ButtonSigner, PostbackKey};
use crate::platform::conversation::Conversation;
use crate::platform::i18n::Lang;
use crate::store::ReminderRow;

/// The messages pushed for occurrence `occurrence` (at `at`) of `row`.
pub fn delivery(
    row: &ReminderRow,
    schedule: &Schedule,
    occurrence: u32,
    at: Timestamp,
    late: bool,
    palette: Palette,
    key: &PostbackKey,
) -> Vec<Message> {
    let lang = Lang::detect(&row.text);
    let conversation = Conversation::from_id(row.target());
    let mut messages = Vec::new();
    if let (Some(user), true) = (&row.mention_user_id, conversation.is_multi_person()) {
        messages.push(Message::mentioning(user, &format!("⏰ {}", row.text)));
    }
    let card = card(row, schedule, occurrence, at, late, lang);
    let signer = ButtonSigner::new(key.clone(), row.target());
    messages.push(Message::card(&card, &format!("⏰ {}", row.text), palette, Some(&signer)));
    messages
}

fn card(
    row: &ReminderRow,
    schedule: &Schedule,
    occurrence: u32,
    at: Timestamp,
    late: bool,
    lang: Lang,
) -> Card {
    let mut card = Card::new(lang.pick("⏰ 提醒", "⏰ Reminder"));
    card.headline = Some(Styled { text: row.text.clone(), tone: None });
    card.rows.push(CardRow::new(lang.pick("時間", "Time"), local_time(at, &schedule.tz, lang)));
    if let Some(r) = repetition(schedule, lang) {
        card.rows.push(CardRow::new(lang.pick("重複", "Repeats"), r));
    }
    if late {
        card.rows.push(
            CardRow::new(
                "⚠️",
                lang.pick("我剛才離線，這則提醒晚了送到", "I was offline; this reminder is late"),
            )
            .toned(Some(Tone::Warning)),
        );
    }
    let this = Occurrence { reminder: row.id, occurrence: i64::from(occurrence) };
    card.buttons.push(
        ReminderDone(this).button(lang.pick("✅ 完成", "✅ Done"), format!("✅ {}", row.text)),
    );
    card.buttons.push(SnoozeReminder(this).button(
        lang.pick("⏰ 10 分鐘後", "⏰ In 10 minutes"),
        lang.pick("⏰ 10 分鐘後再提醒", "⏰ Remind me in 10 minutes"),
    ));
    card.buttons.push(super::picker::occurrence_button(this, at, &schedule.tz, lang));
    if schedule.rule.freq != Freq::Once {
        card.buttons.push(CancelReminder { id: row.id }.button(
            lang.pick("❌ 取消", "❌ Stop"),
            lang.pick("❌ 取消這個提醒", "❌ Stop this reminder"),
        ));
    }
    card
}
