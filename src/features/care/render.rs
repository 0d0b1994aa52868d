//! The cards of care messages: the prompt (large text, one question, ✅ 吃了 and ⏰ 等一下), the
//! caregivers' 「阿嬤 08:00 的血壓藥還沒確認」 with 我來打電話 and 她吃了, the plan's own card
//! (checked before it starts, with what it costs a month) and the weekly report with its chart.
//! In a group the member a message is for is @mentioned. The plain lines (notices after a tap,
//! a reading outside its limits) are [`super::words`].

use jiff::Timestamp;

use super::cost::MonthlyCost;
use super::report::Week;
use super::taps::{CareLater, CareOnIt, CareStart, CareStop, CareTaken};
use super::words::{dose_time, mention};
use super::{Plan, Route};
use crate::contract::chart::ChartSpec;
use crate::contract::{Card, CardRow, Styled, Tone};
use crate::features::button::Action;
use crate::line::flex::Palette;
use crate::line::message::Message;
use crate::line::postback::{ButtonSigner, PostbackKey};
use crate::platform::i18n::Lang;
use crate::store::{CareStatus, DoseRow};

/// `line` @mentioning `route`'s member (in a group), then the card (previewed as `line`, its
/// buttons signed for `route.to`).
fn mentioned_card(
    line: &str,
    card: &Card,
    route: &Route,
    palette: Palette,
    key: &PostbackKey,
) -> Vec<Message> {
    let signer = ButtonSigner::new(key.clone(), &route.to);
    let card = Message::card(card, line, palette, Some(&signer));
    mention(route, line).into_iter().chain([card]).collect()
}

/// The prompt for `dose`: 「08:00 的血壓藥吃了嗎？」 with ✅ 吃了 and ⏰ 等一下.
pub fn prompt(
    plan: &Plan,
    dose: &DoseRow,
    route: &Route,
    now: Timestamp,
    palette: Palette,
    key: &PostbackKey,
) -> Vec<Message> {
    let lang = plan.row.lang;
    let when = dose_time(plan, dose.due_at, now);
    let question = match lang {
        Lang::ZhTw => format!("{when} 的{}吃了嗎？", plan.row.what),
        Lang::En => format!("Did you take the {} of {when}?", plan.row.what),
    };
    let mut card = Card::new(format!("💊 {}", plan.row.person));
    card.headline = Some(Styled { text: question.clone(), tone: None });
    card.large = true;
    card.buttons.push(
        CareTaken { dose: dose.id }
            .button(lang.pick("✅ 吃了", "✅ Taken"), lang.pick("✅ 吃了", "✅ Taken")),
    );
    card.buttons.push(CareLater { dose: dose.id }.button(
        lang.pick("⏰ 等一下", "⏰ Later"),
        lang.pick("⏰ 等一下再提醒我", "⏰ Remind me later"),
    ));
    mentioned_card(&format!("💊 {question}"), &card, route, palette, key)
}

/// The caregivers' (or the group's) 「阿嬤 08:00 的血壓藥還沒確認」 with 我來打電話 and 她吃了.
pub fn unconfirmed(
    plan: &Plan,
    dose: &DoseRow,
    route: &Route,
    now: Timestamp,
    palette: Palette,
    key: &PostbackKey,
) -> Vec<Message> {
    let lang = plan.row.lang;
    let when = dose_time(plan, dose.due_at, now);
    let line = match lang {
        Lang::ZhTw => format!("{} {when} 的{}還沒確認", plan.row.person, plan.row.what),
        Lang::En => {
            format!("{} has not confirmed the {} of {when}", plan.row.person, plan.row.what)
        }
    };
    let mut card = Card::new(lang.pick("⚠️ 還沒確認", "⚠️ Not confirmed"));
    card.headline = Some(Styled { text: line.clone(), tone: Some(Tone::Warning) });
    card.buttons.push(CareOnIt { dose: dose.id }.button(
        lang.pick("📞 我來打電話", "📞 I'll call"),
        lang.pick("📞 我來打電話", "📞 I'll call"),
    ));
    card.buttons.push(CareTaken { dose: dose.id }.button(
        lang.pick("✅ 她吃了", "✅ It was taken"),
        lang.pick("✅ 她吃了", "✅ It was taken"),
    ));
    mentioned_card(&format!("⚠️ {line}"), &card, route, palette, key)
}

