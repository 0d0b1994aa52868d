//! Gathering a chat's data for its export: the one place the export reads the store.

use jiff::Timestamp;
use jiff::tz::TimeZone;

use super::care::{ExportedCarePlan, ExportedDose, ExportedReading};
use super::*;
use crate::features::care::Plan;
use crate::features::reminders::describe;
use crate::features::settings::SpokenAnswers;
use crate::platform::i18n::Lang;
use crate::sources::calendar::WorkCalendar;
use crate::store::{Direction, ReminderStatus, Store, StoreError};

/// Everything `store` keeps for `chat`, its local times in `tz`, reminders described in `lang`
/// (workday ones following `work_calendar`), as of `now`.
pub async fn export(
    store: &Store,
    chat: &str,
    tz: &TimeZone,
    lang: Lang,
    work_calendar: &WorkCalendar,
    now: Timestamp,
) -> Result<Export, StoreError> {
    let reminders = store
        .reminders()
        .list(chat)
        .await?
        .into_iter()
        .map(|r| ExportedReminder {
            id: r.id,
            repeats: r.schedule(work_calendar).and_then(|s| describe::repetition(&s, lang)),
            next: r.next_fire_at.map(|at| local(at, tz)),
            for_member: r.mention_name.clone(),
            status: if r.status == ReminderStatus::Paused { "paused" } else { "active" },
            text: r.text,
        })
        .collect();
    let mut lists = Vec::new();
    for summary in store.lists().of_chat(chat).await? {
        let Some((list, items)) = store.lists().list_by_id(chat, summary.id).await? else {
            continue;
        };
        lists.push(ExportedList {
            // As the family sees it: the shopping list's name is its title (購物清單).
            name: crate::features::lists::ListName { key: list.key, name: list.name }.display(lang),
            items: items
                .into_iter()
                .map(|i| ExportedItem {
                    checked: i.checked_at.is_some(),
                    name: i.name,
                    quantity: i.quantity,
                    added_by: i.added_by_name,
                    checked_by: i.checked_by_name,
                })
                .collect(),
        });
    }
    let memories = store
        .memory()
        .memories(chat)
        .await?
        .into_iter()
        .map(|m| ExportedMemory {
            id: m.id,
            at: local(m.created_at, tz),
            said_by: m.speaker,
            text: m.text,
        })
        .collect();
    let price_alerts = store
        .price_alerts()
        .list(chat)
        .await?
        .into_iter()
        .map(|a| ExportedAlert {
            id: a.id,
            symbol: a.symbol,
            name: a.name,
            direction: match a.direction {
                Direction::Up => "rises_to",
                Direction::Down => "falls_to",
            },
            level: a.level,
            frequency: a.frequency,
        })
        .collect();
    let digest = store.digests().get(chat).await?.map(|d| ExportedDigest {
        time: d.local_time,
        place: d.place,
        only_when_something: d.only_when_something,
    });
    let quiet_hours = store
        .chats()
        .quiet_hours(chat)
        .await?
        .map(|q| ExportedQuietHours { start: q.start_local, end: q.end_local });
    let spoken_answers = spoken(store, chat).await?;
    let mut messages: Vec<ExportedMessage> = store
        .memory()
        .log_window(chat, 0, MAX_MESSAGES)
        .await?
        .into_iter()
        .map(|m| ExportedMessage { speaker: m.speaker, at: local(m.at_ms, tz), text: m.text })
        .collect();
    messages.reverse();
    Ok(Export {
        format: FORMAT,
        version: VERSION,
        chat: chat.to_string(),
        exported_at: local(now.as_millisecond(), tz),
        time_zone: tz.iana_name().unwrap_or("UTC").to_string(),
        reminders,
        lists,
        memories,
        price_alerts,
        digest,
        quiet_hours,
        spoken_answers,
        care_plans: care_plans(store, chat, tz).await?,
        calendar_events: store
            .calendar()
            .live(chat)
            .await?
            .into_iter()
            .map(|e| ExportedEvent {
                id: e.id,
                start: e.starts_local,
                end: e.ends_local,
                place: e.place,
                people: e.people,
                repeats: crate::features::calendar::repeats(e.rule.freq),
                called_off: e.skipped.split_whitespace().map(str::to_string).collect(),
                title: e.title,
            })
            .collect(),
        messages,
    })
}

/// Who asked for spoken answers in `chat`, members by name when known; `None` when nobody.
async fn spoken(store: &Store, chat: &str) -> Result<Option<ExportedSpoken>, StoreError> {
    let settings = crate::features::settings::ChatSettings::new(store.clone());
    let askers: Vec<Option<String>> = settings
        .holders::<SpokenAnswers>(chat)
        .await?
        .into_iter()
        .filter(|(_, on)| on.0)
        .map(|(member, _)| member)
        .collect();
    if askers.is_empty() {
        return Ok(None);
    }
    let mut members = Vec::new();
    for user in askers.iter().flatten() {
        let name = store.chat_log().member_name(chat, user).await?.map(|(name, _)| name);
        members.push(name.unwrap_or_else(|| user.clone()));
    }
    Ok(Some(ExportedSpoken { whole_chat: askers.iter().any(Option::is_none), members }))
}

/// The care plans set in `chat`.
async fn care_plans(
    store: &Store,
    chat: &str,
    tz: &TimeZone,
) -> Result<Vec<ExportedCarePlan>, StoreError> {
    let mut out = Vec::new();
    for row in
        store.care().plans_of_chat(chat).await?.into_iter().filter(|p| p.conversation_id == chat)
    {
        let Some(plan) = Plan::read(row) else { continue };
        let id = plan.row.id;
        let doses = store.care().doses_between(id, 0, i64::MAX).await?;
        let readings = store.care().readings_between(id, 0, i64::MAX).await?;
        out.push(ExportedCarePlan {
            id,
            times: plan.times.iter().map(|t| t.strftime("%H:%M").to_string()).collect(),
            caregivers: plan.caregivers.iter().map(|c| c.name.clone()).collect(),
            person: plan.row.person,
            what: plan.row.what,
            status: plan.row.status.as_str(),
            confirmed_by: plan.row.confirmer_name,
            doses: doses
                .into_iter()
                .map(|d| ExportedDose {
                    due: local(d.due_at, tz),
                    state: d.state,
                    by: d.settled_by,
                })
                .collect(),
            readings: readings
                .into_iter()
                .map(|r| ExportedReading {
                    at: local(r.taken_at, tz),
                    systolic: r.systolic,
                    diastolic: r.diastolic,
                    pulse: r.pulse,
                    glucose: r.glucose,
                    reported_by: r.reporter_name,
                })
                .collect(),
        });
    }
    Ok(out)
}
