//! The plain lines of care messages: a dose's time as the family says it, the notices after a
//! tap (「哥哥 會打電話給阿嬤」, 「哥哥 確認阿嬤 08:00 的血壓藥吃了」), a reading outside its limits,
//! each as a text that @mentions its member in a group.

use jiff::Timestamp;

use super::{Plan, Route};
use crate::features::speech::reading::time_of_day;
use crate::line::message::Message;
use crate::platform::i18n::Lang;
use crate::store::DoseRow;

/// The dose's time as the family says it: 「08:00」 today, 「12/01 08:00」 another day.
pub fn dose_time(plan: &Plan, due_ms: i64, now: Timestamp) -> String {
    let Ok(due) = Timestamp::from_millisecond(due_ms) else { return String::new() };
    let z = due.to_zoned_datetime(plan.tz.clone());
    if z.date() == now.to_zoned_datetime(plan.tz.clone()).date() {
        z.strftime("%H:%M").to_string()
    } else {
        z.strftime("%m/%d %H:%M").to_string()
    }
}

/// The prompt as it is spoken: 「阿嬤，晚上八點了，該吃血壓藥了」.
pub fn spoken_prompt(plan: &Plan, dose: &DoseRow, now: Timestamp) -> String {
    let due = Timestamp::from_millisecond(dose.due_at).unwrap_or(now);
    let local = due.to_zoned_datetime(plan.tz.clone());
    let (person, what) = (&plan.row.person, &plan.row.what);
    match plan.row.lang {
        Lang::ZhTw => {
            let when = time_of_day(
                local.hour().unsigned_abs().into(),
                local.minute().unsigned_abs().into(),
                false,
            );
            format!("{person}，{when}了，該吃{what}了")
        }
        Lang::En => format!("{person}, it's {}. Time for the {what}.", local.strftime("%-I:%M %p")),
    }
}

/// A text that @mentions `route`'s member, when it has one.
pub fn mention(route: &Route, text: &str) -> Option<Message> {
    route.mention.as_deref().map(|user| Message::mentioning(user, text))
}

/// A short notice to `route`: someone confirmed the dose, or took it in hand.
pub fn notice(route: &Route, text: String) -> Vec<Message> {
    vec![mention(route, &text).unwrap_or_else(|| Message::text(text))]
}

/// 「小明 確認阿嬤 08:00 的血壓藥吃了」.
pub fn taken_line(plan: &Plan, dose: &DoseRow, by: &str, now: Timestamp) -> String {
    let when = dose_time(plan, dose.due_at, now);
    match plan.row.lang {
        Lang::ZhTw => format!("✅ {by} 確認{} {when} 的{}吃了", plan.row.person, plan.row.what),
        Lang::En => format!("✅ {by} confirmed {}'s {} of {when}", plan.row.person, plan.row.what),
    }
}

/// 「小明 會打電話給阿嬤（08:00 的血壓藥）」.
pub fn on_it_line(plan: &Plan, dose: &DoseRow, by: &str, now: Timestamp) -> String {
    let when = dose_time(plan, dose.due_at, now);
    match plan.row.lang {
        Lang::ZhTw => {
            format!("📞 {by} 會打電話給{}（{when} 的{}）", plan.row.person, plan.row.what)
        }
        Lang::En => {
            format!("📞 {by} is calling {} (the {} of {when})", plan.row.person, plan.row.what)
        }
    }
}

/// 「👋 哥哥 離開了群組：阿嬤 的血壓藥 沒確認、📞 叫家人 和血壓，都不會再通知他，回到群組後就會恢復」.
pub fn caregivers_left(plan: &Plan, names: &str) -> String {
    let (person, what) = (&plan.row.person, &plan.row.what);
    match plan.row.lang {
        Lang::ZhTw => format!(
            "👋 {names} 離開了群組：{person} 的{what}沒確認、📞 叫家人和量測數值，都不會再通知 {names}，回到群組後就會恢復。"
        ),
        Lang::En => format!(
            "👋 {names} left the group: {names} will no longer be told about {person}'s {what}, 📞 calls or readings, until back in the group."
        ),
    }
}

/// 「⚠️ 阿嬤 血壓 172/95（收縮壓 172 ≥ 160）— 小明 記錄」.
pub fn reading_line(plan: &Plan, described: &str, outside: &str, by: Option<&str>) -> String {
    let by = by.map(|b| format!(" — {b}")).unwrap_or_default();
    match plan.row.lang {
        Lang::ZhTw => format!("⚠️ {} {described}（{outside}）{by}", plan.row.person),
        Lang::En => format!("⚠️ {}: {described} ({outside}){by}", plan.row.person),
    }
}