/// The plan's card: what, when, who confirms, who is told and when, the limits, what it costs
/// a month; ✅ 開始 on a draft.
pub fn plan_card(plan: &Plan, cost: MonthlyCost) -> Card {
    let lang = plan.row.lang;
    let r = &plan.row;
    let mut card = Card::new(match lang {
        Lang::ZhTw => format!("💊 照顧計畫：{}", r.person),
        Lang::En => format!("💊 Care plan: {}", r.person),
    });
    card.subtitle = Some(
        match r.status {
            CareStatus::Draft => lang.pick("請確認後按「開始」", "Check it, then tap Start"),
            CareStatus::Paused => lang.pick("已暫停", "Paused"),
            CareStatus::Active => lang.pick("進行中", "Running"),
        }
        .to_string(),
    );
    card.headline = Some(Styled { text: r.what.clone(), tone: None });
    card.rows.push(CardRow::new(
        lang.pick("時間", "Times"),
        format!("{} {}", plan.times_text(), days_text(plan)),
    ));
    let confirmer = r
        .confirmer_name
        .clone()
        .unwrap_or_else(|| lang.pick("群組裡任何人", "anyone in the group").into());
    card.rows.push(CardRow::new(lang.pick("誰確認", "Confirms"), confirmer));
    let names: Vec<&str> = plan.caregivers.iter().map(|c| c.name.as_str()).collect();
    let told = match (lang, r.again_mins.filter(|_| plan.in_group())) {
        (Lang::ZhTw, Some(again)) => {
            format!("{} 分鐘沒確認通知 {}，再 {again} 分鐘通知群組", r.after_mins, names.join("、"))
        }
        (Lang::ZhTw, None) => format!("{} 分鐘沒確認通知 {}", r.after_mins, names.join("、")),
        (Lang::En, Some(again)) => format!(
            "after {} min: {}; {again} min later: the group",
            r.after_mins,
            names.join(", ")
        ),
        (Lang::En, None) => format!("after {} min: {}", r.after_mins, names.join(", ")),
    };
    card.rows.push(CardRow::new(lang.pick("沒確認", "Unconfirmed"), told));
    let limits = limits_text(plan);
    if !limits.is_empty() {
        card.rows.push(CardRow::new(lang.pick("範圍", "Limits"), limits));
    }
    card.rows.push(CardRow::new(
        lang.pick("每月訊息", "Messages a month"),
        match lang {
            Lang::ZhTw => format!("約 {} 則；每次沒確認最多再 {} 則", cost.prompts, cost.per_miss),
            Lang::En => format!(
                "about {}; at most {} more per unconfirmed dose",
                cost.prompts, cost.per_miss
            ),
        },
    ));
    if r.status == CareStatus::Draft {
        card.buttons.push(CareStart { plan: r.id }.button(
            lang.pick("✅ 開始", "✅ Start"),
            lang.pick("✅ 開始照顧計畫", "✅ Start the care plan"),
        ));
    }
    card
}

fn days_text(plan: &Plan) -> String {
    let lang = plan.row.lang;
    if plan.row.workdays {
        return lang.pick("上班日", "workdays").into();
    }
    if plan.row.weekdays == 0 {
        return lang.pick("每天", "every day").into();
    }
    let names = match lang {
        Lang::ZhTw => ["一", "二", "三", "四", "五", "六", "日"],
        Lang::En => ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
    };
    let days: Vec<&str> =
        (0..7).filter(|i| plan.row.weekdays & (1 << i) != 0).map(|i| names[i]).collect();
    match lang {
        Lang::ZhTw => format!("每週{}", days.join("、")),
        Lang::En => days.join(", "),
    }
}

fn limits_text(plan: &Plan) -> String {
    let l = &plan.limits;
    let zh = plan.row.lang == Lang::ZhTw;
    let mut parts = Vec::new();
    // The family is told at or beyond a limit: 「收縮壓 ≤ 90 或 ≥ 160」.
    let or = if zh { "或" } else { "or" };
    let mut range = |name: &str, min: Option<u16>, max: Option<u16>| match (min, max) {
        (Some(lo), Some(hi)) => parts.push(format!("{name} ≤ {lo} {or} ≥ {hi}")),
        (None, Some(hi)) => parts.push(format!("{name} ≥ {hi}")),
        (Some(lo), None) => parts.push(format!("{name} ≤ {lo}")),
        (None, None) => {}
    };
    let [lo, hi] = l.systolic.unwrap_or_default();
    range(if zh { "收縮壓" } else { "systolic" }, lo, hi);
    let [lo, hi] = l.pulse.unwrap_or_default();
    range(if zh { "心跳" } else { "pulse" }, lo, hi);
    let [lo, hi] = l.glucose.unwrap_or_default();
    range(if zh { "血糖" } else { "glucose" }, lo, hi);
    parts.join(if zh { "、" } else { ", " })
}

/// The confirm step of stopping a plan: 🛑 停止並刪除紀錄 deletes it with its doses and readings.
pub fn stop_card(plan: &Plan) -> Card {
    let lang = plan.row.lang;
    let mut card = Card::new(match lang {
        Lang::ZhTw => format!("🛑 停止 {} 的照顧計畫？", plan.row.person),
        Lang::En => format!("🛑 Stop {}'s care plan?", plan.row.person),
    });
    card.subtitle = Some(
        lang.pick(
            "服藥與量測紀錄會一起刪除，無法復原。",
            "Its doses and readings are deleted too; this cannot be undone.",
        )
        .into(),
    );
    card.buttons.push(CareStop { plan: plan.row.id }.button(
        lang.pick("🛑 停止並刪除紀錄", "🛑 Stop and delete its records"),
        lang.pick("🛑 停止照顧計畫並刪除紀錄", "🛑 Stop the care plan and delete its records"),
    ));
    card
}

/// The weekly report's card, its chart described for the renderer to draw.
pub fn report_card(plan: &Plan, week: &Week) -> Card {
    let lang = plan.row.lang;
    let mut card = Card::new(match lang {
        Lang::ZhTw => format!("📋 {} 這週的{}", plan.row.person, plan.row.what),
        Lang::En => format!("📋 {}'s week: {}", plan.row.person, plan.row.what),
    });
    let first = week.days.first().map_or("", |d| d.label.as_str());
    let last = week.days.last().map_or("", |d| d.label.as_str());
    card.subtitle = Some(format!("{first}–{last}"));
    let all = week.taken + week.missed;
    card.headline = Some(Styled {
        text: match lang {
            Lang::ZhTw => format!("確認 {}/{all} 次", week.taken),
            Lang::En => format!("Confirmed {}/{all}", week.taken),
        },
        tone: (week.missed > 0).then_some(Tone::Warning),
    });
    for day in &week.days {
        let mut value = format!("✅{} ❌{}", day.taken, day.missed);
        if let (Some(s), Some(d)) = (day.systolic, day.diastolic) {
            value.push_str(&format!(" · {s:.0}/{d:.0}"));
        }
        if let Some(g) = day.glucose {
            value.push_str(&format!(" · {g:.0} mg/dL"));
        }
        card.rows.push(
            CardRow::new(day.label.clone(), value).toned((day.missed > 0).then_some(Tone::Warning)),
        );
    }
    let mut footnote = match lang {
        Lang::ZhTw => format!("量測 {} 次，{} 次超出範圍", week.readings, week.outside),
        Lang::En => format!("{} readings, {} outside the limits", week.readings, week.outside),
    };
    if week.waiting > 0 {
        footnote.push_str(&match lang {
            Lang::ZhTw => format!("；{} 次還在等確認", week.waiting),
            Lang::En => format!("; {} still waiting", week.waiting),
        });
    }
    card.footnote = Some(footnote);
    card.chart = Some(ChartSpec::Care { plan: plan.row.id, days: week.days.clone() });
    card
}
